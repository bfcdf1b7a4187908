"""Kornia survey: tracking."""
