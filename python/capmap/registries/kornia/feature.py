"""Kornia survey: feature."""
