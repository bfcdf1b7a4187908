"""Kornia survey: geometry."""
