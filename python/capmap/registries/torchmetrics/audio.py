"""torchmetrics.functional.audio: signal-to-noise and distortion ratios."""

from __future__ import annotations

import torch
import torchmetrics.functional.audio as tma

from capmap import case
from capmap.registries.torchmetrics._inputs import audio

for name in (
    "signal_noise_ratio",
    "scale_invariant_signal_noise_ratio",
    "scale_invariant_signal_distortion_ratio",
    "signal_distortion_ratio",
):
    tags = ("quick",) if name == "scale_invariant_signal_noise_ratio" else ()
    case(name, "audio", getattr(tma, name), audio(), tags=tags)
case(
    "source_aggregated_signal_distortion_ratio",
    "audio",
    tma.source_aggregated_signal_distortion_ratio,
    [t.reshape(1, 2, 800) for t in audio()],
)
_g = torch.Generator().manual_seed(15)
case(
    "complex_scale_invariant_signal_noise_ratio",
    "audio",
    tma.complex_scale_invariant_signal_noise_ratio,
    [torch.randn(2, 33, 10, 2, generator=_g), torch.randn(2, 33, 10, 2, generator=_g)],
)
_mix = [t.reshape(1, 2, 800) for t in audio()]
case(
    "permutation_invariant_training",
    "audio",
    tma.permutation_invariant_training,
    _mix,
    {"metric_func": tma.scale_invariant_signal_distortion_ratio, "eval_func": "max"},
)
case("pit_permutate", "audio", tma.pit_permutate, [_mix[0], torch.tensor([[1, 0]])])
