"""Kornia survey: tracking (planar homography tracker)."""

from __future__ import annotations

import kornia.feature as kf
import kornia.tracking as kt
import torch

from capmap import case

from ._inputs import smooth_image

# Random initialisation draws from the global generator: fix it so every import builds the same
# weights.
torch.manual_seed(0)

G = "tracking"

target = smooth_image(c=1, h=48, w=64, seed=3)
# The default tracker builds DISK and LightGlue from downloaded weights; SIFT-based matchers
# keep it runnable offline.
sift_matcher = kf.LocalFeatureMatcher(kf.SIFTFeature(100), kf.DescriptorMatcher("snn", 0.9))
tracker = kt.HomographyTracker(sift_matcher, sift_matcher, minimum_inliers_num=8)
tracker.set_target(target)
case(
    "HomographyTracker",
    G,
    tracker,
    [target.roll(2, dims=-1)],
    check=False,
    note="SIFT matchers (defaults need weights); RANSAC samples randomly, so values are not compared",
)
case("HomographyTracker[default]", G, kt.HomographyTracker, [], skip="needs pretrained weights")
