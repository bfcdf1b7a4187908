"""The Kornia survey: one module per area of kornia's public API."""

from capmap import library

library(
    "kornia",
    source_url="https://github.com/kornia/kornia/blob/{revision}/{path}#L{line}",
    docs_url="https://kornia.readthedocs.io/en/latest/search.html?q={ref}",
)

REGISTRY_MODULES = [
    "augmentation",
    "feature",
    "geometry",
    "geometry_transform",
    "geometry_camera",
    "filters",
    "color",
    "enhance",
    "morphology",
    "contrib",
    "losses",
    "metrics",
    "utils",
    "sensors",
    "nerf",
    "tracking",
    "image",
    "models",
    "exclusions",
]
