"""Kornia survey: methods of the geometry classes that the other geometry files leave out.

Lie groups, quaternions, poses, boxes and keypoints, lines, planes, vectors, cameras, RANSAC and
the image registrator: constructors (`So3.random`, `Quaternion.from_euler`), inverses, in-place
variants, properties and operator dunders. A method is probed as `Class.method` on an instance
built here, or on the class for static and class methods. A property has no call of its own: its
case builds the object from the inputs and reads the property, and says what it covers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import kornia.geometry.camera as cam
import kornia.geometry.depth as dep
import torch
from kornia.geometry.boxes import Boxes, Boxes3D, VideoBoxes
from kornia.geometry.keypoints import Keypoints, Keypoints3D
from kornia.geometry.liegroup import Se2, Se3, So2, So3
from kornia.geometry.line import ParametrizedLine
from kornia.geometry.plane import Hyperplane
from kornia.geometry.pose import NamedPose
from kornia.geometry.quaternion import Quaternion
from kornia.geometry.ransac import RANSAC
from kornia.geometry.transform import Homography, ImageRegistrator, ScalePyramid, Similarity
from kornia.geometry.vector import Vector2, Vector3

from capmap import case, exclude
from capmap.registries.kornia import _inputs as I

B = 2
OBJECT_OUT = "returns a kornia object (an nn.Module): no tensor output to compare"
RANDOM = "random by design: values are not compared"


def prop(name: str, group: str, read: Callable[..., Any], inputs: Sequence[Any], covers: str) -> None:
    """A property: `read` builds the object from the inputs and returns the property's value."""
    case(
        name,
        group,
        read,
        list(inputs),
        covers=covers,
        note="reads a property of an object built from the inputs",
    )


def attribute(name: str, group: str, make: Callable[..., Any], inputs: Sequence[Any], home: str) -> None:
    """A property named `Class.attr`: `make` builds the object from the inputs; `home` is the
    public module the class is found in."""
    attr = name.rsplit(".", 1)[1]
    case(
        name,
        group,
        lambda *xs: getattr(make(*xs), attr),
        list(inputs),
        covers=f"{home}.{name}",
        note="reads a property of an object built from the inputs",
    )


# Lie groups -----------------------------------------------------------------------------------
GLG = "geometry.liegroup"
Q = I.quaternion(B)
R = I.rotation(B)
T = I.translation(B)[..., 0]
THETA = torch.deg2rad(I.angles(B))
SO3 = So3(Quaternion(Q.clone()))
SE3 = Se3(So3(Quaternion(Q.clone())), T.clone())
SO2 = So2(torch.complex(torch.cos(THETA), torch.sin(THETA)))
SE2 = Se2(So2(torch.complex(torch.cos(THETA), torch.sin(THETA))), I.randn(B, 2))
V3 = I.randn(B, 3, seed=7, scale=0.5)
ANG = I.rand(B, low=-1.0, high=1.0, seed=11)
MAT4 = torch.eye(4).repeat(B, 1, 1)
MAT4[:, :3, :3] = R
MAT4[:, :3, 3] = T
MAT3 = torch.eye(3).repeat(B, 1, 1)
MAT3[:, :2, :2] = torch.stack(
    [torch.stack([THETA.cos(), -THETA.sin()], -1), torch.stack([THETA.sin(), THETA.cos()], -1)], -2
)
MAT3[:, :2, 2] = I.randn(B, 2, seed=12)

case("So3.inverse", GLG, SO3, [], method="inverse", note=OBJECT_OUT)
case("So3.from_matrix", GLG, So3, [R], method="from_matrix", note=OBJECT_OUT)
case("So3.from_wxyz", GLG, So3, [Q], method="from_wxyz", note=OBJECT_OUT)
case("So3.identity", GLG, So3, [B], method="identity", note=OBJECT_OUT + "; no tensor input")
case("So3.random", GLG, So3, [B], method="random", check=False, note=RANDOM)
case("So3.rot_x", GLG, So3, [ANG], method="rot_x", note=OBJECT_OUT)
case("So3.rot_y", GLG, So3, [ANG], method="rot_y", note=OBJECT_OUT)
case("So3.rot_z", GLG, So3, [ANG], method="rot_z", note=OBJECT_OUT)
case("So3.Jl", GLG, So3, [V3], method="Jl")
case("So3.Jr", GLG, So3, [V3], method="Jr")
prop("So3.q", GLG, lambda q: So3(Quaternion(q)).q, [Q], "kornia.geometry.liegroup.So3.q")
case("So3.exp[matrix]", GLG, lambda v: So3.exp(v).matrix(), [V3], covers="kornia.geometry.liegroup.So3.exp")

case("Se3.inverse", GLG, SE3, [], method="inverse", note=OBJECT_OUT)
case("Se3.from_matrix", GLG, Se3, [MAT4], method="from_matrix", note=OBJECT_OUT)
case("Se3.from_qxyz", GLG, Se3, [torch.cat([Q, T], -1)], method="from_qxyz", note=OBJECT_OUT)
case("Se3.identity", GLG, Se3, [B], method="identity", note=OBJECT_OUT + "; no tensor input")
case("Se3.random", GLG, Se3, [B], method="random", check=False, note=RANDOM)
case("Se3.rot_x", GLG, Se3, [ANG], method="rot_x", note=OBJECT_OUT)
case("Se3.rot_y", GLG, Se3, [ANG], method="rot_y", note=OBJECT_OUT)
case("Se3.rot_z", GLG, Se3, [ANG], method="rot_z", note=OBJECT_OUT)
case("Se3.trans", GLG, Se3, [T[:, 0], T[:, 1], T[:, 2]], method="trans", note=OBJECT_OUT)
case("Se3.trans_x", GLG, Se3, [T[:, 0]], method="trans_x", note=OBJECT_OUT)
case("Se3.trans_y", GLG, Se3, [T[:, 1]], method="trans_y", note=OBJECT_OUT)
case("Se3.trans_z", GLG, Se3, [T[:, 2]], method="trans_z", note=OBJECT_OUT)
case(
    "Se3.exp[matrix]",
    GLG,
    lambda v: Se3.exp(v).matrix(),
    [I.randn(B, 6, seed=8, scale=0.5)],
    covers="kornia.geometry.liegroup.Se3.exp",
)
prop(
    "Se3.rotation",
    GLG,
    lambda q, t: Se3(So3(Quaternion(q)), t).rotation.matrix(),
    [Q, T],
    "kornia.geometry.liegroup.Se3.rotation",
)
prop(
    "Se3.translation",
    GLG,
    lambda q, t: Se3(So3(Quaternion(q)), t).translation,
    [Q, T],
    "kornia.geometry.liegroup.Se3.translation",
)
prop(
    "Se3.quaternion",
    GLG,
    lambda q, t: Se3(So3(Quaternion(q)), t).quaternion.data,
    [Q, T],
    "kornia.geometry.liegroup.Se3.quaternion",
)

case("So2.inverse", GLG, SO2, [], method="inverse", note=OBJECT_OUT)
case("So2.exp", GLG, So2, [THETA], method="exp", note=OBJECT_OUT)
case(
    "So2.exp[matrix]", GLG, lambda t: So2.exp(t).matrix(), [THETA], covers="kornia.geometry.liegroup.So2.exp"
)
case("So2.from_matrix", GLG, So2, [MAT3[:, :2, :2].contiguous()], method="from_matrix", note=OBJECT_OUT)
case("So2.identity", GLG, So2, [B], method="identity", note=OBJECT_OUT + "; no tensor input")
case("So2.random", GLG, So2, [B], method="random", check=False, note=RANDOM)
prop("So2.z", GLG, lambda t: So2.exp(t).z.real, [THETA], "kornia.geometry.liegroup.So2.z")

case("Se2.inverse", GLG, SE2, [], method="inverse", note=OBJECT_OUT)
case("Se2.exp", GLG, Se2, [I.randn(B, 3, seed=10, scale=0.5)], method="exp", note=OBJECT_OUT)
case(
    "Se2.exp[matrix]",
    GLG,
    lambda v: Se2.exp(v).matrix(),
    [I.randn(B, 3, seed=10, scale=0.5)],
    covers="kornia.geometry.liegroup.Se2.exp",
)
case("Se2.from_matrix", GLG, Se2, [MAT3], method="from_matrix", note=OBJECT_OUT)
case("Se2.identity", GLG, Se2, [B], method="identity", note=OBJECT_OUT + "; no tensor input")
case("Se2.random", GLG, Se2, [B], method="random", check=False, note=RANDOM)
case("Se2.trans", GLG, Se2, [T[:, 0], T[:, 1]], method="trans", note=OBJECT_OUT)
case("Se2.trans_x", GLG, Se2, [T[:, 0]], method="trans_x", note=OBJECT_OUT)
case("Se2.trans_y", GLG, Se2, [T[:, 1]], method="trans_y", note=OBJECT_OUT)
prop(
    "Se2.rotation",
    GLG,
    lambda m: Se2.from_matrix(m).rotation.matrix(),
    [MAT3],
    "kornia.geometry.liegroup.Se2.rotation",
)
prop(
    "Se2.translation",
    GLG,
    lambda m: Se2.from_matrix(m).translation,
    [MAT3],
    "kornia.geometry.liegroup.Se2.translation",
)

# Quaternion -----------------------------------------------------------------------------------
GQ = "geometry.quaternion"
QUAT = Quaternion(Q.clone())
QUAT2 = Quaternion(I.quaternion(B, seed=5))
case("Quaternion.__add__", GQ, QUAT, [QUAT2], method="__add__")
case("Quaternion.__sub__", GQ, QUAT, [QUAT2], method="__sub__")
case("Quaternion.__neg__", GQ, QUAT, [], method="__neg__")
case("Quaternion.__truediv__", GQ, QUAT, [QUAT2], method="__truediv__")
case("Quaternion.__pow__", GQ, QUAT, [0.5], method="__pow__")
SCALE = I.rand(B, 1, low=0.5, high=2.0, seed=6)
case("Quaternion.__radd__", GQ, QUAT, [SCALE], method="__radd__", note="a scalar per quaternion on the left")
case("Quaternion.__rsub__", GQ, QUAT, [SCALE], method="__rsub__")
case("Quaternion.__rmul__", GQ, QUAT, [2.0], method="__rmul__", note="a Python float on the left")
case("Quaternion.__rtruediv__", GQ, QUAT, [2.0], method="__rtruediv__")
case("Quaternion.conj", GQ, QUAT, [], method="conj")
case("Quaternion.inv", GQ, QUAT, [], method="inv")
case("Quaternion.normalize", GQ, QUAT, [], method="normalize")
case("Quaternion.from_euler", GQ, Quaternion, [ANG, ANG * 0.5, -ANG], method="from_euler")
case(
    "Quaternion.from_coeffs",
    GQ,
    Quaternion,
    [0.5, 0.5, 0.5, 0.5],
    method="from_coeffs",
    note="Python floats in",
)
case("Quaternion.identity", GQ, Quaternion, [B], method="identity", note="no tensor input")
case("Quaternion.random", GQ, Quaternion, [B], method="random", check=False, note=RANDOM)
prop(
    "Quaternion.polar_angle",
    GQ,
    lambda q: Quaternion(q).polar_angle,
    [Q],
    "kornia.geometry.Quaternion.polar_angle",
)
prop("Quaternion.vec", GQ, lambda q: Quaternion(q).vec, [Q], "kornia.geometry.Quaternion.vec")
prop("Quaternion.w", GQ, lambda q: Quaternion(q).w, [Q], "kornia.geometry.Quaternion.w")
prop("Quaternion.x", GQ, lambda q: Quaternion(q).x, [Q], "kornia.geometry.Quaternion.x")
prop("Quaternion.y", GQ, lambda q: Quaternion(q).y, [Q], "kornia.geometry.Quaternion.y")
prop("Quaternion.z", GQ, lambda q: Quaternion(q).z, [Q], "kornia.geometry.Quaternion.z")

# Poses ----------------------------------------------------------------------------------------
GPO = "geometry.pose"
NPOSE = NamedPose(Se3(So3(Quaternion(Q.clone())), T.clone()), frame_src="cam", frame_dst="world")
NPOSE2 = NamedPose(
    Se3(So3(Quaternion(I.quaternion(B, seed=5))), T.flip(0)), frame_src="world", frame_dst="map"
)
case("NamedPose.inverse", GPO, NPOSE, [], method="inverse", note=OBJECT_OUT)
case("NamedPose.__mul__", GPO, NPOSE2, [NPOSE], method="__mul__", note=OBJECT_OUT)
case("NamedPose.from_matrix", GPO, NamedPose, [MAT4, "cam", "world"], method="from_matrix", note=OBJECT_OUT)
case("NamedPose.from_rt", GPO, NamedPose, [R, T, "cam", "world"], method="from_rt", note=OBJECT_OUT)
prop(
    "NamedPose.rotation",
    GPO,
    lambda m: NamedPose.from_matrix(m, "cam", "world").rotation.matrix(),
    [MAT4],
    "kornia.geometry.pose.NamedPose.rotation",
)
prop(
    "NamedPose.translation",
    GPO,
    lambda m: NamedPose.from_matrix(m, "cam", "world").translation,
    [MAT4],
    "kornia.geometry.pose.NamedPose.translation",
)

# Lines, planes, vectors -----------------------------------------------------------------------
GLN = "geometry.line"
GPL = "geometry.plane"
GV = "geometry.vector"
P0, P1, P2 = I.randn(B, 3), I.randn(B, 3, seed=1), I.randn(B, 3, seed=2)
case("ParametrizedLine.through", GLN, ParametrizedLine, [P0, P1], method="through", note=OBJECT_OUT)
prop(
    "ParametrizedLine.direction",
    GLN,
    lambda a, b: ParametrizedLine.through(a, b).direction,
    [P0, P1],
    "kornia.geometry.line.ParametrizedLine.direction",
)
case("Hyperplane.through", GPL, Hyperplane, [P0, P1, P2], method="through", note=OBJECT_OUT)
case(
    "Hyperplane.from_vector",
    GPL,
    Hyperplane,
    [Vector3(torch.nn.functional.normalize(P0, dim=-1)), Vector3(P1)],
    method="from_vector",
    note=OBJECT_OUT,
)
prop(
    "Hyperplane.normal",
    GPL,
    lambda a, b, c: Hyperplane.through(a, b, c).normal,
    [P0, P1, P2],
    "kornia.geometry.Hyperplane.normal",
)
prop(
    "Hyperplane.offset",
    GPL,
    lambda a, b, c: Hyperplane.through(a, b, c).offset,
    [P0, P1, P2],
    "kornia.geometry.Hyperplane.offset",
)

VEC2 = Vector2(I.randn(B, 2))
VEC2B = Vector2(I.randn(B, 2, seed=1))
VEC3 = Vector3(I.randn(B, 3))
VEC3B = Vector3(I.rand(B, 3, seed=1, low=0.5, high=2.0))
case("Vector2.dot", GV, VEC2, [VEC2B], method="dot")
case("Vector2.squared_norm", GV, VEC2, [], method="squared_norm")
case("Vector2.from_coords", GV, Vector2, [I.randn(B), I.randn(B, seed=1)], method="from_coords")
case("Vector2.random", GV, Vector2, [(B,)], method="random", check=False, note=RANDOM)
case("Vector3.random", GV, Vector3, [(B,)], method="random", check=False, note=RANDOM)
prop("Vector2.x", GV, lambda v: Vector2(v).x, [I.randn(B, 2)], "kornia.geometry.vector.Vector2.x")
prop("Vector2.y", GV, lambda v: Vector2(v).y, [I.randn(B, 2)], "kornia.geometry.vector.Vector2.y")
prop("Vector3.x", GV, lambda v: Vector3(v).x, [I.randn(B, 3)], "kornia.geometry.vector.Vector3.x")
prop("Vector3.y", GV, lambda v: Vector3(v).y, [I.randn(B, 3)], "kornia.geometry.vector.Vector3.y")
prop("Vector3.z", GV, lambda v: Vector3(v).z, [I.randn(B, 3)], "kornia.geometry.vector.Vector3.z")
# Arithmetic on the tensor wrappers (defined once by kornia.core.TensorWrapper).
for dunder, other in (
    ("__add__", VEC3B),
    ("__radd__", VEC3B),
    ("__sub__", VEC3B),
    ("__rsub__", VEC3B),
    ("__mul__", VEC3B),
    ("__rmul__", VEC3B),
    ("__truediv__", VEC3B),
    ("__rtruediv__", VEC3B),
    ("__floordiv__", VEC3B),
    ("__rfloordiv__", VEC3B),
    ("__mod__", VEC3B),
    ("__rmod__", VEC3B),
    ("__pow__", 2.0),
    ("__rpow__", 2.0),
    ("__matmul__", I.randn(3, 3, seed=4)),
    ("__rmatmul__", I.randn(3, B, seed=4)),
):
    case(f"Vector3.{dunder}", GV, VEC3, [other], method=dunder)
case("Vector3.__neg__", GV, VEC3, [], method="__neg__")
case("Vector3.__pos__", GV, VEC3, [], method="__pos__")
case("Vector3.__abs__", GV, VEC3, [], method="__abs__")

# Boxes and keypoints --------------------------------------------------------------------------
GBX = "geometry.boxes"
GK = "geometry.keypoints"
BOXES = Boxes.from_tensor(I.boxes_xyxy(B, 3), mode="xyxy")
BOXES_B = Boxes.from_tensor(I.boxes_xyxy(B, 2, seed=3), mode="xyxy")
PAD4 = torch.tensor([[1, 1, 1, 1]]).repeat(B, 1)
INDEX = (torch.tensor([0, 1]), torch.tensor([1, 0]))
case("Boxes.clone", GBX, BOXES, [], method="clone")
case("Boxes.merge", GBX, BOXES, [BOXES_B], method="merge")
case("Boxes.unpad", GBX, BOXES, [PAD4], method="unpad")
case("Boxes.type", GBX, BOXES, [torch.float32], method="type")
case("Boxes.to", GBX, BOXES, [], {"dtype": torch.float32}, method="to")
case("Boxes.index_put", GBX, BOXES, [INDEX, BOXES.data[0, :2].clone()], method="index_put")
case("Boxes.transform_boxes_", GBX, BOXES.clone(), [I.homography(B)], method="transform_boxes_")
BOXES3 = Boxes3D.from_tensor(torch.tensor([[[1.0, 1.0, 1.0, 6.0, 7.0, 4.0], [2.0, 3.0, 0.0, 9.0, 8.0, 5.0]]]))
case("Boxes3D.get_boxes_shape", GBX, BOXES3, [], method="get_boxes_shape")
case("Boxes3D.to", GBX, BOXES3, [], {"dtype": torch.float32}, method="to")
case(
    "Boxes3D.transform_boxes_",
    GBX,
    Boxes3D.from_tensor(BOXES3.to_tensor()),
    [I.homography3d(1)],
    method="transform_boxes_",
)
VBOXES = VideoBoxes.from_tensor(I.box_corners(B, 3).unsqueeze(0))
case("VideoBoxes.to_tensor", GBX, VBOXES, [], method="to_tensor")
case("VideoBoxes.clone", GBX, VBOXES, [], method="clone")
prop(
    "Boxes.data",
    GBX,
    lambda b: Boxes.from_tensor(b, mode="xyxy").data,
    [I.boxes_xyxy(B, 3)],
    "kornia.geometry.boxes.Boxes.data",
)
KPTS = Keypoints(I.points2d(B, 6))
case("Keypoints.clone", GK, KPTS, [], method="clone")
case("Keypoints.unpad", GK, KPTS, [PAD4], method="unpad")
case("Keypoints.type", GK, KPTS, [torch.float32], method="type")
case("Keypoints.index_put", GK, KPTS, [INDEX, KPTS.data[0, :2].clone()], method="index_put")
case(
    "Keypoints.transform_keypoints_",
    GK,
    Keypoints(I.points2d(B, 6)),
    [I.homography(B)],
    method="transform_keypoints_",
)
KPTS3 = Keypoints3D(I.points3d(B, 8))
case("Keypoints3D.clone", GK, KPTS3, [], method="clone")
NOT_IMPLEMENTED = "raises NotImplementedError in kornia 0.9: nothing to probe"
for name in ("pad", "unpad", "transform_keypoints", "transform_keypoints_"):
    exclude(f"kornia.geometry.keypoints.Keypoints3D.{name}", reason=NOT_IMPLEMENTED)
exclude("kornia.geometry.boxes.Boxes.trim", reason=NOT_IMPLEMENTED)

# Cameras --------------------------------------------------------------------------------------
GC = "geometry.camera"
K4 = I.intrinsics4(B)
E4 = I.extrinsics4(B)
HS = torch.full((B,), float(I.H))
WS = torch.full((B,), float(I.W))
PINHOLE = cam.PinholeCamera(K4.clone(), E4.clone(), HS.clone(), WS.clone())
case("PinholeCamera.scale", GC, PINHOLE, [torch.full((B,), 0.5)], method="scale", note=OBJECT_OUT)
case(
    "PinholeCamera.scale_",
    GC,
    cam.PinholeCamera(K4.clone(), E4.clone(), HS.clone(), WS.clone()),
    [0.5],
    method="scale_",
    note=OBJECT_OUT,
)
case("PinholeCamera.clone", GC, PINHOLE, [], method="clone", note=OBJECT_OUT)
FOCAL = I.rand(B, low=40.0, high=60.0)
case(
    "PinholeCamera.from_parameters",
    GC,
    cam.PinholeCamera,
    [
        FOCAL,
        FOCAL,
        FOCAL * 0 + 19.5,
        FOCAL * 0 + 15.5,
        I.H,
        I.W,
        T[:, 0],
        T[:, 1],
        T[:, 2],
        B,
        "cpu",
        torch.float32,
    ],
    method="from_parameters",
    note=OBJECT_OUT,
)


PIN_IN = [K4, E4, HS, WS]
attribute("PinholeCamera.camera_matrix", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.intrinsics", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.extrinsics", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.rotation_matrix", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.translation_vector", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.rt_matrix", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.fx", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.fy", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.cx", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.cy", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.tx", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.ty", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
attribute("PinholeCamera.tz", GC, cam.PinholeCamera, PIN_IN, "kornia.geometry")
STEREO_LEFT = torch.tensor([[[48.0, 0.0, 19.5, 0.0], [0.0, 48.0, 15.5, 0.0], [0.0, 0.0, 1.0, 0.0]]]).repeat(
    B, 1, 1
)
STEREO_RIGHT = STEREO_LEFT.clone()
STEREO_RIGHT[:, 0, 3] = -48.0 * 0.1
STEREO_IN = [STEREO_LEFT, STEREO_RIGHT]
attribute("StereoCamera.Q", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.fx", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.fy", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.cx_left", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.cx_right", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.cy", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.tx", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")

GD = "geometry.depth"
PINHOLE_SRC = cam.PinholeCamera(K4.clone(), I.extrinsics4(B, seed=3), HS.clone(), WS.clone())
WARPER = dep.DepthWarper(PINHOLE, I.H, I.W)
WARPER.compute_projection_matrix(PINHOLE_SRC)
case("DepthWarper.warp_grid", GD, WARPER, [I.depth(B)], method="warp_grid")
case("DepthWarper.compute_subpixel_step", GD, WARPER, [], method="compute_subpixel_step")
case(
    "DepthWarper.compute_projection_matrix",
    GD,
    dep.DepthWarper(PINHOLE, I.H, I.W),
    [PINHOLE_SRC],
    method="compute_projection_matrix",
    note="returns the DepthWarper itself: no tensor output",
)

# RANSAC's steps -------------------------------------------------------------------------------
GR = "geometry.ransac"
HMAT = I.homography(B)
R_PTS1 = I.points2d(1, 40)[0]
R_PTS2 = torch.cat([R_PTS1, torch.ones(40, 1)], -1) @ HMAT[0].T
R_PTS2 = R_PTS2[:, :2] / R_PTS2[:, 2:]
RANSAC_H = RANSAC("homography", max_iter=3, batch_size=8, seed=0)
SAMPLE = torch.stack([torch.arange(4) + 4 * i for i in range(8)])
case(
    "RANSAC.estimate_model_from_minsample",
    GR,
    RANSAC_H,
    [R_PTS1[SAMPLE], R_PTS2[SAMPLE]],
    method="estimate_model_from_minsample",
)
with torch.no_grad():
    MODELS = RANSAC_H.estimate_model_from_minsample(R_PTS1[SAMPLE], R_PTS2[SAMPLE])
case("RANSAC.verify", GR, RANSAC_H, [R_PTS1, R_PTS2, MODELS, 2.0], method="verify")
case("RANSAC.remove_bad_models", GR, RANSAC_H, [MODELS], method="remove_bad_models")
case("RANSAC.remove_bad_samples", GR, RANSAC_H, [R_PTS1[SAMPLE], R_PTS2[SAMPLE]], method="remove_bad_samples")
case(
    "RANSAC.polish_model",
    GR,
    RANSAC_H,
    [R_PTS1, R_PTS2, torch.ones(40, dtype=torch.bool)],
    method="polish_model",
)
case("RANSAC.sample", GR, RANSAC_H, [4, 40, 8, 0], method="sample", check=False, note=RANDOM)

# Image registration and pyramids --------------------------------------------------------------
GT = "geometry.transform"
case(
    "Homography.forward_inverse",
    GT,
    Homography(),
    [],
    method="forward_inverse",
    note="the model's own parameters",
)
case(
    "Similarity.forward_inverse",
    GT,
    Similarity(),
    [],
    method="forward_inverse",
    note="the model's own parameters",
)
REGISTRATOR = ImageRegistrator("similarity", num_iterations=1, pyramid_levels=1)
SRC = I.image(1, h=16, w=16)
case("ImageRegistrator.warp_src_into_dst", GT, REGISTRATOR, [SRC], method="warp_src_into_dst")
case("ImageRegistrator.warp_dst_into_src", GT, REGISTRATOR, [SRC], method="warp_dst_into_src")
case(
    "ImageRegistrator.warp_dst_inro_src",
    GT,
    REGISTRATOR,
    [SRC],
    method="warp_dst_inro_src",
    note="deprecated misspelt alias of warp_dst_into_src, still public in 0.9",
)
case(
    "ImageRegistrator.get_single_level_loss",
    GT,
    REGISTRATOR,
    [SRC, I.image(1, h=16, w=16, seed=1), torch.eye(3)[None]],
    method="get_single_level_loss",
)
case("ScalePyramid.get_first_level", GT, ScalePyramid(3, 1.6, 15), [I.gray(1)], method="get_first_level")
