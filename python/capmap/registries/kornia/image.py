"""Kornia survey: image."""
