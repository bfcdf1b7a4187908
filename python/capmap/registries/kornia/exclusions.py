"""Kornia survey: exclusions."""
