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

G = "geometry.conversions"
B = 2  # batch of the small geometric inputs

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
