"""How a repro script gets its case's target, most readable first.

- a public callable of the library (or of torch): imported by its public name;
- a deferred constructor call (capmap.deferred) with literal arguments: called in the script,
  under the seed capmap builds it with;
- a module (or other object) whose class the library defines: saved, with its state, in the
  `.pt` file beside the script, which also holds the inputs;
- anything else (a function defined in a registry file): the case is loaded from its registry
  in one line, and everything after that line is plain torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import io
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

import torch

from capmap.cases import Case, public_name
from capmap.deferred import Deferred

# A saved target bigger than this is rebuilt from the registry instead (model weights).
MAX_SAVED_BYTES = 32 << 20


@dataclass
class Target:
    """How the script gets the case: `lines` of code, and what the `.pt` file must hold."""

    lines: list[str]
    saved: dict[str, Any]
    imports: list[str]
    from_registry: bool


def _resolve(dotted: str) -> Any:
    """The object `dotted` names when imported in a fresh process, or None. Registries (files
    loaded under made-up names, capmap's own) do not count: their cases load from the registry."""
    if dotted.startswith(("capmap_registry_", "capmap.", "__main__.")):
        return None
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for part in parts[end:]:
            found = getattr(found, part, None)
        return found
    return None


def _module_prefix(dotted: str) -> str:
    """The longest importable module that `dotted` starts with."""
    parts = dotted.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:end])
        if module in sys.modules or _is_module(module):
            return module
    return parts[0]


def _is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):  # a name below a module that is not a package
        return False


def _imports_for(dotted: str) -> list[str]:
    module = _module_prefix(dotted)
    return [] if module == "torch" else [module]


def _class_name(obj: Any) -> str | None:
    """`pkg.mod.Class` of an object whose class a fresh process can import, else None."""
    cls = type(obj)
    module = getattr(cls, "__module__", "") or ""
    if not module or module.startswith("capmap_registry_") or module == "__main__":
        return None
    if "<locals>" in cls.__qualname__:
        return None
    dotted = f"{module}.{cls.__qualname__}"
    return dotted if _resolve(dotted) is cls else None


def _saved_size(value: Any) -> int | None:
    """Bytes torch.save writes for `value`, or None when it cannot be saved and loaded back."""
    buffer = io.BytesIO()
    try:
        torch.save(value, buffer)
        size = len(buffer.getvalue())
        buffer.seek(0)
        torch.load(buffer, weights_only=False)
    except Exception:  # noqa: BLE001 - anything that cannot round-trip stays in the registry
        return None
    return size


def literal(value: Any) -> str | None:
    """Python source for plain data (numbers, strings, tuples, dtypes ...), else None."""
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, torch.dtype):
        return str(value)  # torch.float64: the script imports torch
    if isinstance(value, float):
        text = repr(value)
        return text if text not in ("nan", "inf", "-inf") else f"float({text!r})"
    if type(value) in (list, tuple):
        items = [literal(v) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, tuple):
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"  # type: ignore[arg-type]
        return f"[{', '.join(items)}]"  # type: ignore[arg-type]
    if type(value) is dict and all(isinstance(k, str) for k in value):
        items = [literal(v) for v in value.values()]
        if any(i is None for i in items):
            return None
        return "{" + ", ".join(f"{k!r}: {i}" for k, i in zip(value, items, strict=True)) + "}"
    return None


def registry_spec(case: Case) -> str:
    """What to load the case from: the registry module that called case(...), else its file.

    `where` is relative to the working folder or to the import root of the registry, and the
    registry is loaded in this process, so its module is found by its file.
    """
    where_file = case.where.rsplit(":", 1)[0]
    absolute = os.path.abspath(where_file)
    modules = list(sys.modules.items())
    loaded = [(n, os.path.abspath(str(m.__file__))) for n, m in modules if getattr(m, "__file__", None)]
    # The file itself first: a registry named cases.py must not be taken for capmap/cases.py.
    exact = [(n, f) for n, f in loaded if f == absolute]
    for name, file in exact or [(n, f) for n, f in loaded if f.endswith(os.sep + where_file)]:
        # A registry file is loaded under a made-up name: name it by its path instead.
        return file if name.startswith("capmap_registry_") else name
    return absolute


def choose_target(case: Case) -> Target:
    saved: dict[str, Any] = {"inputs": case.inputs}
    if case.kwargs and literal(case.kwargs) is None:
        saved["kwargs"] = case.kwargs
    inputs_size = _saved_size(saved)
    target = case.target
    named = inspect.isfunction(target) or inspect.isbuiltin(target) or inspect.isclass(target)
    if inputs_size is not None and isinstance(target, Deferred):
        built = _constructor_lines(target)
        if built is not None:
            return Target(built[0], saved, built[1], False)
    if inputs_size is not None:
        if named and _resolve(case.ref) is target:
            expression, imports = _expression(case.ref, target)
            return Target([f"target = {expression}"], saved, imports, False)
        class_name = None if named else _class_name(target)
        if class_name is not None:
            size = _saved_size(target)
            if size is not None and size + inputs_size <= MAX_SAVED_BYTES:
                saved["target"] = target
                line = f'target = saved["target"]  # a {class_name}, as the registry built it'
                imports = _imports_for(class_name)
                library = case.ref.split(".", 1)[0]
                if library not in ("torch", "", *imports) and _resolve(library) is not None:
                    imports.append(library)
                return Target([line], saved, imports, False)
    spec = registry_spec(case)
    lines = [
        "# The target is defined in a registry: load the case from it (the only capmap import).",
        f'case = __import__("capmap.registry").registry.load([{spec!r}]).by_name()[{case.name!r}]',
        "case = case.resolved()  # builds what the registry defers (capmap.deferred), as capmap does",
        "target = case.target",
    ]
    return Target(lines, {}, [], True)


def _walk(dotted: str) -> Any:
    """What `dotted` reaches by attributes from its top-level package, as a script's code does:
    a package attribute may shadow its submodule (a function `accuracy` in the package of the
    module `accuracy`), which only importing the module by name gets past."""
    parts = dotted.split(".")
    try:
        found: Any = importlib.import_module(parts[0])
    except ImportError:
        return None
    for part in parts[1:]:
        found = getattr(found, part, None)
    return found


def _expression(dotted: str, obj: Any) -> tuple[str, list[str]]:
    """Code that evaluates to `obj`, and the modules it imports: its shortest public name when
    the attributes lead there, else the module imported by name."""
    alias = _shortest_alias(dotted, obj)
    if _same(_walk(alias), obj):
        return alias, _imports_for(alias)
    module = _module_prefix(alias)
    rest = alias[len(module) + 1 :]
    return f'importlib.import_module("{module}").{rest}', ["importlib"]


def _same(found: Any, obj: Any) -> bool:
    # A classmethod is a new bound method at each look-up: equal, not identical.
    return found is obj or (inspect.ismethod(found) and found == obj)


def _shortest_alias(dotted: str, obj: Any) -> str:
    """`kornia.feature.HardNet` for `kornia.feature.hardnet.HardNet`: the shortest name of `obj`
    through the packages above the module that defines it (what their users write)."""
    module = _module_prefix(dotted)
    qualname = dotted[len(module) + 1 :]
    parts = module.split(".")
    for end in range(1, len(parts)):
        alias = f"{'.'.join(parts[:end])}.{qualname}"
        if _same(_resolve(alias), obj):
            return alias
    return dotted


def _constructor_lines(target: Deferred) -> tuple[list[str], list[str]] | None:
    """A deferred target rebuilt in plain sight: its constructor call under the seed capmap
    builds it with, when each factory has a public name and each argument is a literal or
    another deferred call (built first, under its own seed, as `Deferred.build` does)."""
    lines = ["# Built as capmap builds it: random weights from a fixed seed, in eval mode."]
    imports: list[str] = []
    if _build_lines(target, "target", lines, imports, {}, "") is None:
        return None
    return lines, imports


def _build_lines(
    target: Deferred, name: str, lines: list[str], imports: list[str], named: dict[int, str], indent: str
) -> str | None:
    """Appends the lines that build `target` into the variable `name`; None when it can't be
    spelled out. `named` maps deferred objects already built to their variables."""
    if id(target) in named:
        return named[id(target)]
    factory = public_name(target.factory)
    if not _same(_resolve(factory), target.factory):
        return None
    factory = _shortest_alias(factory, target.factory)
    inner = indent + "    "
    body: list[str] = []
    args: list[str] = []
    for value in [*target.args, *target.kwargs.values()]:
        if isinstance(value, Deferred):
            part = _build_lines(value, _part_name(value, named), body, imports, named, inner)
            text = part
        else:
            text = literal(value)
        if text is None:
            return None
        args.append(text)
    positional = args[: len(target.args)]
    keywords = [f"{k}={v}" for k, v in zip(target.kwargs, args[len(target.args) :], strict=True)]
    attribute = target.args[1] if target.factory is getattr and len(target.args) == 2 else None
    if isinstance(attribute, str) and attribute.isidentifier() and not keywords:
        call = f"{positional[0]}.{attribute}"  # deferred(getattr, obj, "attr")
    else:
        call = f"{factory}({', '.join([*positional, *keywords])})"
        imports += [m for m in _imports_for(factory) if m not in imports and m != "builtins"]
    lines += [
        f"{indent}with torch.random.fork_rng(devices=[]):",
        f"{inner}torch.manual_seed({target.seed()})",
        *body,
        f"{inner}{name} = {call}",
        f"{indent}if isinstance({name}, torch.nn.Module):",
        f"{indent}    {name}.eval()",
    ]
    named[id(target)] = name
    return name


def _part_name(target: Deferred, named: dict[int, str]) -> str:
    """A variable for a deferred argument, after its factory: `hardnet`, `efficientvit_backbone_b0`."""
    label = getattr(target.factory, "__qualname__", getattr(target.factory, "__name__", "part"))
    base = re.sub(r"\W", "_", str(label)).lower() or "part"
    taken = set(named.values()) | {"target", "inputs", "kwargs", "saved", "case"}
    name, n = base, 2
    while name in taken or not name.isidentifier():
        name, n = f"{base}_{n}", n + 1
    return name
