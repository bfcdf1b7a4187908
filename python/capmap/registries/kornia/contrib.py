"""Kornia survey: contrib."""
