"""Kornia survey: tracking (planar homography tracker)."""

from __future__ import annotations

import kornia.feature as kf
import kornia.tracking as kt
import torch

from capmap import case, deferred

from ._inputs import rand, smooth_image

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


# Methods of kornia.tracking classes ---------------------------------------------------------------
RANDOM = "RANSAC or sampling inside: values are not compared"
# A blocky texture gives SIFT enough corners to match (and is quick to describe), so the texture_tracker
# holds a homography to follow.
texture = torch.nn.functional.interpolate(rand(1, 1, 12, 16, seed=31), size=(64, 80), mode="bilinear")


def tracking_texture(shift: int | None) -> kt.HomographyTracker:
    """A tracker of the texture, which has matched the texture shifted by `shift` pixels when
    `shift` is given. Built where the case runs: the target's features are float32 values whose
    last bits vary with the CPU, and RANSAC's draws and its stop follow them, so a tracker set up
    at import would differ from machine to machine."""
    matcher = kf.LocalFeatureMatcher(kf.SIFTFeature(100), kf.DescriptorMatcher("snn", 0.9))
    tracker = kt.HomographyTracker(matcher, matcher, minimum_inliers_num=8)
    tracker.set_target(texture)
    if shift is not None:
        with torch.no_grad():
            tracker.match_initial(texture.roll(shift, dims=-1))
    return tracker


texture_tracker = deferred(tracking_texture, None)
TRACKER = "kornia.tracking.planar_tracker.HomographyTracker"  # the deferred factory is the registry's


case(
    "HomographyTracker.match_initial",
    "tracking.methods",
    texture_tracker,
    [texture.roll(2, dims=-1)],
    method="match_initial",
    check=False,
    note=RANDOM,
    covers=TRACKER,
)
case(
    "HomographyTracker.track_next_frame",
    "tracking.methods",
    deferred(tracking_texture, 2),
    [texture.roll(3, dims=-1)],
    method="track_next_frame",
    covers=TRACKER,
    check=False,
    note=RANDOM + "; follows the homography match_initial found for the frame shifted by 2 px",
)
case(
    "HomographyTracker.no_match",
    "tracking.methods",
    texture_tracker,
    [],
    method="no_match",
    covers=TRACKER,
    check=False,
    note="returns torch.empty(3, 3): uninitialised values, so only shape and dtype are compared",
    constant="no tensor input: returns a new uninitialised 3 x 3 tensor",
)
