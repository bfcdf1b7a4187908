"""Kornia survey: filters."""
