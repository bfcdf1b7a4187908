"""Kornia survey: filters (blurs, gradients, edges, kernels, convolutions, thresholds)."""

from __future__ import annotations

import kornia.filters as kf
import torch

from capmap import case

from ._inputs import image, randn, smooth_image, volume

G = "filters"
QUICK = ("quick",)

rgb = image()
rgb_batch = image(b=2, seed=1)
gray = smooth_image(c=1)
vol = volume(c=2)
kernel3 = torch.tensor([[[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]]])
kernel5 = randn(1, 5, 5, seed=2)
kernel3d = randn(1, 3, 3, 3, seed=3)

# Blurs: function (default options), module, then options as variants.
case("gaussian_blur2d", G, kf.gaussian_blur2d, [rgb], {"kernel_size": 5, "sigma": (1.5, 1.5)}, tags=QUICK)
case(
    "gaussian_blur2d[separable=False]",
    G,
    kf.gaussian_blur2d,
    [rgb],
    {"kernel_size": 5, "sigma": (1.5, 1.5), "separable": False},
)
case(
    "gaussian_blur2d[sigma=tensor]",
    G,
    kf.gaussian_blur2d,
    [rgb_batch, 5, torch.tensor([[1.0, 1.0], [2.0, 0.5]])],
)
for border in ("constant", "replicate", "circular"):
    case(
        f"gaussian_blur2d[border_type={border}]",
        G,
        kf.gaussian_blur2d,
        [rgb],
        {"kernel_size": 5, "sigma": (1.5, 1.5), "border_type": border},
    )
case("GaussianBlur2d", G, kf.GaussianBlur2d(5, (1.5, 1.5)), [rgb])
case("box_blur", G, kf.box_blur, [rgb], {"kernel_size": 3})
case("box_blur[separable=False]", G, kf.box_blur, [rgb], {"kernel_size": 3, "separable": False})
case("box_blur[kernel_size=(3,5)]", G, kf.box_blur, [rgb], {"kernel_size": (3, 5)})
case("BoxBlur", G, kf.BoxBlur(3), [rgb])
case("median_blur", G, kf.median_blur, [rgb], {"kernel_size": 3}, tags=QUICK)
case("median_blur[kernel_size=5]", G, kf.median_blur, [rgb], {"kernel_size": 5})
case("MedianBlur", G, kf.MedianBlur(3), [rgb])
case(
    "bilateral_blur",
    G,
    kf.bilateral_blur,
    [rgb],
    {"kernel_size": 5, "sigma_color": 0.1, "sigma_space": (1.5, 1.5)},
)
case(
    "bilateral_blur[color_distance_type=l2]",
    G,
    kf.bilateral_blur,
    [rgb],
    {"kernel_size": 5, "sigma_color": 0.1, "sigma_space": (1.5, 1.5), "color_distance_type": "l2"},
)
case("BilateralBlur", G, kf.BilateralBlur(5, 0.1, (1.5, 1.5)), [rgb])
case(
    "joint_bilateral_blur",
    G,
    kf.joint_bilateral_blur,
    [rgb, image(seed=4)],
    {"kernel_size": 5, "sigma_color": 0.1, "sigma_space": (1.5, 1.5)},
)
case("JointBilateralBlur", G, kf.JointBilateralBlur(5, 0.1, (1.5, 1.5)), [rgb, image(seed=4)])
case("guided_blur", G, kf.guided_blur, [rgb, image(seed=4)], {"kernel_size": 5, "eps": 0.01})
case(
    "guided_blur[gray_guidance]",
    G,
    kf.guided_blur,
    [image(c=1, seed=5), rgb],
    {"kernel_size": 5, "eps": 0.01},
)
case(
    "guided_blur[subsample=2]",
    G,
    kf.guided_blur,
    [rgb, image(seed=4)],
    {"kernel_size": 5, "eps": 0.01, "subsample": 2},
)
case("GuidedBlur", G, kf.GuidedBlur(5, 0.01), [rgb, image(seed=4)])
case("motion_blur", G, kf.motion_blur, [rgb], {"kernel_size": 5, "angle": 35.0, "direction": 0.5})
case(
    "motion_blur[mode=bilinear]",
    G,
    kf.motion_blur,
    [rgb],
    {"kernel_size": 5, "angle": 35.0, "direction": 0.5, "mode": "bilinear"},
)
case(
    "motion_blur[angle=tensor]",
    G,
    kf.motion_blur,
    [rgb_batch, 5, torch.tensor([10.0, 70.0]), torch.tensor([0.0, -0.5])],
)
case("MotionBlur", G, kf.MotionBlur(5, 35.0, 0.5), [rgb])
case(
    "motion_blur3d",
    G,
    kf.motion_blur3d,
    [vol],
    {"kernel_size": 3, "angle": (15.0, 30.0, 45.0), "direction": 0.5},
)
case("MotionBlur3D", G, kf.MotionBlur3D(3, (15.0, 30.0, 45.0), 0.5), [vol])
case("unsharp_mask", G, kf.unsharp_mask, [rgb], {"kernel_size": 5, "sigma": (1.5, 1.5)})
case("UnsharpMask", G, kf.UnsharpMask(5, (1.5, 1.5)), [rgb])
case("blur_pool2d", G, kf.blur_pool2d, [rgb], {"kernel_size": 3})
case("BlurPool2D", G, kf.BlurPool2D(3), [rgb])
case("max_blur_pool2d", G, kf.max_blur_pool2d, [rgb], {"kernel_size": 3})
case("max_blur_pool2d[ceil_mode=True]", G, kf.max_blur_pool2d, [rgb], {"kernel_size": 3, "ceil_mode": True})
case("MaxBlurPool2D", G, kf.MaxBlurPool2D(3), [rgb])
case("edge_aware_blur_pool2d", G, kf.edge_aware_blur_pool2d, [rgb], {"kernel_size": 3})
case("EdgeAwareBlurPool2D", G, kf.EdgeAwareBlurPool2D(3), [rgb])

# Gradients and edges.
case("sobel", G, kf.sobel, [rgb], tags=QUICK)
case("sobel[normalized=False]", G, kf.sobel, [rgb], {"normalized": False})
case("Sobel", G, kf.Sobel(), [rgb])
case("spatial_gradient", G, kf.spatial_gradient, [rgb])
case("spatial_gradient[mode=diff]", G, kf.spatial_gradient, [rgb], {"mode": "diff"})
case("spatial_gradient[order=2]", G, kf.spatial_gradient, [rgb], {"order": 2})
case("SpatialGradient", G, kf.SpatialGradient(), [rgb])
case("spatial_gradient3d", G, kf.spatial_gradient3d, [vol])
case("spatial_gradient3d[order=2]", G, kf.spatial_gradient3d, [vol], {"order": 2})
case("SpatialGradient3d", G, kf.SpatialGradient3d(), [vol])
case("laplacian", G, kf.laplacian, [rgb], {"kernel_size": 3})
case(
    "laplacian[kernel_size=5,normalized=False]",
    G,
    kf.laplacian,
    [rgb],
    {"kernel_size": 5, "normalized": False},
)
case("Laplacian", G, kf.Laplacian(3), [rgb])
case("canny", G, kf.canny, [gray])
case("canny[hysteresis=False]", G, kf.canny, [gray], {"hysteresis": False})
case("canny[rgb]", G, kf.canny, [rgb])
case("Canny", G, kf.Canny(), [gray])

# Convolution primitives.
case("filter2d", G, kf.filter2d, [rgb, kernel3])
case("filter2d[padding=valid]", G, kf.filter2d, [rgb, kernel3], {"padding": "valid"})
case("filter2d[normalized]", G, kf.filter2d, [rgb, kernel5.abs()], {"normalized": True})
case("filter2d[behaviour=conv]", G, kf.filter2d, [rgb, kernel5], {"behaviour": "conv"})
for border in ("constant", "replicate", "circular"):
    case(f"filter2d[border_type={border}]", G, kf.filter2d, [rgb, kernel5], {"border_type": border})
case("filter2d_separable", G, kf.filter2d_separable, [rgb, randn(1, 5, seed=6), randn(1, 3, seed=7)])
case("filter3d", G, kf.filter3d, [vol, kernel3d])
case("filter3d[behaviour=conv]", G, kf.filter3d, [vol, kernel3d], {"behaviour": "conv"})
case("convolve2d", G, kf.convolve2d, [rgb, kernel5])
case("correlate2d", G, kf.correlate2d, [rgb, kernel5])
case("convolve3d", G, kf.convolve3d, [vol, kernel3d])
case("correlate3d", G, kf.correlate3d, [vol, kernel3d])
case("fft_conv", G, kf.fft_conv, [rgb, kernel5], atol=1e-3)
case("fft_conv[behaviour=conv]", G, kf.fft_conv, [rgb, kernel5], {"behaviour": "conv"}, atol=1e-3)

# Thresholds.
case("in_range", G, kf.in_range, [rgb], {"lower": (0.2, 0.2, 0.2), "upper": (0.8, 0.8, 0.8)})
case(
    "in_range[return_mask]",
    G,
    kf.in_range,
    [rgb],
    {"lower": (0.2, 0.2, 0.2), "upper": (0.8, 0.8, 0.8), "return_mask": True},
)
case(
    "in_range[bounds=tensor]",
    G,
    kf.in_range,
    [rgb, torch.tensor([0.2, 0.3, 0.1]), torch.tensor([0.8, 0.9, 0.7])],
)
case("InRange", G, kf.InRange((0.2, 0.2, 0.2), (0.8, 0.8, 0.8)), [rgb])
case("otsu_threshold", G, kf.otsu_threshold, [gray])
case("otsu_threshold[return_mask]", G, kf.otsu_threshold, [gray], {"return_mask": True})
case(
    "otsu_threshold[slow_and_differentiable]", G, kf.otsu_threshold, [gray], {"slow_and_differentiable": True}
)
case("OtsuThreshold", G, kf.OtsuThreshold(), [gray])

# Kernel factories: capture of a graph whose inputs are the kernel parameters.
case("gaussian", G, kf.gaussian, [5, torch.tensor([[1.5]])])
case("get_gaussian_kernel1d", G, kf.get_gaussian_kernel1d, [5, torch.tensor([[1.5]])])
case(
    "get_gaussian_kernel1d[force_even]",
    G,
    kf.get_gaussian_kernel1d,
    [4, torch.tensor([[1.5]])],
    {"force_even": True},
)
case("get_gaussian_kernel2d", G, kf.get_gaussian_kernel2d, [(5, 5), torch.tensor([[1.5, 1.0]])])
case("get_gaussian_kernel3d", G, kf.get_gaussian_kernel3d, [(3, 5, 5), torch.tensor([[1.0, 1.5, 1.5]])])
case("get_gaussian_discrete_kernel1d", G, kf.get_gaussian_discrete_kernel1d, [5, torch.tensor([[1.5]])])
case("get_gaussian_erf_kernel1d", G, kf.get_gaussian_erf_kernel1d, [5, torch.tensor([[1.5]])])
case("get_motion_kernel2d", G, kf.get_motion_kernel2d, [5, torch.tensor([35.0]), torch.tensor([0.5])])
case(
    "get_motion_kernel2d[mode=bilinear]",
    G,
    kf.get_motion_kernel2d,
    [5, torch.tensor([35.0]), torch.tensor([0.5])],
    {"mode": "bilinear"},
)
case(
    "get_motion_kernel3d",
    G,
    kf.get_motion_kernel3d,
    [3, torch.tensor([[15.0, 30.0, 45.0]]), torch.tensor([0.5])],
)
# Factories without tensor inputs return constants; they are probed on their sizes alone.
case("get_box_kernel1d", G, kf.get_box_kernel1d, [5])
case("get_box_kernel2d", G, kf.get_box_kernel2d, [(3, 5)])
case("get_binary_kernel2d", G, kf.get_binary_kernel2d, [3])
case("get_diff_kernel2d", G, kf.get_diff_kernel2d, [])
case("get_sobel_kernel2d", G, kf.get_sobel_kernel2d, [])
case("get_spatial_gradient_kernel2d", G, kf.get_spatial_gradient_kernel2d, [], {"mode": "sobel", "order": 1})
case("get_spatial_gradient_kernel3d", G, kf.get_spatial_gradient_kernel3d, [], {"mode": "diff", "order": 1})
case("get_laplacian_kernel1d", G, kf.get_laplacian_kernel1d, [5])
case("get_laplacian_kernel2d", G, kf.get_laplacian_kernel2d, [5])
case("laplacian_1d", G, kf.laplacian_1d, [5])
case("get_hanning_kernel1d", G, kf.get_hanning_kernel1d, [5])
case("get_hanning_kernel2d", G, kf.get_hanning_kernel2d, [(5, 7)])
case(
    "StableDiffusionDissolving",
    G,
    kf.StableDiffusionDissolving,
    [],
    skip="needs pretrained weights",
    note="builds a Stable Diffusion pipeline from downloaded weights (diffusers)",
)

# Settings Kornia's own survey measures, written so that `capmap diff` pairs the two surveys'
# cases one to one.
rgb_pair = image(b=2, seed=8)
case("BoxBlur[separable=True]", G, kf.BoxBlur(3, separable=True), [rgb])
case("Canny[hysteresis=False]", G, kf.Canny(hysteresis=False), [gray])
case("GaussianBlur2d[separable=False]", G, kf.GaussianBlur2d(5, (1.5, 1.5), separable=False), [rgb])
case(
    "GaussianBlur2d[sigma=tensor]",
    G,
    kf.GaussianBlur2d(5, torch.tensor([[1.5, 1.0]])),
    [rgb],
    note="sigma is fixed at construction, so it is a constant of the graph",
)
case("GuidedBlur[subsample=2]", G, kf.GuidedBlur(5, 0.01, subsample=2), [rgb, image(seed=4)])
case("InRange[return_mask=True]", G, kf.InRange((0.2, 0.2, 0.2), (0.8, 0.8, 0.8), return_mask=True), [rgb])
case(
    "Laplacian[normalized=False,border_type=replicate]",
    G,
    kf.Laplacian(3, border_type="replicate", normalized=False),
    [rgb],
)
case("MaxBlurPool2D[ceil_mode]", G, kf.MaxBlurPool2D(3, ceil_mode=True), [image(h=15, w=21, seed=9)])
case("MedianBlur[kernel_size=5x3]", G, kf.MedianBlur((5, 3)), [rgb])
case("Sobel[normalized=False]", G, kf.Sobel(normalized=False), [rgb])
case("SpatialGradient[mode=diff,order=2]", G, kf.SpatialGradient("diff", 2), [rgb])
case(
    "bilateral_blur[sigma=tensor]",
    G,
    kf.bilateral_blur,
    [rgb_pair, 5, torch.tensor([0.1, 0.2]), torch.tensor([[1.5, 1.5], [1.0, 2.0]])],
)
case("box_blur[separable=True]", G, kf.box_blur, [rgb], {"kernel_size": 3, "separable": True})
case("convolve2d[padding=valid]", G, kf.convolve2d, [rgb, kernel5], {"padding": "valid"})
case(
    "fft_conv[behaviour=conv,padding=valid]",
    G,
    kf.fft_conv,
    [rgb, kernel5],
    {"behaviour": "conv", "padding": "valid"},
    atol=1e-3,
)
case("fft_conv[normalized=True]", G, kf.fft_conv, [rgb, kernel5.abs()], {"normalized": True}, atol=1e-3)
case("filter2d[batch_kernels]", G, kf.filter2d, [rgb_pair, randn(2, 3, 3, seed=10)])
case("filter2d[even_kernel]", G, kf.filter2d, [rgb, randn(1, 4, 4, seed=11)])
case(
    "filter2d_separable[batch_kernels]",
    G,
    kf.filter2d_separable,
    [rgb_pair, randn(2, 5, seed=12), randn(2, 3, seed=13)],
)
vol_pair = volume(b=2, c=2, seed=14)
case("filter3d[batch_kernels]", G, kf.filter3d, [vol_pair, randn(2, 3, 3, 3, seed=15)])
case("filter3d[border_type=circular]", G, kf.filter3d, [vol, kernel3d], {"border_type": "circular"})
case(
    "filter3d[border_type=constant,normalized=True]",
    G,
    kf.filter3d,
    [vol, kernel3d.abs()],
    {"border_type": "constant", "normalized": True},
)
case(
    "filter3d[border_type=reflect,behaviour=conv]",
    G,
    kf.filter3d,
    [vol, kernel3d],
    {"border_type": "reflect", "behaviour": "conv"},
)
case("gaussian[mean]", G, kf.gaussian, [5, torch.tensor([[1.5]])], {"mean": torch.tensor([[0.5]])})
case(
    "gaussian_blur2d[sigma=tensor,batch]",
    G,
    kf.gaussian_blur2d,
    [rgb_pair, 5, torch.tensor([[1.0, 1.0], [2.0, 0.5]])],
)
case(
    "gaussian_blur2d[sigma=tensor,separable=False]",
    G,
    kf.gaussian_blur2d,
    [rgb, 5, torch.tensor([[1.5, 1.0]])],
    {"separable": False},
)
case(
    "get_gaussian_kernel1d[sigma=float]",
    G,
    kf.get_gaussian_kernel1d,
    [5, 1.5],
    constant="sigma is a Python float, so the kernel is built from numbers alone",
)
case(
    "get_gaussian_kernel2d[batch]",
    G,
    kf.get_gaussian_kernel2d,
    [(5, 5), torch.tensor([[1.5, 1.0], [0.8, 2.0]])],
)
case(
    "get_motion_kernel2d[angle=float]",
    G,
    kf.get_motion_kernel2d,
    [5, 35.0, 0.5],
    constant="angle and direction are Python floats",
)
case(
    "get_motion_kernel3d[angle=float]",
    G,
    kf.get_motion_kernel3d,
    [3, (15.0, 30.0, 45.0), 0.5],
    constant="angle and direction are Python floats",
)
for mode, order in (("diff", 1), ("sobel", 2)):
    case(
        f"get_spatial_gradient_kernel2d[mode={mode},order={order}]",
        G,
        kf.get_spatial_gradient_kernel2d,
        [],
        {"mode": mode, "order": order},
        constant="a fixed kernel chosen by mode and order",
    )
case(
    "get_spatial_gradient_kernel3d[mode=diff,order=2]",
    G,
    kf.get_spatial_gradient_kernel3d,
    [],
    {"mode": "diff", "order": 2},
    constant="a fixed kernel chosen by mode and order",
)
case(
    "guided_blur[eps=tensor]",
    G,
    kf.guided_blur,
    [rgb_pair, image(b=2, seed=16), 5, torch.tensor([0.01, 0.1])],
)
case("laplacian[batch,rect]", G, kf.laplacian, [rgb_pair], {"kernel_size": (3, 5)})
case("median_blur[batch]", G, kf.median_blur, [rgb_pair], {"kernel_size": 3})
case("sobel[batch]", G, kf.sobel, [rgb_pair])
case(
    "motion_blur3d[mode=bilinear,border_type=reflect]",
    G,
    kf.motion_blur3d,
    [vol, 3, (15.0, 30.0, 45.0), 0.5],
    {"mode": "bilinear", "border_type": "reflect"},
)
case(
    "motion_blur3d[angle=tensor]",
    G,
    kf.motion_blur3d,
    [vol, 3, torch.tensor([[15.0, 30.0, 45.0]]), torch.tensor([0.5])],
)
case("spatial_gradient[mode=diff,order=2]", G, kf.spatial_gradient, [rgb], {"mode": "diff", "order": 2})
case("spatial_gradient[normalized=False]", G, kf.spatial_gradient, [rgb], {"normalized": False})


# Methods of kornia.filters classes ----------------------------------------------------------------
case(
    "OtsuThreshold.transform_input",
    "filters.methods",
    kf.OtsuThreshold(),
    [image()],
    method="transform_input",
)
