"""Kornia survey: losses."""
