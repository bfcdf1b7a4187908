"""Kornia survey: kornia.core's tensor helpers."""

from __future__ import annotations

import kornia.core as core

from capmap import case

from ._inputs import randn

G_CORE = "core.ops"

case("eye_like", G_CORE, core.eye_like, [3, randn(2, 4, 4)])
case("eye_like[shared_memory]", G_CORE, core.eye_like, [3, randn(2, 4, 4)], {"shared_memory": True})
case("vec_like", G_CORE, core.vec_like, [3, randn(2, 4, 4)])
