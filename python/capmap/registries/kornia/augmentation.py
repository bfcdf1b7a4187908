"""Kornia survey: augmentation."""
