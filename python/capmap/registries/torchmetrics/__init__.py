"""The torchmetrics survey: one module per area of torchmetrics' public API."""

from capmap import library

library(
    "torchmetrics",
    # Released torchmetrics is tagged v<version>; the revision of an installed package is its version.
    source_url="https://github.com/Lightning-AI/torchmetrics/blob/v{revision}/src/{path}#L{line}",
    docs_url="https://lightning.ai/docs/torchmetrics/stable/search.html?q={ref}",
)

REGISTRY_MODULES = [
    "classification",
    "regression",
    "nominal",
    "image",
    "audio",
    "retrieval",
    "text",
    "detection",
    "modules",
    "exclusions",
]
