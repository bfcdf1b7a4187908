"""Input factories for the kornia-B areas (feature, filters, color, enhance, ...).

Every factory seeds its own generator so that the same registry import always builds the same
inputs, whatever was imported before.
"""

from __future__ import annotations

import torch

H, W = 32, 40


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def image(b: int = 1, c: int = 3, h: int = H, w: int = W, seed: int = 0) -> torch.Tensor:
    """An image batch with values in [0, 1]."""
    return torch.rand(b, c, h, w, generator=_gen(seed))


def smooth_image(b: int = 1, c: int = 3, h: int = H, w: int = W, seed: int = 0) -> torch.Tensor:
    """An image with structure (blobs and edges) so detectors and matchers find something."""
    ys = torch.linspace(-1.0, 1.0, h).view(h, 1)
    xs = torch.linspace(-1.0, 1.0, w).view(1, w)
    g = _gen(seed)
    out = torch.zeros(b, c, h, w)
    for _ in range(6):
        cy, cx = (torch.rand(2, generator=g) * 1.6 - 0.8).tolist()
        r = float(torch.rand(1, generator=g)) * 0.3 + 0.1
        blob = torch.exp(-((ys - cy) ** 2 + (xs - cx) ** 2) / (2 * r * r))
        out += blob * torch.rand(b, c, 1, 1, generator=g)
    out += ((xs > 0.2) & (ys < 0.1)).float() * 0.5
    return (out / out.amax()).clamp(0.0, 1.0)


def volume(b: int = 1, c: int = 1, d: int = 8, h: int = 16, w: int = 16, seed: int = 0) -> torch.Tensor:
    return torch.rand(b, c, d, h, w, generator=_gen(seed))


def normal(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=_gen(seed))


def uniform(*shape: int, low: float = 0.0, high: float = 1.0, seed: int = 0) -> torch.Tensor:
    return torch.rand(*shape, generator=_gen(seed)) * (high - low) + low


def labels(*shape: int, classes: int, seed: int = 0) -> torch.Tensor:
    return torch.randint(0, classes, shape, generator=_gen(seed))


def binary_mask(*shape: int, seed: int = 0) -> torch.Tensor:
    return (torch.rand(*shape, generator=_gen(seed)) > 0.5).float()


def probabilities(b: int, classes: int, h: int, w: int, seed: int = 0) -> torch.Tensor:
    return torch.softmax(torch.randn(b, classes, h, w, generator=_gen(seed)), dim=1)


def boxes_xyxy(n: int, h: int = H, w: int = W, seed: int = 0) -> torch.Tensor:
    """n valid boxes (x1 < x2, y1 < y2) inside an h x w image."""
    g = _gen(seed)
    x1 = torch.rand(n, generator=g) * (w / 2)
    y1 = torch.rand(n, generator=g) * (h / 2)
    bw = torch.rand(n, generator=g) * (w / 2 - 2) + 2
    bh = torch.rand(n, generator=g) * (h / 2 - 2) + 2
    return torch.stack([x1, y1, x1 + bw, y1 + bh], dim=-1)


def points_in_image(b: int, n: int, h: int = H, w: int = W, seed: int = 0) -> torch.Tensor:
    """B x N x 2 pixel coordinates (x, y) well inside the image."""
    g = _gen(seed)
    xy = torch.rand(b, n, 2, generator=g)
    return torch.stack([xy[..., 0] * (w - 8) + 4, xy[..., 1] * (h - 8) + 4], dim=-1)


def lafs(b: int = 1, n: int = 4, h: int = H, w: int = W, scale: float = 4.0, seed: int = 0) -> torch.Tensor:
    """B x N x 2 x 3 local affine frames: centres inside the image, rotations, a small scale."""
    g = _gen(seed)
    centers = points_in_image(b, n, h, w, seed=seed)
    angle = torch.rand(b, n, generator=g) * 6.28
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    a = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)
    return torch.cat([a, centers.unsqueeze(-1)], dim=-1)


def rotation_matrices(n: int, seed: int = 0) -> torch.Tensor:
    """n proper rotations (det +1) from random quaternions."""
    q = torch.nn.functional.normalize(torch.randn(n, 4, generator=_gen(seed)), dim=-1)
    w, x, y, z = q.unbind(-1)
    return torch.stack(
        [
            1 - 2 * (y * y + z * z),
            2 * (x * y - z * w),
            2 * (x * z + y * w),
            2 * (x * y + z * w),
            1 - 2 * (x * x + z * z),
            2 * (y * z - x * w),
            2 * (x * z - y * w),
            2 * (y * z + x * w),
            1 - 2 * (x * x + y * y),
        ],
        dim=-1,
    ).view(n, 3, 3)


def camera_matrix(b: int = 1, h: int = H, w: int = W) -> torch.Tensor:
    k = torch.tensor([[float(w), 0.0, w / 2.0], [0.0, float(w), h / 2.0], [0.0, 0.0, 1.0]])
    return k.expand(b, 3, 3).clone()


def descriptors(n: int, dim: int = 32, seed: int = 0) -> torch.Tensor:
    return torch.nn.functional.normalize(torch.randn(n, dim, generator=_gen(seed)), dim=-1)


def tiny_rtdetr_config() -> object:
    """The smallest RT-DETR configuration the constructors accept (random weights, 64 px)."""
    from kornia.models.rt_detr import RTDETRConfig

    return RTDETRConfig(
        "resnet18d",
        num_classes=4,
        input_size=64,
        neck_hidden_dim=32,
        neck_dim_feedforward=64,
        head_hidden_dim=32,
        head_num_queries=10,
        head_num_decoder_layers=1,
    )
