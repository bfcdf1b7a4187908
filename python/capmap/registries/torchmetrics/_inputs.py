"""Inputs shared by the torchmetrics areas: small, seeded, in the shapes the metrics expect."""

from __future__ import annotations

import torch

N = 16  # samples
C = 4  # classes
L = 3  # labels


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def binary() -> list[torch.Tensor]:
    """Probabilities and 0/1 targets."""
    g = _gen(1)
    return [torch.rand(N, generator=g), torch.randint(0, 2, (N,), generator=g)]


def multiclass() -> list[torch.Tensor]:
    """Class probabilities (N, C) and class indices."""
    g = _gen(2)
    return [torch.randn(N, C, generator=g).softmax(-1), torch.randint(0, C, (N,), generator=g)]


def multilabel() -> list[torch.Tensor]:
    """Label probabilities (N, L) and 0/1 targets."""
    g = _gen(3)
    return [torch.rand(N, L, generator=g), torch.randint(0, 2, (N, L), generator=g)]


def regression(positive: bool = False) -> list[torch.Tensor]:
    g = _gen(4)
    if positive:
        return [torch.rand(N, generator=g) + 0.1, torch.rand(N, generator=g) + 0.1]
    return [torch.randn(N, generator=g), torch.randn(N, generator=g)]


def distributions() -> list[torch.Tensor]:
    """Two batches of probability distributions (8, 5)."""
    g = _gen(5)
    return [torch.randn(8, 5, generator=g).softmax(-1), torch.randn(8, 5, generator=g).softmax(-1)]


def categories(columns: int = 0) -> list[torch.Tensor]:
    """Two categorical variables of 32 observations (or a (32, columns) matrix of them)."""
    g = _gen(6)
    if columns:
        return [torch.randint(0, 3, (32, columns), generator=g)]
    return [torch.randint(0, 3, (32,), generator=g), torch.randint(0, 3, (32,), generator=g)]


def images(channels: int = 3, size: int = 32) -> list[torch.Tensor]:
    g = _gen(7)
    a = torch.rand(2, channels, size, size, generator=g)
    return [a, (a * 0.8 + 0.2 * torch.rand(2, channels, size, size, generator=g)).clamp(0, 1)]


def audio() -> list[torch.Tensor]:
    g = _gen(8)
    target = torch.randn(2, 800, generator=g)
    return [target + 0.1 * torch.randn(2, 800, generator=g), target]


def retrieval() -> list[torch.Tensor]:
    g = _gen(9)
    return [torch.rand(12, generator=g), torch.randint(0, 2, (12,), generator=g).bool()]
