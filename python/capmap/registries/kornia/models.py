"""Kornia survey: models."""
