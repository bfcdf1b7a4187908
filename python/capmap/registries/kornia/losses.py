"""Kornia survey: losses (segmentation, robust, image-quality, depth, mutual information)."""

from __future__ import annotations

import kornia.losses as kl
import torch

from capmap import case

from ._inputs import H, W, binary_mask, image, labels, probabilities, rand, randn, volume

G = "losses"
QUICK = ("quick",)

C = 4
logits = randn(2, C, 16, 20, seed=1)
target = labels(2, 16, 20, classes=C, seed=2)
binary_logits = randn(2, 1, 16, 20, seed=3)
binary_target = binary_mask(2, 1, 16, 20, seed=4)
img1, img2 = image(), image(seed=5)
vol1, vol2 = volume(), volume(seed=6)

# Classification and segmentation.
case("focal_loss", G, kl.focal_loss, [logits, target], {"alpha": 0.25}, tags=QUICK)
case("focal_loss[reduction=mean]", G, kl.focal_loss, [logits, target], {"alpha": 0.25, "reduction": "mean"})
case(
    "focal_loss[weight]",
    G,
    kl.focal_loss,
    [logits, target],
    {"alpha": 0.25, "weight": torch.tensor([1.0, 2.0, 0.5, 1.0])},
)
case("FocalLoss", G, kl.FocalLoss(alpha=0.25), [logits, target])
case("binary_focal_loss_with_logits", G, kl.binary_focal_loss_with_logits, [binary_logits, binary_target])
case(
    "binary_focal_loss_with_logits[reduction=mean,pos_weight]",
    G,
    kl.binary_focal_loss_with_logits,
    [binary_logits, binary_target],
    {"reduction": "mean", "pos_weight": torch.tensor([2.0])},
)
case("BinaryFocalLossWithLogits", G, kl.BinaryFocalLossWithLogits(alpha=0.25), [binary_logits, binary_target])
case("dice_loss", G, kl.dice_loss, [logits, target])
case("dice_loss[average=macro]", G, kl.dice_loss, [logits, target], {"average": "macro"})
case("DiceLoss", G, kl.DiceLoss(), [logits, target])
case("tversky_loss", G, kl.tversky_loss, [logits, target], {"alpha": 0.5, "beta": 0.5})
case("TverskyLoss", G, kl.TverskyLoss(0.5, 0.5), [logits, target])
case("lovasz_hinge_loss", G, kl.lovasz_hinge_loss, [binary_logits, binary_target.squeeze(1).long()])
case("LovaszHingeLoss", G, kl.LovaszHingeLoss(), [binary_logits, binary_target.squeeze(1).long()])
case("lovasz_softmax_loss", G, kl.lovasz_softmax_loss, [logits, target])
case("LovaszSoftmaxLoss", G, kl.LovaszSoftmaxLoss(), [logits, target])
# device and dtype are bound options, not graph inputs.
cpu_float = {"num_classes": C, "device": torch.device("cpu"), "dtype": torch.float32}
case("one_hot", G, kl.one_hot, [target], cpu_float)
case("one_hot[eps]", G, kl.one_hot, [target], {**cpu_float, "eps": 1e-6})
case(
    "HausdorffERLoss",
    G,
    kl.HausdorffERLoss(k=3),
    [probabilities(1, 2, 16, 16, seed=7), labels(1, 1, 16, 16, classes=2, seed=8)],
)
case(
    "HausdorffERLoss[multiclass]",
    G,
    kl.HausdorffERLoss(k=3),
    [probabilities(1, 3, 16, 16, seed=9), labels(1, 1, 16, 16, classes=3, seed=10)],
)
case(
    "HausdorffERLoss3D",
    G,
    kl.HausdorffERLoss3D(k=3),
    [torch.softmax(randn(1, 2, 8, 8, 8, seed=11), dim=1), labels(1, 1, 8, 8, 8, classes=2, seed=12)],
)
case(
    "kl_div_loss_2d",
    G,
    kl.kl_div_loss_2d,
    [probabilities(1, 1, 8, 8, seed=13).view(1, 1, 8, 8), probabilities(1, 1, 8, 8, seed=14)],
)
heat_a = torch.softmax(randn(1, 2, 64, seed=15), dim=-1).view(1, 2, 8, 8)
heat_b = torch.softmax(randn(1, 2, 64, seed=16), dim=-1).view(1, 2, 8, 8)
case("kl_div_loss_2d[softmax_maps]", G, kl.kl_div_loss_2d, [heat_a, heat_b], {"reduction": "none"})
case("js_div_loss_2d", G, kl.js_div_loss_2d, [heat_a, heat_b])
case("js_div_loss_2d[reduction=none]", G, kl.js_div_loss_2d, [heat_a, heat_b], {"reduction": "none"})

# Robust regression losses.
for fn, module in (
    (kl.cauchy_loss, kl.CauchyLoss),
    (kl.charbonnier_loss, kl.CharbonnierLoss),
    (kl.geman_mcclure_loss, kl.GemanMcclureLoss),
    (kl.welsch_loss, kl.WelschLoss),
):
    case(fn.__name__, G, fn, [img1, img2])
    case(f"{fn.__name__}[reduction=mean]", G, fn, [img1, img2], {"reduction": "mean"})
    case(module.__name__, G, module(), [img1, img2])

# Image quality.
case("ssim_loss", G, kl.ssim_loss, [img1, img2], {"window_size": 5}, tags=QUICK)
case("ssim_loss[padding=valid]", G, kl.ssim_loss, [img1, img2], {"window_size": 5, "padding": "valid"})
case("ssim_loss[reduction=none]", G, kl.ssim_loss, [img1, img2], {"window_size": 5, "reduction": "none"})
case("SSIMLoss", G, kl.SSIMLoss(5), [img1, img2])
case("ssim3d_loss", G, kl.ssim3d_loss, [vol1, vol2], {"window_size": 3})
case("SSIM3DLoss", G, kl.SSIM3DLoss(3), [vol1, vol2])
case("MS_SSIMLoss", G, kl.MS_SSIMLoss(sigmas=(0.5, 1.0, 2.0)), [image(h=64, w=64), image(h=64, w=64, seed=5)])
case("psnr_loss", G, kl.psnr_loss, [img1, img2], {"max_val": 1.0})
case("PSNRLoss", G, kl.PSNRLoss(1.0), [img1, img2])
case("total_variation", G, kl.total_variation, [img1])
case("total_variation[reduction=mean]", G, kl.total_variation, [img1], {"reduction": "mean"})
case("TotalVariation", G, kl.TotalVariation(), [img1])
idepth = rand(1, 1, H, W, low=0.1, high=1.0, seed=17)
case("inverse_depth_smoothness_loss", G, kl.inverse_depth_smoothness_loss, [idepth, img1])
case("InverseDepthSmoothnessLoss", G, kl.InverseDepthSmoothnessLoss(), [idepth, img1])

# Mutual information between two images (registration losses).
mi_a = image(c=1, h=16, w=16, seed=18)
mi_b = (0.7 * mi_a + 0.3 * image(c=1, h=16, w=16, seed=19)).clamp(0, 1)
mi_v1, mi_v2 = volume(h=8, w=8), volume(h=8, w=8, seed=20)
mi_flat_a, mi_flat_b = mi_a.flatten(), mi_b.flatten()
small = {"num_bins": 16}
case("mutual_information_loss", G, kl.mutual_information_loss, [mi_flat_a, mi_flat_b], small)
case("mutual_information_loss_2d", G, kl.mutual_information_loss_2d, [mi_a, mi_b], small)
case("mutual_information_loss_3d", G, kl.mutual_information_loss_3d, [mi_v1, mi_v2], small)
case(
    "normalized_mutual_information_loss",
    G,
    kl.normalized_mutual_information_loss,
    [mi_flat_a, mi_flat_b],
    small,
)
case(
    "normalized_mutual_information_loss_2d", G, kl.normalized_mutual_information_loss_2d, [mi_a, mi_b], small
)
case(
    "normalized_mutual_information_loss_3d",
    G,
    kl.normalized_mutual_information_loss_3d,
    [mi_v1, mi_v2],
    small,
)
for kernel in kl.MIKernel:
    if kernel is not kl.MIKernel.xu:
        kernel_options = {"num_bins": 16, "kernel_function": kernel}
        case(
            f"mutual_information_loss_2d[kernel={kernel.name}]",
            G,
            kl.mutual_information_loss_2d,
            [mi_a, mi_b],
            kernel_options,
        )
case("MILossFromRef", G, kl.MILossFromRef(mi_flat_a, num_bins=16), [mi_flat_b])
case("MILossFromRef2D", G, kl.MILossFromRef2D(mi_a, num_bins=16), [mi_b])
case("MILossFromRef3D", G, kl.MILossFromRef3D(mi_v1, num_bins=16), [mi_v2])
case("NMILossFromRef", G, kl.NMILossFromRef(mi_flat_a, num_bins=16), [mi_flat_b])
case("NMILossFromRef2D", G, kl.NMILossFromRef2D(mi_a, num_bins=16), [mi_b])
case("NMILossFromRef3D", G, kl.NMILossFromRef3D(mi_v1, num_bins=16), [mi_v2])

# Settings Kornia's own survey measures, written so that `capmap diff` pairs the two surveys'
# cases one to one.
ignored = target.clone()
ignored[:, :2, :3] = -100
class_weight = torch.tensor([1.0, 2.0, 0.5, 1.0])
case("dice_loss[ignore_index]", G, kl.dice_loss, [logits, ignored], {"ignore_index": -100})
case(
    "dice_loss[average=macro,weight]",
    G,
    kl.dice_loss,
    [logits, target],
    {"average": "macro", "weight": class_weight},
)
case("focal_loss[ignore_index]", G, kl.focal_loss, [logits, ignored], {"alpha": 0.25, "ignore_index": -100})
case(
    "focal_loss[reduction=mean,weight]",
    G,
    kl.focal_loss,
    [logits, target],
    {"alpha": 0.25, "reduction": "mean", "weight": class_weight},
)
case(
    "HausdorffERLoss[k=3,reduction=sum]",
    G,
    kl.HausdorffERLoss(k=3, reduction="sum"),
    [probabilities(1, 2, 16, 16, seed=7), labels(1, 1, 16, 16, classes=2, seed=8)],
)
case(
    "kl_div_loss_2d[reduction=sum]",
    G,
    kl.kl_div_loss_2d,
    [probabilities(1, 1, 8, 8, seed=13).view(1, 1, 8, 8), probabilities(1, 1, 8, 8, seed=14)],
    {"reduction": "sum"},
)
case("lovasz_softmax_loss[weight]", G, kl.lovasz_softmax_loss, [logits, target], {"weight": class_weight})
case(
    "ssim_loss[padding=valid,reduction=none]",
    G,
    kl.ssim_loss,
    [img1, img2],
    {"window_size": 5, "padding": "valid", "reduction": "none"},
)
case(
    "MS_SSIMLoss[small_sigmas]",
    G,
    kl.MS_SSIMLoss(sigmas=(0.25, 0.5, 1.0)),
    [image(h=32, w=32), image(h=32, w=32, seed=5)],
)


# Methods of kornia.losses classes -----------------------------------------------------------------
GL = "losses.methods"
haus = kl.HausdorffERLoss(k=3)
hausdorff_pred = rand(1, 1, 16, 16, seed=12)
hausdorff_target = binary_mask(1, 1, 16, 16, seed=13).long()
case("HausdorffERLoss.get_kernel", GL, haus, [], method="get_kernel", note="no tensor input")
case("HausdorffERLoss.max_pool", GL, kl.HausdorffERLoss, [hausdorff_pred], method="max_pool")
case(
    "HausdorffERLoss.perform_erosion", GL, haus, [hausdorff_pred, hausdorff_target], method="perform_erosion"
)
case(
    "HausdorffERLoss3D.max_pool",
    GL,
    kl.HausdorffERLoss3D,
    [rand(1, 1, 4, 8, 8, seed=14)],
    method="max_pool",
)
case(
    "HausdorffERLoss3D.get_kernel",
    GL,
    kl.HausdorffERLoss3D(k=3),
    [],
    method="get_kernel",
    note="no tensor input",
)
reference = rand(1, 16, 16, seed=15)
mi = kl.MILossFromRef2D(reference, num_bins=8)
other = kl.MILossFromRef2D.arrange_shape(rand(1, 16, 16, seed=16))
case("MILossFromRef2D.entropies", GL, mi, [other], method="entropies")
case(
    "MILossFromRef2D.trace_in_ref_mask",
    GL,
    mi,
    [other, torch.ones_like(other, dtype=torch.bool)],
    method="trace_in_ref_mask",
)
case("MILossFromRef2D.fix_mask", GL, kl.MILossFromRef2D, [None, other], method="fix_mask")
for owner in ("MILossFromRef2D", "MILossFromRef3D", "NMILossFromRef2D", "NMILossFromRef3D"):
    shaped = rand(2, 4, 4, seed=17) if owner.endswith("2D") else rand(2, 3, 4, 4, seed=17)
    case(f"{owner}.arrange_shape", GL, getattr(kl, owner), [shaped], method="arrange_shape")
