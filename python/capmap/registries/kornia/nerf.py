"""Kornia survey: nerf.

kornia 0.9 ships no `kornia.nerf` package (it was removed before 0.9), so this area has no
cases; the module stays so that a kornia version that has it gets its cases here.
"""
