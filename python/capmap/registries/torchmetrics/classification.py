"""torchmetrics.functional.classification and the task wrappers of torchmetrics.functional.

Every binary_*, multiclass_* and multilabel_* function gets the inputs of its task; the few that
need a threshold or a group vector get it as a constant.
"""

from __future__ import annotations

import torch
import torchmetrics.functional as tmf
import torchmetrics.functional.classification as tmc

from capmap import case
from capmap.registries.torchmetrics._inputs import C, L, N, binary, multiclass, multilabel

_TASK_KWARGS = {"binary": {}, "multiclass": {"num_classes": C}, "multilabel": {"num_labels": L}}
_INPUTS = {"binary": binary, "multiclass": multiclass, "multilabel": multilabel}
# Extra constants by the operator's name (after its task prefix).
_EXTRA = {
    "fbeta_score": {"beta": 2.0},
    "precision_at_fixed_recall": {"min_recall": 0.5},
    "recall_at_fixed_precision": {"min_precision": 0.5},
    "sensitivity_at_specificity": {"min_specificity": 0.5},
    "specificity_at_sensitivity": {"min_sensitivity": 0.5},
}
QUICK = {"binary_accuracy", "multiclass_f1_score", "multilabel_auroc", "accuracy"}


def _groups() -> torch.Tensor:
    return torch.arange(N) % 2


def _exact_match_inputs(task: str) -> list[torch.Tensor]:
    # Exact match compares whole samples: (N, extra) labels per sample.
    g = torch.Generator().manual_seed(11)
    if task == "multiclass":
        return [torch.randint(0, C, (N, 5), generator=g), torch.randint(0, C, (N, 5), generator=g)]
    return [torch.randint(0, 2, (N, L), generator=g), torch.randint(0, 2, (N, L), generator=g)]


for name in tmc.__all__:
    fn = getattr(tmc, name)
    task, _, rest = name.partition("_")
    if task not in _TASK_KWARGS:
        continue
    kwargs = {**_TASK_KWARGS[task], **_EXTRA.get(rest, {})}
    inputs: list = _INPUTS[task]()
    if rest == "exact_match":
        inputs = _exact_match_inputs(task)
    elif rest in {"fairness", "groups_stat_rates"}:
        inputs = [*inputs, _groups()]
        kwargs = {"num_groups": 2} if rest == "groups_stat_rates" else {"task": "all"}
    tags = ("quick",) if name in QUICK else ()
    case(name, f"classification.{task}", fn, inputs, kwargs, tags=tags)

case("demographic_parity", "classification.fairness", tmc.demographic_parity, [*binary()[:1], _groups()])
case("equal_opportunity", "classification.fairness", tmc.equal_opportunity, [*binary(), _groups()])

# The task wrappers of torchmetrics.functional dispatch to the functions above by `task`.
_WRAPPERS = (
    "accuracy",
    "auroc",
    "average_precision",
    "calibration_error",
    "cohen_kappa",
    "confusion_matrix",
    "eer",
    "f1_score",
    "fbeta_score",
    "hamming_distance",
    "hinge_loss",
    "jaccard_index",
    "logauc",
    "matthews_corrcoef",
    "negative_predictive_value",
    "precision",
    "precision_at_fixed_recall",
    "precision_recall_curve",
    "recall",
    "recall_at_fixed_precision",
    "roc",
    "sensitivity_at_specificity",
    "specificity",
    "specificity_at_sensitivity",
    "stat_scores",
)
for name in _WRAPPERS:
    kwargs = {"task": "multiclass", "num_classes": C, **_EXTRA.get(name, {})}
    tags = ("quick",) if name in QUICK else ()
    case(name, "classification.task", getattr(tmf, name), multiclass(), kwargs, tags=tags)
case(
    "exact_match",
    "classification.task",
    tmf.exact_match,
    _exact_match_inputs("multiclass"),
    {"task": "multiclass", "num_classes": C},
)
