"""Kornia survey: kornia.models, from building blocks to detection, segmentation, vision
transformers and vision-language models, and the methods of their classes.

Nothing is downloaded: every network is built with random weights at the smallest configuration
its constructor accepts (one or two layers, a few channels, tiny images), so that a case runs in
well under a second. Where only a named preset exists, the preset's builder is the case and the
smallest preset is used.
"""

from __future__ import annotations

import inspect

import kornia.models as km
import kornia.models.common as common
import kornia.models.efficient_vit as efficient_vit
import kornia.models.kimi_vl as kimi_vl
import kornia.models.paligemma as paligemma
import kornia.models.processors as processors
import kornia.models.qwen25 as qwen25
import kornia.models.rt_detr as rt_detr
import kornia.models.sam as sam
import kornia.models.segmentation as segmentation
import kornia.models.siglip2 as siglip2
import kornia.models.smolvlm2 as smolvlm2
import kornia.models.structures as structures
import kornia.models.tiny_vit as tiny_vit
import kornia.models.vit as vit
import kornia.models.vit_mobile as vit_mobile
import torch
from kornia.models import dexined
from kornia.models.efficient_vit import backbone as evit_backbone
from kornia.models.rt_detr.architecture import hgnetv2, hybrid_encoder, resnet_d, rtdetr_head
from kornia.models.rt_detr.model import HybridEncoder, PPHGNetV2, ResNetD, RTDETRHead
from kornia.models.rt_detr.post_processor import BoxFiltering
from kornia.models.sam.architecture import common as sam_common
from kornia.models.sam.architecture import image_encoder as sam_image_encoder
from kornia.models.sam.architecture import prompt_encoder as sam_prompt_encoder
from kornia.models.sam.architecture import transformer as sam_transformer
from kornia.models.sam.model import ImageEncoderViT, MaskDecoder, PromptEncoder, TwoWayTransformer
from kornia.models.yunet.processors import PriorBox
from kornia.models.yunet.processors import decode as yunet_decode

from capmap import case, deferred, exclude

from ._inputs import as_dtype, image, in_float64, randn, tiny_rtdetr_config

# Random initialisation draws from the global generator: fix it so every import builds the same
# weights.
torch.manual_seed(0)

G_NET = "models.networks"
G_BLOCK = "models.blocks"
G_PROC = "models.processors"

case(
    "RRDBNet",
    G_NET,
    km.RRDBNet(3, 3, scale=2, num_feat=8, num_block=1, num_grow_ch=4),
    [image(h=16, w=16)],
    note="small random configuration",
)
case(
    "RRDBNet[scale=4]",
    G_NET,
    km.RRDBNet(3, 3, scale=4, num_feat=8, num_block=1, num_grow_ch=4),
    [image(h=16, w=16)],
)
case(
    "SmallSRNet", G_NET, km.small_sr.SmallSRNet(upscale_factor=2, pretrained=False), [image(c=1, h=16, w=16)]
)
case(
    "SmallSRNetWrapper",
    G_NET,
    km.small_sr.SmallSRNetWrapper(upscale_factor=2, pretrained=False),
    [image(h=16, w=16)],
)
case("YuNet", G_NET, km.yunet.YuNet("test", pretrained=False), [image(h=64, w=64)])
case("DexiNed", G_NET, deferred(km.dexined.DexiNed, pretrained=False), [image(h=64, w=64)])

# Shared building blocks.
case("ConvNormAct", G_BLOCK, common.ConvNormAct(3, 8, 3), [image(h=16, w=16)])
case(
    "ConvNormAct[act=silu,stride=2]",
    G_BLOCK,
    common.ConvNormAct(3, 8, 3, stride=2, act="silu"),
    [image(h=16, w=16)],
)
case("DropPath", G_BLOCK, common.DropPath(0.1), [randn(2, 8, 16, seed=1)], note="identity in eval mode")
case("LayerNorm2d", G_BLOCK, common.LayerNorm2d(8), [randn(1, 8, 16, 16, seed=2)])
case("MLP", G_BLOCK, common.MLP(16, 32, 8, 2), [randn(4, 16, seed=3)])
case("MLP[sigmoid_output]", G_BLOCK, common.MLP(16, 32, 8, 2, sigmoid_output=True), [randn(4, 16, seed=3)])
windows_in = randn(1, 14, 14, 8, seed=4)
case(
    "window_partition",
    G_BLOCK,
    common.window_partition,
    [windows_in, 4],
    note="pads to a multiple of the window",
)
with torch.no_grad():
    windows, padded = common.window_partition(windows_in, 4)
case("window_unpartition", G_BLOCK, common.window_unpartition, [windows, 4, padded, (14, 14)])

# TinyViT blocks (the whole network is probed as contrib's TinyViT).
tokens = randn(1, 16, 32, seed=5)
case("tiny_vit.Attention", G_BLOCK, tiny_vit.Attention(32, 8, num_heads=2, resolution=(4, 4)), [tokens])
case(
    "tiny_vit.TinyViTBlock", G_BLOCK, tiny_vit.TinyViTBlock(32, (4, 4), num_heads=2, window_size=2), [tokens]
)
case(
    "tiny_vit.BasicLayer",
    G_BLOCK,
    tiny_vit.BasicLayer(32, (4, 4), depth=1, num_heads=2, window_size=2),
    [tokens],
)
case("tiny_vit.MLP", G_BLOCK, tiny_vit.MLP(32, 64, 32), [tokens])
case("tiny_vit.ConvBN", G_BLOCK, tiny_vit.ConvBN(3, 8, 3, padding=1), [image(h=16, w=16)])
case("tiny_vit.PatchEmbed", G_BLOCK, tiny_vit.PatchEmbed(3, 16), [image(h=16, w=16)])
case("tiny_vit.MBConv", G_BLOCK, tiny_vit.MBConv(8, 8, 4.0), [randn(1, 8, 8, 8, seed=6)])
case("tiny_vit.ConvLayer", G_BLOCK, tiny_vit.ConvLayer(8, depth=1), [randn(1, 8, 8, 8, seed=6)])
case(
    "tiny_vit.PatchMerging",
    G_BLOCK,
    tiny_vit.PatchMerging((8, 8), 8, 16, stride=2),
    [randn(1, 8, 8, 8, seed=6)],
)

# Pre- and post-processors that wrap models.
case("ResizePreProcessor", G_PROC, processors.ResizePreProcessor(24, 24), [image()])
case(
    "ResizePostProcessor",
    G_PROC,
    processors.ResizePostProcessor(),
    [image(h=16, w=16), torch.tensor([[32, 40]])],
)
case("OutputRangePostProcessor", G_PROC, processors.OutputRangePostProcessor(), [randn(1, 3, 8, 8, seed=7)])


# TinyViT at a small random configuration, its weights from a seed of its own.
torch.manual_seed(0)
tiny = tiny_vit.TinyViT(
    img_size=64,
    num_classes=10,
    embed_dims=(16, 32, 48, 64),
    depths=(1, 1, 1, 1),
    num_heads=(1, 2, 3, 4),
    window_sizes=(2, 2, 2, 2),
)
case("TinyViT", "models.tiny_vit", tiny, [image(h=64, w=64, seed=10)], note="small random configuration")

# The large networks: detection, segmentation, vision transformers, vision-language models ---
# Built at the smallest configuration their constructors accept; their weights come from a seed
# of their own, whatever the blocks above drew.
torch.manual_seed(0)

G_DET = "models.rt_detr"
G_SAM = "models.sam"
G_VIT = "models.vit"
G_VLM = "models.vlm"
G_SEG = "models.segmentation"
NO_TENSOR = "returns kornia result objects: no tensor output to compare"

# Vision transformers ---------------------------------------------------------------------------
case(
    "VisionTransformer",
    G_VIT,
    vit.VisionTransformer(image_size=32, patch_size=16, embed_dim=32, depth=1, num_heads=2),
    [image(h=32, w=32)],
    note="one block, width 32",
)
case(
    "MobileViT",
    G_VIT,
    deferred(vit_mobile.MobileViT, mode="xxs"),
    [image(h=64, w=64)],
    note="the smallest preset (xxs) on a 64x64 image",
)
MV_TOKENS = randn(1, 4, 16, 32, seed=1)
case("vit_mobile.Attention", G_VIT, vit_mobile.Attention(32, heads=2, dim_head=8), [MV_TOKENS])
case("vit_mobile.FeedForward", G_VIT, vit_mobile.FeedForward(32, 64), [MV_TOKENS])
case("vit_mobile.PreNorm", G_VIT, vit_mobile.PreNorm(32, vit_mobile.FeedForward(32, 64)), [MV_TOKENS])
case("vit_mobile.Transformer", G_VIT, vit_mobile.Transformer(32, 1, 2, 8, 64), [MV_TOKENS])
case("vit_mobile.MV2Block", G_VIT, vit_mobile.MV2Block(8, 8, 1, 2), [randn(1, 8, 16, 16, seed=2)])
case(
    "vit_mobile.MobileViTBlock",
    G_VIT,
    vit_mobile.MobileViTBlock(32, 1, 8, 3, (2, 2), 64),
    [randn(1, 8, 16, 16, seed=2)],
)
for builder in ("conv_1x1_bn", "conv_nxn_bn"):
    case(
        f"vit_mobile.{builder}",
        G_VIT,
        getattr(vit_mobile, builder)(8, 16),
        [randn(1, 8, 16, 16, seed=2)],
        covers=f"kornia.models.vit_mobile.{builder}",
        note="the convolution block the function builds",
    )

EVIT_B0 = deferred(evit_backbone.efficientvit_backbone_b0)
case(
    "EfficientViT",
    G_VIT,
    deferred(efficient_vit.EfficientViT, EVIT_B0),
    [image(h=64, w=64)],
    note="random b0 backbone (the smallest preset) on a 64x64 image",
)
case(
    "efficientvit_backbone_b0",
    G_VIT,
    EVIT_B0,
    [image(h=64, w=64)],
    covers=(
        "kornia.models.efficient_vit.backbone.efficientvit_backbone_b0",
        "kornia.models.efficient_vit.EfficientViT",
    ),
)
case(
    "efficientvit_backbone_b1",
    G_VIT,
    deferred(evit_backbone.efficientvit_backbone_b1),
    [image(h=64, w=64)],
    covers=(
        "kornia.models.efficient_vit.backbone.efficientvit_backbone_b1",
        "kornia.models.efficient_vit.EfficientViT",
    ),
)
case(
    "efficientvit_backbone_l0",
    G_VIT,
    deferred(evit_backbone.efficientvit_backbone_l0),
    [image(h=64, w=64)],
    covers=(
        "kornia.models.efficient_vit.backbone.efficientvit_backbone_l0",
        "kornia.models.efficient_vit.EfficientViT",
    ),
)
exclude("kornia.models.efficient_vit.EfficientViTConfig", reason="configuration record (a checkpoint name)")
exclude(
    "kornia.models.efficient_vit.EfficientViT.from_config",
    reason="builds the backbone a checkpoint names and downloads its weights; "
    "the network is probed with random weights",
)


def first_calls(
    model: torch.nn.Module, kinds: tuple[type, ...], *args: object
) -> tuple[dict[type, tuple], object]:
    """The module and positional inputs of the first call of each of `kinds` inside one forward
    of `model` (a block is probed on what the network feeds it), and the output. The forward runs
    on a float64 copy and what it gives is rounded to float32, so the inputs are the same bytes on
    any CPU (`in_float64`)."""
    wide = as_dtype(model, torch.float32, torch.float64)
    original = dict(zip(map(id, wide.modules()), model.modules(), strict=True))
    seen: dict[type, tuple] = {}
    hooks = []
    for module in wide.modules():
        if isinstance(module, kinds) and type(module) not in seen:

            def grab(mod: torch.nn.Module, args: tuple, kwargs: dict) -> None:
                if type(mod) not in seen:
                    # Keyword arguments become positional ones: they are graph inputs too.
                    bound = inspect.signature(mod.forward).bind(*args, **kwargs)
                    given = tuple(x.detach().clone() if torch.is_tensor(x) else x for x in bound.args)
                    seen[type(mod)] = (original[id(mod)], as_dtype(given, torch.float64, torch.float32))

            hooks.append(module.register_forward_pre_hook(grab, with_kwargs=True))
    with torch.no_grad():
        output = wide(*as_dtype(list(args), torch.float32, torch.float64))
    return seen, as_dtype(output, torch.float64, torch.float32)


# RT-DETR -----------------------------------------------------------------------------------------
DET_CONFIG = tiny_rtdetr_config()
DETR = rt_detr.RTDETR.from_config(DET_CONFIG).eval()
DET_IMAGE = image(h=64, w=64, seed=3)
case(
    "RTDETR",
    G_DET,
    DETR,
    [DET_IMAGE],
    covers=("kornia.models.rt_detr.RTDETR", "kornia.models.rt_detr.RTDETR.from_config"),
    note="random ResNet-18-D backbone, width 32, 10 queries, one decoder layer (built by from_config)",
)
DET_BLOCKS, (DET_LOGITS, DET_BOXES) = first_calls(
    DETR,
    (
        ResNetD,
        HybridEncoder,
        RTDETRHead,
        resnet_d.BasicBlockD,
        hybrid_encoder.AIFI,
        hybrid_encoder.CCFM,
        hybrid_encoder.CSPRepLayer,
        hybrid_encoder.RepVggBlock,
        hybrid_encoder.TransformerEncoder,
        rtdetr_head.MultiScaleDeformableAttention,
        rtdetr_head.TransformerDecoder,
        rtdetr_head.TransformerDecoderLayer,
    ),
    DET_IMAGE,
)
case(
    "DETRPostProcessor",
    G_DET,
    rt_detr.DETRPostProcessor(0.0, num_classes=4, num_top_queries=5),
    [DET_LOGITS, DET_BOXES, torch.tensor([[64, 64]])],
)
case(
    "DETRPostProcessor[confidence_filtering=False]",
    G_DET,
    rt_detr.DETRPostProcessor(0.0, num_classes=4, num_top_queries=5, confidence_filtering=False),
    [DET_LOGITS, DET_BOXES, torch.tensor([[64, 64]])],
)
DETECTIONS = in_float64(
    rt_detr.DETRPostProcessor(0.0, num_classes=4, num_top_queries=5),
    DET_LOGITS,
    DET_BOXES,
    torch.tensor([[64, 64]]),
)
case("BoxFiltering", G_DET, BoxFiltering(0.3), [DETECTIONS], note="keeps detections above a confidence")
case("BoxFiltering[filter_as_zero]", G_DET, BoxFiltering(0.3, filter_as_zero=True), [DETECTIONS])
case(
    "post_processor.mod",
    G_DET,
    lambda a: rt_detr.post_processor.mod(a, 3),
    [torch.arange(12)],
    covers="kornia.models.rt_detr.post_processor.mod",
)
for kind, (block, inputs) in DET_BLOCKS.items():
    qual = (
        f"{kind.__module__.rsplit('.', 1)[1]}.{kind.__name__}"
        if "architecture" in kind.__module__
        else kind.__name__
    )
    case(qual, G_DET, block, list(inputs), note="fed what the small RT-DETR feeds it")
AIFI_BLOCK = DET_BLOCKS[hybrid_encoder.AIFI][0]
case("AIFI.ffn", G_DET, AIFI_BLOCK, [randn(1, 4, 32, seed=4)], method="ffn")
case(
    "AIFI.build_2d_sincos_pos_emb",
    G_DET,
    hybrid_encoder.AIFI,
    [4, 4, 32],
    method="build_2d_sincos_pos_emb",
    note="no tensor input",
)


def resnet_d_stage() -> torch.nn.Module:
    """The first stage `ResNetD.make_stage` builds (it returns the stage and its width)."""
    return ResNetD.make_stage(8, 8, 1, 1, resnet_d.BasicBlockD)[0]


case(
    "ResNetD.make_stage",
    G_DET,
    deferred(resnet_d_stage),
    [randn(1, 8, 8, 8, seed=5)],
    covers="kornia.models.rt_detr.model.ResNetD.make_stage",
    note="the stage is built once, seeded, before the call: its weights are the same on every path",
)
case("resnet_d.BottleneckD", G_DET, resnet_d.BottleneckD(16, 4, 1, False), [randn(1, 16, 8, 8, seed=5)])
case(
    "resnet_d.Block",
    G_DET,
    resnet_d.Block(resnet_d.BasicBlockD(16, 16, 1, True)),
    [randn(1, 16, 8, 8, seed=5)],
)
DEPLOY = hybrid_encoder.RepVggBlock(8, 8)
DEPLOY.eval()
DEPLOY.optimize_for_deployment()
case(
    "RepVggBlock.optimize_for_deployment",
    G_DET,
    DEPLOY,
    [randn(1, 8, 8, 8, seed=6)],
    covers="kornia.models.rt_detr.architecture.hybrid_encoder.RepVggBlock.optimize_for_deployment",
    note="the block after folding its branches into one convolution",
)
HG_STAGES = [
    hgnetv2.StageConfig(16, 8, 16, 1, False, False, 3, 1),
    hgnetv2.StageConfig(16, 8, 16, 1, True, False, 3, 1),
    hgnetv2.StageConfig(16, 8, 16, 1, True, True, 3, 1),
    hgnetv2.StageConfig(16, 8, 16, 1, True, True, 3, 1),
]
PPHG = PPHGNetV2([3, 8, 16], HG_STAGES)
case("PPHGNetV2", G_DET, PPHG, [image(h=64, w=64, seed=7)], note="four stages of width 16, two light")
HG_BLOCKS, _ = first_calls(
    PPHG,
    (hgnetv2.StemBlock, hgnetv2.HGStage, hgnetv2.HGBlock, hgnetv2.LightConvNormAct),
    image(h=64, w=64, seed=7),
)
for kind, (block, inputs) in HG_BLOCKS.items():
    case(
        f"hgnetv2.{kind.__name__}", G_DET, block, list(inputs), note="fed what the small PP-HGNetV2 feeds it"
    )
exclude(
    "kornia.models.rt_detr.RTDETR.from_name",
    reason="builds a named preset and downloads its weights; RTDETR is probed built by from_config",
)
exclude("kornia.models.rt_detr.RTDETRConfig", reason="configuration record")
exclude("kornia.models.rt_detr.RTDETRModelType", reason="enumeration of options, not an operator")
exclude("kornia.models.rt_detr.architecture.hgnetv2.StageConfig", reason="configuration record")
for owner in ("PPHGNetV2", "ResNetD"):
    exclude(
        f"kornia.models.rt_detr.model.{owner}.from_config",
        reason="builds a named preset backbone (tens of millions of parameters); "
        "the class is probed built small",
    )

# Segment Anything, built from its parts at the smallest size -------------------------------------
SAM_ENCODER = ImageEncoderViT(64, patch_size=16, embed_dim=32, depth=1, num_heads=2, out_chans=32)
SAM_PROMPTS = PromptEncoder(32, (4, 4), (64, 64), 4)
SAM_DECODER = MaskDecoder(
    transformer_dim=32,
    transformer=TwoWayTransformer(depth=1, embedding_dim=32, num_heads=2, mlp_dim=64),
    iou_head_hidden_dim=32,
)
SAM = sam.Sam(SAM_ENCODER, SAM_PROMPTS, SAM_DECODER).eval()
SAM_IMAGE = image(h=64, w=64, seed=8)
POINTS = (torch.tensor([[[10.0, 20.0], [40.0, 30.0]]]), torch.tensor([[1, 0]]))
case(
    "Sam",
    G_SAM,
    SAM,
    [SAM_IMAGE, [{"points": POINTS}], False],
    note="image encoder of width 32 and one block on a 64x64 image; " + NO_TENSOR,
)
case("Sam.image_encoder", G_SAM, SAM_ENCODER, [SAM_IMAGE], covers="kornia.models.sam.model.ImageEncoderViT")
case(
    "Sam.prompt_encoder",
    G_SAM,
    SAM_PROMPTS,
    [POINTS, None, None],
    covers="kornia.models.sam.model.PromptEncoder",
)
case(
    "Sam.prompt_encoder[boxes]",
    G_SAM,
    SAM_PROMPTS,
    [None, torch.tensor([[8.0, 8.0, 40.0, 48.0]]), None],
    covers="kornia.models.sam.model.PromptEncoder",
)
case("PromptEncoder.get_dense_pe", G_SAM, SAM_PROMPTS, [], method="get_dense_pe", note="no tensor input")
SAM_EMB = in_float64(SAM_ENCODER, SAM_IMAGE)
SPARSE, DENSE = in_float64(SAM_PROMPTS, POINTS, None, None)
DENSE_PE = in_float64(as_dtype(SAM_PROMPTS, torch.float32, torch.float64).get_dense_pe)
case(
    "Sam.mask_decoder",
    G_SAM,
    SAM_DECODER,
    [SAM_EMB, DENSE_PE, SPARSE, DENSE, False],
    covers="kornia.models.sam.model.MaskDecoder",
)
case(
    "MaskDecoder.predict_masks",
    G_SAM,
    SAM_DECODER,
    [SAM_EMB, DENSE_PE, SPARSE, DENSE],
    method="predict_masks",
)
SAM_BLOCKS, _ = first_calls(
    SAM,
    (
        TwoWayTransformer,
        sam_common.MLPBlock,
        sam_common.LayerNorm,
        sam_image_encoder.Attention,
        sam_image_encoder.Block,
        sam_image_encoder.PatchEmbed,
        sam_transformer.Attention,
        sam_transformer.TwoWayAttentionBlock,
    ),
    SAM_IMAGE,
    [{"points": POINTS}],
    False,
)
for kind, (block, inputs) in SAM_BLOCKS.items():
    where = kind.__module__.rsplit(".", 1)[1]
    case(f"{where}.{kind.__name__}", G_SAM, block, list(inputs), note="fed what the small Sam feeds it")
case(
    "common.LayerNorm",
    G_SAM,
    sam_common.LayerNorm(8),
    [randn(1, 4, 4, 8, seed=25)],
    note="channel-wise norm of SAM's neck",
)
PE = sam_prompt_encoder.PositionEmbeddingRandom(16)
case("PositionEmbeddingRandom", G_SAM, PE, [(4, 4)], note="no tensor input: the grid size")
case(
    "PositionEmbeddingRandom.forward_with_coords",
    G_SAM,
    PE,
    [torch.tensor([[[10.0, 20.0], [40.0, 30.0]]]), (64, 64)],
    method="forward_with_coords",
)
REL_POS = randn(7, 8, seed=9)
case("get_rel_pos", G_SAM, sam_image_encoder.get_rel_pos, [4, 4, REL_POS])
case(
    "add_decomposed_rel_pos",
    G_SAM,
    sam_image_encoder.add_decomposed_rel_pos,
    [randn(2, 16, 16, seed=10), randn(2, 16, 8, seed=11), REL_POS, REL_POS, (4, 4), (4, 4)],
)
for owner in ("Sam.from_config", "Sam.from_name"):
    exclude(
        f"kornia.models.sam.{owner}",
        reason="builds a named preset (vit_b: 90 M parameters and up; a 1024x1024 encoder pass takes "
        "minutes on a CPU); Sam is probed built from its parts at the smallest size",
    )
exclude("kornia.models.sam.SamConfig", reason="configuration record")
exclude("kornia.models.sam.SamModelType", reason="enumeration of options, not an operator")
exclude("kornia.models.sam.model.KORNIA_CHECK_SHAPE", reason="input validation helper that raises")
exclude("kornia.models.sam.model.torch_version_ge", reason="compares torch versions (a Python bool)")

# Result containers -------------------------------------------------------------------------------
G_STRUCT = "models.structures"
LOGITS = randn(1, 2, 16, 16, seed=12)
SCORES = randn(1, 2, seed=13)
case(
    "SegmentationResults",
    G_STRUCT,
    lambda logits, scores: structures.SegmentationResults(logits, scores).binary_masks,
    [LOGITS, SCORES],
    covers=(
        "kornia.models.structures.SegmentationResults",
        "kornia.models.structures.SegmentationResults.binary_masks",
    ),
    note="thresholds the logits into masks",
)
case(
    "SegmentationResults.squeeze",
    G_STRUCT,
    lambda logits, scores: structures.SegmentationResults(logits, scores).squeeze(0).logits,
    [LOGITS, SCORES],
    covers="kornia.models.structures.SegmentationResults.squeeze",
)
case(
    "SegmentationResults.original_res_logits",
    G_STRUCT,
    lambda logits, scores: structures.SegmentationResults(logits, scores).original_res_logits(
        (16, 16), (16, 16), (32, 32)
    ),
    [LOGITS, SCORES],
    covers="kornia.models.structures.SegmentationResults.original_res_logits",
)
PROMPT_POINTS = torch.tensor([[[4.0, 5.0], [9.0, 3.0]]])
case(
    "Prompts.keypoints",
    G_STRUCT,
    lambda pts, labels: structures.Prompts(points=(pts, labels)).keypoints,
    [PROMPT_POINTS, torch.tensor([[1.0, 0.0]])],
    covers=("kornia.models.structures.Prompts.keypoints", "kornia.models.structures.Prompts"),
)
case(
    "Prompts.keypoints_labels",
    G_STRUCT,
    lambda pts, labels: structures.Prompts(points=(pts, labels)).keypoints_labels,
    [PROMPT_POINTS, torch.tensor([[1.0, 0.0]])],
    covers="kornia.models.structures.Prompts.keypoints_labels",
)

# Segmentation ------------------------------------------------------------------------------------
SEG_NET = torch.nn.Conv2d(3, 4, 3, padding=1)
SEMSEG = segmentation.SegmentationModelsBuilder.build(SEG_NET)
case(
    "SegmentationModelsBuilder.build",
    G_SEG,
    SEMSEG,
    [image(h=32, w=32, seed=14)],
    covers=(
        "kornia.models.segmentation.SegmentationModelsBuilder.build",
        "kornia.models.segmentation.SemanticSegmentation",
    ),
    note="wraps a random one-layer network (segmentation_models_pytorch is not installed)",
)
case(
    "SemanticSegmentation",
    G_SEG,
    segmentation.SemanticSegmentation(SEG_NET, torch.nn.Identity(), torch.nn.Identity()),
    [image(h=32, w=32, seed=14)],
)
case(
    "SemanticSegmentation.get_colormap",
    G_SEG,
    SEMSEG,
    [4],
    method="get_colormap",
    check=False,
    note="random colours by design; no tensor input",
)
exclude(
    "kornia.models.segmentation.SegmentationModelsBuilder.get_preprocessing_pipeline",
    reason="builds a normalisation module from a parameter dict",
)
exclude(
    "kornia.models.segmentation.SemanticSegmentation.from_config",
    reason="builds a segmentation_models_pytorch network by name (the package is not installed)",
)

# Vision-language models ---------------------------------------------------------------------------
MOON = kimi_vl.MoonViTConfig(
    image_size=28,
    patch_size=14,
    init_pos_emb_height=4,
    init_pos_emb_width=4,
    hidden_size=32,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=64,
)
case("MoonViT", G_VLM, kimi_vl.MoonViT(MOON), [image(h=28, w=28, seed=15)], note="one layer, width 32")
KIMI_CONFIG = kimi_vl.KimiVLConfig(
    MOON, kimi_vl.KimiVLProjectorConfig(input_dim=32, hidden_dim=64, output_dim=32)
)
case(
    "KimiVLModel",
    G_VLM,
    kimi_vl.KimiVLModel(KIMI_CONFIG),
    [image(h=28, w=28, seed=15)],
    note="random MoonViT and projector at width 32",
)
case(
    "KimiVLProjector",
    G_VLM,
    kimi_vl.KimiVLProjector(kimi_vl.KimiVLProjectorConfig(input_dim=32, hidden_dim=64, output_dim=32)),
    [randn(1, 16, 32, seed=16), 4, 4],
    note="merges 2x2 patches of a 4x4 grid of tokens",
)
case(
    "KimiVLBuilder.from_config",
    G_VLM,
    kimi_vl.KimiVLBuilder.from_config(KIMI_CONFIG),
    [image(h=28, w=28, seed=15)],
    covers="kornia.models.kimi_vl.KimiVLBuilder.from_config",
    note="the model the builder makes from the small configuration",
)
case(
    "Qwen25VisionTransformer",
    G_VLM,
    qwen25.Qwen25VisionTransformer(
        qwen25.Qwen25VisionConfig(
            depth=1,
            hidden_size=32,
            intermediate_size=64,
            num_heads=2,
            window_size=28,
            fullatt_block_indexes=(0,),
            out_hidden_size=32,
        )
    ),
    [image(h=28, w=28, seed=17)],
    note="one block, width 32 (the survey's Qwen2VLVisionTransformer)",
)
VISION = siglip2.config.SigLip2VisionConfig(
    image_size=32,
    patch_size=16,
    hidden_size=32,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=64,
)
TEXT = siglip2.config.SigLip2TextConfig(
    vocab_size=64,
    hidden_size=32,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=64,
    max_position_embeddings=16,
)
SIGLIP = siglip2.SigLip2Model(siglip2.SigLip2Config(VISION, TEXT, projection_dim=16)).eval()
TOKENS = torch.randint(0, 64, (1, 8), generator=torch.Generator().manual_seed(18))
case(
    "SigLip2Model",
    G_VLM,
    SIGLIP,
    [image(h=32, w=32, seed=19), TOKENS],
    note="one layer each for image and text, width 32; returns a SigLip2Result",
)
case(
    "SigLip2Model.get_image_features",
    G_VLM,
    SIGLIP,
    [image(h=32, w=32, seed=19)],
    method="get_image_features",
)
case("SigLip2Model.get_text_features", G_VLM, SIGLIP, [TOKENS], method="get_text_features")
case(
    "SigLip2ImagePreprocessor",
    G_VLM,
    siglip2.SigLip2ImagePreprocessor(image_size=(32, 32)),
    [image(h=40, w=48, seed=20) * 255.0],
)
case(
    "SigLip2Builder.from_config",
    G_VLM,
    siglip2.SigLip2Builder.from_config(siglip2.SigLip2Config(VISION, TEXT, projection_dim=16)),
    [image(h=32, w=32, seed=19), TOKENS],
    covers="kornia.models.siglip2.SigLip2Builder.from_config",
    note="the model the builder makes from the small configuration",
)
case(
    "PaliGemma",
    G_VLM,
    paligemma.PaliGemma(
        paligemma.PaliGemmaConfig(
            vision_config=VISION,
            vocab_size=64,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            head_dim=16,
            max_position_embeddings=64,
            image_token_index=63,
        )
    ),
    [torch.randint(0, 60, (1, 8), generator=torch.Generator().manual_seed(21)), image(h=32, w=32, seed=22)],
    note="one decoder layer of width 32 over a one-layer SigLIP encoder",
)
case(
    "SmolVLM2",
    G_VLM,
    smolvlm2.SmolVLM2(vision_dim=16, text_dim=16),
    [randn(1, 4, 16, seed=23), randn(1, 4, 16, seed=24)],
)
for name in ("KimiVLConfig", "KimiVLProjectorConfig", "MoonViTConfig"):
    exclude(f"kornia.models.kimi_vl.{name}", reason="configuration record")
exclude("kornia.models.paligemma.PaliGemmaConfig", reason="configuration record")
exclude("kornia.models.qwen25.Qwen25VisionConfig", reason="configuration record")
exclude("kornia.models.siglip2.SigLip2Config", reason="configuration record")
exclude(
    "kornia.models.siglip2.SigLip2Result", reason="plain result container (dataclass) returned by an operator"
)
exclude(
    "kornia.models.siglip2.SigLip2Builder.from_name",
    reason="builds a named preset (hundreds of millions of parameters); probed through from_config",
)
exclude(
    "kornia.models.siglip2.SigLip2ImagePreprocessor.from_config", reason="reads a preprocessor configuration"
)
exclude("kornia.models.vit.VisionTransformer.from_config", reason="builds a named preset (ViT-B and up)")

# NaFlex: patch embeddings plus a position table resized to the image's patch grid.
case(
    "NaFlex",
    G_VLM,
    processors.NaFlex(torch.nn.Conv2d(3, 16, 8, stride=8), randn(16, 16, seed=32)),
    [image(h=32, w=48, seed=33)],
    note="random 8x8 patch embedding; a 4x4 table resized to the 4x6 grid",
)
case(
    "NaFlex[square]",
    G_VLM,
    processors.NaFlex(torch.nn.Conv2d(3, 16, 8, stride=8), randn(16, 16, seed=32)),
    [image(h=32, w=32, seed=33)],
)


# Methods of kornia.models classes -----------------------------------------------------------------
priors = PriorBox([[10, 16, 24], [32, 48], [64, 96], [128, 192, 256]], [8, 16, 32, 64], False, (64, 64))
case(
    "processors.PriorBox",
    "models.methods",
    lambda: priors(),
    [],
    covers="kornia.models.yunet.processors.PriorBox",
    note="YuNet's anchor boxes for a 64x64 image: no tensor input",
)
with torch.no_grad():
    anchors = priors()
case(
    "processors.decode",
    "models.methods",
    yunet_decode,
    [0.1 * randn(anchors.shape[0], 14, seed=30), anchors, [0.1, 0.2]],
)

case(
    "DexiNed.get_features",
    "models.methods",
    deferred(dexined.DexiNed, pretrained=False),
    [image(h=64, w=64)],
    method="get_features",
)
case(
    "tiny_vit.Attention.build_attention_bias",
    "models.methods",
    tiny_vit.Attention,
    [(4, 4)],
    method="build_attention_bias",
    note="no tensor input",
)
