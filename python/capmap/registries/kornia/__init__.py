"""The Kornia survey: one module per area of kornia's public API."""

from capmap import library

library(
    "kornia",
    # Released kornia is tagged v<version>; the revision of an installed package is its version.
    source_url="https://github.com/kornia/kornia/blob/v{revision}/{path}#L{line}",
    docs_url="https://kornia.readthedocs.io/en/latest/search.html?q={ref}",
)

REGISTRY_MODULES = [
    "augmentation",
    "feature",
    "geometry",
    "geometry_transform",
    "geometry_camera",
    "geometry_methods",
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
    "models_large",
    "methods",
    "exclusions",
]
