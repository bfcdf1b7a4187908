"""Kornia survey: sensors."""
