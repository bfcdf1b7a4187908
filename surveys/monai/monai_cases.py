"""A survey of MONAI 1.6.1: networks, blocks, losses, metrics and array transforms.

The cases follow MONAI's README and the configurations of its own tests, shrunk so that each runs
in well under a second on a CPU: 2-D wherever the network allows it, a few channels, 32 x 32
images, random weights (nothing is downloaded). Transforms take channel-first tensors without a
batch dimension, as in a MONAI pipeline, and return MONAI's MetaTensor as they do by default.
"""

from __future__ import annotations

import numpy as np
import torch
from capmap import case, deferred, library
from monai import losses, metrics, transforms
from monai.inferers import sliding_window_inference
from monai.networks import blocks, nets

library(
    "monai",
    # MONAI tags its releases with the bare version (1.6.1); an installed package's revision is it.
    source_url="https://github.com/Project-MONAI/MONAI/blob/{revision}/{path}#L{line}",
    docs_url="https://docs.monai.io/en/stable/search.html?q={ref}",
)

# Networks draw their initial weights from the global generator: fix it so that every import
# builds the same ones.
torch.manual_seed(0)


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def image(b: int = 2, c: int = 1, size: int = 32) -> torch.Tensor:
    """A batch of 2-D images in [0, 1)."""
    return torch.rand(b, c, size, size, generator=_gen(1))


def channel_first(c: int = 1, size: int = 24) -> torch.Tensor:
    """One image as a transform takes it: channels first, no batch."""
    return torch.rand(c, size, size, generator=_gen(2))


def logits_and_onehot(b: int = 2, classes: int = 3, size: int = 16) -> list[torch.Tensor]:
    """Network logits and a one-hot ground truth of the same shape."""
    g = _gen(3)
    labels = torch.randint(0, classes, (b, size, size), generator=g)
    onehot = torch.nn.functional.one_hot(labels, classes).permute(0, 3, 1, 2).float()
    return [torch.randn(b, classes, size, size, generator=g), onehot]


def logits_and_labels(b: int = 2, classes: int = 3, size: int = 16) -> list[torch.Tensor]:
    """Network logits and a label map with one channel (what `to_onehot_y=True` expects)."""
    g = _gen(4)
    return [
        torch.randn(b, classes, size, size, generator=g),
        torch.randint(0, classes, (b, 1, size, size), generator=g).float(),
    ]


def onehot_pair(b: int = 2, classes: int = 3, size: int = 16) -> list[torch.Tensor]:
    """A one-hot prediction and a one-hot ground truth, as the segmentation metrics take them."""
    g = _gen(5)
    pair = []
    for _ in range(2):
        labels = torch.randint(0, classes, (b, size, size), generator=g)
        pair.append(torch.nn.functional.one_hot(labels, classes).permute(0, 3, 1, 2).float())
    return pair


# --- networks: 2-D, tiny channels -------------------------------------------------------------

NET = "networks.nets"
case(
    "UNet",
    NET,
    nets.UNet(
        spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16), strides=(2, 2), num_res_units=2
    ),
    [image()],
    tags=("quick",),
)
case(
    "UNet[batch norm]",
    NET,
    nets.UNet(
        spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16), strides=(2, 2), norm="batch"
    ),
    [image()],
)
case(
    "BasicUNet",
    NET,
    nets.BasicUNet(spatial_dims=2, in_channels=1, out_channels=2, features=(4, 4, 8, 16, 32, 4)),
    [image()],
)
case(
    "BasicUNetPlusPlus",
    NET,
    nets.BasicUNetPlusPlus(spatial_dims=2, in_channels=1, out_channels=2, features=(4, 4, 8, 16, 32, 4)),
    [image()],
)
# MONAI's tests' DynUNet configurations: plain blocks with instance norm, residual ones with batch norm.
for name, variant in (
    ("DynUNet", {"norm_name": "instance"}),
    ("DynUNet[res_block]", {"norm_name": "batch", "res_block": True}),
):
    dyn_unet = nets.DynUNet(
        spatial_dims=2,
        in_channels=1,
        out_channels=2,
        kernel_size=[3, 3, 3],
        strides=[1, 2, 2],
        upsample_kernel_size=[2, 2],
        filters=[8, 16, 32],
        **variant,
    )
    case(name, NET, dyn_unet, [image()])
case(
    "SegResNet",
    NET,
    nets.SegResNet(
        spatial_dims=2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1, 1), blocks_up=(1, 1)
    ),
    [image()],
)
case(
    "SegResNetDS",
    NET,
    nets.SegResNetDS(spatial_dims=2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1, 1)),
    [image()],
)
case(
    "AttentionUnet",
    NET,
    nets.AttentionUnet(spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16), strides=(2, 2)),
    [image()],
)
# UNETR's transformer: 2 x 2 patches of 16 x 16, a 48-wide embedding.
_unetr_transformer = {"hidden_size": 48, "mlp_dim": 96, "num_heads": 4, "spatial_dims": 2}
case(
    "UNETR",
    NET,
    deferred(
        nets.UNETR, in_channels=1, out_channels=2, img_size=(32, 32), feature_size=8, **_unetr_transformer
    ),
    [image()],
    note="small random configuration",
)
case(
    "SwinUNETR",
    NET,
    deferred(
        nets.SwinUNETR,
        in_channels=1,
        out_channels=2,
        feature_size=12,
        depths=(1, 1, 1, 1),
        num_heads=(1, 1, 1, 1),
        spatial_dims=2,
    ),
    # Five halvings: at 32 x 32 the deepest instance norm would see a single pixel.
    [image(size=64)],
    note="small random configuration",
)
case(
    "ViT[classification]",
    NET,
    deferred(
        nets.ViT,
        in_channels=1,
        img_size=(32, 32),
        patch_size=(8, 8),
        hidden_size=48,
        mlp_dim=96,
        num_layers=2,
        num_heads=4,
        spatial_dims=2,
        classification=True,
    ),
    [image()],
)
_densenet = nets.DenseNet121(2, 1, 2, init_features=8, growth_rate=4, block_config=(2, 2, 2, 2))
case("DenseNet121", NET, _densenet, [image()])
case("resnet10", NET, nets.resnet10(spatial_dims=2, n_input_channels=1, num_classes=2), [image()])
case(
    "resnet18",
    NET,
    deferred(nets.resnet18, spatial_dims=2, n_input_channels=1, num_classes=2, shortcut_type="A"),
    [image()],
)
# Shortcut A pads the identity with zero channels, shortcut B projects it with a 1 x 1 convolution.
for name, block, planes, shortcut in (
    ("ResNet[shortcut A]", "basic", [8, 16, 32, 64], "A"),
    ("ResNet[shortcut B]", "basic", [8, 16, 32, 64], "B"),
    ("ResNet[bottleneck]", "bottleneck", [4, 8, 16, 32], "B"),
):
    resnet = nets.ResNet(
        block, [1, 1, 1, 1], planes, spatial_dims=2, n_input_channels=1, shortcut_type=shortcut, num_classes=2
    )
    case(name, NET, resnet, [image()])
case(
    "EfficientNetBN",
    NET,
    deferred(
        nets.EfficientNetBN, "efficientnet-b0", pretrained=False, spatial_dims=2, in_channels=1, num_classes=2
    ),
    [image()],
)
case("HighResNet", NET, nets.HighResNet(spatial_dims=2, in_channels=1, out_channels=2), [image()])
case("VNet", NET, nets.VNet(spatial_dims=2, in_channels=1, out_channels=2), [image()])
case(
    "AutoEncoder",
    NET,
    nets.AutoEncoder(spatial_dims=2, in_channels=1, out_channels=1, channels=(4, 8, 16), strides=(2, 2, 2)),
    [image()],
)
case(
    "VarAutoEncoder",
    NET,
    nets.VarAutoEncoder(
        spatial_dims=2, in_shape=(1, 32, 32), out_channels=1, latent_size=2, channels=(4, 8), strides=(2, 2)
    ),
    [image()],
)
case(
    "Generator",
    NET,
    nets.Generator(latent_shape=(8,), start_shape=(4, 4, 4), channels=(8, 4, 1), strides=(2, 2, 2)),
    [torch.randn(2, 8, generator=_gen(6))],
)
case(
    "Regressor",
    NET,
    nets.Regressor(in_shape=(1, 16, 16), out_shape=(2,), channels=(4, 8), strides=(2, 2)),
    [image(size=16)],
)
case(
    "Classifier",
    NET,
    nets.Classifier(in_shape=(1, 16, 16), classes=3, channels=(4, 8), strides=(2, 2)),
    [image(size=16)],
)
case(
    "GlobalNet",
    "networks.registration",
    nets.GlobalNet(image_size=(16, 16), spatial_dims=2, in_channels=2, num_channel_initial=4, depth=2),
    [image(c=2, size=16)],
)
case(
    "LocalNet",
    "networks.registration",
    nets.LocalNet(
        spatial_dims=2, in_channels=2, out_channels=2, num_channel_initial=4, extract_levels=(0, 1, 2)
    ),
    [image(c=2, size=16)],
)
# The README's inference: a network applied window by window over a larger image.
_window_net = nets.UNet(spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8), strides=(2,))
case(
    "sliding_window_inference",
    "inferers",
    lambda x: sliding_window_inference(x, roi_size=(16, 16), sw_batch_size=2, predictor=_window_net),
    [image(b=1, size=40)],
    covers="monai.inferers.sliding_window_inference",
)

# --- blocks -------------------------------------------------------------------------------------

BLOCK = "networks.blocks"
_features = image(c=4, size=16)
case("Convolution", BLOCK, blocks.Convolution(spatial_dims=2, in_channels=4, out_channels=8), [_features])
case(
    "Convolution[transposed]",
    BLOCK,
    blocks.Convolution(
        spatial_dims=2, in_channels=4, out_channels=8, strides=2, is_transposed=True, adn_ordering="ADN"
    ),
    [_features],
)
case(
    "ResidualUnit",
    BLOCK,
    blocks.ResidualUnit(spatial_dims=2, in_channels=4, out_channels=8, strides=2, subunits=2),
    [_features],
)
for mode in ("deconv", "nontrainable", "pixelshuffle"):
    case(
        f"UpSample[{mode}]",
        BLOCK,
        blocks.UpSample(spatial_dims=2, in_channels=4, out_channels=4, scale_factor=2, mode=mode),
        [_features],
    )
case(
    "SubpixelUpsample",
    BLOCK,
    blocks.SubpixelUpsample(spatial_dims=2, in_channels=4, scale_factor=2),
    [_features],
)
case("SimpleASPP", BLOCK, blocks.SimpleASPP(spatial_dims=2, in_channels=4, conv_out_channels=2), [_features])
case(
    "SEBlock",
    BLOCK,
    blocks.SEBlock(spatial_dims=2, in_channels=4, n_chns_1=4, n_chns_2=4, n_chns_3=8),
    [_features],
)
case("ChannelSELayer", BLOCK, blocks.ChannelSELayer(spatial_dims=2, in_channels=4), [_features])
case(
    "UnetResBlock",
    BLOCK,
    blocks.UnetResBlock(
        spatial_dims=2, in_channels=4, out_channels=8, kernel_size=3, stride=1, norm_name="batch"
    ),
    [_features],
)
_tokens = torch.randn(2, 16, 32, generator=_gen(7))
case("SABlock", BLOCK, blocks.SABlock(hidden_size=32, num_heads=4), [_tokens])
case("TransformerBlock", BLOCK, blocks.TransformerBlock(hidden_size=32, mlp_dim=64, num_heads=4), [_tokens])
case(
    "PatchEmbeddingBlock",
    BLOCK,
    blocks.PatchEmbeddingBlock(
        in_channels=1, img_size=32, patch_size=8, hidden_size=32, num_heads=4, spatial_dims=2
    ),
    [image()],
)
_ddf = 2.0 * torch.randn(2, 2, 16, 16, generator=_gen(8))
case("Warp", BLOCK, blocks.Warp(mode="bilinear", padding_mode="border"), [image(size=16), _ddf])
case("DVF2DDF", BLOCK, blocks.DVF2DDF(num_steps=3), [_ddf])

# --- losses -------------------------------------------------------------------------------------

LOSS = "losses"
case("DiceLoss", LOSS, losses.DiceLoss(sigmoid=True), logits_and_onehot(), tags=("quick",))
case("DiceLoss[to_onehot_y]", LOSS, losses.DiceLoss(to_onehot_y=True, softmax=True), logits_and_labels())
case("DiceCELoss", LOSS, losses.DiceCELoss(to_onehot_y=True, softmax=True), logits_and_labels())
case("DiceFocalLoss", LOSS, losses.DiceFocalLoss(to_onehot_y=True, softmax=True), logits_and_labels())
case("GeneralizedDiceLoss", LOSS, losses.GeneralizedDiceLoss(sigmoid=True), logits_and_onehot())
case("FocalLoss", LOSS, losses.FocalLoss(gamma=2.0), logits_and_onehot())
case(
    "FocalLoss[to_onehot_y]", LOSS, losses.FocalLoss(to_onehot_y=True, use_softmax=True), logits_and_labels()
)
case(
    "TverskyLoss",
    LOSS,
    losses.TverskyLoss(to_onehot_y=True, softmax=True, alpha=0.3, beta=0.7),
    logits_and_labels(),
)
case("SSIMLoss", LOSS, losses.SSIMLoss(spatial_dims=2, data_range=1.0), [image(), image().flip(-1)])
case(
    "GeneralizedWassersteinDiceLoss",
    LOSS,
    losses.GeneralizedWassersteinDiceLoss(
        dist_matrix=np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5], [1.0, 0.5, 0.0]])
    ),
    [logits_and_labels()[0], logits_and_labels()[1][:, 0].long()],
)
case(
    "LocalNormalizedCrossCorrelationLoss",
    LOSS,
    losses.LocalNormalizedCrossCorrelationLoss(spatial_dims=2, kernel_size=3),
    [image(size=16), image(size=16).flip(-1)],
)
case(
    "GlobalMutualInformationLoss",
    LOSS,
    losses.GlobalMutualInformationLoss(),
    [image(size=16), image(size=16).flip(-1)],
)
case("BendingEnergyLoss", LOSS, losses.BendingEnergyLoss(), [_ddf])
case(
    "ContrastiveLoss",
    LOSS,
    losses.ContrastiveLoss(temperature=0.5),
    [torch.randn(4, 8, generator=_gen(9)), torch.randn(4, 8, generator=_gen(10))],
)

# --- metrics, as functions ----------------------------------------------------------------------

METRIC = "metrics"
case("compute_dice", METRIC, metrics.compute_dice, onehot_pair(), tags=("quick",))
case("compute_iou", METRIC, metrics.compute_iou, onehot_pair())
case("compute_generalized_dice", METRIC, metrics.compute_generalized_dice, onehot_pair())
case("get_confusion_matrix", METRIC, metrics.get_confusion_matrix, onehot_pair())
case(
    "compute_confusion_matrix_metric[sensitivity]",
    METRIC,
    lambda p, y: metrics.compute_confusion_matrix_metric("sensitivity", metrics.get_confusion_matrix(p, y)),
    onehot_pair(),
    covers="monai.metrics.compute_confusion_matrix_metric",
)
case("compute_hausdorff_distance", METRIC, metrics.compute_hausdorff_distance, onehot_pair())
case("compute_average_surface_distance", METRIC, metrics.compute_average_surface_distance, onehot_pair())
case(
    "compute_ssim_and_cs",
    METRIC,
    metrics.compute_ssim_and_cs,
    [image(), image().flip(-1)],
    {"spatial_dims": 2, "kernel_size": (7, 7), "kernel_sigma": (1.5, 1.5)},
)
case(
    "DiceMetric",
    METRIC,
    lambda p, y: metrics.DiceMetric(include_background=False, reduction="mean")(p, y),
    onehot_pair(),
    covers="monai.metrics.DiceMetric",
)
case(
    "PSNRMetric",
    METRIC,
    lambda p, y: metrics.PSNRMetric(max_val=1.0)(p, y),
    [image(), image().flip(-1)],
    covers="monai.metrics.PSNRMetric",
)

# --- transforms on tensors ----------------------------------------------------------------------

SPATIAL = "transforms.spatial"
INTENSITY = "transforms.intensity"
CROP = "transforms.croppad"
POST = "transforms.post"
_img = channel_first()
case("SpatialPad", CROP, transforms.SpatialPad(spatial_size=(32, 32)), [_img], tags=("quick",))
case("DivisiblePad", CROP, transforms.DivisiblePad(k=16), [_img])
case("BorderPad", CROP, transforms.BorderPad(spatial_border=2), [_img])
case("CenterSpatialCrop", CROP, transforms.CenterSpatialCrop(roi_size=(16, 16)), [_img])
case("SpatialCrop", CROP, transforms.SpatialCrop(roi_center=(10, 12), roi_size=(8, 8)), [_img])
case("CropForeground", CROP, transforms.CropForeground(margin=1), [(_img > 0.5).float() * _img])
case("Flip", SPATIAL, transforms.Flip(spatial_axis=0), [_img], tags=("quick",))
case("Rotate90", SPATIAL, transforms.Rotate90(k=1), [_img])
case("Resize", SPATIAL, transforms.Resize(spatial_size=(16, 16)), [_img])
case("Resize[bilinear]", SPATIAL, transforms.Resize(spatial_size=(32, 32), mode="bilinear"), [_img])
case("Rotate", SPATIAL, transforms.Rotate(angle=0.3), [_img])
case("Zoom", SPATIAL, transforms.Zoom(zoom=1.5), [_img])
case(
    "Affine",
    SPATIAL,
    transforms.Affine(rotate_params=0.3, scale_params=(1.1, 1.1), padding_mode="zeros"),
    [_img],
)
case("ScaleIntensity", INTENSITY, transforms.ScaleIntensity(), [_img])
case("NormalizeIntensity", INTENSITY, transforms.NormalizeIntensity(), [_img])
case("NormalizeIntensity[nonzero]", INTENSITY, transforms.NormalizeIntensity(nonzero=True), [_img - 0.5])
case(
    "ScaleIntensityRange",
    INTENSITY,
    transforms.ScaleIntensityRange(a_min=0.2, a_max=0.8, b_min=0.0, b_max=1.0, clip=True),
    [_img],
)
case(
    "ScaleIntensityRangePercentiles",
    INTENSITY,
    transforms.ScaleIntensityRangePercentiles(lower=5, upper=95, b_min=0.0, b_max=1.0),
    [_img],
)
case("ThresholdIntensity", INTENSITY, transforms.ThresholdIntensity(threshold=0.5), [_img])
case("GaussianSmooth", INTENSITY, transforms.GaussianSmooth(sigma=1.0), [_img])
case("RandGaussianNoise", INTENSITY, transforms.RandGaussianNoise(prob=1.0), [_img], check=False)
case("Activations", POST, transforms.Activations(softmax=True), [channel_first(c=3)])
case("AsDiscrete[argmax]", POST, transforms.AsDiscrete(argmax=True, to_onehot=3), [channel_first(c=3)])
case("AsDiscrete[threshold]", POST, transforms.AsDiscrete(threshold=0.5), [_img])
case("LabelToContour", POST, transforms.LabelToContour(), [(channel_first() > 0.6).float()])
