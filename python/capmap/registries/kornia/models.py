"""Kornia survey: models (randomly initialised networks and their building blocks).

Nothing is downloaded: every network is built with `pretrained=False` and small widths.
"""

from __future__ import annotations

import kornia.models as km
import kornia.models.common as common
import kornia.models.processors as processors
import kornia.models.tiny_vit as tiny_vit
import torch

from capmap import case, deferred

from ._inputs import image, randn

# Random initialisation draws from the global generator: fix it so every import builds the same
# weights.
torch.manual_seed(0)

G_NET = "models.networks"
G_BLOCK = "models.blocks"
G_PROC = "models.processors"

case(
    "RRDBNet",
    G_NET,
    km.RRDBNet(3, 3, scale=2, num_feat=8, num_block=1, num_grow_ch=4),
    [image(h=16, w=16)],
    note="small random configuration",
)
case(
    "RRDBNet[scale=4]",
    G_NET,
    km.RRDBNet(3, 3, scale=4, num_feat=8, num_block=1, num_grow_ch=4),
    [image(h=16, w=16)],
)
case(
    "SmallSRNet", G_NET, km.small_sr.SmallSRNet(upscale_factor=2, pretrained=False), [image(c=1, h=16, w=16)]
)
case(
    "SmallSRNetWrapper",
    G_NET,
    km.small_sr.SmallSRNetWrapper(upscale_factor=2, pretrained=False),
    [image(h=16, w=16)],
)
case("YuNet", G_NET, km.yunet.YuNet("test", pretrained=False), [image(h=64, w=64)])
case("DexiNed", G_NET, deferred(km.dexined.DexiNed, pretrained=False), [image(h=64, w=64)])

# Shared building blocks.
case("ConvNormAct", G_BLOCK, common.ConvNormAct(3, 8, 3), [image(h=16, w=16)])
case(
    "ConvNormAct[act=silu,stride=2]",
    G_BLOCK,
    common.ConvNormAct(3, 8, 3, stride=2, act="silu"),
    [image(h=16, w=16)],
)
case("DropPath", G_BLOCK, common.DropPath(0.1), [randn(2, 8, 16, seed=1)], note="identity in eval mode")
case("LayerNorm2d", G_BLOCK, common.LayerNorm2d(8), [randn(1, 8, 16, 16, seed=2)])
case("MLP", G_BLOCK, common.MLP(16, 32, 8, 2), [randn(4, 16, seed=3)])
case("MLP[sigmoid_output]", G_BLOCK, common.MLP(16, 32, 8, 2, sigmoid_output=True), [randn(4, 16, seed=3)])
windows_in = randn(1, 14, 14, 8, seed=4)
case(
    "window_partition",
    G_BLOCK,
    common.window_partition,
    [windows_in, 4],
    note="pads to a multiple of the window",
)
with torch.no_grad():
    windows, padded = common.window_partition(windows_in, 4)
case("window_unpartition", G_BLOCK, common.window_unpartition, [windows, 4, padded, (14, 14)])

# TinyViT blocks (the whole network is probed as contrib's TinyViT).
tokens = randn(1, 16, 32, seed=5)
case("tiny_vit.Attention", G_BLOCK, tiny_vit.Attention(32, 8, num_heads=2, resolution=(4, 4)), [tokens])
case(
    "tiny_vit.TinyViTBlock", G_BLOCK, tiny_vit.TinyViTBlock(32, (4, 4), num_heads=2, window_size=2), [tokens]
)
case(
    "tiny_vit.BasicLayer",
    G_BLOCK,
    tiny_vit.BasicLayer(32, (4, 4), depth=1, num_heads=2, window_size=2),
    [tokens],
)
case("tiny_vit.MLP", G_BLOCK, tiny_vit.MLP(32, 64, 32), [tokens])
case("tiny_vit.ConvBN", G_BLOCK, tiny_vit.ConvBN(3, 8, 3, padding=1), [image(h=16, w=16)])
case("tiny_vit.PatchEmbed", G_BLOCK, tiny_vit.PatchEmbed(3, 16), [image(h=16, w=16)])
case("tiny_vit.MBConv", G_BLOCK, tiny_vit.MBConv(8, 8, 4.0), [randn(1, 8, 8, 8, seed=6)])
case("tiny_vit.ConvLayer", G_BLOCK, tiny_vit.ConvLayer(8, depth=1), [randn(1, 8, 8, 8, seed=6)])
case(
    "tiny_vit.PatchMerging",
    G_BLOCK,
    tiny_vit.PatchMerging((8, 8), 8, 16, stride=2),
    [randn(1, 8, 8, 8, seed=6)],
)

# Pre- and post-processors that wrap models.
case("ResizePreProcessor", G_PROC, processors.ResizePreProcessor(24, 24), [image()])
case(
    "ResizePostProcessor",
    G_PROC,
    processors.ResizePostProcessor(),
    [image(h=16, w=16), torch.tensor([[32, 40]])],
)
case("OutputRangePostProcessor", G_PROC, processors.OutputRangePostProcessor(), [randn(1, 3, 8, 8, seed=7)])
