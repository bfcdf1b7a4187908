"""Kornia survey: color."""
