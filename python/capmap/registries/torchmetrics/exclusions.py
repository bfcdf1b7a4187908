"""torchmetrics survey: public names and methods that are not operators, each with its reason."""

from __future__ import annotations

from capmap import exclude

exclude("torchmetrics.utilities", reason="distributed and logging helpers of the metric classes, not metrics")
exclude("torchmetrics.Metric", reason="abstract base class: its subclasses are the metrics")
exclude("torchmetrics.MetricCollection", reason="container of metrics; each metric is probed on its own")
exclude(
    "torchmetrics.wrappers", reason="wrappers around another metric (bootstrapping, tracking, transforms)"
)
for name in (
    "BootStrapper",
    "ClasswiseWrapper",
    "MetricTracker",
    "MinMaxMetric",
    "MultioutputWrapper",
    "MultitaskWrapper",
    "RunningMean",
    "RunningSum",
):
    exclude(f"torchmetrics.{name}", reason="wrapper around another metric; the wrapped metric is probed")
_WEIGHTS = "needs pretrained network weights downloaded at construction (no network here)"
for name in (
    "arniqa",
    "deep_image_structure_and_texture_similarity",
    "learned_perceptual_image_patch_similarity",
    "perceptual_path_length",
):
    exclude(f"torchmetrics.functional.image.{name}", reason=_WEIGHTS)
exclude("torchmetrics.functional.lip_vertex_error", reason="needs a mouth vertex map of a face mesh dataset")
# Methods of every metric class: the stateful API is probed as update+compute; the rest is plumbing.
_PLUMBING = "plots or manages the metric's state; no tensor computation to capture"
for member in (
    "plot",
    "reset",
    "sync",
    "unsync",
    "sync_context",
    "persistent",
    "add_state",
    "set_dtype",
    "merge_state",
    "full_state_update",
    "type",
    "float",
    "double",
    "half",
    "clone",
):
    exclude(f"torchmetrics.*.{member}", reason=_PLUMBING)
