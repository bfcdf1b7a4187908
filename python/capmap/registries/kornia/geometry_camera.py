"""Kornia survey: cameras, calibration, epipolar geometry, depth, homographies, solvers, RANSAC,
sub-pixel ops, boxes and keypoints.

Correspondences come from one synthetic two-view scene (`_inputs.two_views`), so fundamental and
essential matrices, projections and matched points are consistent with each other.
"""

from __future__ import annotations

import kornia.geometry.bbox as bbox
import kornia.geometry.calibration as cal
import kornia.geometry.camera as cam
import kornia.geometry.depth as dep
import kornia.geometry.epipolar as epi
import kornia.geometry.homography as hom
import kornia.geometry.solvers as sol
import kornia.geometry.subpix as sub
import torch
from kornia.geometry.boxes import Boxes, Boxes3D, VideoBoxes
from kornia.geometry.keypoints import Keypoints, Keypoints3D
from kornia.geometry.ransac import RANSAC

from capmap import case, exclude
from capmap.registries.kornia import _inputs as I
from capmap.registries.kornia._property_cases import attribute, prop

B = 2
OBJECT_OUT = "returns a kornia object (an nn.Module): no tensor output to compare"
RANDOM = "random by design: values are not compared"
K = I.intrinsics(B)
PTS2 = I.points2d(B, 8)
PTS3 = I.points3d(B, 8)
SCENE = I.two_views(B, 16)
X1, X2, F, E = SCENE["x1"], SCENE["x2"], SCENE["F"], SCENE["E"]

# Camera ---------------------------------------------------------------------------------------
GC = "geometry.camera"
case("project_points", GC, cam.project_points, [PTS3, K[:, None]], tags=("quick",))
case("unproject_points", GC, cam.unproject_points, [PTS2, I.rand(B, 8, 1, low=1.0, high=3.0), K[:, None]])
case(
    "unproject_points[normalize]",
    GC,
    cam.unproject_points,
    [PTS2, I.rand(B, 8, 1, low=1.0, high=3.0), K[:, None]],
    {"normalize": True},
)
PROJ = I.intrinsics4(B) @ I.extrinsics4(B)
CAM_COORDS = I.points3d(B, I.H * I.W).view(B, I.H, I.W, 3)
case("cam2pixel", GC, cam.cam2pixel, [CAM_COORDS, PROJ])
PIX = torch.cat([I.points2d(1, I.H * I.W).view(1, I.H, I.W, 2), torch.ones(1, I.H, I.W, 1)], -1).repeat(
    B, 1, 1, 1
)
case("pixel2cam", GC, cam.pixel2cam, [I.depth(B), torch.linalg.inv(I.intrinsics4(B)), PIX])
Z1 = I.rand(B, 8, 2, low=-0.4, high=0.4)
AFFINE_PARAMS = torch.tensor([[48.0, 48.0, 19.5, 15.5]]).repeat(B, 1)
KB_PARAMS = torch.tensor([[48.0, 48.0, 19.5, 15.5, 0.01, -0.005, 0.001, 0.0]]).repeat(B, 1)
case("project_points_z1", GC, cam.project_points_z1, [PTS3])
case("unproject_points_z1", GC, cam.unproject_points_z1, [Z1])
case("unproject_points_z1[extension]", GC, cam.unproject_points_z1, [Z1, I.rand(B, 8, low=1.0, high=3.0)])
case("dx_project_points_z1", GC, cam.dx_project_points_z1, [PTS3])
case("project_points_orthographic", GC, cam.project_points_orthographic, [PTS3])
case(
    "unproject_points_orthographic",
    GC,
    cam.unproject_points_orthographic,
    [Z1, I.rand(B, 8, low=1.0, high=3.0)],
)
case("dx_project_points_orthographic", GC, cam.dx_project_points_orthographic, [PTS3])
case("distort_points_affine", GC, cam.distort_points_affine, [Z1, AFFINE_PARAMS[:, None]])
case("undistort_points_affine", GC, cam.undistort_points_affine, [PTS2, AFFINE_PARAMS[:, None]])
case("dx_distort_points_affine", GC, cam.dx_distort_points_affine, [Z1, AFFINE_PARAMS[:, None]])
case("distort_points_kannala_brandt", GC, cam.distort_points_kannala_brandt, [Z1, KB_PARAMS[:, None]])
case("undistort_points_kannala_brandt", GC, cam.undistort_points_kannala_brandt, [PTS2, KB_PARAMS[:, None]])
case("dx_distort_points_kannala_brandt", GC, cam.dx_distort_points_kannala_brandt, [Z1, KB_PARAMS[:, None]])
PINHOLE = cam.PinholeCamera(
    I.intrinsics4(B), I.extrinsics4(B), torch.full((B,), float(I.H)), torch.full((B,), float(I.W))
)
case("PinholeCamera.project", GC, PINHOLE, [PTS3], method="project")
case("PinholeCamera.unproject", GC, PINHOLE, [PTS2, I.rand(B, 8, 1, low=1.0, high=3.0)], method="unproject")
case("PinholeCamera.intrinsics_inverse", GC, PINHOLE, [], method="intrinsics_inverse")
STEREO_LEFT = torch.tensor([[[48.0, 0.0, 19.5, 0.0], [0.0, 48.0, 15.5, 0.0], [0.0, 0.0, 1.0, 0.0]]]).repeat(
    B, 1, 1
)
STEREO_RIGHT = STEREO_LEFT.clone()
STEREO_RIGHT[:, 0, 3] = -48.0 * 0.1
STEREO = cam.StereoCamera(STEREO_LEFT, STEREO_RIGHT)
DISPARITY = I.rand(B, I.H, I.W, 1, low=1.0, high=8.0)
case("StereoCamera.reproject_disparity_to_3D", GC, STEREO, [DISPARITY], method="reproject_disparity_to_3D")

# Calibration ----------------------------------------------------------------------------------
GCA = "geometry.calibration"
DIST = I.distortion(B, 5)
case("undistort_points", GCA, cal.undistort_points, [PTS2, K, DIST])
case("undistort_points[dist=8]", GCA, cal.undistort_points, [PTS2, K, I.distortion(B, 8)])
case(
    "undistort_points[new_K]",
    GCA,
    cal.undistort_points,
    [PTS2, K, DIST, K * torch.tensor([0.9, 0.9, 1.0]).view(3, 1)],
)
case("distort_points", GCA, cal.distort_points, [PTS2, K, DIST])
case("distort_points[dist=14]", GCA, cal.distort_points, [PTS2, K, I.distortion(B, 14)])
case("undistort_image", GCA, cal.undistort_image, [I.image(B), K, DIST])
case(
    "tilt_projection",
    GCA,
    cal.tilt_projection,
    [I.rand(B, low=-0.1, high=0.1), I.rand(B, seed=1, low=-0.1, high=0.1)],
)
case(
    "tilt_projection[return_inverse]",
    GCA,
    cal.tilt_projection,
    [I.rand(B, low=-0.1, high=0.1), I.rand(B, seed=1, low=-0.1, high=0.1)],
    {"return_inverse": True},
)
case("solve_pnp_dlt", GCA, cal.solve_pnp_dlt, [SCENE["X"], SCENE["x2"], K])

# Epipolar -------------------------------------------------------------------------------------
GE = "geometry.epipolar"
case("find_fundamental", GE, epi.find_fundamental, [X1, X2], tags=("quick",))
case("find_fundamental[weights]", GE, epi.find_fundamental, [X1, X2, I.rand(B, 16, low=0.5)])
case(
    "find_fundamental[method=7POINT]", GE, epi.find_fundamental, [X1[:, :7], X2[:, :7]], {"method": "7POINT"}
)
case(
    "find_essential",
    GE,
    epi.find_essential,
    [SCENE["n1"][:, :5], SCENE["n2"][:, :5]],
    note="five-point solver on normalised coordinates; candidate slots without a real root are NaN by design",
)
case("compute_correspond_epilines", GE, epi.compute_correspond_epilines, [X1, F])
case("sampson_epipolar_distance", GE, epi.sampson_epipolar_distance, [X1, X2, F])
case(
    "sampson_epipolar_distance[squared=False]",
    GE,
    epi.sampson_epipolar_distance,
    [X1, X2, F],
    {"squared": False},
)
case("symmetrical_epipolar_distance", GE, epi.symmetrical_epipolar_distance, [X1, X2, F])
case("left_to_right_epipolar_distance", GE, epi.left_to_right_epipolar_distance, [X1, X2, F])
case("right_to_left_epipolar_distance", GE, epi.right_to_left_epipolar_distance, [X1, X2, F])
case("get_closest_point_on_epipolar_line", GE, epi.get_closest_point_on_epipolar_line, [X1, X2 + 0.5, F])
LINES = torch.cat([torch.nn.functional.normalize(I.randn(B, 8, 2), dim=-1), I.randn(B, 8, 1, seed=1)], -1)
case("get_perpendicular", GE, epi.get_perpendicular, [LINES, PTS2])
case("essential_from_fundamental", GE, epi.essential_from_fundamental, [F, K, K])
case("fundamental_from_essential", GE, epi.fundamental_from_essential, [E, K, K])
case("essential_from_Rt", GE, epi.essential_from_Rt, [SCENE["R1"], SCENE["t1"], SCENE["R2"], SCENE["t2"]])
case("decompose_essential_matrix", GE, epi.decompose_essential_matrix, [E])
case("decompose_essential_matrix_no_svd", GE, epi.decompose_essential_matrix_no_svd, [E])
case("motion_from_essential", GE, epi.motion_from_essential, [E])
case(
    "motion_from_essential_choose_solution", GE, epi.motion_from_essential_choose_solution, [E, K, K, X1, X2]
)
case("project_to_essential", GE, epi.project_to_essential, [E + I.randn(B, 3, 3, scale=0.01)])
case(
    "relative_camera_motion",
    GE,
    epi.relative_camera_motion,
    [SCENE["R1"], SCENE["t1"], SCENE["R2"], SCENE["t2"]],
)
case("fundamental_from_projections", GE, epi.fundamental_from_projections, [SCENE["P1"], SCENE["P2"]])
case("projections_from_fundamental", GE, epi.projections_from_fundamental, [F])
case("projection_from_KRt", GE, epi.projection_from_KRt, [K, SCENE["R2"], SCENE["t2"]])
case("KRt_from_projection", GE, epi.KRt_from_projection, [SCENE["P2"]])
case("triangulate_points", GE, epi.triangulate_points, [SCENE["P1"], SCENE["P2"], X1, X2])
case(
    "triangulate_points[solver=svd]",
    GE,
    epi.triangulate_points,
    [SCENE["P1"], SCENE["P2"], X1, X2],
    {"solver": "svd"},
)
case("depth_from_point", GE, epi.depth_from_point, [SCENE["R2"], SCENE["t2"], SCENE["X"]])
case("cross_product_matrix", GE, epi.cross_product_matrix, [I.randn(B, 3)])
case("normalize_points", GE, epi.normalize_points, [X1])
case("normalize_points[weights]", GE, epi.normalize_points, [X1], {"weights": I.rand(B, 16, low=0.5)})
case("normalize_transformation", GE, epi.normalize_transformation, [F * 3.0])
case("scale_intrinsics", GE, epi.scale_intrinsics, [K], {"scale_factor": 0.5})
# The tensor comes after a number in the signature, so it is bound by keyword: a constant graph.
case(
    "intrinsics_like",
    GE,
    epi.intrinsics_like,
    [],
    {"focal": 48.0, "input": I.image(B)},
    note="the tensor is bound by keyword (it follows a float parameter): no graph inputs",
)
case(
    "random_intrinsics",
    GE,
    epi.random_intrinsics,
    [],
    {"low": 0.0, "high": 1.0},
    check=False,
    note="samples random values; not compared",
)
case(
    "generate_scene",
    GE,
    epi.generate_scene,
    [],
    {"num_views": 2, "num_points": 8},
    check=False,
    note="samples a random scene; not compared",
)

# Depth ----------------------------------------------------------------------------------------
GD = "geometry.depth"
DEPTH = I.depth(B)
case("depth_to_3d", GD, dep.depth_to_3d, [DEPTH, K], tags=("quick",))
case("depth_to_3d[normalize_points]", GD, dep.depth_to_3d, [DEPTH, K], {"normalize_points": True})
case("depth_to_3d_v2", GD, dep.depth_to_3d_v2, [DEPTH[:, 0], K])
case("depth_to_normals", GD, dep.depth_to_normals, [DEPTH, K])
case(
    "depth_from_disparity",
    GD,
    dep.depth_from_disparity,
    [I.rand(B, 1, I.H, I.W, low=1.0, high=8.0)],
    {"baseline": 0.1, "focal": 48.0},
)
case(
    "depth_from_plane_equation",
    GD,
    dep.depth_from_plane_equation,
    [torch.tensor([[0.0, 0.0, 1.0]]).repeat(B, 1), torch.full((B, 1), 2.0), PTS2, K],
)
case(
    "unproject_meshgrid",
    GD,
    dep.unproject_meshgrid,
    [],
    {"height": I.H, "width": I.W, "camera_matrix": K[:1]},
    note="the camera matrix follows two ints in the signature and is bound by keyword: no graph inputs",
)
case("warp_frame_depth", GD, dep.warp_frame_depth, [I.image(B), DEPTH, I.extrinsics4(B), K])
PINHOLE_SRC = cam.PinholeCamera(
    I.intrinsics4(B), I.extrinsics4(B, seed=3), torch.full((B,), float(I.H)), torch.full((B,), float(I.W))
)
case(
    "depth_warp",
    GD,
    dep.depth_warp,
    [PINHOLE, PINHOLE_SRC, DEPTH, I.image(B)],
    {"height": I.H, "width": I.W},
    note="takes PinholeCamera objects as inputs",
)
DEPTH_WARPER = dep.DepthWarper(PINHOLE, I.H, I.W)
DEPTH_WARPER.compute_projection_matrix(PINHOLE_SRC)
case("DepthWarper", GD, DEPTH_WARPER, [DEPTH, I.image(B)])

# Homography -----------------------------------------------------------------------------------
GH = "geometry.homography"
HMAT = I.homography(B)
H_PTS1 = I.points2d(B, 12)
H_PTS2 = torch.cat([H_PTS1, torch.ones(B, 12, 1)], -1) @ HMAT.transpose(1, 2)
H_PTS2 = H_PTS2[..., :2] / H_PTS2[..., 2:]
case("find_homography_dlt", GH, hom.find_homography_dlt, [H_PTS1, H_PTS2])
case("find_homography_dlt[solver=svd]", GH, hom.find_homography_dlt, [H_PTS1, H_PTS2], {"solver": "svd"})
case("find_homography_dlt[weights]", GH, hom.find_homography_dlt, [H_PTS1, H_PTS2, I.rand(B, 12, low=0.5)])
case(
    "find_homography_dlt_iterated", GH, hom.find_homography_dlt_iterated, [H_PTS1, H_PTS2, torch.ones(B, 12)]
)
SEG1 = torch.stack([H_PTS1[:, :6], H_PTS1[:, 6:]], 2)
SEG2 = torch.stack([H_PTS2[:, :6], H_PTS2[:, 6:]], 2)
case("find_homography_lines_dlt", GH, hom.find_homography_lines_dlt, [SEG1, SEG2])
case(
    "find_homography_lines_dlt_iterated",
    GH,
    hom.find_homography_lines_dlt_iterated,
    [SEG1, SEG2, torch.ones(B, 6)],
)
case("oneway_transfer_error", GH, hom.oneway_transfer_error, [H_PTS1, H_PTS2 + 0.3, HMAT])
case("symmetric_transfer_error", GH, hom.symmetric_transfer_error, [H_PTS1, H_PTS2 + 0.3, HMAT])
case("sampson_homography_distance", GH, hom.sampson_homography_distance, [H_PTS1, H_PTS2 + 0.3, HMAT])
case(
    "line_segment_transfer_error_one_way",
    GH,
    hom.line_segment_transfer_error_one_way,
    [SEG1, SEG2 + 0.3, HMAT],
)
case("sample_is_valid_for_homography", GH, hom.sample_is_valid_for_homography, [H_PTS1[:, :4], H_PTS2[:, :4]])

# Solvers --------------------------------------------------------------------------------------
GS = "geometry.solvers"
case("solve_quadratic", GS, sol.solve_quadratic, [torch.tensor([[1.0, -3.0, 2.0], [2.0, 1.0, -1.0]])])
case("solve_cubic", GS, sol.solve_cubic, [torch.tensor([[1.0, -6.0, 11.0, -6.0], [2.0, -4.0, -22.0, 24.0]])])
case("solve_quartic", GS, sol.solve_quartic, [torch.tensor([[1.0, -10.0, 35.0, -50.0, 24.0]])])
case("multiply_deg_one_poly", GS, sol.multiply_deg_one_poly, [I.randn(B, 4), I.randn(B, 4, seed=1)])
case("multiply_deg_two_one_poly", GS, sol.multiply_deg_two_one_poly, [I.randn(B, 10), I.randn(B, 4, seed=1)])
case("determinant_to_polynomial", GS, sol.determinant_to_polynomial, [I.randn(B, 3, 13)])
case("null_vector_3x4", GS, sol.null_vector_3x4, [I.randn(B, 3, 4)])
AFF_PTS2 = H_PTS1 @ I.affine2x3(1)[0, :, :2].T + I.affine2x3(1)[0, :, 2]
case("find_affine", GS, sol.find_affine, [H_PTS1, AFF_PTS2])

# RANSAC: sampling is seeded, so repeated runs agree; a small batch keeps each run short.
GR = "geometry.ransac"
R_PTS1 = I.points2d(1, 40)[0]
R_PTS2 = torch.cat([R_PTS1, torch.ones(40, 1)], -1) @ HMAT[0].T
R_PTS2 = R_PTS2[:, :2] / R_PTS2[:, 2:]
R_PTS2[::8] += 6.0
case(
    "RANSAC",
    GR,
    RANSAC("homography", max_iter=3, batch_size=64, seed=0),
    [R_PTS1, R_PTS2],
    note="max_iter=3 and batch_size=64 keep one run short; seeded",
)
case(
    "RANSAC[model_type=fundamental]",
    GR,
    RANSAC("fundamental", max_iter=2, batch_size=16, seed=0),
    [X1[0], X2[0]],
)
case(
    "RANSAC[model_type=homography_from_linesegments]",
    GR,
    RANSAC("homography_from_linesegments", max_iter=3, batch_size=64, seed=0),
    [SEG1[0], SEG2[0]],
)

# Sub-pixel --------------------------------------------------------------------------------------
GP = "geometry.subpix"
HEAT = I.heatmap(1, 2)
HEAT3 = torch.stack([I.heatmap(1, 2, 16, 16, seed=s) for s in range(5)], 2)
case("spatial_softmax2d", GP, sub.spatial_softmax2d, [HEAT])
SOFT_HEAT = I.in_float64(sub.spatial_softmax2d, HEAT)
case("spatial_expectation2d", GP, sub.spatial_expectation2d, [SOFT_HEAT])
case("spatial_soft_argmax2d", GP, sub.spatial_soft_argmax2d, [HEAT], tags=("quick",))
case(
    "spatial_soft_argmax2d[normalized_coordinates=False]",
    GP,
    sub.spatial_soft_argmax2d,
    [HEAT],
    {"normalized_coordinates": False},
)
case("SpatialSoftArgmax2d", GP, sub.SpatialSoftArgmax2d(), [HEAT])
case("conv_soft_argmax2d", GP, sub.conv_soft_argmax2d, [HEAT])
case("conv_soft_argmax2d[output_value]", GP, sub.conv_soft_argmax2d, [HEAT], {"output_value": True})
case("ConvSoftArgmax2d", GP, sub.ConvSoftArgmax2d(), [HEAT])
case("conv_soft_argmax3d", GP, sub.conv_soft_argmax3d, [HEAT3])
case("conv_soft_argmax3d[output_value]", GP, sub.conv_soft_argmax3d, [HEAT3], {"output_value": True})
case("ConvSoftArgmax3d", GP, sub.ConvSoftArgmax3d(), [HEAT3])
case("conv_quad_interp3d", GP, sub.conv_quad_interp3d, [HEAT3])
case("ConvQuadInterp3d", GP, sub.ConvQuadInterp3d(), [HEAT3])
case("iterative_quad_interp3d", GP, sub.iterative_quad_interp3d, [HEAT3])
case("IterativeQuadInterp3d", GP, sub.IterativeQuadInterp3d(), [HEAT3])
case("AdaptiveQuadInterp3d", GP, sub.AdaptiveQuadInterp3d(), [HEAT3])
case("AdaptiveQuadInterp3d[mode=patch]", GP, sub.AdaptiveQuadInterp3d(mode="patch"), [HEAT3])
case("AdaptiveQuadInterp3d[mode=conv]", GP, sub.AdaptiveQuadInterp3d(mode="conv"), [HEAT3])
case("nms2d", GP, sub.nms2d, [HEAT], {"kernel_size": (3, 3)})
case("nms2d[mask_only]", GP, sub.nms2d, [HEAT], {"kernel_size": (3, 3), "mask_only": True})
case("NonMaximaSuppression2d", GP, sub.NonMaximaSuppression2d((3, 3)), [HEAT])
case("nms3d", GP, sub.nms3d, [HEAT3], {"kernel_size": (3, 3, 3)})
case("NonMaximaSuppression3d", GP, sub.NonMaximaSuppression3d((3, 3, 3)), [HEAT3])
case("nms3d_minmax", GP, sub.nms3d_minmax, [HEAT3[:, :1]])
case(
    "render_gaussian2d",
    GP,
    sub.render_gaussian2d,
    [I.rand(B, 2, low=-0.5, high=0.5), torch.full((B, 2), 0.2)],
    {"size": (I.H, I.W)},
)

# Boxes (tensor helpers) -----------------------------------------------------------------------
GB = "geometry.bbox"
CORNERS = I.box_corners(B, 3)
CORNERS3 = I.box_corners3d(B, 2)
case(
    "bbox_generator",
    GB,
    bbox.bbox_generator,
    [
        torch.tensor([2.0, 5.0]),
        torch.tensor([3.0, 1.0]),
        torch.tensor([10.0, 12.0]),
        torch.tensor([8.0, 9.0]),
    ],
)
case(
    "bbox_generator3d",
    GB,
    bbox.bbox_generator3d,
    [
        torch.tensor([1.0, 2.0]),
        torch.tensor([2.0, 1.0]),
        torch.tensor([0.0, 1.0]),
        torch.tensor([6.0, 5.0]),
        torch.tensor([7.0, 4.0]),
        torch.tensor([3.0, 4.0]),
    ],
)
case("bbox_to_mask", GB, bbox.bbox_to_mask, [CORNERS[:, 0]], {"width": I.W, "height": I.H})
case("bbox_to_mask3d", GB, bbox.bbox_to_mask3d, [CORNERS3[:, 0]], {"size": (8, 16, 16)})
case("infer_bbox_shape", GB, bbox.infer_bbox_shape, [CORNERS[:, 0]])
case("infer_bbox_shape3d", GB, bbox.infer_bbox_shape3d, [CORNERS3[:, 0]])
case(
    "validate_bbox",
    GB,
    bbox.validate_bbox,
    [CORNERS[:, 0]],
    note="returns a Python bool: no tensor output to compare",
)
case(
    "validate_bbox3d",
    GB,
    bbox.validate_bbox3d,
    [CORNERS3[:, 0]],
    note="returns a Python bool: no tensor output to compare",
)
XYXY = I.boxes_xyxy(1, 6)[0]
case("nms", GB, bbox.nms, [XYXY, I.rand(6)], {"iou_threshold": 0.5})
case("transform_bbox", GB, bbox.transform_bbox, [I.homography(B), I.boxes_xyxy(B, 3)])
case(
    "transform_bbox[mode=xywh]",
    GB,
    bbox.transform_bbox,
    [I.homography(B), I.boxes_xyxy(B, 3)],
    {"mode": "xywh"},
)

# More options ---------------------------------------------------------------------------------
case("undistort_points[num_iters=10]", GCA, cal.undistort_points, [PTS2, K, DIST], {"num_iters": 10})
case("undistort_image[dist=8]", GCA, cal.undistort_image, [I.image(B), K, I.distortion(B, 8)])
case("solve_pnp_dlt[weights]", GCA, cal.solve_pnp_dlt, [SCENE["X"], SCENE["x2"], K, I.rand(B, 16, low=0.5)])
case(
    "sampson_epipolar_distance[use_matmul_at_less_than_points=0]",
    GE,
    epi.sampson_epipolar_distance,
    [X1, X2, F],
    {"use_matmul_at_less_than_points": 0},
    note="the einsum branch instead of the batched matmul",
)
case(
    "symmetrical_epipolar_distance[squared=False]",
    GE,
    epi.symmetrical_epipolar_distance,
    [X1, X2, F],
    {"squared": False},
)
case(
    "motion_from_essential_choose_solution[mask]",
    GE,
    epi.motion_from_essential_choose_solution,
    [E, K, K, X1, X2],
    {"mask": torch.ones(B, 16, dtype=torch.bool)},
)
case(
    "oneway_transfer_error[squared=False]",
    GH,
    hom.oneway_transfer_error,
    [H_PTS1, H_PTS2 + 0.3, HMAT],
    {"squared": False},
)
case(
    "symmetric_transfer_error[squared=False]",
    GH,
    hom.symmetric_transfer_error,
    [H_PTS1, H_PTS2 + 0.3, HMAT],
    {"squared": False},
)
case(
    "sampson_homography_distance[squared=False]",
    GH,
    hom.sampson_homography_distance,
    [H_PTS1, H_PTS2 + 0.3, HMAT],
    {"squared": False},
)
case(
    "line_segment_transfer_error_one_way[squared=True]",
    GH,
    hom.line_segment_transfer_error_one_way,
    [SEG1, SEG2 + 0.3, HMAT],
    {"squared": True},
)
case(
    "find_homography_dlt_iterated[n_iter=1]",
    GH,
    hom.find_homography_dlt_iterated,
    [H_PTS1, H_PTS2, torch.ones(B, 12)],
    {"n_iter": 1},
)
case("find_affine[weights]", GS, sol.find_affine, [H_PTS1, AFF_PTS2, I.rand(B, 12, low=0.5)])
case("depth_to_normals[normalize_points]", GD, dep.depth_to_normals, [DEPTH, K], {"normalize_points": True})
case("depth_to_3d_v2[normalize_points]", GD, dep.depth_to_3d_v2, [DEPTH[:, 0], K], {"normalize_points": True})
case(
    "warp_frame_depth[normalize_points]",
    GD,
    dep.warp_frame_depth,
    [I.image(B), DEPTH, I.extrinsics4(B), K],
    {"normalize_points": True},
)
case(
    "render_gaussian2d[normalized_coordinates=False]",
    GP,
    sub.render_gaussian2d,
    [I.points2d(B, 1)[:, 0], torch.full((B, 2), 3.0)],
    {"size": (I.H, I.W), "normalized_coordinates": False},
)
case(
    "spatial_softmax2d[temperature=0.5]",
    GP,
    sub.spatial_softmax2d,
    [HEAT],
    {"temperature": torch.tensor(0.5)},
)
case(
    "spatial_expectation2d[normalized_coordinates=False]",
    GP,
    sub.spatial_expectation2d,
    [SOFT_HEAT],
    {"normalized_coordinates": False},
)
case(
    "conv_soft_argmax2d[normalized_coordinates=False]",
    GP,
    sub.conv_soft_argmax2d,
    [HEAT],
    {"normalized_coordinates": False},
)
case(
    "conv_quad_interp3d[strict_maxima_bonus=10]",
    GP,
    sub.conv_quad_interp3d,
    [HEAT3],
    {"strict_maxima_bonus": 10.0},
)
case("nms3d[mask_only]", GP, sub.nms3d, [HEAT3], {"kernel_size": (3, 3, 3), "mask_only": True})
case(
    "transform_bbox[restore_coordinates]",
    GB,
    bbox.transform_bbox,
    [I.homography(B), I.boxes_xyxy(B, 3)],
    {"restore_coordinates": True},
)
case(
    "bbox_to_mask[batch=2]",
    GB,
    bbox.bbox_to_mask,
    [CORNERS[:, :2].reshape(-1, 4, 2)],
    {"width": I.W, "height": I.H},
)

# Box and keypoint containers --------------------------------------------------------------------
GBX = "geometry.boxes"
BOXES = Boxes.from_tensor(I.boxes_xyxy(B, 3), mode="xyxy")
case(
    "Boxes.from_tensor",
    GBX,
    Boxes,
    [I.boxes_xyxy(B, 3)],
    {"mode": "xyxy"},
    method="from_tensor",
    note="returns a Boxes object; its tensor is compared",
)
case("Boxes.from_tensor[mode=xywh]", GBX, Boxes, [I.boxes_xyxy(B, 3)], {"mode": "xywh"}, method="from_tensor")
case("Boxes.to_tensor", GBX, BOXES, [], method="to_tensor")
case("Boxes.to_tensor[mode=xywh]", GBX, BOXES, [], {"mode": "xywh"}, method="to_tensor")
case("Boxes.to_mask", GBX, BOXES, [], {"height": I.H, "width": I.W}, method="to_mask")
case("Boxes.compute_area", GBX, BOXES, [], method="compute_area")
case("Boxes.get_boxes_shape", GBX, BOXES, [], method="get_boxes_shape")
case("Boxes.transform_boxes", GBX, BOXES, [I.homography(B)], method="transform_boxes")
case(
    "Boxes.clamp",
    GBX,
    BOXES,
    [torch.zeros(B, 2), torch.tensor([[I.W - 5.0, I.H - 5.0]]).repeat(B, 1)],
    method="clamp",
)
case("Boxes.filter_boxes_by_area", GBX, BOXES, [], {"min_area": 50.0}, method="filter_boxes_by_area")
case("Boxes.pad", GBX, BOXES, [torch.tensor([[1, 1, 1, 1]]).repeat(B, 1)], method="pad")
case("Boxes.translate", GBX, BOXES, [torch.tensor([[3.0, 2.0]]).repeat(B, 1)], method="translate")
BOXES3 = Boxes3D.from_tensor(torch.tensor([[[1.0, 1.0, 1.0, 6.0, 7.0, 4.0], [2.0, 3.0, 0.0, 9.0, 8.0, 5.0]]]))
case(
    "Boxes3D.from_tensor",
    GBX,
    Boxes3D,
    [torch.tensor([[[1.0, 1.0, 1.0, 6.0, 7.0, 4.0]]])],
    method="from_tensor",
)
case("Boxes3D.to_tensor", GBX, BOXES3, [], method="to_tensor")
case("Boxes3D.to_mask", GBX, BOXES3, [], {"depth": 8, "height": 16, "width": 16}, method="to_mask")
case("Boxes3D.transform_boxes", GBX, BOXES3, [I.homography3d(1)], method="transform_boxes")
case("VideoBoxes.from_tensor", GBX, VideoBoxes, [I.box_corners(B, 3).unsqueeze(0)], method="from_tensor")

GK = "geometry.keypoints"
KPTS = Keypoints(I.points2d(B, 6))
case("Keypoints.from_tensor", GK, Keypoints, [I.points2d(B, 6)], method="from_tensor")
case("Keypoints.transform_keypoints", GK, KPTS, [I.homography(B)], method="transform_keypoints")
case("Keypoints.to_tensor", GK, KPTS, [], method="to_tensor")
case("Keypoints.pad", GK, KPTS, [torch.tensor([[1, 1, 1, 1]]).repeat(B, 1)], method="pad")
KPTS3 = Keypoints3D(PTS3)
case("Keypoints3D.to_tensor", GK, KPTS3, [], method="to_tensor")
case("Keypoints3D.from_tensor", GK, Keypoints3D, [PTS3], method="from_tensor")

for name in (
    "load_pointcloud_ply",
    "load_pointcloud_ply_binary",
    "save_pointcloud_ply",
    "save_pointcloud_ply_binary",
):
    exclude(f"kornia.geometry.pointcloud.{name}", reason="file I/O helper; not a tensor operator")

# Settings Kornia's own survey measures, written so that `capmap diff` pairs the two surveys'
# cases one to one.
case(
    "conv_soft_argmax2d[temperature=tensor]",
    GP,
    sub.conv_soft_argmax2d,
    [HEAT],
    {"temperature": torch.tensor(0.5)},
    note="`if temperature <= 0` reads the tensor's value",
)
case(
    "conv_soft_argmax2d[output_value,pixel,stride2]",
    GP,
    sub.conv_soft_argmax2d,
    [HEAT],
    {"output_value": True, "normalized_coordinates": False, "stride": (2, 2)},
)
case("conv_soft_argmax3d[normalized]", GP, sub.conv_soft_argmax3d, [HEAT3], {"normalized_coordinates": True})
case("conv_quad_interp3d[no_scale_steps]", GP, sub.conv_quad_interp3d, [HEAT3], {"allow_scale_steps": False})
with torch.no_grad():
    nms_mask = sub.nms3d(HEAT3, (3, 3, 3), True)
case(
    "conv_quad_interp3d[precomputed_mask]",
    GP,
    sub.conv_quad_interp3d,
    [HEAT3],
    {"precomputed_nms_mask": nms_mask},
)
case("nms2d[mask_only,5x5]", GP, sub.nms2d, [HEAT], {"kernel_size": (5, 5), "mask_only": True})


# kornia.geometry.camera.stereo's function form of StereoCamera.reproject_disparity_to_3D.
stereo_left = torch.tensor([[[48.0, 0.0, 19.5, 0.0], [0.0, 48.0, 15.5, 0.0], [0.0, 0.0, 1.0, 0.0]]])
stereo_right = stereo_left.clone()
stereo_right[:, 0, 3] = -4.8
with torch.no_grad():
    stereo_q = cam.StereoCamera(stereo_left, stereo_right).Q
case(
    "stereo.reproject_disparity_to_3D",
    "geometry.camera",
    cam.stereo.reproject_disparity_to_3D,
    [I.rand(1, I.H, I.W, 1, low=1.0, high=8.0, seed=32), stereo_q],
)


# Methods of the box, keypoint, camera, depth and RANSAC classes -----------------------------------
# Boxes and keypoints --------------------------------------------------------------------------
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
case("Keypoints3D.clone", GK, KPTS3, [], method="clone")
NOT_IMPLEMENTED = "raises NotImplementedError in kornia 0.9: nothing to probe"
for name in ("pad", "unpad", "transform_keypoints", "transform_keypoints_"):
    exclude(f"kornia.geometry.keypoints.Keypoints3D.{name}", reason=NOT_IMPLEMENTED)
exclude("kornia.geometry.boxes.Boxes.trim", reason=NOT_IMPLEMENTED)

# Cameras --------------------------------------------------------------------------------------
K4 = I.intrinsics4(B)
E4 = I.extrinsics4(B)
HS = torch.full((B,), float(I.H))
WS = torch.full((B,), float(I.W))
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
T3 = I.translation(B)[..., 0]
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
        T3[:, 0],
        T3[:, 1],
        T3[:, 2],
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
STEREO_RIGHT[:, 0, 3] = -48.0 * 0.1
STEREO_IN = [STEREO_LEFT, STEREO_RIGHT]
attribute("StereoCamera.Q", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.fx", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.fy", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.cx_left", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.cx_right", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.cy", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")
attribute("StereoCamera.tx", GC, cam.StereoCamera, STEREO_IN, "kornia.geometry")

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
# The matches of R_PTS1 under HMAT without the outliers added above.
R_PTS2_EXACT = torch.cat([R_PTS1, torch.ones(40, 1)], -1) @ HMAT[0].T
R_PTS2_EXACT = R_PTS2_EXACT[:, :2] / R_PTS2_EXACT[:, 2:]
RANSAC_H = RANSAC("homography", max_iter=3, batch_size=8, seed=0)
SAMPLE = torch.stack([torch.arange(4) + 4 * i for i in range(8)])
case(
    "RANSAC.estimate_model_from_minsample",
    GR,
    RANSAC_H,
    [R_PTS1[SAMPLE], R_PTS2_EXACT[SAMPLE]],
    method="estimate_model_from_minsample",
)
with torch.no_grad():
    MODELS = RANSAC_H.estimate_model_from_minsample(R_PTS1[SAMPLE], R_PTS2_EXACT[SAMPLE])
case("RANSAC.verify", GR, RANSAC_H, [R_PTS1, R_PTS2_EXACT, MODELS, 2.0], method="verify")
case("RANSAC.remove_bad_models", GR, RANSAC_H, [MODELS], method="remove_bad_models")
case(
    "RANSAC.remove_bad_samples",
    GR,
    RANSAC_H,
    [R_PTS1[SAMPLE], R_PTS2_EXACT[SAMPLE]],
    method="remove_bad_samples",
)
case(
    "RANSAC.polish_model",
    GR,
    RANSAC_H,
    [R_PTS1, R_PTS2_EXACT, torch.ones(40, dtype=torch.bool)],
    method="polish_model",
)
case("RANSAC.sample", GR, RANSAC_H, [4, 40, 8, 0], method="sample", check=False, note=RANDOM)
