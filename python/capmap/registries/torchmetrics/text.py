"""torchmetrics.functional.text: string metrics (no tensor input) and perplexity."""

from __future__ import annotations

import torch
import torchmetrics.functional.text as tmt

from capmap import case

_PREDS = ["the cat sat on the mat", "a quick brown fox"]
_TARGET = ["the cat is on the mat", "the quick brown fox"]
_STRINGS = "text metrics take strings: the graph has no tensor input"
for name in (
    "char_error_rate",
    "match_error_rate",
    "translation_edit_rate",
    "word_error_rate",
    "word_information_lost",
    "word_information_preserved",
    "extended_edit_distance",
    "edit_distance",
):
    case(name, "text", getattr(tmt, name), [_PREDS, _TARGET], constant=_STRINGS)
_REFS = [[t] for t in _TARGET]
for name in ("bleu_score", "chrf_score", "sacre_bleu_score"):
    case(name, "text", getattr(tmt, name), [_PREDS, _REFS], constant=_STRINGS)
case(
    "rouge_score",
    "text",
    tmt.rouge_score,
    [_PREDS, _TARGET],
    {"rouge_keys": ("rouge1", "rougeL")},
    constant=_STRINGS,
)
case(
    "squad",
    "text",
    tmt.squad,
    [
        [{"prediction_text": "1976", "id": "a"}],
        [{"answers": {"answer_start": [97], "text": ["1976"]}, "id": "a"}],
    ],
    constant=_STRINGS,
)
_g = torch.Generator().manual_seed(16)
case(
    "perplexity",
    "text",
    tmt.perplexity,
    [torch.randn(2, 8, 5, generator=_g), torch.randint(0, 5, (2, 8), generator=_g)],
    tags=("quick",),
)
