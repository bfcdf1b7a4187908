"""The Kornia survey: one module per public package of Kornia.

Each module holds every case of its package: functions, classes, and the methods of those
classes (`kornia.feature` -> feature.py, `kornia.models` -> models.py, `kornia.core` -> core.py).
kornia.geometry is the one package spread over three modules, by topic:

- geometry.py: conversions, grid, linalg, the Lie groups, quaternions, poses, lines, planes and
  vectors;
- geometry_transform.py: kornia.geometry.transform;
- geometry_camera.py: cameras, calibration, depth, epipolar geometry, homographies, solvers,
  RANSAC, sub-pixel ops, boxes and keypoints.

Every input comes from one vocabulary, _inputs.py; _property_cases.py makes the cases of
properties. exclusions.py names the public names that are not operators. A module that builds
networks at import seeds torch's generator before each section that draws weights, so that a
section's weights do not depend on the sections above it. tests/python/test_kornia_layout.py
checks the layout.
"""

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
    "filters",
    "color",
    "enhance",
    "morphology",
    "contrib",
    "losses",
    "metrics",
    "utils",
    "core",
    "sensors",
    "nerf",
    "tracking",
    "image",
    "models",
    "exclusions",
]
