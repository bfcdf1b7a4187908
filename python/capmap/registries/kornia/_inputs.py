"""The input factories of the Kornia registry: every file takes its inputs from here, and each
name means one thing (`rand` and `randn` for plain tensors of a shape, `image` for an image).

Every factory seeds its own generator, so a case's inputs are the same on every import and
in every worker. A value computed at import through a library op (a model's activations fed to
one of its blocks, a fitted whitening, a QR factor) is computed in float64 and rounded once to
float32 (`in_float64`): the last bits of a float32 result change with the CPU's kernels, MKL's
code path and the thread count, a float64 result rounded to float32 practically never does.
Sizes are small (images 1x3x32x40, volumes 1x1x8x16x16) so that each eager run stays well
under 0.2 s, and values are valid for the operator: proper rotations, camera
matrices with positive focal lengths, points inside the image, depths in front of the camera.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch

SEED = 0
H, W = 32, 40


def gen(seed: int = SEED) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def rand(*shape: int, seed: int = SEED, low: float = 0.0, high: float = 1.0) -> torch.Tensor:
    return low + (high - low) * torch.rand(*shape, generator=gen(seed))


def randn(*shape: int, seed: int = SEED, scale: float = 1.0) -> torch.Tensor:
    return scale * torch.randn(*shape, generator=gen(seed))


# Images and volumes ---------------------------------------------------------------------------


def image(b: int = 1, c: int = 3, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """A float image in [0, 1]."""
    return rand(b, c, h, w, seed=seed)


def gray(b: int = 1, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    return image(b, 1, h, w, seed)


def volume(b: int = 1, c: int = 1, d: int = 8, h: int = 16, w: int = 16, seed: int = SEED) -> torch.Tensor:
    return rand(b, c, d, h, w, seed=seed)


def video(b: int = 1, t: int = 3, c: int = 3, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    return rand(b, t, c, h, w, seed=seed)


def mask(b: int = 1, c: int = 1, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """A binary float mask, B x C x H x W."""
    return binary_mask(b, c, h, w, seed=seed)


def heatmap(b: int = 1, c: int = 1, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """A smooth response map with a few distinct peaks (detector-like)."""
    ys = torch.arange(h, dtype=torch.float32).view(h, 1)
    xs = torch.arange(w, dtype=torch.float32).view(1, w)
    centers = rand(b * c, 3, 2, seed=seed) * torch.tensor([h - 1.0, w - 1.0])
    out = torch.zeros(b * c, h, w)
    for i in range(3):
        cy = centers[:, i, 0].view(-1, 1, 1)
        cx = centers[:, i, 1].view(-1, 1, 1)
        out = out + torch.exp(-((ys - cy) ** 2 + (xs - cx) ** 2) / 8.0) * (1.0 - 0.2 * i)
    return out.view(b, c, h, w)


def depth(b: int = 1, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """A positive depth map (1..3 metres), shape B x 1 x H x W."""
    return rand(b, 1, h, w, seed=seed, low=1.0, high=3.0)


# Rotations and poses --------------------------------------------------------------------------


def axis_angle(b: int = 1, seed: int = SEED, max_angle: float = 1.0) -> torch.Tensor:
    """Axis-angle vectors with angles in (0.1, max_angle) rad: away from the singular zero."""
    axis = torch.nn.functional.normalize(randn(b, 3, seed=seed), dim=-1)
    angle = rand(b, 1, seed=seed + 1, low=0.1, high=max_angle)
    return axis * angle


def skew(v: torch.Tensor) -> torch.Tensor:
    """Cross-product matrices of B x 3 vectors."""
    x, y, z = v.unbind(-1)
    zero = torch.zeros_like(x)
    return torch.stack([zero, -z, y, z, zero, -x, -y, x, zero], -1).view(-1, 3, 3)


def rodrigues(aa: torch.Tensor) -> torch.Tensor:
    """Rotation matrices of B x 3 axis-angle vectors (none of them zero)."""
    theta = aa.norm(dim=-1, keepdim=True)
    k = skew(aa / theta)
    s = torch.sin(theta).view(-1, 1, 1)
    c = torch.cos(theta).view(-1, 1, 1)
    return torch.eye(3) + s * k + (1 - c) * (k @ k)


def rotation(b: int = 1, seed: int = SEED) -> torch.Tensor:
    """Proper rotation matrices B x 3 x 3, angles up to 1 rad."""
    return rodrigues(axis_angle(b, seed))


def rotation_small(b: int = 1, seed: int = SEED) -> torch.Tensor:
    """Proper rotation matrices B x 3 x 3, angles up to 0.2 rad (a camera that keeps its view)."""
    return rodrigues(axis_angle(b, seed, max_angle=0.2))


def quaternion(b: int = 1, seed: int = SEED) -> torch.Tensor:
    """Unit quaternions (w, x, y, z) with w > 0."""
    aa = axis_angle(b, seed)
    theta = aa.norm(dim=-1, keepdim=True)
    return torch.cat([torch.cos(theta / 2), torch.sin(theta / 2) * aa / theta], -1)


def translation(b: int = 1, seed: int = SEED, scale: float = 0.3) -> torch.Tensor:
    return randn(b, 3, 1, seed=seed, scale=scale)


def pose(b: int = 1, seed: int = SEED) -> torch.Tensor:
    """Rigid transforms B x 4 x 4."""
    out = torch.eye(4).repeat(b, 1, 1)
    out[:, :3, :3] = rotation(b, seed)
    out[:, :3, 3:] = translation(b, seed + 2)
    return out


def angles(b: int = 1, seed: int = SEED) -> torch.Tensor:
    """Angles in degrees, shape B."""
    return rand(b, seed=seed, low=-45.0, high=45.0)


# Cameras --------------------------------------------------------------------------------------


def intrinsics(b: int = 1, h: int = H, w: int = W) -> torch.Tensor:
    """Pinhole camera matrices B x 3 x 3: focal ~ image width, principal point at the centre."""
    k = torch.zeros(b, 3, 3)
    k[:, 0, 0] = 1.2 * w
    k[:, 1, 1] = 1.2 * w
    k[:, 0, 2] = (w - 1) / 2
    k[:, 1, 2] = (h - 1) / 2
    k[:, 2, 2] = 1.0
    return k


def intrinsics4(b: int = 1, h: int = H, w: int = W) -> torch.Tensor:
    k = torch.eye(4).repeat(b, 1, 1)
    k[:, :3, :3] = intrinsics(b, h, w)
    return k


def extrinsics4(b: int = 1, seed: int = SEED) -> torch.Tensor:
    """World-to-camera B x 4 x 4 with a small rotation so that the scene stays in view."""
    out = torch.eye(4).repeat(b, 1, 1)
    out[:, :3, :3] = rotation_small(b, seed)
    out[:, :3, 3:] = translation(b, seed + 2, scale=0.1)
    return out


def points2d(b: int = 1, n: int = 8, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """Pixel coordinates (x, y) inside the image, B x N x 2."""
    return rand(b, n, 2, seed=seed) * torch.tensor([w - 1.0, h - 1.0])


def points3d(b: int = 1, n: int = 8, seed: int = SEED) -> torch.Tensor:
    """Points in front of a camera (z in 2..4) and within its view, B x N x 3."""
    xy = rand(b, n, 2, seed=seed, low=-0.3, high=0.3)
    z = rand(b, n, 1, seed=seed + 1, low=2.0, high=4.0)
    return torch.cat([xy * z, z], -1)


def distortion(b: int = 1, n: int = 5) -> torch.Tensor:
    """Mild lens distortion coefficients (k1, k2, p1, p2, k3, ...)."""
    base = torch.tensor([-0.05, 0.01, 0.001, -0.001, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    return base[:n].repeat(b, 1)


def two_views(b: int = 1, n: int = 16, seed: int = SEED) -> dict[str, torch.Tensor]:
    """Two calibrated views of one scene: K, R/t of both cameras, matched pixel points (x1, x2)
    and the same in normalised camera coordinates (n1, n2), P1/P2, F and E."""
    k = intrinsics(b)
    x3 = points3d(b, n, seed)
    r1, t1 = torch.eye(3).repeat(b, 1, 1), torch.zeros(b, 3, 1)
    r2 = rotation_small(b, seed + 3)
    t2 = torch.tensor([[-0.2], [0.03], [0.02]]).repeat(b, 1, 1)

    def project(r: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        cam = x3 @ r.transpose(-1, -2) + t.transpose(-1, -2)
        pix = cam @ k.transpose(-1, -2)
        return pix[..., :2] / pix[..., 2:]

    kinv = torch.linalg.inv(k)

    def normalized(pix: torch.Tensor) -> torch.Tensor:
        """Pixel points mapped through K^-1: the coordinates the essential-matrix solvers take."""
        return pix @ kinv[:, :2, :2].transpose(-1, -2) + kinv[:, None, :2, 2]

    e = skew(t2[:, :, 0]) @ r2
    f = kinv.transpose(-1, -2) @ e @ kinv
    f = f / f[:, 2:3, 2:3]
    p1 = k @ torch.cat([r1, t1], -1)
    p2 = k @ torch.cat([r2, t2], -1)
    return {
        "K": k,
        "R1": r1,
        "t1": t1,
        "R2": r2,
        "t2": t2,
        "X": x3,
        "x1": project(r1, t1),
        "x2": project(r2, t2),
        "n1": normalized(project(r1, t1)),
        "n2": normalized(project(r2, t2)),
        "E": e,
        "F": f,
        "P1": p1,
        "P2": p2,
    }


# Planar transforms ----------------------------------------------------------------------------


def affine2x3(b: int = 1, seed: int = SEED) -> torch.Tensor:
    """Mild affine transforms B x 2 x 3 (about identity, a few pixels of shift)."""
    a = torch.eye(2, 3).repeat(b, 1, 1)
    return a + randn(b, 2, 3, seed=seed, scale=0.05) * torch.tensor([[1.0, 1.0, 20.0], [1.0, 1.0, 20.0]])


def homography(b: int = 1, seed: int = SEED) -> torch.Tensor:
    """Mild homographies B x 3 x 3 with a weak perspective part."""
    h = torch.eye(3).repeat(b, 1, 1)
    h[:, :2, :] = affine2x3(b, seed)
    h[:, 2, :2] = randn(b, 2, seed=seed + 1, scale=1e-3)
    return h


def affine3x4(b: int = 1, seed: int = SEED) -> torch.Tensor:
    a = torch.eye(3, 4).repeat(b, 1, 1)
    return a + randn(b, 3, 4, seed=seed, scale=0.03) * torch.tensor([1.0, 1.0, 1.0, 10.0])


def homography3d(b: int = 1, seed: int = SEED) -> torch.Tensor:
    h = torch.eye(4).repeat(b, 1, 1)
    h[:, :3, :] = affine3x4(b, seed)
    return h


def quad(b: int = 1, h: int = H, w: int = W) -> torch.Tensor:
    """The corners of the image, clockwise from top-left, B x 4 x 2."""
    return torch.tensor([[0.0, 0.0], [w - 1.0, 0.0], [w - 1.0, h - 1.0], [0.0, h - 1.0]]).repeat(b, 1, 1)


def quad_moved(b: int = 1, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    return quad(b, h, w) + randn(b, 4, 2, seed=seed, scale=2.0)


def boxes_xyxy(b: int = 1, n: int = 3, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """Boxes (x1, y1, x2, y2) inside the image, B x N x 4."""
    tl = rand(b, n, 2, seed=seed) * torch.tensor([w / 2.0, h / 2.0])
    size = rand(b, n, 2, seed=seed + 1, low=0.25, high=0.45) * torch.tensor([w * 1.0, h * 1.0])
    return torch.cat([tl, tl + size], -1).floor()


def boxes_xywh(b: int = 1, n: int = 3, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """The boxes of `boxes_xyxy` as (x, y, width, height)."""
    xyxy = boxes_xyxy(b, n, h, w, seed)
    return torch.cat([xyxy[..., :2], xyxy[..., 2:] - xyxy[..., :2]], -1)


def box_corners(b: int = 1, n: int = 3, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """Boxes as 4 corners (clockwise from top-left), B x N x 4 x 2."""
    xyxy = boxes_xyxy(b, n, h, w, seed)
    x1, y1, x2, y2 = xyxy.unbind(-1)
    return torch.stack(
        [
            torch.stack([x1, y1], -1),
            torch.stack([x2, y1], -1),
            torch.stack([x2, y2], -1),
            torch.stack([x1, y2], -1),
        ],
        -2,
    )


def box_corners3d(b: int = 1, n: int = 2, d: int = 8, h: int = 16, w: int = 16) -> torch.Tensor:
    """3D boxes as 8 corners, B x N x 8 x 3 (front face then back face, clockwise)."""
    lo = torch.tensor([1.0, 2.0, 1.0])
    hi = torch.tensor([w / 2.0, h / 2.0, d / 2.0])
    corners = []
    for z in (lo[2], hi[2]):
        for x, y in ((lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])):
            corners.append(torch.stack([x, y, z]))
    box = torch.stack(corners)
    return torch.stack([box + i for i in range(n)]).unsqueeze(0).repeat(b, 1, 1, 1)


# Feature, filter, loss and model inputs -------------------------------------------------------


def smooth_image(b: int = 1, c: int = 3, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """An image with structure (blobs and edges) so detectors and matchers find something."""
    ys = torch.linspace(-1.0, 1.0, h).view(h, 1)
    xs = torch.linspace(-1.0, 1.0, w).view(1, w)
    g = gen(seed)
    out = torch.zeros(b, c, h, w)
    for _ in range(6):
        cy, cx = (torch.rand(2, generator=g) * 1.6 - 0.8).tolist()
        r = float(torch.rand(1, generator=g)) * 0.3 + 0.1
        blob = torch.exp(-((ys - cy) ** 2 + (xs - cx) ** 2) / (2 * r * r))
        out += blob * torch.rand(b, c, 1, 1, generator=g)
    out += ((xs > 0.2) & (ys < 0.1)).float() * 0.5
    return (out / out.amax()).clamp(0.0, 1.0)


def labels(*shape: int, classes: int, seed: int = SEED) -> torch.Tensor:
    return torch.randint(0, classes, shape, generator=gen(seed))


def binary_mask(*shape: int, seed: int = SEED) -> torch.Tensor:
    """A binary float mask of any shape (`mask` is the B x C x H x W one)."""
    return (rand(*shape, seed=seed) > 0.5).float()


def probabilities(b: int, classes: int, h: int, w: int, seed: int = SEED) -> torch.Tensor:
    return torch.softmax(torch.randn(b, classes, h, w, generator=gen(seed)), dim=1)


def boxes_xyxy_unbatched(n: int, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """n valid boxes (x1 < x2, y1 < y2) inside an h x w image, N x 4 (`boxes_xyxy` has a batch)."""
    g = gen(seed)
    x1 = torch.rand(n, generator=g) * (w / 2)
    y1 = torch.rand(n, generator=g) * (h / 2)
    bw = torch.rand(n, generator=g) * (w / 2 - 2) + 2
    bh = torch.rand(n, generator=g) * (h / 2 - 2) + 2
    return torch.stack([x1, y1, x1 + bw, y1 + bh], dim=-1)


def points_in_image(b: int, n: int, h: int = H, w: int = W, seed: int = SEED) -> torch.Tensor:
    """B x N x 2 pixel coordinates (x, y) well inside the image."""
    g = gen(seed)
    xy = torch.rand(b, n, 2, generator=g)
    return torch.stack([xy[..., 0] * (w - 8) + 4, xy[..., 1] * (h - 8) + 4], dim=-1)


def lafs(
    b: int = 1, n: int = 4, h: int = H, w: int = W, scale: float = 4.0, seed: int = SEED
) -> torch.Tensor:
    """B x N x 2 x 3 local affine frames: centres inside the image, rotations, a small scale."""
    g = gen(seed)
    centers = points_in_image(b, n, h, w, seed=seed)
    angle = torch.rand(b, n, generator=g) * 6.28
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    a = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)
    return torch.cat([a, centers.unsqueeze(-1)], dim=-1)


def rotation_matrices(n: int, seed: int = SEED) -> torch.Tensor:
    """n proper rotations (det +1) from random quaternions."""
    q = torch.nn.functional.normalize(torch.randn(n, 4, generator=gen(seed)), dim=-1)
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


def descriptors(n: int, dim: int = 32, seed: int = SEED) -> torch.Tensor:
    return torch.nn.functional.normalize(torch.randn(n, dim, generator=gen(seed)), dim=-1)


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


# Values computed at import ----------------------------------------------------------------------


def as_dtype(value: Any, source: torch.dtype, target: torch.dtype) -> Any:
    """`value` with every `source` tensor in it (in lists, tuples, dicts, a module's parameters and
    buffers, an object's tensor attributes) converted to `target`; modules and objects are copies."""
    if isinstance(value, torch.Tensor):
        return value.to(target) if value.dtype == source else value
    if isinstance(value, (list, tuple)):
        items = [as_dtype(v, source, target) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return {k: as_dtype(v, source, target) for k, v in value.items()}
    state = getattr(value, "__dict__", None)
    if not isinstance(value, torch.nn.Module) and not (
        isinstance(state, dict) and any(isinstance(v, torch.Tensor) for v in state.values())
    ):
        return value
    out = copy.deepcopy(value)
    if isinstance(out, torch.nn.Module):
        out.to(target)  # parameters and buffers; plain tensor attributes below
    for k, v in vars(out).items():
        if isinstance(v, torch.Tensor) and v.dtype == source:
            setattr(out, k, v.to(target))
    return out


def in_float64(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` computed in float64 and rounded to float32: the same bytes on any
    CPU. A module `fn` runs as a float64 copy; the original is left as it was."""
    wide = torch.float32, torch.float64
    call = as_dtype(fn, *wide) if isinstance(fn, torch.nn.Module) else fn
    with torch.no_grad():
        out = call(*as_dtype(list(args), *wide), **as_dtype(kwargs, *wide))
    return as_dtype(out, torch.float64, torch.float32)
