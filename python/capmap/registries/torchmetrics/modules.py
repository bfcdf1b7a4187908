"""Module metrics and their stateful API, in one pattern.

A metric module accumulates state: `update(preds, target)` adds a batch, `compute()` reduces what
was added, `reset()` clears it. A case of a module metric builds the metric once, outside the
captured call, as a user does, and captures one `reset`, one `update` and one `compute` as a
function of the batch (`update+compute` variants): the captured graph's inputs are the batch and
its outputs the computed value. Building the metric inside the captured call instead would
capture its constructor too, where torchmetrics' `add_state` fails under export before any
update runs. Such a case covers the class, its `update` and its `compute`.
"""

from __future__ import annotations

from typing import Any

import torch
import torchmetrics
import torchmetrics.audio as tm_audio
import torchmetrics.classification as tm_cls
import torchmetrics.image as tm_image
import torchmetrics.retrieval as tm_retrieval

from capmap import case
from capmap.cases import public_name
from capmap.deferred import deferred
from capmap.registries.torchmetrics._inputs import (
    C,
    L,
    audio,
    binary,
    images,
    multiclass,
    multilabel,
    regression,
)


class UpdateThenCompute(torch.nn.Module):
    """One metric, built once; each call resets it, adds one batch and computes."""

    def __init__(self, metric_class: type, init: dict[str, Any]) -> None:
        super().__init__()
        self.metric = metric_class(**init)

    def forward(self, *batch: torch.Tensor) -> Any:
        self.metric.reset()
        self.metric.update(*batch)
        return self.metric.compute()


def stateful(
    metric_class: type,
    group: str,
    inputs: list[Any],
    init: dict[str, Any] | None = None,
    tags: tuple[str, ...] = (),
) -> None:
    name = public_name(metric_class)
    case(
        f"{metric_class.__name__}[update+compute]",
        group,
        deferred(UpdateThenCompute, metric_class, init or {}),
        inputs,
        covers=(name, f"{name}.update", f"{name}.compute"),
        tags=tags,
    )


_TASKS = {
    "Binary": ({}, binary),
    "Multiclass": ({"num_classes": C}, multiclass),
    "Multilabel": ({"num_labels": L}, multilabel),
}
_EXTRA = {
    "FBetaScore": {"beta": 2.0},
    "PrecisionAtFixedRecall": {"min_recall": 0.5},
    "RecallAtFixedPrecision": {"min_precision": 0.5},
    "SensitivityAtSpecificity": {"min_specificity": 0.5},
    "SpecificityAtSensitivity": {"min_sensitivity": 0.5},
}
_SKIP = {"BinaryFairness", "BinaryGroupStatRates", "MulticlassExactMatch", "MultilabelExactMatch"}
for cls_name in tm_cls.__all__:
    prefix = next((p for p in _TASKS if cls_name.startswith(p)), None)
    if prefix is None or cls_name in _SKIP:
        continue
    init, make = _TASKS[prefix]
    rest = cls_name.removeprefix(prefix)
    tags = ("quick",) if cls_name in {"BinaryAccuracy", "MulticlassAUROC"} else ()
    stateful(
        getattr(tm_cls, cls_name),
        f"modules.classification.{prefix.lower()}",
        make(),
        {**init, **_EXTRA.get(rest, {})},
        tags=tags,
    )

# The task wrappers (torchmetrics.Accuracy(task=...)) build one of the classes above.
for cls_name in ("Accuracy", "AUROC", "F1Score", "Precision", "Recall", "ConfusionMatrix", "StatScores"):
    stateful(
        getattr(torchmetrics, cls_name),
        "modules.classification.task",
        multiclass(),
        {"task": "multiclass", "num_classes": C},
    )

for cls_name in (
    "MeanSquaredError",
    "MeanAbsoluteError",
    "PearsonCorrCoef",
    "SpearmanCorrCoef",
    "R2Score",
    "ExplainedVariance",
    "ConcordanceCorrCoef",
    "KendallRankCorrCoef",
    "LogCoshError",
    "RelativeSquaredError",
    "NormalizedRootMeanSquaredError",
    "SymmetricMeanAbsolutePercentageError",
    "WeightedMeanAbsolutePercentageError",
):
    tags = ("quick",) if cls_name == "MeanSquaredError" else ()
    stateful(getattr(torchmetrics, cls_name), "modules.regression", regression(), tags=tags)
for cls_name in ("MeanAbsolutePercentageError", "MeanSquaredLogError", "TweedieDevianceScore"):
    stateful(getattr(torchmetrics, cls_name), "modules.regression", regression(positive=True))

# Aggregators take one tensor of values.
for cls_name in ("MeanMetric", "SumMetric", "MaxMetric", "MinMetric", "CatMetric"):
    stateful(getattr(torchmetrics, cls_name), "modules.aggregation", regression()[:1])

stateful(tm_image.PeakSignalNoiseRatio, "modules.image", images(), {"data_range": 1.0})
for cls_name in (
    "StructuralSimilarityIndexMeasure",
    "UniversalImageQualityIndex",
    "SpectralAngleMapper",
    "TotalVariation",
    "RelativeAverageSpectralError",
    "ErrorRelativeGlobalDimensionlessSynthesis",
):
    inputs = images()[:1] if cls_name == "TotalVariation" else images()
    stateful(getattr(tm_image, cls_name), "modules.image", inputs)

for cls_name in ("SignalNoiseRatio", "ScaleInvariantSignalNoiseRatio", "ScaleInvariantSignalDistortionRatio"):
    stateful(getattr(tm_audio, cls_name), "modules.audio", audio())

# Retrieval modules group documents by query: the third input is each document's query index.
_queries = torch.tensor([0] * 6 + [1] * 6)
for cls_name in (
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalRecall",
):
    g = torch.Generator().manual_seed(18)
    stateful(
        getattr(tm_retrieval, cls_name),
        "modules.retrieval",
        [torch.rand(12, generator=g), torch.randint(0, 2, (12,), generator=g).bool(), _queries],
    )

# The module call itself: forward updates the state and returns the batch's own value.
case("BinaryAccuracy[forward]", "modules.forward", tm_cls.BinaryAccuracy(), binary(), tags=("quick",))
case("MeanSquaredError[forward]", "modules.forward", torchmetrics.MeanSquaredError(), regression())
