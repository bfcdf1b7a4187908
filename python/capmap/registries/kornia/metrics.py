"""Kornia survey: metrics."""
