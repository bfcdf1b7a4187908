"""Kornia survey: enhance."""
