"""What a kept child checks after each task before it takes another.

A worker's child may run several tasks in a row (saving a fork, the re-warming of a fresh
process and its exit), but only while each task leaves the process as it found it. A case that
rebinds a name of torch or of the probed library, changes a global setting of torch, the
compiler's configuration, the environment, the working folder or `sys.path`, leaves a process
behind, or grows the child too much, ends the child: the next task gets a fresh one. Names that
appear during a task (a submodule imported lazily) are not a change.
"""

from __future__ import annotations

import copy
import os
import sys
import warnings
from typing import Any

# The module objects whose names a case might rebind (`torch.add = ...`).
_TORCH_SPACES = (
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.linalg",
    "torch.fft",
    "torch.special",
)
# Variables the worker sets for each task itself (the compile cache folder is the worker's, set
# once before it forks: a task that moves it is a change).
_PER_TASK_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
_PER_TASK_ENV_PREFIX = "CAPMAP_"


_MISSING = object()


def _names(namespace: dict[str, Any]) -> dict[str, Any]:
    # A shallow copy (done in C); `_rebound` compares it with the namespace after the task.
    return dict(namespace)


def _rebound(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Names of `before` that `now` no longer binds to the same object (added names are fine)."""
    try:
        # Runs in C and checks identity before equality, so a clean namespace costs no loop
        # over its names in Python; a name rebound to an equal value counts as unchanged.
        if now.items() >= before.items():
            return []
    except Exception:  # noqa: BLE001 - a rebound value whose == raises: look name by name
        pass
    return [name for name, value in before.items() if now.get(name, _MISSING) is not value]


def _settings() -> tuple[Any, ...]:
    import torch

    return (
        torch.get_default_dtype(),
        torch.is_grad_enabled(),
        torch.is_inference_mode_enabled(),
        torch.are_deterministic_algorithms_enabled(),
        torch.is_anomaly_enabled(),
        torch.get_default_device(),
    )


def _compiler_config() -> dict[str, dict[str, Any]]:
    """The dynamo and inductor settings, loaded lazily by the probes: compared once a task has
    loaded them. Values as they are (containers copied, so a change in place shows): a deep
    copy would make objects that compare by identity differ every time."""
    configs: dict[str, dict[str, Any]] = {}
    for name in ("torch._dynamo.config", "torch._inductor.config"):
        module = sys.modules.get(name)
        keys = getattr(module, "get_config_copy", None)
        if keys is None:
            continue
        values: dict[str, Any] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reading a deprecated setting warns
            for key in keys():
                value = getattr(module, key, None)
                values[key] = copy.copy(value) if isinstance(value, (list, dict, set)) else value
        configs[name] = values
    return configs


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that can't be compared are the same only if identical
        return False


def _environment() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if k not in _PER_TASK_ENV and not k.startswith(_PER_TASK_ENV_PREFIX)
    }


def objects_fingerprint(roots: list[Any]) -> list[tuple[Any, ...]]:
    """What a task could change in the registry objects it was handed (its target, inputs and
    kwargs, which later tasks may share: a plane used by two cases): every reachable tensor's
    identity, version counter, storage and shape, and every object's attribute bindings. A kept
    child compares it after the task; the forked worker's own objects are never touched."""
    import torch

    found: list[tuple[Any, ...]] = []
    seen: set[int] = set()
    atoms = (str, bytes, int, float, complex, bool, type(None))
    stack: list[tuple[Any, int]] = [(r, 0) for r in reversed(roots)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, atoms) or id(value) in seen or depth > 12:
            continue
        seen.add(id(value))
        if isinstance(value, torch.Tensor):
            try:
                found.append((id(value), value._version, value.data_ptr(), tuple(value.shape), value.dtype))
            except Exception:  # noqa: BLE001 - a tensor without storage (fake, meta): identity only
                found.append((id(value),))
            continue
        if isinstance(value, type) or callable(value) and not isinstance(value, torch.nn.Module):
            continue
        if isinstance(value, dict):
            children = list(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            children = list(value)
        else:
            attrs = getattr(value, "__dict__", None)
            if not isinstance(attrs, dict):
                continue
            found.append((id(value), tuple((k, id(v)) for k, v in attrs.items())))
            children = list(attrs.values())
            kind = type(value)
            if id(kind) not in seen and kind.__module__ != "builtins":
                seen.add(id(kind))
                # A class attribute a task rebinds (a patched method) reaches every later case.
                found.append((id(kind), _class_bindings(kind)))
        stack.extend((c, depth + 1) for c in reversed(children))
    return found


class _Bindings(dict):  # type: ignore[type-arg]
    """A class's attribute bindings: equal when every attribute bound before is bound to the
    same object (attributes added meanwhile, such as copy's cached `__slotnames__`, are no
    change)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, dict) and all(other.get(k, _MISSING) == v for k, v in self.items())

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None


def _class_bindings(kind: type) -> _Bindings:
    return _Bindings({name: id(value) for name, value in vars(kind).items()})


class ProcessState:
    """A snapshot taken before a task; `changes()` lists what the task altered."""

    def __init__(self, library: str | None, objects: list[Any] | None = None) -> None:
        self.objects = list(objects or [])
        self.fingerprint = objects_fingerprint(self.objects)
        self.library = library
        self.spaces = self._spaces()
        self.settings = _settings()
        self.config = _compiler_config()
        self.environment = _environment()
        self.cwd = os.getcwd()
        self.path = list(sys.path)

    def _spaces(self) -> dict[str, dict[str, int]]:
        spaces = {name: _names(vars(sys.modules[name])) for name in _TORCH_SPACES if name in sys.modules}
        import torch

        spaces["torch.Tensor"] = _names(dict(vars(torch.Tensor)))
        spaces["torch.nn.Module"] = _names(dict(vars(torch.nn.Module)))
        if self.library and self.library != "torch":
            prefix = self.library + "."
            for name, module in list(sys.modules.items()):
                if module is not None and (name == self.library or name.startswith(prefix)):
                    spaces[name] = _names(vars(module))
        return spaces

    def changes(self) -> list[str]:
        found: list[str] = []
        after = self._spaces()
        for space, names in self.spaces.items():
            found += [f"{space}.{name}" for name in _rebound(names, after.get(space, {}))]
        if _settings() != self.settings:
            found.append("torch's global settings")
        for name, values in _compiler_config().items():
            before = self.config.get(name, {})
            found += [f"{name}.{k}" for k, v in values.items() if k in before and not _same(before[k], v)]
        if _environment() != self.environment:
            found.append("os.environ")
        if os.getcwd() != self.cwd:
            found.append("the working folder")
        if sys.path != self.path:
            found.append("sys.path")
        if self.fingerprint != objects_fingerprint(self.objects):  # before first: see _Bindings
            found.append("the registry objects it was handed (a later case may share them)")
        return found


def child_pids() -> list[int]:
    """This process's own children (read from /proc: no wait, nothing reaped)."""
    pids: list[int] = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as listing:
                pids += [int(p) for p in listing.read().split()]
        except OSError:
            continue
    return pids


def resident_bytes(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
