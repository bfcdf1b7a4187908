"""Targets and inputs built where the case runs, not when the registry imports.

A registry that builds every model at import time makes the worker that forks each task hold
them all: Kornia's models with random weights are about 1.4 GB, and every fork copies the page
tables of that memory and every child's exit tears them down again, for every case. A deferred
object is only a constructor call; the child of the case that uses it builds it.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

# Deferred objects built in this process, so a child that runs another task can let them go.
_built_here: list[Deferred] = []


class Deferred:
    """`factory(*args, **kwargs)`, called at most once per process, with a fixed seed."""

    __slots__ = ("factory", "args", "kwargs", "_built")

    def __init__(self, factory: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if not callable(factory):
            raise TypeError(f"deferred(...) needs a class or a function, got {type(factory).__name__}")
        self.factory = factory
        self.args = args
        self.kwargs = kwargs
        self._built: Any = None

    def seed(self) -> int:
        # The same call builds the same random weights in any process and any selection.
        return zlib.crc32(self.call_text().encode())

    def call_text(self) -> str:
        """The constructor call as Python source, e.g. `LoFTR(pretrained=None)`."""
        name = getattr(self.factory, "__qualname__", getattr(self.factory, "__name__", "factory"))
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{name}({', '.join(parts)})"

    def build(self) -> Any:
        if self._built is None:
            import torch

            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(self.seed())
                obj = self.factory(
                    *(resolve(a) for a in self.args), **{k: resolve(v) for k, v in self.kwargs.items()}
                )
            if isinstance(obj, torch.nn.Module):
                obj.eval()
            self._built = obj
            _built_here.append(self)
        return self._built

    def __repr__(self) -> str:
        return f"deferred({self.call_text()})"


def deferred(factory: Callable[..., Any], *args: Any, **kwargs: Any) -> Deferred:
    """A case target or input that is built in the task's own process: `deferred(kf.LoFTR,
    pretrained=None)`. Use it for anything large (models with weights); small objects cost
    nothing to keep."""
    return Deferred(factory, args, kwargs)


def resolve(obj: Any) -> Any:
    """The object itself, or what a deferred one builds."""
    return obj.build() if isinstance(obj, Deferred) else obj


def forget_built() -> None:
    """Drops what this process built: the next task builds its own, from the same seed."""
    for item in _built_here:
        item._built = None
    _built_here.clear()
