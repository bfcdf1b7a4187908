"""Example survey: small nn.Modules defined here, covering layers, control flow and methods."""

import torch
from torch import nn

from capmap import case, library

library("example")

torch.manual_seed(0)


class ConvBlock(nn.Module):
    """Conv, batch norm, ReLU: the usual vision building block (batch norm needs eval mode)."""

    def __init__(self, channels: int = 3, width: int = 8) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, width, 3, padding=1)
        self.norm = nn.BatchNorm2d(width)
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.norm(self.conv(x)))


class TinyMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Dropout(0.1), nn.Linear(32, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class SignGate(nn.Module):
    """Branches in Python on a tensor's value: a graph break / data-dependent control flow."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return x * 2
        return x - 1


class Standardizer(nn.Module):
    """Has a public method besides forward; `method=` probes that method."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.5, 0.4, 0.3]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.2, 0.25, 0.3]).view(1, 3, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.normalize(x)

    def normalize(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) / self.std

    def denormalize(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.std + self.mean


_x = torch.rand(2, 3, 8, 8)

case("ConvBlock", "nn.layers.conv", ConvBlock(), [_x])
case("TinyMLP", "nn.layers.linear", TinyMLP(), [torch.rand(5, 16)], note="dropout is off in eval mode")
case("SignGate", "nn.control_flow", SignGate(), [_x - 0.5])
case("Standardizer[normalize]", "nn.methods", Standardizer(), [_x], method="normalize")
case("Standardizer[denormalize]", "nn.methods", Standardizer(), [_x], method="denormalize")
case(
    "TinyLSTM",
    "nn.layers.recurrent",
    nn.LSTM(4, 8, batch_first=True),
    [torch.rand(2, 5, 4)],
    skip="recurrent layers are surveyed separately",
)
