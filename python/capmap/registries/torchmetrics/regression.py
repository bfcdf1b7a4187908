"""torchmetrics.functional regression metrics (and the probability divergences)."""

from __future__ import annotations

import torch
import torchmetrics.functional as tmf
import torchmetrics.functional.regression as tmr

from capmap import case
from capmap.registries.torchmetrics._inputs import distributions, regression

for name in (
    "concordance_corrcoef",
    "explained_variance",
    "kendall_rank_corrcoef",
    "log_cosh_error",
    "mean_absolute_error",
    "mean_squared_error",
    "normalized_root_mean_squared_error",
    "pearson_corrcoef",
    "r2_score",
    "relative_squared_error",
    "spearman_corrcoef",
    "symmetric_mean_absolute_percentage_error",
    "weighted_mean_absolute_percentage_error",
):
    tags = ("quick",) if name in {"mean_squared_error", "pearson_corrcoef"} else ()
    case(name, "regression", getattr(tmf, name), regression(), tags=tags)
for name in ("mean_absolute_percentage_error", "mean_squared_log_error", "tweedie_deviance_score"):
    case(name, "regression", getattr(tmf, name), regression(positive=True))
case("minkowski_distance", "regression", tmf.minkowski_distance, regression(), {"p": 3.0})
case(
    "critical_success_index",
    "regression",
    tmf.critical_success_index,
    regression(positive=True),
    {"threshold": 0.5},
)
case("cosine_similarity", "regression", tmf.cosine_similarity, [t.reshape(4, 4) for t in regression()])
case("kl_divergence", "regression.divergence", tmf.kl_divergence, distributions())
case("jensen_shannon_divergence", "regression.divergence", tmr.jensen_shannon_divergence, distributions())
_ens = torch.Generator().manual_seed(12)
case(
    "continuous_ranked_probability_score",
    "regression",
    tmr.continuous_ranked_probability_score,
    [torch.randn(8, 5, generator=_ens), torch.randn(8, generator=_ens)],
)

# pairwise_*: a matrix of distances between the rows of two sets.
_pair = torch.Generator().manual_seed(13)
_x, _y = torch.randn(8, 4, generator=_pair), torch.randn(6, 4, generator=_pair)
for name in (
    "pairwise_cosine_similarity",
    "pairwise_euclidean_distance",
    "pairwise_linear_similarity",
    "pairwise_manhattan_distance",
):
    case(name, "pairwise", getattr(tmf, name), [_x, _y])
case("pairwise_minkowski_distance", "pairwise", tmf.pairwise_minkowski_distance, [_x, _y], {"exponent": 3})
