"""Kornia survey: sensors (camera models: projection and unprojection)."""

from __future__ import annotations

import kornia.sensors.camera as cam
import torch
from kornia.geometry.vector import Vector2, Vector3
from kornia.image import ImageSize

from capmap import case

from ._inputs import H, W, rand

G = "sensors.camera"
NOTE = "points are kornia Vector2/Vector3 wrappers around tensors"

size = ImageSize(H, W)
intrinsics = [float(W), float(W), W / 2.0, H / 2.0]
models = {
    "PinholeModel": cam.PinholeModel(size, torch.tensor(intrinsics)),
    "BrownConradyModel": cam.BrownConradyModel(size, torch.tensor(intrinsics + [0.01, 0.001] + [0.0] * 6)),
    "KannalaBrandtK3": cam.KannalaBrandtK3(size, torch.tensor(intrinsics + [0.01, 0.0, 0.0, 0.0])),
    "Orthographic": cam.Orthographic(size, torch.tensor(intrinsics)),
}
# Points in front of the camera that project inside the image.
xy = rand(8, 2, low=-0.3, high=0.3, seed=1)
depth = rand(8, 1, low=1.0, high=3.0, seed=2)
points3d = Vector3(torch.cat([xy * depth, depth], dim=-1))
pixels = Vector2(torch.stack([rand(8, high=float(W), seed=3), rand(8, high=float(H), seed=4)], dim=-1))

for name, model in models.items():
    case(name, G, model, [points3d], method="project", note=NOTE)
    case(f"{name}[unproject]", G, model, [pixels, depth.squeeze(-1)], method="unproject", note=NOTE)
generic = cam.CameraModel(size, cam.CameraModelType.PINHOLE, torch.tensor(intrinsics))
case("CameraModel", G, generic, [points3d], method="project", note=NOTE)
case("CameraModel[unproject]", G, generic, [pixels, depth.squeeze(-1)], method="unproject", note=NOTE)
