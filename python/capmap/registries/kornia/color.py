"""Kornia survey: color (colour-space conversions, raw/Bayer, colormaps, sepia)."""

from __future__ import annotations

from typing import Any

import kornia.color as kc
import torch

from capmap import case

from ._inputs import H, W, image, rand

G = "color"
QUICK = ("quick",)

rgb = image()
rgb_batch = image(b=2, seed=1)
rgba = image(c=4, seed=2)
# Valid inputs for the inverse conversions come from the forward ones, so every value is in range.
with torch.no_grad():
    hsv = kc.rgb_to_hsv(rgb)
    hls = kc.rgb_to_hls(rgb)
    lab = kc.rgb_to_lab(rgb)
    luv = kc.rgb_to_luv(rgb)
    xyz = kc.rgb_to_xyz(rgb)
    ycbcr = kc.rgb_to_ycbcr(rgb)
    yuv = kc.rgb_to_yuv(rgb)
    y420, uv420 = kc.rgb_to_yuv420(rgb)
    y422, uv422 = kc.rgb_to_yuv422(rgb)
raw = image(c=1, seed=3)
rgb255 = rgb * 255.0
normals = rand(1, 3, H, W, low=-1.0, high=1.0, seed=4)
gray = image(c=1, seed=5)


def pair(
    fn: Any, module: Any, inputs: list[Any], kwargs: dict[str, Any] | None = None, **options: Any
) -> None:
    """The function and its nn.Module form on the same inputs, under their public names."""
    public = next(n for n in kc.__all__ if getattr(kc, n) is fn)
    case(public, G, fn, inputs, kwargs, **options)
    case(type(module).__name__, G, module, inputs, **{k: v for k, v in options.items() if k != "tags"})


pair(kc.rgb_to_grayscale, kc.RgbToGrayscale(), [rgb], tags=QUICK)
case("rgb_to_grayscale[rgb_weights]", G, kc.rgb_to_grayscale, [rgb, torch.tensor([0.2, 0.7, 0.1])])
case("rgb_to_grayscale[batch=2]", G, kc.rgb_to_grayscale, [rgb_batch])
pair(kc.bgr_to_grayscale, kc.BgrToGrayscale(), [rgb])
pair(kc.grayscale_to_rgb, kc.GrayscaleToRgb(), [gray])
case("rgb_to_y", G, kc.rgb_to_y, [rgb])
pair(kc.rgb_to_bgr, kc.RgbToBgr(), [rgb])
pair(kc.bgr_to_rgb, kc.BgrToRgb(), [rgb])
pair(kc.rgb_to_rgba, kc.RgbToRgba(1.0), [rgb], {"alpha_val": 1.0})
case("rgb_to_rgba[alpha=tensor]", G, kc.rgb_to_rgba, [rgb, rand(1, 1, H, W, seed=6)])
pair(kc.bgr_to_rgba, kc.BgrToRgba(1.0), [rgb], {"alpha_val": 1.0})
pair(kc.rgba_to_rgb, kc.RgbaToRgb(), [rgba])
case("rgba_to_rgb[background_color]", G, kc.rgba_to_rgb, [rgba, torch.full((1, 3, 1, 1), 0.5)])
pair(kc.rgba_to_bgr, kc.RgbaToBgr(), [rgba])
pair(kc.rgb_to_hsv, kc.RgbToHsv(), [rgb], tags=QUICK)
case("rgb_to_hsv[batch=2]", G, kc.rgb_to_hsv, [rgb_batch])
pair(kc.hsv_to_rgb, kc.HsvToRgb(), [hsv])
pair(kc.rgb_to_hls, kc.RgbToHls(), [rgb])
pair(kc.hls_to_rgb, kc.HlsToRgb(), [hls])
pair(kc.rgb_to_lab, kc.RgbToLab(), [rgb], tags=QUICK)
pair(kc.lab_to_rgb, kc.LabToRgb(), [lab])
case("lab_to_rgb[clip=False]", G, kc.lab_to_rgb, [lab], {"clip": False})
pair(kc.rgb_to_luv, kc.RgbToLuv(), [rgb])
pair(kc.luv_to_rgb, kc.LuvToRgb(), [luv])
pair(kc.rgb_to_xyz, kc.RgbToXyz(), [rgb])
pair(kc.xyz_to_rgb, kc.XyzToRgb(), [xyz])
pair(kc.rgb_to_ycbcr, kc.RgbToYcbcr(), [rgb])
pair(kc.ycbcr_to_rgb, kc.YcbcrToRgb(), [ycbcr])
pair(kc.rgb_to_yuv, kc.RgbToYuv(), [rgb])
pair(kc.yuv_to_rgb, kc.YuvToRgb(), [yuv])
pair(kc.rgb_to_yuv420, kc.RgbToYuv420(), [rgb])
pair(kc.yuv420_to_rgb, kc.Yuv420ToRgb(), [y420, uv420])
pair(kc.rgb_to_yuv422, kc.RgbToYuv422(), [rgb])
pair(kc.yuv422_to_rgb, kc.Yuv422ToRgb(), [y422, uv422])
pair(kc.rgb_to_linear_rgb, kc.RgbToLinearRgb(), [rgb])
pair(kc.linear_rgb_to_rgb, kc.LinearRgbToRgb(), [rgb])
pair(kc.rgb_to_rgb255, kc.RgbToRgb255(), [rgb])
pair(kc.rgb255_to_rgb, kc.Rgb255ToRgb(), [rgb255])
pair(kc.rgb255_to_normals, kc.Rgb255ToNormals(), [rgb255])
pair(kc.normals_to_rgb255, kc.NormalsToRgb255(), [normals])
pair(kc.sepia, kc.Sepia(), [rgb])
case("sepia[rescale=False]", G, kc.sepia, [rgb], {"rescale": False})

# Bayer patterns: the default (BG) first, then every other pattern as a variant.
pair(kc.raw_to_rgb, kc.RawToRgb(kc.CFA.BG), [raw], {"cfa": kc.CFA.BG})
pair(kc.rgb_to_raw, kc.RgbToRaw(kc.CFA.BG), [rgb], {"cfa": kc.CFA.BG})
pair(kc.raw_to_rgb_2x2_downscaled, kc.RawToRgb2x2Downscaled(kc.CFA.BG), [raw], {"cfa": kc.CFA.BG})
for cfa in (kc.CFA.GB, kc.CFA.RG, kc.CFA.GR):
    case(f"raw_to_rgb[cfa={cfa.name}]", G, kc.raw_to_rgb, [raw], {"cfa": cfa})
    case(f"rgb_to_raw[cfa={cfa.name}]", G, kc.rgb_to_raw, [rgb], {"cfa": cfa})
    case(f"raw_to_rgb_2x2_downscaled[cfa={cfa.name}]", G, kc.raw_to_rgb_2x2_downscaled, [raw], {"cfa": cfa})

# Colormaps: one ColorMap per base; the default configuration uses 'autumn' with 64 colours.
cmap = kc.ColorMap("autumn")
gray_levels = (gray * 63).round()
pair(kc.apply_colormap, kc.ApplyColorMap(cmap), [gray_levels], {"colormap": cmap})
for base in ("viridis", "jet", "hsv"):
    colormap = kc.ColorMap(base, num_colors=32)
    case(
        f"apply_colormap[{base},num_colors=32]",
        G,
        kc.apply_colormap,
        [(gray * 31).round()],
        {"colormap": colormap},
    )

# Settings Kornia's own survey measures, written so that `capmap diff` pairs the two surveys'
# cases one to one.
case(
    "ApplyColorMap[jet16,int]",
    G,
    kc.ApplyColorMap(kc.ColorMap("jet", num_colors=16)),
    [(gray * 15).round().long()],
    note="jet with 16 colours on an int64 image of levels 0..15",
)
case("RgbToGrayscale[rgb_weights]", G, kc.RgbToGrayscale(torch.tensor([0.2, 0.7, 0.1])), [rgb])
case(
    "apply_colormap[autumn]",
    G,
    kc.apply_colormap,
    [(gray * 15).round()],
    {"colormap": kc.ColorMap("autumn", num_colors=16)},
)
case(
    "apply_colormap[batch]",
    G,
    kc.apply_colormap,
    [(image(b=2, c=1, seed=6) * 63).round()],
    {"colormap": cmap},
)
two_stops = kc.ColorMap([[0.0, 0.0, 0.2], [1.0, 0.9, 0.1]], num_colors=8)
case("apply_colormap[custom_rgb]", G, kc.apply_colormap, [(gray * 7).round()], {"colormap": two_stops})
case("bgr_to_rgba[alpha=tensor]", G, kc.bgr_to_rgba, [rgb, torch.full((1, 1, H, W), 0.5)])
case("raw_to_rgb[batch]", G, kc.raw_to_rgb, [image(b=2, c=1, seed=7)], {"cfa": kc.CFA.BG})
case("rgb_to_hsv[eps]", G, kc.rgb_to_hsv, [rgb], {"eps": 1e-3})
case("rgba_to_rgb[background_color=tuple]", G, kc.rgba_to_rgb, [rgba], {"background_color": (0.5, 0.2, 0.9)})
