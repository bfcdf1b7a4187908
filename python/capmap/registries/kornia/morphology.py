"""Kornia survey: morphology."""
