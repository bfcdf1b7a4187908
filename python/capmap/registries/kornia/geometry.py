"""Kornia survey: geometry — conversions, linalg, grids, quaternions, Lie groups, lines, planes, poses.

The image-space transforms live in geometry_transform.py; cameras, calibration, epipolar geometry,
depth, homographies, solvers, sub-pixel ops and boxes in geometry_camera.py.
Methods of the geometry data classes are probed as `Class.method`, on an instance built here or
on the class for static and class methods. Methods that only build another kornia object are
left out, except the exponential maps and the fitting functions, which users call directly; those
return objects without a tensor output, and their notes say so.
"""

from __future__ import annotations

import math

import kornia.geometry.conversions as C
import kornia.geometry.grid as grid
import kornia.geometry.linalg as L
import torch
from kornia.geometry.liegroup import Se2, Se3, So2, So3
from kornia.geometry.line import ParametrizedLine, fit_line
from kornia.geometry.plane import Hyperplane, fit_plane
from kornia.geometry.pose import NamedPose
from kornia.geometry.quaternion import Quaternion, average_quaternions
from kornia.geometry.vector import Scalar, Vector2, Vector3

from capmap import case, exclude
from capmap.registries.kornia import _inputs as I
from capmap.registries.kornia._property_cases import prop

G = "geometry.conversions"
B = 2  # batch of the small geometric inputs
OBJECT_OUT = "returns a kornia object (an nn.Module): no tensor output to compare"
RANDOM = "random by design: values are not compared"

R = I.rotation(B)
Q = I.quaternion(B)
AA = I.axis_angle(B)
T = I.translation(B)
P4 = I.pose(B)
K = I.intrinsics(B)
PTS2 = I.points2d(B, 8)
PTS3 = I.points3d(B, 8)

# Conversions ----------------------------------------------------------------------------------
case("rad2deg", G, C.rad2deg, [I.rand(B, 5, low=-math.pi, high=math.pi)], tags=("quick",))
case("deg2rad", G, C.deg2rad, [I.rand(B, 5, low=-180.0, high=180.0)])
case("pol2cart", G, C.pol2cart, [I.rand(B, 5, low=0.1, high=2.0), I.rand(B, 5, seed=1, low=-3.0, high=3.0)])
case("cart2pol", G, C.cart2pol, [I.randn(B, 5), I.randn(B, 5, seed=1)])
case("convert_points_to_homogeneous", G, C.convert_points_to_homogeneous, [PTS2])
case("convert_points_to_homogeneous[3d]", G, C.convert_points_to_homogeneous, [PTS3])
case("convert_points_from_homogeneous", G, C.convert_points_from_homogeneous, [PTS3])
case(
    "convert_points_from_homogeneous[4d]",
    G,
    C.convert_points_from_homogeneous,
    [C.convert_points_to_homogeneous(PTS3)],
)
case("convert_affinematrix_to_homography", G, C.convert_affinematrix_to_homography, [I.affine2x3(B)])
case("convert_affinematrix_to_homography3d", G, C.convert_affinematrix_to_homography3d, [I.affine3x4(B)])
case("angle_to_rotation_matrix", G, C.angle_to_rotation_matrix, [I.angles(B)])
case("axis_angle_to_rotation_matrix", G, C.axis_angle_to_rotation_matrix, [AA], tags=("quick",))
case(
    "axis_angle_to_rotation_matrix[near_zero]",
    G,
    C.axis_angle_to_rotation_matrix,
    [AA * 1e-4],
    note="the small-angle branch",
)
case("angle_axis_to_rotation_matrix", G, C.angle_axis_to_rotation_matrix, [AA], note="deprecated name")
case("axis_angle_to_quaternion", G, C.axis_angle_to_quaternion, [AA])
case("angle_axis_to_quaternion", G, C.angle_axis_to_quaternion, [AA], note="deprecated name")
case("rotation_matrix_to_axis_angle", G, C.rotation_matrix_to_axis_angle, [R])
case("rotation_matrix_to_angle_axis", G, C.rotation_matrix_to_angle_axis, [R], note="deprecated name")
case("rotation_matrix_to_quaternion", G, C.rotation_matrix_to_quaternion, [R])
case("rotation_matrix_to_quaternion[eps=1e-6]", G, C.rotation_matrix_to_quaternion, [R], {"eps": 1e-6})
case("quaternion_to_rotation_matrix", G, C.quaternion_to_rotation_matrix, [Q])
case("quaternion_to_axis_angle", G, C.quaternion_to_axis_angle, [Q])
case("quaternion_to_angle_axis", G, C.quaternion_to_angle_axis, [Q], note="deprecated name")
case("quaternion_log_to_exp", G, C.quaternion_log_to_exp, [AA * 0.5])
case("quaternion_exp_to_log", G, C.quaternion_exp_to_log, [Q])
case("normalize_quaternion", G, C.normalize_quaternion, [Q * 2.0])
case(
    "quaternion_from_euler",
    G,
    C.quaternion_from_euler,
    [
        I.rand(B, low=-1.0, high=1.0),
        I.rand(B, seed=1, low=-1.0, high=1.0),
        I.rand(B, seed=2, low=-1.0, high=1.0),
    ],
)
case("euler_from_quaternion", G, C.euler_from_quaternion, list(Q.unbind(-1)))
case("vector_to_skew_symmetric_matrix", G, C.vector_to_skew_symmetric_matrix, [I.randn(B, 3)])
case("Rt_to_matrix4x4", G, C.Rt_to_matrix4x4, [R, T])
case("matrix4x4_to_Rt", G, C.matrix4x4_to_Rt, [P4])
case("camtoworld_to_worldtocam_Rt", G, C.camtoworld_to_worldtocam_Rt, [R, T])
case("worldtocam_to_camtoworld_Rt", G, C.worldtocam_to_camtoworld_Rt, [R, T])
case("camtoworld_graphics_to_vision_4x4", G, C.camtoworld_graphics_to_vision_4x4, [P4])
case("camtoworld_vision_to_graphics_4x4", G, C.camtoworld_vision_to_graphics_4x4, [P4])
case("camtoworld_graphics_to_vision_Rt", G, C.camtoworld_graphics_to_vision_Rt, [R, T])
case("camtoworld_vision_to_graphics_Rt", G, C.camtoworld_vision_to_graphics_Rt, [R, T])
case("ARKitQTVecs_to_ColmapQTVecs", G, C.ARKitQTVecs_to_ColmapQTVecs, [Q, T])
case("ColmapQTVecs_to_ARKitQTVecs", G, C.ColmapQTVecs_to_ARKitQTVecs, [Q, T])
case("normalize_pixel_coordinates", G, C.normalize_pixel_coordinates, [PTS2], {"height": I.H, "width": I.W})
case(
    "denormalize_pixel_coordinates",
    G,
    C.denormalize_pixel_coordinates,
    [I.rand(B, 8, 2, low=-1.0)],
    {"height": I.H, "width": I.W},
)
PTS3_VOX = I.rand(B, 8, 3) * torch.tensor([15.0, 15.0, 7.0])
case(
    "normalize_pixel_coordinates3d",
    G,
    C.normalize_pixel_coordinates3d,
    [PTS3_VOX],
    {"depth": 8, "height": 16, "width": 16},
)
case(
    "denormalize_pixel_coordinates3d",
    G,
    C.denormalize_pixel_coordinates3d,
    [I.rand(B, 8, 3, low=-1.0)],
    {"depth": 8, "height": 16, "width": 16},
)
case("normalize_points_with_intrinsics", G, C.normalize_points_with_intrinsics, [PTS2, K])
case(
    "denormalize_points_with_intrinsics",
    G,
    C.denormalize_points_with_intrinsics,
    [I.rand(B, 8, 2, low=-0.3, high=0.3), K],
)
case(
    "normal_transform_pixel",
    G,
    C.normal_transform_pixel,
    [],
    {"height": I.H, "width": I.W},
    note="no tensor inputs: a constant graph",
)
case(
    "normal_transform_pixel[align_corners=False]",
    G,
    C.normal_transform_pixel,
    [],
    {"height": I.H, "width": I.W, "align_corners": False},
)
case(
    "normal_transform_pixel3d",
    G,
    C.normal_transform_pixel3d,
    [],
    {"depth": 8, "height": 16, "width": 16},
    note="no tensor inputs: a constant graph",
)
HOM = I.homography(B)
case(
    "normalize_homography",
    G,
    C.normalize_homography,
    [HOM],
    {"dsize_src": (I.H, I.W), "dsize_dst": (I.H, I.W)},
)
case(
    "normalize_homography[align_corners=False]",
    G,
    C.normalize_homography,
    [HOM],
    {"dsize_src": (I.H, I.W), "dsize_dst": (16, 20), "align_corners": False},
)
case(
    "denormalize_homography",
    G,
    C.denormalize_homography,
    [HOM],
    {"dsize_src": (I.H, I.W), "dsize_dst": (I.H, I.W)},
)
HOM3 = I.homography3d(B)
case(
    "normalize_homography3d",
    G,
    C.normalize_homography3d,
    [HOM3],
    {"dsize_src": (8, 16, 16), "dsize_dst": (8, 16, 16)},
)
case(
    "denormalize_homography3d",
    G,
    C.denormalize_homography3d,
    [HOM3],
    {"dsize_src": (8, 16, 16), "dsize_dst": (8, 16, 16)},
)

case(
    "rotation_matrix_to_quaternion[check_rotation]",
    G,
    C.rotation_matrix_to_quaternion,
    [R],
    {"check_rotation": True},
    note="validates the input with a data-dependent check",
)
case(
    "rotation_matrix_to_axis_angle[check_rotation]",
    G,
    C.rotation_matrix_to_axis_angle,
    [R],
    {"check_rotation": True},
    note="validates the input with a data-dependent check",
)
case(
    "camtoworld_to_worldtocam_Rt[check_rotation]",
    G,
    C.camtoworld_to_worldtocam_Rt,
    [R, T],
    {"check_rotation": True},
    note="validates the input with a data-dependent check",
)
case(
    "rotation_matrix_to_axis_angle[near_identity]",
    G,
    C.rotation_matrix_to_axis_angle,
    [C.axis_angle_to_rotation_matrix(AA * 1e-4)],
    note="the small-angle branch",
)
case(
    "rotation_matrix_to_axis_angle[near_pi]",
    G,
    C.rotation_matrix_to_axis_angle,
    [C.axis_angle_to_rotation_matrix(torch.nn.functional.normalize(AA, dim=-1) * 3.1)],
    note="the angle-near-pi branch",
)
case("quaternion_to_axis_angle[batch=1x4]", G, C.quaternion_to_axis_angle, [I.quaternion(4).view(1, 4, 4)])
case(
    "convert_points_from_homogeneous[eps=1e-4]",
    G,
    C.convert_points_from_homogeneous,
    [torch.cat([PTS2, torch.zeros(B, 1, 2)], 1).flip(-1)],
    {"eps": 1e-4},
    note="includes points at infinity",
)
case(
    "denormalize_homography[align_corners=False]",
    G,
    C.denormalize_homography,
    [HOM],
    {"dsize_src": (I.H, I.W), "dsize_dst": (16, 20), "align_corners": False},
)

# Linear algebra -------------------------------------------------------------------------------
GL = "geometry.linalg"
case("transform_points", GL, L.transform_points, [I.homography(B), PTS2], tags=("quick",))
case("transform_points[3d]", GL, L.transform_points, [P4, PTS3])
case("compose_transformations", GL, L.compose_transformations, [P4, I.pose(B, seed=1)])
case("inverse_transformation", GL, L.inverse_transformation, [P4])
case("relative_transformation", GL, L.relative_transformation, [P4, I.pose(B, seed=1)])
case("batched_dot_product", GL, L.batched_dot_product, [I.randn(B, 8, 3), I.randn(B, 8, 3, seed=1)])
case(
    "batched_dot_product[keepdim]",
    GL,
    L.batched_dot_product,
    [I.randn(B, 8, 3), I.randn(B, 8, 3, seed=1)],
    {"keepdim": True},
)
# squared_norm is the same function object under a second name.
case("batched_squared_norm", GL, L.batched_squared_norm, [I.randn(B, 8, 3)])
case("batched_squared_norm[keepdim]", GL, L.batched_squared_norm, [I.randn(B, 8, 3)], {"keepdim": True})
case("euclidean_distance", GL, L.euclidean_distance, [I.randn(B, 8, 3), I.randn(B, 8, 3, seed=1)])
case(
    "euclidean_distance[keepdim]",
    GL,
    L.euclidean_distance,
    [I.randn(B, 8, 3), I.randn(B, 8, 3, seed=1)],
    {"keepdim": True},
)
LINES = torch.cat(
    [torch.nn.functional.normalize(I.randn(B, 8, 2, seed=2), dim=-1), I.randn(B, 8, 1, seed=3)], -1
)
case("point_line_distance", GL, L.point_line_distance, [PTS2, LINES])

# Grids ----------------------------------------------------------------------------------------
GG = "geometry.grid"
case(
    "create_meshgrid",
    GG,
    grid.create_meshgrid,
    [],
    {"height": I.H, "width": I.W},
    note="no tensor inputs: a constant graph",
)
case(
    "create_meshgrid[normalized_coordinates=False]",
    GG,
    grid.create_meshgrid,
    [],
    {"height": I.H, "width": I.W, "normalized_coordinates": False},
)
case(
    "create_meshgrid[align_corners=False]",
    GG,
    grid.create_meshgrid,
    [],
    {"height": I.H, "width": I.W, "align_corners": False},
)
case(
    "create_meshgrid3d",
    GG,
    grid.create_meshgrid3d,
    [],
    {"depth": 8, "height": 16, "width": 16},
    note="no tensor inputs: a constant graph",
)

# Quaternion -----------------------------------------------------------------------------------
GQ = "geometry.quaternion"
QUAT = Quaternion(Q.clone())
QUAT2 = Quaternion(I.quaternion(B, seed=5))
case("average_quaternions", GQ, average_quaternions, [QUAT], note="takes and returns Quaternion objects")
case("Quaternion.matrix", GQ, QUAT, [], method="matrix")
case("Quaternion.to_euler", GQ, QUAT, [], method="to_euler")
case("Quaternion.to_axis_angle", GQ, QUAT, [], method="to_axis_angle")
case("Quaternion.norm", GQ, QUAT, [], method="norm")
case("Quaternion.squared_norm", GQ, QUAT, [], method="squared_norm")
case(
    "Quaternion.__mul__", GQ, QUAT, [QUAT2], method="__mul__", note="Hamilton product with another Quaternion"
)
case("Quaternion.slerp", GQ, QUAT, [QUAT2, 0.3], method="slerp")
case("Quaternion.from_axis_angle", GQ, Quaternion, [AA], method="from_axis_angle")
case("Quaternion.from_matrix", GQ, Quaternion, [R], method="from_matrix")

# Lie groups -----------------------------------------------------------------------------------
GLG = "geometry.liegroup"
SO3 = So3(Quaternion(Q.clone()))
SE3 = Se3(So3(Quaternion(Q.clone())), T[..., 0].clone())
THETA = torch.deg2rad(I.angles(B))
SO2 = So2(torch.complex(torch.cos(THETA), torch.sin(THETA)))
SE2 = Se2(So2(torch.complex(torch.cos(THETA), torch.sin(THETA))), I.randn(B, 2))
V3 = I.randn(B, 3, seed=7, scale=0.5)
V6 = I.randn(B, 6, seed=8, scale=0.5)
V2 = I.randn(B, 2, seed=9, scale=0.5)
V3_SE2 = I.randn(B, 3, seed=10, scale=0.5)
case("So3.hat", GLG, So3, [V3], method="hat", tags=("quick",))
case("So3.vee", GLG, So3, [So3.hat(V3)], method="vee")
case("So3.log", GLG, SO3, [], method="log")
case("So3.matrix", GLG, SO3, [], method="matrix")
case("So3.adjoint", GLG, SO3, [], method="adjoint")
case("So3.__mul__", GLG, SO3, [PTS3[:, 0]], method="__mul__", note="rotates a batch of points")
case("So3.right_jacobian", GLG, So3, [V3], method="right_jacobian")
case("So3.left_jacobian", GLG, So3, [V3], method="left_jacobian")
case(
    "So3.exp", GLG, So3, [V3], method="exp", note="returns an So3 (an nn.Module): its quaternion is compared"
)
case("Se3.hat", GLG, Se3, [V6], method="hat")
case("Se3.vee", GLG, Se3, [Se3.hat(V6)], method="vee")
case("Se3.log", GLG, SE3, [], method="log")
case("Se3.matrix", GLG, SE3, [], method="matrix")
case("Se3.adjoint", GLG, SE3, [], method="adjoint")
case("Se3.__mul__", GLG, SE3, [PTS3[:, 0]], method="__mul__", note="transforms a batch of points")
case(
    "Se3.exp",
    GLG,
    Se3,
    [V6],
    method="exp",
    note="returns an Se3 (an nn.Module): its rotation and translation are compared",
)
case("So2.hat", GLG, So2, [THETA], method="hat")
case("So2.vee", GLG, So2, [So2.hat(THETA)], method="vee")
case("So2.log", GLG, SO2, [], method="log", note="complex-valued parameter")
case("So2.matrix", GLG, SO2, [], method="matrix", note="complex-valued parameter")
case("So2.adjoint", GLG, SO2, [], method="adjoint")
case("So2.__mul__", GLG, SO2, [I.randn(B, 2)], method="__mul__", note="rotates a batch of 2D points")
case("Se2.hat", GLG, Se2, [V3_SE2], method="hat")
case("Se2.vee", GLG, Se2, [Se2.hat(V3_SE2)], method="vee")
case("Se2.log", GLG, SE2, [], method="log")
case("Se2.matrix", GLG, SE2, [], method="matrix")
case("Se2.adjoint", GLG, SE2, [], method="adjoint")
case("Se2.__mul__", GLG, SE2, [V2], method="__mul__", note="transforms a batch of 2D points")

# Vectors, lines, planes, poses ----------------------------------------------------------------
GV = "geometry.vector"
VEC3 = Vector3(I.randn(B, 3))
case("Vector3.normalized", GV, VEC3, [], method="normalized", note="returns a Vector3 (a tensor subclass)")
case("Vector3.dot", GV, VEC3, [Vector3(I.randn(B, 3, seed=1))], method="dot")
case("Vector3.squared_norm", GV, VEC3, [], method="squared_norm")
case("Vector2.normalized", GV, Vector2(I.randn(B, 2)), [], method="normalized")
case(
    "Vector3.from_coords",
    GV,
    Vector3,
    [I.randn(B), I.randn(B, seed=1), I.randn(B, seed=2)],
    method="from_coords",
)
case("Scalar", GV, Scalar, [I.randn(B)], note="wraps a tensor")

GLN = "geometry.line"
LINE = ParametrizedLine(torch.zeros(B, 3), torch.nn.functional.normalize(I.randn(B, 3), dim=-1))
case(
    "fit_line",
    GLN,
    fit_line,
    [I.randn(B, 16, 3)],
    note="returns a ParametrizedLine (an nn.Module): its origin and direction are compared",
)
case(
    "fit_line[weights]",
    GLN,
    fit_line,
    [I.randn(B, 16, 3), I.rand(B, 16, low=0.1)],
    note="returns a ParametrizedLine (an nn.Module): its origin and direction are compared",
)
case("ParametrizedLine.point_at", GLN, LINE, [I.rand(B, 1)], method="point_at")
case("ParametrizedLine.projection", GLN, LINE, [I.randn(B, 3, seed=2)], method="projection")
case("ParametrizedLine.distance", GLN, LINE, [I.randn(B, 3, seed=2)], method="distance")
case("ParametrizedLine.squared_distance", GLN, LINE, [I.randn(B, 3, seed=2)], method="squared_distance")
PLANE = Hyperplane(Vector3(torch.tensor([[0.0, 0.0, 1.0]]).repeat(B, 1)), Scalar(torch.full((B,), -2.0)))
case("ParametrizedLine.intersect", GLN, LINE, [PLANE], method="intersect", note="intersects a Hyperplane")

GPL = "geometry.plane"
case(
    "fit_plane",
    GPL,
    fit_plane,
    [Vector3(I.randn(B, 16, 3))],
    note="returns a Hyperplane (an nn.Module): its normal and offset are compared",
)
case("Hyperplane.signed_distance", GPL, PLANE, [I.randn(B, 3)], method="signed_distance")
case("Hyperplane.abs_distance", GPL, PLANE, [I.randn(B, 3)], method="abs_distance")
case("Hyperplane.projection", GPL, PLANE, [I.randn(B, 3)], method="projection")

GPO = "geometry.pose"
NPOSE = NamedPose(Se3(So3(Quaternion(Q.clone())), T[..., 0].clone()), frame_src="cam", frame_dst="world")
case("NamedPose.transform_points", GPO, NPOSE, [PTS3[:, 0]], method="transform_points")

exclude("kornia.geometry.squared_norm", reason="alias of kornia.geometry.linalg.batched_squared_norm")
exclude("kornia.geometry.linalg.squared_norm", reason="alias of kornia.geometry.linalg.batched_squared_norm")
exclude(
    "kornia.geometry.quaternion.KORNIA_CHECK_TYPE",
    reason="input-validation helper of kornia.core, visible here only because the module has no __all__",
)


# Methods of the Lie group, quaternion, pose, line, plane and vector classes -----------------------
# Lie groups -----------------------------------------------------------------------------------
T3 = I.translation(B)[..., 0]
ANG = I.rand(B, low=-1.0, high=1.0, seed=11)
MAT4 = torch.eye(4).repeat(B, 1, 1)
MAT4[:, :3, :3] = R
MAT4[:, :3, 3] = T3
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
case("Se3.from_qxyz", GLG, Se3, [torch.cat([Q, T3], -1)], method="from_qxyz", note=OBJECT_OUT)
case("Se3.identity", GLG, Se3, [B], method="identity", note=OBJECT_OUT + "; no tensor input")
case("Se3.random", GLG, Se3, [B], method="random", check=False, note=RANDOM)
case("Se3.rot_x", GLG, Se3, [ANG], method="rot_x", note=OBJECT_OUT)
case("Se3.rot_y", GLG, Se3, [ANG], method="rot_y", note=OBJECT_OUT)
case("Se3.rot_z", GLG, Se3, [ANG], method="rot_z", note=OBJECT_OUT)
case("Se3.trans", GLG, Se3, [T3[:, 0], T3[:, 1], T3[:, 2]], method="trans", note=OBJECT_OUT)
case("Se3.trans_x", GLG, Se3, [T3[:, 0]], method="trans_x", note=OBJECT_OUT)
case("Se3.trans_y", GLG, Se3, [T3[:, 1]], method="trans_y", note=OBJECT_OUT)
case("Se3.trans_z", GLG, Se3, [T3[:, 2]], method="trans_z", note=OBJECT_OUT)
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
    [Q, T3],
    "kornia.geometry.liegroup.Se3.rotation",
)
prop(
    "Se3.translation",
    GLG,
    lambda q, t: Se3(So3(Quaternion(q)), t).translation,
    [Q, T3],
    "kornia.geometry.liegroup.Se3.translation",
)
prop(
    "Se3.quaternion",
    GLG,
    lambda q, t: Se3(So3(Quaternion(q)), t).quaternion.data,
    [Q, T3],
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
case("Se2.trans", GLG, Se2, [T3[:, 0], T3[:, 1]], method="trans", note=OBJECT_OUT)
case("Se2.trans_x", GLG, Se2, [T3[:, 0]], method="trans_x", note=OBJECT_OUT)
case("Se2.trans_y", GLG, Se2, [T3[:, 1]], method="trans_y", note=OBJECT_OUT)
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
NPOSE2 = NamedPose(
    Se3(So3(Quaternion(I.quaternion(B, seed=5))), T3.flip(0)), frame_src="world", frame_dst="map"
)
case("NamedPose.inverse", GPO, NPOSE, [], method="inverse", note=OBJECT_OUT)
case("NamedPose.__mul__", GPO, NPOSE2, [NPOSE], method="__mul__", note=OBJECT_OUT)
case("NamedPose.from_matrix", GPO, NamedPose, [MAT4, "cam", "world"], method="from_matrix", note=OBJECT_OUT)
case("NamedPose.from_rt", GPO, NamedPose, [R, T3, "cam", "world"], method="from_rt", note=OBJECT_OUT)
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
