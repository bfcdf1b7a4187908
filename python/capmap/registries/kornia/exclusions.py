"""Kornia survey: public names that are not operators, each with the reason it has no case.

A name is either one public dotted name or a module, which excludes every callable under it.
"""

from __future__ import annotations

from capmap import exclude

ENUM = "enumeration of options, not an operator"
DEPRECATED_TOP = "deprecated top-level alias kept for 0.8 code; the operator is probed under its new home"
DEVICE = "device query: returns a torch.device or a flag, no tensor computation"
FILE_IO = "file or network I/O helper, not a tensor operator"
BASE = "abstract base class or mixin: its subclasses are the operators"
RESULT = "plain result container (dataclass) returned by an operator"
CHECK = "input validation helper that raises or returns a Python bool"
CONFIG = "configuration record, not an operator"
BUILDER = (
    "factory that builds a model from a named configuration and downloads its weights; "
    "the built wrapper class is probed"
)

# kornia/__init__.py re-exports 0.8 names as warning shims.
for name in (
    "create_meshgrid",
    "create_meshgrid3d",
    "draw_convex_polygon",
    "draw_line",
    "draw_point2d",
    "draw_rectangle",
    "eye_like",
    "vec_like",
    "image_to_string",
    "image_to_tensor",
    "tensor_to_image",
    "one_hot",
):
    exclude(f"kornia.{name}", reason=DEPRECATED_TOP)
exclude("kornia.print_image", reason="prints an image to the terminal; " + DEPRECATED_TOP)
exclude("kornia.load_pointcloud_ply", reason=FILE_IO)
exclude("kornia.save_pointcloud_ply", reason=FILE_IO)
for name in (
    "get_cuda_device_if_available",
    "get_cuda_or_mps_device_if_available",
    "get_mps_device_if_available",
):
    exclude(f"kornia.{name}", reason=DEVICE)
    exclude(f"kornia.utils.{name}", reason=DEVICE)
exclude("kornia.is_autocast_enabled", reason=DEVICE)
exclude("kornia.xla_is_available", reason=DEVICE)
exclude("kornia.deprecated", reason="decorator that marks functions as deprecated")
for name in ("to_jax", "to_numpy", "to_tensorflow"):
    exclude(
        f"kornia.{name}", reason="transpiles kornia to another framework (needs ivy), not a tensor operator"
    )

exclude("kornia.config.InstallationMode", reason=ENUM)
exclude("kornia.constants", reason="enumerations of options (border types, dtypes, resampling, padding)")
exclude("kornia.color.CFA", reason=ENUM + " (Bayer patterns; probed as variants of raw_to_rgb)")
exclude("kornia.color.ColorMapType", reason=ENUM + " (colormap names; probed through apply_colormap)")
exclude("kornia.color.ColorMap", reason="builds a colour table from a name; probed through apply_colormap")
exclude("kornia.enhance.ThresholdType", reason=ENUM + " (probed as variants of threshold)")
exclude("kornia.losses.MIKernel", reason=ENUM + " (probed as variants of mutual_information_loss_2d)")
exclude("kornia.image.ChannelsOrder", reason=ENUM)
exclude("kornia.image.ColorSpace", reason=ENUM)
exclude("kornia.image.ImageLayout", reason="layout record (size, channels, order) of an Image")
exclude("kornia.image.PixelFormat", reason="pixel format record (colour space, bit depth) of an Image")
exclude("kornia.image.print_image", reason="prints an image to the terminal")
exclude(
    "kornia.image.perform_keep_shape_image", reason="decorator that reshapes a function's batch dimensions"
)
exclude(
    "kornia.image.perform_keep_shape_video", reason="decorator that reshapes a function's batch dimensions"
)
exclude("kornia.sensors.camera.CameraModelType", reason=ENUM)
exclude("kornia.sensors.camera.CameraModelBase", reason=BASE)

exclude("kornia.io", reason=FILE_IO + " (image files and sample downloads)")
exclude("kornia.onnx", reason="runs or edits existing ONNX models with ONNX Runtime; it captures nothing")
exclude(
    "kornia.models.depth_estimation",
    reason="runs a downloaded Depth Anything ONNX model with ONNX Runtime; it captures nothing",
)

exclude("kornia.core.ImageModule", reason=BASE)
exclude("kornia.core.ImageModuleMixIn", reason=BASE)
exclude("kornia.core.ImageSequential", reason=BASE + " (kornia.augmentation's containers are probed)")
exclude("kornia.core.ONNXExportMixin", reason=BASE + " (adds an ONNX export method)")
exclude("kornia.core.ONNXMixin", reason=BASE)
exclude("kornia.core.ONNXRuntimeMixin", reason=BASE)
exclude("kornia.core.TensorWrapper", reason=BASE + " (wraps a tensor for the geometry types)")
exclude("kornia.core.external.LazyLoader", reason="imports optional dependencies on first use")
for name in (
    "check_safetensors",
    "download_file_from_url",
    "download_hf_file",
    "hf_url",
    "load_safetensors",
    "load_state_dict_from_url",
):
    exclude(f"kornia.core.{name}", reason=FILE_IO)

exclude("kornia.feature.KORNIA_CHECK_LAF", reason=CHECK)
exclude("kornia.feature.ALIKEDFeatures", reason=RESULT)
exclude("kornia.feature.DISKFeatures", reason=RESULT)

exclude("kornia.contrib.AugmentationAuditReport", reason=RESULT + " (augmentation audit)")
exclude("kornia.contrib.AugmentationAuditStep", reason=RESULT + " (augmentation audit)")
exclude("kornia.contrib.SpatialAudit", reason=RESULT + " (augmentation audit)")
exclude(
    "kornia.contrib.audit", reason="debugging report over an augmentation pipeline's steps, not an operator"
)
exclude("kornia.contrib.SuperResolutionConfig", reason=CONFIG)
for name in ("EdgeDetectorBuilder", "RRDBNetBuilder", "RTDETRDetectorBuilder", "SmallSRBuilder"):
    exclude(f"kornia.contrib.{name}", reason=BUILDER)

exclude("kornia.models.base.ModelBase", reason=BASE)
exclude("kornia.models.base.ModelBaseMixin", reason=BASE)
exclude("kornia.models.small_sr.weight_init", reason="initialises a module's weights in place")
exclude("kornia.models.tiny_vit.KORNIA_CHECK", reason=CHECK)
exclude("kornia.models.tiny_vit.KORNIA_CHECK_SAME_SIZE", reason=CHECK)

exclude("kornia.utils.CachedDownloader", reason=FILE_IO)
exclude("kornia.utils.get_sample_images", reason=FILE_IO)
exclude("kornia.utils.load_pointcloud_ply", reason=FILE_IO)
exclude("kornia.utils.save_pointcloud_ply", reason=FILE_IO)
exclude("kornia.utils.map_location_to_cpu", reason="torch.load storage mapper")
exclude("kornia.utils.print_image", reason="prints an image to the terminal")
exclude("kornia.utils.dataclass_to_dict", reason="converts configuration dataclasses, no tensors")
exclude("kornia.utils.dict_to_dataclass", reason="converts configuration dataclasses, no tensors")
exclude("kornia.utils.is_autocast_enabled", reason=DEVICE)
exclude("kornia.utils.xla_is_available", reason=DEVICE)

# Methods ----------------------------------------------------------------------------------------
# `capmap coverage` counts the public methods of public classes too. These are the ones that are
# not operators a user calls: augmentation hooks, container bookkeeping, export and I/O helpers.
AUG_HOOK = (
    "augmentation hook that forward or inverse calls with sampled parameters and flags; "
    "probed through the augmentation's own cases"
)
for hook in (
    "apply_func",
    "apply_transform",
    "apply_transform_*",
    "apply_non_transform",
    "apply_non_transform_*",
    "compute_transformation",
    "compute_inverse_transformation",
    "generate_parameters",
    "forward_parameters",
    "forward_by_params",
    "generate_transformation_matrix",
    "get_transformation_matrix",
    "identity_matrix",
    "inverse_transform",
    "inverse_boxes",
    "inverse_classes",
    "inverse_inputs",
    "inverse_keypoints",
    "inverse_masks",
    "transform_*",
    "validate_tensor",
    "precrop_padding",
    "compute_padding",
    "params_from_input",
):
    exclude(f"kornia.augmentation.*.{hook}", reason=AUG_HOOK)
CONTAINER = "bookkeeping of an augmentation container (its children, their order and saved state)"
for helper in (
    "autofill_dim",
    "clear_state",
    "compose_policy",
    "compose_subpolicy_sequential",
    "disable_item_features",
    "get_children_by_indices",
    "get_children_by_params",
    "get_forward_sequence",
    "get_mix_augmentation_indices",
    "get_params_by_module",
    "get_random_forward_sequence",
    "is_intensity_only",
    "rand_selector",
    "update_attribute",
    "validate_operations",
):
    exclude(f"kornia.augmentation.*.{helper}", reason=CONTAINER)

EXPORT = "saves, exports or displays a model's output (files, ONNX, images), not a tensor operator"
for helper in ("save", "to_onnx", "visualize", "visualize_output", "show", "to_pil", "convert_input_output"):
    exclude(f"kornia.*.{helper}", reason=EXPORT)
WEIGHTS_IO = (
    "loads or renames pretrained weights (download or file); the network is probed with random weights"
)
for helper in (
    "from_pretrained",
    "from_pretrained_hf",
    "load_from_file",
    "load_checkpoint",
    "adapt_state_dict",
):
    exclude(f"kornia.*.{helper}", reason=WEIGHTS_IO)
INIT = "initialises parameters in place: no tensor result"
for helper in ("reset_parameters", "weights_init"):
    exclude(f"kornia.feature.*.{helper}", reason=INIT)
exclude("kornia.core.TensorWrapper.unwrap", reason="returns the wrapped tensor itself")
exclude("kornia.core.TensorWrapper.__invert__", reason="bitwise not: the wrapped geometry types hold floats")
exclude("kornia.image.Image.from_file", reason=FILE_IO)
exclude("kornia.image.Image.write", reason=FILE_IO)
exclude("kornia.image.Image.print", reason="prints an image to the terminal")
for helper in ("from_numpy", "to_numpy", "from_dlpack", "to_dlpack"):
    exclude(f"kornia.image.Image.{helper}", reason="hands the data to or from another array library")
exclude("kornia.image.Image.to", reason="moves or casts the data (device and dtype), no computation")
exclude("kornia.metrics.AverageMeter.reset", reason="resets running counters")
exclude("kornia.geometry.PinholeCamera.device", reason=DEVICE)
exclude("kornia.geometry.ParametrizedLine.dim", reason="returns the dimension as a Python int")
exclude("kornia.geometry.RANSAC.validate_inputs", reason=CHECK)
exclude("kornia.geometry.RANSAC.resolve_batch_size", reason="chooses a batch size (a Python int)")
exclude(
    "kornia.geometry.RANSAC.max_samples_by_conf", reason="iteration budget from a confidence (Python float)"
)
exclude("kornia.geometry.ScalePyramid.get_kernel_size", reason="returns a kernel size (a Python int)")
exclude(
    "kornia.geometry.HomographyWarper.precompute_warp_grid",
    reason="stores a sampling grid on the module for forward; returns nothing",
)
for owner in ("Homography", "Similarity", "ImageRegistrator"):
    exclude(f"kornia.geometry.{owner}.reset_model", reason="re-initialises the model's parameters in place")
exclude("kornia.geometry.Similarity.set_image_shape", reason="stores the image shape on the model")
exclude("kornia.feature.LightGlue.pruning_min_kpts", reason="returns a keypoint threshold (a Python int)")
exclude("kornia.feature.LightGlue.confidence_threshold", reason="returns a threshold (a Python float)")
exclude("kornia.tracking.HomographyTracker.reset_tracking", reason="clears the tracker's saved state")
exclude("kornia.tracking.HomographyTracker.set_target", reason="stores the target image and its features")
exclude("kornia.core.ImageModuleMixIn.to_tensor", reason="converts a PIL image or array to a tensor (I/O)")
exclude("kornia.core.ImageModuleMixIn.to_numpy", reason="hands the data to another array library")


exclude(
    "kornia.augmentation.*.set_rng_device_and_dtype", reason="sets the random generator's device and dtype"
)
for owner in ("EdgeDetector", "ObjectDetector", "SuperResolution", "TinyViT"):
    exclude(
        f"kornia.contrib.{owner}.from_config",
        reason="builds a model from a named configuration and downloads its weights; "
        "the model is probed with random weights",
    )
