"""Kornia survey: metrics (image quality, segmentation, flow, disparity, pose, detection)."""

from __future__ import annotations

import kornia.metrics as km
import torch

from capmap import case

from ._inputs import boxes_xyxy_unbatched, image, labels, rand, randn, rotation_matrices, volume

G = "metrics"
QUICK = ("quick",)

img1, img2 = image(), image(seed=1)
vol1, vol2 = volume(), volume(seed=2)
C = 4
pred_labels = labels(2, 16, 20, classes=C, seed=3)
true_labels = labels(2, 16, 20, classes=C, seed=4)

case("psnr", G, km.psnr, [img1, img2], {"max_val": 1.0}, tags=QUICK)
case("ssim", G, km.ssim, [img1, img2], {"window_size": 5})
case("ssim[padding=valid]", G, km.ssim, [img1, img2], {"window_size": 5, "padding": "valid"})
case("SSIM", G, km.SSIM(5), [img1, img2])
case("ssim3d", G, km.ssim3d, [vol1, vol2], {"window_size": 3})
case("SSIM3D", G, km.SSIM3D(3), [vol1, vol2])

case("mean_iou", G, km.mean_iou, [pred_labels, true_labels], {"num_classes": C}, tags=QUICK)
case("confusion_matrix", G, km.confusion_matrix, [pred_labels, true_labels], {"num_classes": C})
case(
    "confusion_matrix[normalized]",
    G,
    km.confusion_matrix,
    [pred_labels, true_labels],
    {"num_classes": C, "normalized": True},
)
case("accuracy", G, km.accuracy, [randn(8, 10, seed=5), labels(8, classes=10, seed=6)])
case(
    "accuracy[topk=(1,5)]",
    G,
    km.accuracy,
    [randn(8, 10, seed=5), labels(8, classes=10, seed=6)],
    {"topk": (1, 5)},
)
case("mean_iou_bbox", G, km.mean_iou_bbox, [boxes_xyxy_unbatched(3, seed=7), boxes_xyxy_unbatched(4, seed=8)])

flow1, flow2 = randn(1, 2, 16, 20, seed=9), randn(1, 2, 16, 20, seed=10)
flow1_last, flow2_last = flow1.permute(0, 2, 3, 1).contiguous(), flow2.permute(0, 2, 3, 1).contiguous()
case("aepe", G, km.aepe, [flow1_last, flow2_last])
case("aepe[reduction=sum]", G, km.aepe, [flow1_last, flow2_last], {"reduction": "sum"})
case("AEPE", G, km.AEPE(), [flow1_last, flow2_last])

disp_pred = rand(1, 16, 20, low=1.0, high=40.0, seed=11)
disp_true = rand(1, 16, 20, low=1.0, high=40.0, seed=12)
valid = rand(1, 16, 20, seed=13) > 0.2
for fn in (
    km.mean_absolute_disparity_error,
    km.root_mean_squared_disparity_error,
    km.mean_bad_pixel_error,
    km.kitti_d1_error,
):
    case(fn.__name__, G, fn, [disp_pred, disp_true])
    case(f"{fn.__name__}[valid_mask]", G, fn, [disp_pred, disp_true], {"valid_mask": valid})

rot_a, rot_b = rotation_matrices(4, seed=14), rotation_matrices(4, seed=15)
vec_a, vec_b = randn(4, 3, seed=16), randn(4, 3, seed=17)
case("angle_error_mat", G, km.angle_error_mat, [rot_a, rot_b])
case("angle_error_vec", G, km.angle_error_vec, [vec_a, vec_b])
case("translation_ate", G, km.translation_ate, [vec_a, vec_b])
pose_a = torch.cat([rot_a, vec_a.unsqueeze(-1)], dim=-1)
pose_b = torch.cat([rot_b, vec_b.unsqueeze(-1)], dim=-1)
case("pose_errors", G, km.pose_errors, [pose_a, pose_b])
case("pose_errors[fold_translation=False]", G, km.pose_errors, [pose_a, pose_b], {"fold_translation": False})
case(
    "auc_from_errors",
    G,
    km.auc_from_errors,
    [rand(32, high=12.0, seed=18)],
    note="returns Python floats: no tensor output to compare",
)
case(
    "mean_average_precision",
    G,
    km.mean_average_precision,
    [
        [boxes_xyxy_unbatched(3, seed=19)],
        [torch.tensor([1, 2, 1])],
        [torch.tensor([0.9, 0.6, 0.4])],
        [boxes_xyxy_unbatched(2, seed=19)],
        [torch.tensor([1, 2])],
        3,
    ],
)


def average_meter_after_update(value: torch.Tensor) -> km.AverageMeter:
    """AverageMeter.update returns None and changes the meter: update a fresh meter (each path
    starts from the same state) and return it, so its running value, sum and mean are compared."""
    meter = km.AverageMeter()
    meter.update(value)
    return meter


case(
    "AverageMeter",
    G,
    average_meter_after_update,
    [torch.tensor(2.5)],
    covers="kornia.metrics.AverageMeter.update",
    note="update returns None: the meter it changed is compared",
)

# Settings Kornia's own survey measures, written so that `capmap diff` pairs the two surveys'
# cases one to one.
case(
    "accuracy[top1,top3]",
    G,
    km.accuracy,
    [randn(8, 10, seed=5), labels(8, classes=10, seed=6)],
    {"topk": (1, 3)},
)
case("aepe[reduction=none]", G, km.aepe, [flow1_last, flow2_last], {"reduction": "none"})
case("average_endpoint_error", G, km.average_endpoint_error, [flow1_last, flow2_last])
case(
    "angle_error_mat[batch]",
    G,
    km.angle_error_mat,
    [rotation_matrices(2, seed=18), rotation_matrices(2, seed=19)],
)
case("angle_error_vec[batch]", G, km.angle_error_vec, [randn(2, 3, seed=20), randn(2, 3, seed=21)])
case("translation_ate[batch]", G, km.translation_ate, [randn(2, 3, seed=22), randn(2, 3, seed=23)])


def _boxes_as(box_format: str, n: int, seed: int) -> torch.Tensor:
    """Valid boxes in another layout than xyxy."""
    xyxy = boxes_xyxy_unbatched(n, seed=seed)
    wh = xyxy[:, 2:] - xyxy[:, :2]
    corner = xyxy[:, :2] if box_format == "xywh" else xyxy[:, :2] + wh / 2
    return torch.cat([corner, wh], dim=-1)


for layout in ("xywh", "cxcywh"):
    case(
        f"mean_iou_bbox[box_format={layout}]",
        G,
        km.mean_iou_bbox,
        [_boxes_as(layout, 3, 7), _boxes_as(layout, 4, 8)],
        {"box_format": layout},
    )
case(
    "root_mean_squared_disparity_error[valid_mask,reduction=none]",
    G,
    km.root_mean_squared_disparity_error,
    [disp_pred, disp_true],
    {"valid_mask": valid, "reduction": "none"},
)
