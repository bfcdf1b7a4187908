"""Small programs whose ExecuTorch outcomes are known: the test registry of the executorch path."""

from __future__ import annotations

import torch
from capmap import case

G = "lowering"


class ConvRelu(torch.nn.Module):
    """A convolution and a ReLU: XNNPACK takes both."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def gated(x: torch.Tensor) -> torch.Tensor:
    # The product goes to XNNPACK; the comparison and the select stay with the portable kernels.
    return torch.where(x > 0, x * 3.0, x)


def solved(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # torch.linalg.solve is outside the core ATen operator set that the edge dialect accepts.
    return torch.linalg.solve(a, b)


def squashed(x: torch.Tensor) -> torch.Tensor:
    # XNNPACK's tanh is an approximation a few float32 steps away from eager's.
    return torch.tanh(x)


def doubled_in_place(x: torch.Tensor) -> torch.Tensor:
    # The program writes into its input: ExecuTorch returns that input's new value first.
    x.mul_(2.0)
    return x + 1.0


torch.manual_seed(0)
case("conv_relu", G, ConvRelu(), [torch.randn(1, 3, 8, 8)])
case("gated", G, gated, [torch.randn(2, 16)])
case("solved", G, solved, [torch.randn(3, 3) + 3 * torch.eye(3), torch.randn(3, 2)])
case("squashed", G, squashed, [4 * torch.randn(4, 256)])
# The same program with no tolerance at all: the comparison shows XNNPACK's difference.
case("squashed[exact]", G, squashed, [4 * torch.randn(4, 256)], atol=0.0, rtol=0.0)
case("doubled_in_place", G, doubled_in_place, [torch.randn(2, 8)])
