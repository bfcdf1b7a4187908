"""Kornia survey: nerf."""
