"""Kornia survey: utils."""
