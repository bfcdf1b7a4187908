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


# Methods of kornia.sensors classes ----------------------------------------------------------------
params = torch.tensor([float(W), float(W), W / 2.0, H / 2.0])
pinhole = cam.PinholeModel(size, params)
ortho = cam.Orthographic(size, params)
case("PinholeModel.matrix", "sensors.methods", pinhole, [], method="matrix")
case(
    "PinholeModel.scale",
    "sensors.methods",
    pinhole,
    [torch.tensor(0.5)],
    method="scale",
    note="returns a PinholeModel",
)
case("Orthographic.matrix", "sensors.methods", ortho, [], method="matrix")
case("Orthographic.K", "sensors.methods", ortho, [], method="K")
for attr in ("fx", "fy", "cx", "cy"):
    case(
        f"Orthographic.{attr}",
        "sensors.methods",
        lambda p, attr=attr: getattr(cam.Orthographic(size, p), attr),
        [params],
        covers=f"kornia.sensors.camera.Orthographic.{attr}",
        note="reads a property of a camera built from the inputs",
    )
