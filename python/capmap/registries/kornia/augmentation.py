"""Kornia survey: augmentation (2D, 3D, mixes, containers, auto-augment policies).

Every augmentation is probed twice. `Op` draws its parameters once, here, with a fixed seed and
passes them in through `params=`, so the graph is deterministic and compared value for value.
`Op[random]` samples inside the graph (`check=False`: two runs draw different values).
Deterministic cases use `p=1.0` so that the sampled transform is actually applied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import kornia.augmentation as A
import kornia.augmentation.auto as auto
import kornia.augmentation.auto.operations as ops
import torch
from torch import nn

from capmap import case, exclude
from capmap.registries.kornia import _inputs as I

RANDOM_NOTE = "parameters sampled inside the graph; outputs differ run to run, so values are not compared"
PARAMS_NOTE = "parameters sampled once at registry import and passed in as params"

# Normalize, Denormalize, Resize and ImageSequential are also public names of other kornia
# packages (enhance, geometry, core) with different objects; these cases carry the package.


def _params(module: nn.Module, shape: Sequence[int]) -> Any:
    torch.manual_seed(I.SEED)
    return module.forward_parameters(torch.Size(shape))


def augment(
    name: str,
    section: str,
    make: Callable[[], nn.Module],
    inputs: Sequence[torch.Tensor],
    *,
    random: bool = True,
    note: str = "",
    tags: Sequence[str] = (),
    check: bool = True,
    kwargs: dict[str, Any] | None = None,
    shape: Sequence[int] | None = None,
) -> None:
    """The deterministic case `name` and, for a default configuration, `Op[random]`.

    `shape` is the batch shape the parameters are drawn for, when it is not the first input's.
    """
    group = f"augmentation.{section}"
    module = make()
    bound = dict(kwargs or {})
    bound["params"] = _params(module, shape or inputs[0].shape)
    full_note = "; ".join(x for x in (note, PARAMS_NOTE) if x)
    case(name, group, module, inputs, bound, note=full_note, tags=tags, check=check)
    if random:
        op = name.split("[", 1)[0]
        case(
            f"{op}[random]",
            group,
            make(),
            inputs,
            kwargs,
            note="; ".join(x for x in (note, RANDOM_NOTE) if x),
            check=False,
        )


# Inputs -------------------------------------------------------------------------------------
IMG = [I.image()]
IMG2 = [I.image(2)]
VOL = [I.volume()]

# 2D intensity ---------------------------------------------------------------------------------
S2I = "2d.intensity"
augment("ColorJiggle", S2I, lambda: A.ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.0), IMG)
augment("ColorJiggle[brightness=0.3]", S2I, lambda: A.ColorJiggle(brightness=0.3, p=1.0), IMG, random=False)
augment("ColorJiggle[hue=0.2]", S2I, lambda: A.ColorJiggle(hue=0.2, p=1.0), IMG, random=False)
augment("ColorJitter", S2I, lambda: A.ColorJitter(0.1, 0.1, 0.1, 0.1, p=1.0), IMG)
augment("ColorJitter[saturation=0.4]", S2I, lambda: A.ColorJitter(saturation=0.4, p=1.0), IMG, random=False)
augment(
    "ColorJitter[same_on_batch]",
    S2I,
    lambda: A.ColorJitter(0.2, 0.2, 0.2, 0.1, same_on_batch=True, p=1.0),
    IMG2,
    random=False,
)
augment(
    "augmentation.Normalize",
    S2I,
    lambda: A.Normalize(mean=torch.tensor([0.485, 0.456, 0.406]), std=torch.tensor([0.229, 0.224, 0.225])),
    IMG,
)
augment("augmentation.Normalize[scalar]", S2I, lambda: A.Normalize(mean=0.5, std=0.25), IMG, random=False)
augment(
    "augmentation.Denormalize",
    S2I,
    lambda: A.Denormalize(mean=torch.tensor([0.485, 0.456, 0.406]), std=torch.tensor([0.229, 0.224, 0.225])),
    IMG,
)
augment("RandomAutoContrast", S2I, lambda: A.RandomAutoContrast(p=1.0), IMG)
augment("RandomBoxBlur", S2I, lambda: A.RandomBoxBlur(p=1.0), IMG)
augment(
    "RandomBoxBlur[kernel_size=5]",
    S2I,
    lambda: A.RandomBoxBlur((5, 5), border_type="replicate", p=1.0),
    IMG,
    random=False,
)
augment("RandomBrightness", S2I, lambda: A.RandomBrightness((0.8, 1.2), p=1.0), IMG, tags=("quick",))
augment("RandomChannelDropout", S2I, lambda: A.RandomChannelDropout(p=1.0), IMG)
augment("RandomChannelShuffle", S2I, lambda: A.RandomChannelShuffle(p=1.0), IMG)
augment("RandomClahe", S2I, lambda: A.RandomClahe(p=1.0), IMG)
augment(
    "RandomClahe[grid_size=4]",
    S2I,
    lambda: A.RandomClahe(clip_limit=(2.0, 4.0), grid_size=(4, 4), p=1.0),
    IMG,
    random=False,
)
augment("RandomContrast", S2I, lambda: A.RandomContrast((0.8, 1.2), p=1.0), IMG)
# Building it loads a Stable Diffusion pipeline from downloaded weights.
case("RandomDissolving", f"augmentation.{S2I}", A.RandomDissolving, IMG, skip="needs pretrained weights")
augment("RandomEqualize", S2I, lambda: A.RandomEqualize(p=1.0), IMG)
augment("RandomErasing", S2I, lambda: A.RandomErasing(p=1.0), IMG)
augment(
    "RandomErasing[value=0.5]",
    S2I,
    lambda: A.RandomErasing(scale=(0.1, 0.2), value=0.5, p=1.0),
    IMG,
    random=False,
)
augment("RandomGamma", S2I, lambda: A.RandomGamma((0.8, 1.2), p=1.0), IMG)
augment(
    "RandomGaussianBlur", S2I, lambda: A.RandomGaussianBlur((5, 5), (0.5, 1.5), p=1.0), IMG, tags=("quick",)
)
augment(
    "RandomGaussianBlur[separable=False]",
    S2I,
    lambda: A.RandomGaussianBlur((5, 5), (0.5, 1.5), separable=False, p=1.0),
    IMG,
    random=False,
)
augment("RandomGaussianIllumination", S2I, lambda: A.RandomGaussianIllumination(p=1.0), IMG)
augment("RandomGaussianNoise", S2I, lambda: A.RandomGaussianNoise(std=0.05, p=1.0), IMG)
augment("RandomGrayscale", S2I, lambda: A.RandomGrayscale(p=1.0), IMG)
augment("RandomHue", S2I, lambda: A.RandomHue((-0.1, 0.1), p=1.0), IMG)
augment("RandomInvert", S2I, lambda: A.RandomInvert(p=1.0), IMG)
augment("RandomJPEG", S2I, lambda: A.RandomJPEG(jpeg_quality=(40.0, 60.0), p=1.0), IMG)
augment("RandomLinearCornerIllumination", S2I, lambda: A.RandomLinearCornerIllumination(p=1.0), IMG)
augment("RandomLinearIllumination", S2I, lambda: A.RandomLinearIllumination(p=1.0), IMG)
augment("RandomMedianBlur", S2I, lambda: A.RandomMedianBlur(p=1.0), IMG)
augment("RandomMotionBlur", S2I, lambda: A.RandomMotionBlur(5, 35.0, 0.5, p=1.0), IMG)
augment(
    "RandomMotionBlur[kernel_size=(3,7)]",
    S2I,
    lambda: A.RandomMotionBlur((3, 7), 35.0, 0.5, p=1.0),
    IMG,
    random=False,
)
augment("RandomPlanckianJitter", S2I, lambda: A.RandomPlanckianJitter(p=1.0), IMG)
augment(
    "RandomPlanckianJitter[mode=CIED]",
    S2I,
    lambda: A.RandomPlanckianJitter(mode="CIED", p=1.0),
    IMG,
    random=False,
)
augment("RandomPlasmaBrightness", S2I, lambda: A.RandomPlasmaBrightness(p=1.0), IMG)
augment("RandomPlasmaContrast", S2I, lambda: A.RandomPlasmaContrast(p=1.0), IMG)
augment("RandomPlasmaShadow", S2I, lambda: A.RandomPlasmaShadow(p=1.0), IMG)
augment("RandomPosterize", S2I, lambda: A.RandomPosterize(p=1.0), IMG)
augment("RandomRGBShift", S2I, lambda: A.RandomRGBShift(p=1.0), IMG)
augment("RandomRain", S2I, lambda: A.RandomRain(p=1.0, drop_height=(3, 5), drop_width=(1, 2)), IMG)
augment("RandomSaltAndPepperNoise", S2I, lambda: A.RandomSaltAndPepperNoise(p=1.0), IMG)
augment("RandomSaturation", S2I, lambda: A.RandomSaturation((0.8, 1.2), p=1.0), IMG)
augment("RandomSharpness", S2I, lambda: A.RandomSharpness(p=1.0), IMG)
augment("RandomSnow", S2I, lambda: A.RandomSnow(p=1.0), IMG)
augment("RandomSolarize", S2I, lambda: A.RandomSolarize(p=1.0), IMG)
augment("RandomSolarize[thresholds=0.3]", S2I, lambda: A.RandomSolarize(0.3, 0.2, p=1.0), IMG, random=False)

# 2D geometric ---------------------------------------------------------------------------------
S2G = "2d.geometric"
augment("CenterCrop", S2G, lambda: A.CenterCrop((24, 24)), IMG)
augment(
    "CenterCrop[cropping_mode=resample]",
    S2G,
    lambda: A.CenterCrop((24, 24), cropping_mode="resample"),
    IMG,
    random=False,
)
augment("LongestMaxSize", S2G, lambda: A.LongestMaxSize(48), IMG)
augment("SmallestMaxSize", S2G, lambda: A.SmallestMaxSize(24), IMG)
augment("PadTo", S2G, lambda: A.PadTo((40, 48)), IMG)
augment("PadTo[pad_mode=reflect]", S2G, lambda: A.PadTo((40, 48), pad_mode="reflect"), IMG, random=False)
augment("augmentation.Resize", S2G, lambda: A.Resize((16, 20)), IMG)
augment("augmentation.Resize[antialias]", S2G, lambda: A.Resize((16, 20), antialias=True), IMG, random=False)
augment("augmentation.Resize[side=long]", S2G, lambda: A.Resize(24, side="long"), IMG, random=False)
augment(
    "augmentation.Resize[resample=nearest]",
    S2G,
    lambda: A.Resize((16, 20), resample="nearest"),
    IMG,
    random=False,
)
augment("RandomAffine", S2G, lambda: A.RandomAffine(15.0, p=1.0), IMG, tags=("quick",))
augment(
    "RandomAffine[translate,scale,shear]",
    S2G,
    lambda: A.RandomAffine(15.0, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5.0, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomAffine[padding_mode=reflection]",
    S2G,
    lambda: A.RandomAffine(15.0, padding_mode="reflection", p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomAffine[resample=nearest]",
    S2G,
    lambda: A.RandomAffine(15.0, resample="nearest", p=1.0),
    IMG,
    random=False,
)
augment("RandomCrop", S2G, lambda: A.RandomCrop((24, 24), p=1.0), IMG)
augment("RandomCrop[padding=4]", S2G, lambda: A.RandomCrop((24, 24), padding=4, p=1.0), IMG, random=False)
augment(
    "RandomCrop[cropping_mode=resample]",
    S2G,
    lambda: A.RandomCrop((24, 24), cropping_mode="resample", p=1.0),
    IMG,
    random=False,
)
augment("RandomElasticTransform", S2G, lambda: A.RandomElasticTransform(p=1.0), IMG)
augment(
    "RandomFisheye",
    S2G,
    lambda: A.RandomFisheye(
        torch.tensor([-0.3, 0.3]), torch.tensor([-0.3, 0.3]), torch.tensor([0.9, 1.0]), p=1.0
    ),
    IMG,
)
augment("RandomHorizontalFlip", S2G, lambda: A.RandomHorizontalFlip(p=1.0), IMG, tags=("quick",))
augment("RandomVerticalFlip", S2G, lambda: A.RandomVerticalFlip(p=1.0), IMG)
augment("RandomPerspective", S2G, lambda: A.RandomPerspective(0.3, p=1.0), IMG)
augment(
    "RandomPerspective[sampling_method=area_preserving]",
    S2G,
    lambda: A.RandomPerspective(0.3, sampling_method="area_preserving", p=1.0),
    IMG,
    random=False,
)
augment("RandomResizedCrop", S2G, lambda: A.RandomResizedCrop((24, 24), p=1.0), IMG)
augment(
    "RandomResizedCrop[cropping_mode=resample]",
    S2G,
    lambda: A.RandomResizedCrop((24, 24), cropping_mode="resample", p=1.0),
    IMG,
    random=False,
)
augment("RandomRotation", S2G, lambda: A.RandomRotation(30.0, p=1.0), IMG)
augment(
    "RandomRotation[resample=nearest]",
    S2G,
    lambda: A.RandomRotation(30.0, resample="nearest", p=1.0),
    IMG,
    random=False,
)
augment("RandomRotation90", S2G, lambda: A.RandomRotation90((-1, 2), p=1.0), IMG)
augment("RandomShear", S2G, lambda: A.RandomShear((-10.0, 10.0), p=1.0), IMG)
augment("RandomThinPlateSpline", S2G, lambda: A.RandomThinPlateSpline(p=1.0), IMG)
augment("RandomTranslate", S2G, lambda: A.RandomTranslate(0.1, 0.1, p=1.0), IMG)


# Inverses of the geometric augmentations, fed with the forward output and the same parameters.
def inverse(name: str, section: str, make: Callable[[], nn.Module], image: torch.Tensor) -> None:
    """`Op.inverse` undoing the forward warp drawn with the same parameters."""
    module = make()
    params = _params(module, image.shape)
    warped = module(image.clone(), params=params)
    case(
        f"{name}.inverse",
        f"augmentation.{section}",
        module,
        [warped.detach()],
        {"params": params, "size": tuple(image.shape[-2:])},
        method="inverse",
        note=PARAMS_NOTE,
    )


inverse("RandomAffine", S2G, lambda: A.RandomAffine(15.0, p=1.0), IMG[0])
inverse("RandomPerspective", S2G, lambda: A.RandomPerspective(0.3, p=1.0), IMG[0])
inverse("RandomRotation", S2G, lambda: A.RandomRotation(30.0, p=1.0), IMG[0])
inverse("RandomRotation90", S2G, lambda: A.RandomRotation90((-1, 2), p=1.0), IMG[0])
inverse("RandomShear", S2G, lambda: A.RandomShear((-10.0, 10.0), p=1.0), IMG[0])
inverse("RandomTranslate", S2G, lambda: A.RandomTranslate(0.1, 0.1, p=1.0), IMG[0])
inverse("RandomHorizontalFlip", S2G, lambda: A.RandomHorizontalFlip(p=1.0), IMG[0])
inverse("RandomVerticalFlip", S2G, lambda: A.RandomVerticalFlip(p=1.0), IMG[0])
inverse("RandomCrop", S2G, lambda: A.RandomCrop((24, 24), p=1.0), IMG[0])
inverse("RandomResizedCrop", S2G, lambda: A.RandomResizedCrop((24, 24), p=1.0), IMG[0])
inverse("CenterCrop", S2G, lambda: A.CenterCrop((24, 24)), IMG[0])
inverse("augmentation.Resize", S2G, lambda: A.Resize((16, 20)), IMG[0])
inverse("LongestMaxSize", S2G, lambda: A.LongestMaxSize(48), IMG[0])
inverse("SmallestMaxSize", S2G, lambda: A.SmallestMaxSize(24), IMG[0])

# More options of the 2D augmentations ---------------------------------------------------------
augment(
    "RandomAffine[same_on_batch]",
    S2G,
    lambda: A.RandomAffine(15.0, same_on_batch=True, p=1.0),
    IMG2,
    random=False,
)
augment(
    "RandomAffine[keepdim]",
    S2G,
    lambda: A.RandomAffine(15.0, keepdim=True, p=1.0),
    [I.image(1)[0]],
    random=False,
    shape=(1, 3, I.H, I.W),
)
augment(
    "RandomAffine[align_corners=True]",
    S2G,
    lambda: A.RandomAffine(15.0, align_corners=True, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomCrop[pad_if_needed]",
    S2G,
    lambda: A.RandomCrop((40, 40), pad_if_needed=True, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomCrop[padding_mode=reflect]",
    S2G,
    lambda: A.RandomCrop((24, 24), padding=4, padding_mode="reflect", p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomResizedCrop[scale=(0.5,1)]",
    S2G,
    lambda: A.RandomResizedCrop((24, 24), scale=(0.5, 1.0), ratio=(0.5, 2.0), p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomRotation[same_on_batch]",
    S2G,
    lambda: A.RandomRotation(30.0, same_on_batch=True, p=1.0),
    IMG2,
    random=False,
)
augment(
    "RandomPerspective[resample=nearest]",
    S2G,
    lambda: A.RandomPerspective(0.3, resample="nearest", p=1.0),
    IMG,
    random=False,
)
augment("RandomHorizontalFlip[batch=2]", S2G, lambda: A.RandomHorizontalFlip(p=1.0), IMG2, random=False)
augment(
    "RandomElasticTransform[kernel_size=(9,9)]",
    S2G,
    lambda: A.RandomElasticTransform((9, 9), (4.0, 4.0), (1.0, 1.0), p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomThinPlateSpline[scale=0.1]",
    S2G,
    lambda: A.RandomThinPlateSpline(scale=0.1, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomShear[padding_mode=border]",
    S2G,
    lambda: A.RandomShear((-10.0, 10.0), padding_mode="border", p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomTranslate[translate_y]",
    S2G,
    lambda: A.RandomTranslate(None, (-0.2, 0.2), p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomGaussianBlur[same_on_batch]",
    S2I,
    lambda: A.RandomGaussianBlur((5, 5), (0.5, 1.5), same_on_batch=True, p=1.0),
    IMG2,
    random=False,
)
augment(
    "RandomGaussianNoise[mean=0.1]",
    S2I,
    lambda: A.RandomGaussianNoise(mean=0.1, std=0.05, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomJPEG[jpeg_quality=(85,95)]",
    S2I,
    lambda: A.RandomJPEG(jpeg_quality=(85.0, 95.0), p=1.0),
    IMG,
    random=False,
)
augment("RandomPosterize[bits=(2,4)]", S2I, lambda: A.RandomPosterize((2, 4), p=1.0), IMG, random=False)
augment("RandomSharpness[sharpness=1.0]", S2I, lambda: A.RandomSharpness(1.0, p=1.0), IMG, random=False)
augment(
    "RandomChannelDropout[num_drop_channels=2]",
    S2I,
    lambda: A.RandomChannelDropout(num_drop_channels=2, fill_value=0.5, p=1.0),
    IMG,
    random=False,
)
augment("RandomRGBShift[shift=0.2]", S2I, lambda: A.RandomRGBShift(0.2, 0.2, 0.2, p=1.0), IMG, random=False)
augment("RandomMedianBlur[kernel_size=5]", S2I, lambda: A.RandomMedianBlur((5, 5), p=1.0), IMG, random=False)
augment(
    "RandomPlanckianJitter[mode=blackbody,same_on_batch]",
    S2I,
    lambda: A.RandomPlanckianJitter(mode="blackbody", same_on_batch=True, p=1.0),
    IMG2,
    random=False,
)
augment(
    "RandomContrast[clip_output=False]",
    S2I,
    lambda: A.RandomContrast((0.5, 1.5), clip_output=False, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomBrightness[clip_output=False]",
    S2I,
    lambda: A.RandomBrightness((0.5, 1.5), clip_output=False, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomGamma[gain=(0.8,1.2)]",
    S2I,
    lambda: A.RandomGamma((0.5, 1.5), (0.8, 1.2), p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomHue[same_on_batch]",
    S2I,
    lambda: A.RandomHue((-0.2, 0.2), same_on_batch=True, p=1.0),
    IMG2,
    random=False,
)
augment(
    "RandomSaturation[saturation=(0.5,1.5)]",
    S2I,
    lambda: A.RandomSaturation((0.5, 1.5), p=1.0),
    IMG,
    random=False,
)
augment("RandomEqualize[batch=2]", S2I, lambda: A.RandomEqualize(p=1.0), IMG2, random=False)
augment(
    "RandomInvert[max_val=0.5]",
    S2I,
    lambda: A.RandomInvert(max_val=torch.tensor(0.5), p=1.0),
    IMG,
    random=False,
)
augment("RandomGrayscale[gray_input]", S2I, lambda: A.RandomGrayscale(p=1.0), [I.image(1, 3)], random=False)
augment(
    "RandomAutoContrast[clip_output=False]",
    S2I,
    lambda: A.RandomAutoContrast(clip_output=False, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomSaltAndPepperNoise[amount=0.1]",
    S2I,
    lambda: A.RandomSaltAndPepperNoise(amount=0.1, salt_vs_pepper=0.3, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomSnow[brightness=(1.5,2)]",
    S2I,
    lambda: A.RandomSnow(snow_coefficient=(0.2, 0.4), brightness=(1.5, 2.0), p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomRain[number_of_drops=(10,20)]",
    S2I,
    lambda: A.RandomRain(number_of_drops=(10, 20), drop_height=(3, 5), drop_width=(1, 2), p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomErasing[same_on_batch]",
    S2I,
    lambda: A.RandomErasing(same_on_batch=True, p=1.0),
    IMG2,
    random=False,
)
augment(
    "RandomClahe[slow_and_differentiable]",
    S2I,
    lambda: A.RandomClahe(grid_size=(4, 4), slow_and_differentiable=True, p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomLinearIllumination[sign=-1]",
    S2I,
    lambda: A.RandomLinearIllumination(sign=(-1.0, -1.0), p=1.0),
    IMG,
    random=False,
)
augment(
    "RandomGaussianIllumination[sign=-1]",
    S2I,
    lambda: A.RandomGaussianIllumination(sign=(-1.0, -1.0), p=1.0),
    IMG,
    random=False,
)
augment(
    "augmentation.Normalize[batch=2]",
    S2I,
    lambda: A.Normalize(mean=torch.tensor([0.5, 0.5, 0.5]), std=torch.tensor([0.2, 0.2, 0.2])),
    IMG2,
    random=False,
)
augment("ColorJiggle[batch=2]", S2I, lambda: A.ColorJiggle(0.2, 0.2, 0.2, 0.1, p=1.0), IMG2, random=False)

# 2D mixes: they need more than one image in the batch ------------------------------------------
S2M = "2d.mix"
augment("RandomMixUpV2", S2M, lambda: A.RandomMixUpV2(p=1.0), IMG2, tags=("quick",))
augment("RandomCutMixV2", S2M, lambda: A.RandomCutMixV2(p=1.0), IMG2)
augment("RandomCutMixV2[num_mix=2]", S2M, lambda: A.RandomCutMixV2(num_mix=2, p=1.0), IMG2, random=False)
augment(
    "RandomCutMixV2[use_correct_lambda]",
    S2M,
    lambda: A.RandomCutMixV2(use_correct_lambda=True, p=1.0),
    IMG2,
    random=False,
)
augment("RandomMosaic", S2M, lambda: A.RandomMosaic((32, 40), p=1.0), IMG2)
augment("RandomJigsaw", S2M, lambda: A.RandomJigsaw((2, 2), p=1.0), [I.image(2, 3, 32, 32)])
augment("PatchMix", S2M, lambda: A.PatchMix(patch_size=8, p=1.0), [I.image(2, 3, 32, 32)])
SEG = [I.image(2), (I.rand(2, I.H, I.W, seed=3) * 3).floor()]
augment("RandomTransplantation", S2M, lambda: A.RandomTransplantation(p=1.0), SEG)

# 3D -------------------------------------------------------------------------------------------
S3G, S3I = "3d.geometric", "3d.intensity"
augment("CenterCrop3D", S3G, lambda: A.CenterCrop3D((6, 12, 12)), VOL)
augment("RandomAffine3D", S3G, lambda: A.RandomAffine3D(15.0, p=1.0), VOL)
augment(
    "RandomAffine3D[translate,scale]",
    S3G,
    lambda: A.RandomAffine3D(15.0, translate=(0.1, 0.1, 0.1), scale=((0.9, 1.1),) * 3, p=1.0),
    VOL,
    random=False,
)
augment("RandomCrop3D", S3G, lambda: A.RandomCrop3D((6, 12, 12), p=1.0), VOL)
augment("RandomDepthicalFlip3D", S3G, lambda: A.RandomDepthicalFlip3D(p=1.0), VOL)
augment("RandomHorizontalFlip3D", S3G, lambda: A.RandomHorizontalFlip3D(p=1.0), VOL, tags=("quick",))
augment("RandomVerticalFlip3D", S3G, lambda: A.RandomVerticalFlip3D(p=1.0), VOL)
augment("RandomPerspective3D", S3G, lambda: A.RandomPerspective3D(0.3, p=1.0), VOL)
augment("RandomRotation3D", S3G, lambda: A.RandomRotation3D(20.0, p=1.0), VOL)
augment("RandomEqualize3D", S3I, lambda: A.RandomEqualize3D(p=1.0), VOL)
augment("RandomMotionBlur3D", S3I, lambda: A.RandomMotionBlur3D(3, 20.0, 0.5, p=1.0), VOL)
SEG3 = [I.volume(2), (I.rand(2, 8, 16, 16, seed=3) * 3).floor()]
augment("RandomTransplantation3D", "3d.mix", lambda: A.RandomTransplantation3D(p=1.0), SEG3)

augment(
    "RandomAffine3D[resample=nearest]",
    S3G,
    lambda: A.RandomAffine3D(15.0, resample="nearest", p=1.0),
    VOL,
    random=False,
)
augment("RandomAffine3D[shears]", S3G, lambda: A.RandomAffine3D(10.0, shears=5.0, p=1.0), VOL, random=False)
augment(
    "RandomRotation3D[same_on_batch]",
    S3G,
    lambda: A.RandomRotation3D(20.0, same_on_batch=True, p=1.0),
    [I.volume(2)],
    random=False,
)
augment(
    "RandomCrop3D[padding=2]", S3G, lambda: A.RandomCrop3D((8, 16, 16), padding=2, p=1.0), VOL, random=False
)
augment(
    "RandomPerspective3D[resample=nearest]",
    S3G,
    lambda: A.RandomPerspective3D(0.3, resample="nearest", p=1.0),
    VOL,
    random=False,
)
augment(
    "CenterCrop3D[resample=nearest]",
    S3G,
    lambda: A.CenterCrop3D((6, 12, 12), resample="nearest"),
    VOL,
    random=False,
)
augment(
    "RandomHorizontalFlip3D[batch=2]",
    S3G,
    lambda: A.RandomHorizontalFlip3D(p=1.0),
    [I.volume(2)],
    random=False,
)
augment(
    "RandomMotionBlur3D[border_type=replicate]",
    S3I,
    lambda: A.RandomMotionBlur3D(3, 20.0, 0.5, border_type="replicate", p=1.0),
    VOL,
    random=False,
)
augment("RandomEqualize3D[batch=2]", S3I, lambda: A.RandomEqualize3D(p=1.0), [I.volume(2)], random=False)

# Containers -----------------------------------------------------------------------------------
SC = "container"


def _pipeline() -> list[nn.Module]:
    # Children that each capture on their own (Kornia's own survey uses the same three), so a
    # container's cell is about the container. A ColorJitter child fails alone (its order comes
    # from .tolist()); the [intensity_only], [nested] and PatchSequential cases keep one.
    return [A.RandomAffine(10.0, p=1.0), A.RandomBrightness((0.8, 1.2), p=1.0), A.RandomHorizontalFlip(p=1.0)]


augment("AugmentationSequential", SC, lambda: A.AugmentationSequential(*_pipeline()), IMG, tags=("quick",))
augment(
    "AugmentationSequential[random_apply=2]",
    SC,
    lambda: A.AugmentationSequential(*_pipeline(), random_apply=2),
    IMG,
    random=False,
)
MASKED = [I.image(), I.mask()]
augment(
    "AugmentationSequential[data_keys=input,mask]",
    SC,
    lambda: A.AugmentationSequential(*_pipeline(), data_keys=["input", "mask"]),
    MASKED,
    random=False,
)
BOXED = [I.image(), I.boxes_xyxy()]
augment(
    "AugmentationSequential[data_keys=input,bbox_xyxy]",
    SC,
    lambda: A.AugmentationSequential(
        A.RandomAffine(10.0, p=1.0), A.RandomHorizontalFlip(p=1.0), data_keys=["input", "bbox_xyxy"]
    ),
    BOXED,
    random=False,
)
KEYED = [I.image(), I.points2d(1, 6)]
augment(
    "AugmentationSequential[data_keys=input,keypoints]",
    SC,
    lambda: A.AugmentationSequential(
        A.RandomAffine(10.0, p=1.0), A.RandomHorizontalFlip(p=1.0), data_keys=["input", "keypoints"]
    ),
    KEYED,
    random=False,
)
augment("augmentation.ImageSequential", SC, lambda: A.ImageSequential(*_pipeline()), IMG)
augment(
    "augmentation.ImageSequential[random_apply=1]",
    SC,
    lambda: A.ImageSequential(*_pipeline(), random_apply=1),
    IMG,
    random=False,
)
augment("VideoSequential", SC, lambda: A.VideoSequential(*_pipeline()), [I.video()])
augment(
    "VideoSequential[same_on_frame=False]",
    SC,
    lambda: A.VideoSequential(*_pipeline(), same_on_frame=False),
    [I.video()],
    random=False,
)
augment(
    "PatchSequential",
    SC,
    lambda: A.PatchSequential(
        A.ColorJitter(0.1, 0.1, 0.1, p=1.0),
        A.RandomPerspective(0.2, p=1.0),
        grid_size=(2, 2),
        patchwise_apply=False,
    ),
    IMG,
)
augment(
    "AugmentationSequential[same_on_batch]",
    SC,
    lambda: A.AugmentationSequential(*_pipeline(), same_on_batch=True),
    IMG2,
    random=False,
)
augment(
    "AugmentationSequential[data_keys=input,bbox_xywh]",
    SC,
    lambda: A.AugmentationSequential(A.RandomAffine(10.0, p=1.0), data_keys=["input", "bbox_xywh"]),
    [I.image(), I.boxes_xywh()],
    random=False,
)
augment(
    "AugmentationSequential[data_keys=input,bbox]",
    SC,
    lambda: A.AugmentationSequential(A.RandomAffine(10.0, p=1.0), data_keys=["input", "bbox"]),
    [I.image(), I.box_corners()],
    random=False,
)
augment(
    "AugmentationSequential[data_keys=input,mask,bbox_xyxy,keypoints]",
    SC,
    lambda: A.AugmentationSequential(
        A.RandomAffine(10.0, p=1.0),
        A.RandomPerspective(0.2, p=1.0),
        data_keys=["input", "mask", "bbox_xyxy", "keypoints"],
    ),
    [I.image(), I.mask(), I.boxes_xyxy(), I.points2d(1, 6)],
    random=False,
)
augment(
    "AugmentationSequential[3d]",
    SC,
    lambda: A.AugmentationSequential(A.RandomAffine3D(10.0, p=1.0), A.RandomHorizontalFlip3D(p=1.0)),
    VOL,
    random=False,
)
augment(
    "AugmentationSequential[intensity_only]",
    SC,
    lambda: A.AugmentationSequential(
        A.ColorJitter(0.2, 0.2, 0.2, 0.1, p=1.0), A.RandomGaussianBlur((3, 3), (0.5, 1.0), p=1.0)
    ),
    IMG,
    random=False,
)
augment(
    "AugmentationSequential[nested]",
    SC,
    lambda: A.AugmentationSequential(
        A.ImageSequential(A.RandomAffine(10.0, p=1.0)), A.ColorJitter(0.1, 0.1, p=1.0)
    ),
    IMG,
    random=False,
)
augment(
    "augmentation.ImageSequential[same_on_batch]",
    SC,
    lambda: A.ImageSequential(*_pipeline(), same_on_batch=True),
    IMG2,
    random=False,
)
augment(
    "VideoSequential[data_format=BCTHW]",
    SC,
    lambda: A.VideoSequential(*_pipeline(), data_format="BCTHW"),
    [I.video().transpose(1, 2).contiguous()],
    random=False,
)
SEQ = A.AugmentationSequential(
    A.RandomAffine(10.0, p=1.0), A.RandomHorizontalFlip(p=1.0), data_keys=["input", "mask"]
)
SEQ_PARAMS = _params(SEQ, (1, 3, I.H, I.W))
SEQ_OUT = SEQ(I.image(), I.mask(), params=SEQ_PARAMS)
case(
    "AugmentationSequential.inverse",
    f"augmentation.{SC}",
    SEQ,
    [t.detach() for t in SEQ_OUT],
    {"params": SEQ_PARAMS},
    method="inverse",
    note=PARAMS_NOTE,
)

# The dispatchers take no params= argument: they only exist with sampling inside the graph.
case(
    "ManyToManyAugmentationDispather",
    f"augmentation.{SC}",
    A.ManyToManyAugmentationDispather(
        A.AugmentationSequential(A.RandomAffine(10.0, p=1.0)),
        A.AugmentationSequential(A.ColorJitter(0.1, 0.1, p=1.0)),
    ),
    [(I.image(),), (I.image(seed=1),)],
    note=RANDOM_NOTE,
    check=False,
)
case(
    "ManyToOneAugmentationDispather",
    f"augmentation.{SC}",
    A.ManyToOneAugmentationDispather(
        A.AugmentationSequential(A.RandomAffine(10.0, p=1.0), data_keys=["input", "mask"]),
        A.AugmentationSequential(A.ColorJitter(0.1, 0.1, p=1.0), data_keys=["input", "mask"]),
    ),
    MASKED,
    note=RANDOM_NOTE,
    check=False,
)

# Auto-augment policies ------------------------------------------------------------------------
SA = "auto"
augment("AutoAugment", SA, lambda: auto.AutoAugment(), IMG)
augment("AutoAugment[policy=cifar10]", SA, lambda: auto.AutoAugment("cifar10"), IMG, random=False)
augment("AutoAugment[policy=svhn]", SA, lambda: auto.AutoAugment("svhn"), IMG, random=False)
augment("RandAugment", SA, lambda: auto.RandAugment(n=2, m=10), IMG)
augment("RandAugment[n=1,m=5]", SA, lambda: auto.RandAugment(n=1, m=5), IMG, random=False)
augment("TrivialAugment", SA, lambda: auto.TrivialAugment(), IMG)
CUSTOM_POLICY = [[("brightness", 0.3, 0.7)], [("rotate", -20.0, 20.0)], [("equalize", 0.0, 1.0)]]
augment("TrivialAugment[policy=custom]", SA, lambda: auto.TrivialAugment(CUSTOM_POLICY), IMG, random=False)
augment(
    "RandAugment[policy=custom]",
    SA,
    lambda: auto.RandAugment(n=1, m=10, policy=CUSTOM_POLICY),
    IMG,
    random=False,
)
augment(
    "PolicySequential", SA, lambda: auto.PolicySequential(ops.Brightness(), ops.Rotate(), ops.Equalize()), IMG
)

for base in (
    "AugmentationBase2D",
    "AugmentationBase3D",
    "GeometricAugmentationBase2D",
    "GeometricAugmentationBase3D",
    "IntensityAugmentationBase2D",
    "IntensityAugmentationBase3D",
    "MixAugmentationBaseV2",
    "RigidAffineAugmentationBase2D",
    "RigidAffineAugmentationBase3D",
):
    exclude(
        f"kornia.augmentation.{base}", reason="abstract base class for writing augmentations; not an operator"
    )
exclude(
    "kornia.augmentation.auto.PolicyAugmentBase", reason="abstract base class of the auto-augment policies"
)

# Container internals reachable through kornia.augmentation.container (a module without __all__).
for name, reason in (
    ("container.ImageSequentialBase", "abstract base of the sequential containers"),
    ("container.base.BasicSequentialBase", "abstract base of the sequential containers"),
    ("container.base.SequentialBase", "abstract base of the sequential containers"),
    ("container.ops.AugmentationSequentialOps", "dispatch helper used inside AugmentationSequential"),
    ("container.ops.BoxSequentialOps", "dispatch helper used inside AugmentationSequential"),
    ("container.ops.ClassSequentialOps", "dispatch helper used inside AugmentationSequential"),
    ("container.ops.InputSequentialOps", "dispatch helper used inside AugmentationSequential"),
    ("container.ops.KeypointSequentialOps", "dispatch helper used inside AugmentationSequential"),
    ("container.ops.MaskSequentialOps", "dispatch helper used inside AugmentationSequential"),
    ("container.ops.SequentialOpsInterface", "interface of the dispatch helpers"),
    ("container.ops.DataKey", "enum naming the kinds of data a container transforms"),
    ("container.ops.ParamItem", "record holding one module's sampled parameters"),
    ("container.params.PatchParamItem", "record holding one patch's sampled parameters"),
    ("container.ops.deepcopy_dict", "utility that copies a parameter dictionary"),
    ("container.ops.get_geometric_only_param", "utility that filters a container's parameters"),
    ("container.ops.is_exporting", "utility that reports whether ONNX export is running"),
    ("container.ops.make_input_only_sequential", "utility that builds a container variant"),
):
    exclude(f"kornia.augmentation.{name}", reason=reason)

# Containers' inverses and patch helpers, on parameters sampled once here.
IMG_SEQ = A.ImageSequential(A.RandomAffine(10.0, p=1.0), A.ColorJitter(0.1, 0.1, p=1.0))
IMG_SEQ_PARAMS = _params(IMG_SEQ, (1, 3, I.H, I.W))
case(
    "augmentation.ImageSequential.inverse",
    f"augmentation.{SC}",
    IMG_SEQ,
    [IMG_SEQ(I.image(), params=IMG_SEQ_PARAMS).detach()],
    {"params": IMG_SEQ_PARAMS},
    method="inverse",
    note=PARAMS_NOTE,
)
VID_SEQ = A.VideoSequential(A.RandomAffine(10.0, p=1.0), A.ColorJitter(0.1, 0.1, p=1.0))
VID_SEQ_PARAMS = _params(VID_SEQ, (1, 3, 3, I.H, I.W))
case(
    "VideoSequential.inverse",
    f"augmentation.{SC}",
    VID_SEQ,
    [VID_SEQ(I.video(), params=VID_SEQ_PARAMS).detach()],
    {"params": VID_SEQ_PARAMS},
    method="inverse",
    note=PARAMS_NOTE,
)
PATCH_SEQ = A.PatchSequential(A.ColorJitter(0.1, 0.1, p=1.0), grid_size=(2, 2), patchwise_apply=False)
PATCH_SEQ_PARAMS = _params(PATCH_SEQ, (1, 3, I.H, I.W))
case(
    "PatchSequential.inverse",
    f"augmentation.{SC}",
    PATCH_SEQ,
    [PATCH_SEQ(I.image(), params=PATCH_SEQ_PARAMS).detach()],
    {"params": PATCH_SEQ_PARAMS},
    method="inverse",
    note=PARAMS_NOTE + "; intensity only: the inverse refuses geometric children",
)
case(
    "PatchSequential.extract_patches",
    f"augmentation.{SC}",
    PATCH_SEQ,
    [I.image(), (2, 2)],
    method="extract_patches",
)
case(
    "PatchSequential.restore_from_patches",
    f"augmentation.{SC}",
    PATCH_SEQ,
    [I.rand(1, 4, 3, I.H // 2, I.W // 2), (2, 2)],
    method="restore_from_patches",
)
exclude(
    "kornia.augmentation.PatchMix.inverse",
    reason="the mixing augmentations are not invertible: inverse raises in kornia 0.9",
)
exclude(
    "kornia.augmentation.auto.AutoAugment.inverse",
    reason="invertible only when the sub-policy drawn inside forward is geometric; "
    "kornia 0.9 raises otherwise",
)
