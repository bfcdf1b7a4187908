"""Writes the script that reproduces one case × path outside capmap.

The script does what the probe does, step by step and in plain sight: the eager reference run,
then the capture path's own torch calls (torch.export.export; torch.onnx.export(dynamo=True),
the ONNX checker and ONNX Runtime; torch.compile), then the comparison with eager. Its last line
is `outcome: STATUS (ErrorType): MESSAGE` in the words of the record.

Where the target comes from, most readable first:
- a public callable of the library (or of torch): imported by its public name;
- a deferred constructor call (capmap.deferred) with literal arguments: called in the script,
  under the seed capmap builds it with;
- a module (or other object) whose class the library defines: saved, with its state, in the
  `.pt` file beside the script, which also holds the inputs;
- anything else (a function defined in a registry file): the case is loaded from its registry
  in one line, and everything after that line is plain torch.

The export paths trace what the probes trace. With flattening on (capmap.capture), that is a
wrapper taking the tensors among the inputs and returning the tensors of the result; when every
input is a tensor or a plain constant the script spells that wrapper out, otherwise (library
objects rebuilt around tensors) it takes capmap's wrapper and says so.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import inspect
import io
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from capmap import compare as _compare
from capmap.cases import Case, public_name
from capmap.deferred import Deferred, resolve
from capmap.probes import catalog
from capmap.probes.path import ReproSpec, ReproSteps
from capmap.repro.cells import Cell, RunInfo

# A saved target bigger than this is rebuilt from the registry instead (model weights).
MAX_SAVED_BYTES = 32 << 20
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_MESSAGE_COMMENT_CHARS = 300
# A file being written is `.NAME.PID.tmp` beside it until it is renamed into place.
TEMP_SUFFIX = ".tmp"
# What the helper code copied into a script may use besides what it defines.
_SCRIPT_GLOBALS = {"torch", "np", "dataclasses", "dataclass", "field", "Any", "copy"}


def file_stem(case_name: str, path: str) -> str:
    """`op[variant]` × onnx → `op_variant_.onnx`: a file name without shell-special characters."""
    return f"{_SAFE_NAME.sub('_', case_name)}.{path}"


# ---- where the target comes from -----------------------------------------------------------


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


def _literal(value: Any) -> str | None:
    """Python source for plain data (numbers, strings, tuples, dtypes ...), else None."""
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, torch.dtype):
        return str(value)  # torch.float64: the script imports torch
    if isinstance(value, float):
        text = repr(value)
        return text if text not in ("nan", "inf", "-inf") else f"float({text!r})"
    if type(value) in (list, tuple):
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, tuple):
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"  # type: ignore[arg-type]
        return f"[{', '.join(items)}]"  # type: ignore[arg-type]
    if type(value) is dict and all(isinstance(k, str) for k in value):
        items = [_literal(v) for v in value.values()]
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
    if case.kwargs and _literal(case.kwargs) is None:
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
            text = _literal(value)
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


# ---- how the capture paths see the case ------------------------------------------------------


def _flattening(case: Case, settings: dict[str, Any]) -> bool:
    """Whether the probes trace capmap's flattening wrapper for this case (capmap.capture)."""
    try:
        from capmap.capture import flattening_wanted
    except ImportError:
        return False
    return bool(flattening_wanted(case, settings))


def _input_layout(case: Case) -> list[int | None] | None:
    """For inputs that are each a tensor or a constant without tensors: which graph input each
    tensor is (a tensor passed twice is one graph input), None for a constant. None when an
    input holds tensors inside a container or an object, when a method's object is opened as a
    graph input, or when a network is among the inputs (capmap's wrapper handles those)."""
    from capmap.capture import _Const, _Leaf, has_receiver, plan_inputs

    if has_receiver(case):
        return None
    plan = plan_inputs(list(case.inputs))
    if plan.networks:
        return None
    layout: list[int | None] = []
    for node in plan.nodes:
        if isinstance(node, _Leaf):
            layout.append(node.index)
        elif isinstance(node, _Const):
            layout.append(None)
        else:
            return None
    return layout


# ---- code copied from capmap into the script -------------------------------------------------


def _definitions(module: ModuleType, names: list[str]) -> list[str]:
    """Source of the module-level definitions and assignments named, in file order.

    Read from the file as it is now (not from line numbers recorded at import time)."""
    source = Path(inspect.getfile(module)).read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            name = node.name
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        elif (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            name, start = node.targets[0].id, node.lineno
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, start = node.target.id, node.lineno
        else:
            continue
        if name in names:
            found.append("\n".join(lines[start - 1 : node.end_lineno]))
    return found


def _undefined(code: str) -> set[str]:
    """Global names `code` reads that neither it, the script's imports nor builtins define."""
    tree = ast.parse(code)
    defined = set(_SCRIPT_GLOBALS) | set(dir(builtins))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
    local: set[str] = set()
    for walked in ast.walk(tree):
        if isinstance(walked, ast.arg):
            local.add(walked.arg)
        elif isinstance(walked, (ast.FunctionDef, ast.ClassDef)):
            local.add(walked.name)
        elif isinstance(walked, ast.Name) and isinstance(walked.ctx, ast.Store):
            local.add(walked.id)
    loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loads - defined - local


def helper_source(flat: bool) -> str:
    """capmap's own flattening and comparison, copied so that the script needs no capmap."""
    wanted = ["numpy_to_tensor", "clone_inputs", "Comparison", "compare", "_compare_values"]
    if not flat:
        wanted = ["_MAX_DEPTH", "flatten", "_walk", *wanted]
    parts = _definitions(_compare, wanted)
    if flat:
        from capmap import capture

        copied = ["_MAX_DEPTH", "_ATOMS", "_MODULE_INTERNALS", "_attributes", "_is_opaque", "_plural"]
        parts = _definitions(capture, [*copied, "flatten_output", "tensors_of"]) + parts
    code = "\n\n\n".join(parts) + "\n"
    missing = _undefined(code)
    if missing:
        # capmap's helpers changed in a way this copy does not follow: fail here, not in the script.
        raise RuntimeError(
            f"repro: the copied helpers use {', '.join(sorted(missing))}, which they do not define"
        )
    return code


# ---- the script ------------------------------------------------------------------------------


def _first_line(text: str) -> str:
    line = next((s.strip() for s in str(text).splitlines() if s.strip()), "")
    return line if len(line) <= _MESSAGE_COMMENT_CHARS else line[: _MESSAGE_COMMENT_CHARS - 3] + "..."


def _versions_line(run: RunInfo) -> str:
    lib = run.library or {}
    parts = []
    if lib.get("name"):
        revision = lib.get("revision") or lib.get("version") or "?"
        parts.append(f"{lib['name']} {lib.get('version') or '?'} (revision {revision})")
    named = [*catalog.versioned_packages(), "python"]
    for name in [*named, *sorted(set(run.versions) - set(named))]:
        if run.versions.get(name):
            parts.append(f"{name} {run.versions[name]}")
    return ", ".join(parts)


def expected_outcome(record: dict[str, Any]) -> str:
    status = str(record.get("status", ""))
    if record.get("signal"):
        return f"{status}: killed by {record['signal']} (no outcome line)"
    if status == "timeout":
        return f"timeout: still running after {record.get('limit_seconds', '?')} s"
    if status == "oom":
        return f"oom: more than {record.get('limit_bytes', '?')} bytes resident"
    if status == "crashed":
        return f"crashed: exit {record.get('exit', '?')}"
    kind = f" ({record['error_type']})" if record.get("error_type") else ""
    message = _first_line(record.get("message", ""))
    return f"{status}{kind}: {message}" if message else f"{status}{kind}"


_ROOT_CAUSE = '''
def root_cause(exc):
    """The deepest error of the chain that says something, as capmap reports it."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        chain.append(exc)
        seen.add(id(exc))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return next((e for e in reversed(chain) if str(e).strip()), chain[-1])


def failed(status, exc):
    cause = root_cause(exc)
    return f"{status} ({type(cause).__name__}): {str(cause).strip() or type(cause).__name__}"
'''


def _case_lines(case: Case, target: Target, flat: bool, layout: list[int | None] | None) -> list[str]:
    """`call`, `fresh_inputs`, `capture_module`, `capture_inputs` and the output flattening."""
    fn = f"getattr(target, {case.method!r})" if case.method else "target"
    lines = ["", "", "def call(*args):", f"    return {fn}(*args, **kwargs)", ""]
    if not flat:
        return lines + [
            "",
            "class CaseModule(torch.nn.Module):",
            '    """The case as a module: the target is registered so its parameters are traced."""',
            "",
            "    def __init__(self):",
            "        super().__init__()",
            "        if isinstance(target, torch.nn.Module):",
            "            self.target = target",
            "",
            "    def forward(self, *args):",
            "        return call(*args)",
            "",
            "",
            "def fresh_inputs():",
            "    # Every run gets its own copy of the inputs, so no run sees another's mutations.",
            "    return tuple(clone_inputs(inputs))",
            "",
            "",
            "",
            "",
            "def output_tensors(result):",
            "    return flatten(result)  # the tensors of a result",
            "",
            "",
            "capture_module, capture_inputs, captured_tensors = CaseModule, fresh_inputs, output_tensors",
        ]
    if layout is not None:
        unique = sorted({i for i in layout if i is not None})
        first = [layout.index(i) for i in unique]
        graph = ", ".join(f"inputs[{p}]" for p in first)
        args = ", ".join(f"tensors[{i}]" if i is not None else f"inputs[{p}]" for p, i in enumerate(layout))
        return lines + [
            "",
            "# capmap traces a wrapper: the tensors among the inputs go in (the other inputs are baked",
            "# in as constants) and the tensors of the result come out.",
            f"graph_inputs = [{graph}]",
            "",
            "",
            "def rebuild(tensors):",
            f"    return [{args}]",
            "",
            "",
            "class CaseModule(torch.nn.Module):",
            '    """Tensors in, tensors out; the target is registered so its parameters are traced."""',
            "",
            "    def __init__(self):",
            "        super().__init__()",
            "        if isinstance(target, torch.nn.Module):",
            "            self.target = target",
            "",
            "    def forward(self, *tensors):",
            "        out = flatten_output(call(*rebuild(tensors)))",
            "        return out[0] if len(out) == 1 else tuple(out)",
            "",
            "",
            "def capture_inputs():",
            "    return tuple(t.detach().clone() for t in graph_inputs)",
            "",
            "",
            "def fresh_inputs():",
            "    # Every run gets its own copy of the inputs, so no run sees another's mutations.",
            "    return tuple(rebuild(capture_inputs()))",
            "",
            "",
            "def output_tensors(result):",
            "    return flatten_output(result)  # the tensors of the case's result",
            "",
            "",
            "def captured_tensors(result):",
            "    return tensors_of(result)  # the tensors a captured run returned",
            "",
            "",
            "capture_module = CaseModule",
        ]
    return lines + [
        "",
        "# Library objects among the inputs: capmap's wrapper rebuilds them around the graph's tensors",
        "# (the tensors inside them go in, the tensors of the result come out). This is capmap's code.",
        "from capmap.capture import flat_case",
        "from capmap.cases import Case",
        "",
        f"flat = flat_case(Case({case.name!r}, 'repro', target, inputs, kwargs, method={case.method!r}))",
        "call = flat.call  # a method's object comes first among the rebuilt inputs",
        "capture_module = lambda: flat.module  # noqa: E731",
        "capture_inputs = flat.plan.fresh_tensors",
        "",
        "",
        "def fresh_inputs():",
        "    return tuple(flat.plan.rebuild(flat.plan.fresh_tensors()))",
        "",
        "",
        "def output_tensors(result):",
        "    return flatten_output(result)  # the tensors of the case's result",
        "",
        "",
        "def captured_tensors(result):",
        "    return tensors_of(result)  # the tensors a captured run returned",
    ]


def script_text(case: Case, cell: Cell, run: RunInfo, target: Target, pt_name: str) -> str:
    """The whole script for `cell` (its case, one capture path)."""
    settings = {**catalog.default_settings(), **(run.settings or {})}
    path = catalog.module(cell.path)
    make_steps = getattr(path, "repro_steps", None)
    if make_steps is None:
        raise ValueError(f"no repro script for path {cell.path!r}: its module has no repro_steps")
    steps: ReproSteps = make_steps(
        ReproSpec(settings=settings, case=case, record=cell.record, siblings=cell.siblings)
    )
    flat = _flattening(case, settings)
    layout = _input_layout(case) if flat else None
    settings_text = ", ".join(f"{k} {v}" for k, v in sorted((run.settings or {}).items()))
    lines = [
        f"# Reproduces capmap's record of case {case.name!r}, path {cell.path!r}, outside capmap.",
        f"# Recorded with {_versions_line(run)}",
        f"# (run key {run.run_key}; settings: {settings_text}).",
        f"# Expected outcome: {expected_outcome(cell.record)}",
        f"# Case registered at {case.where}.",
    ]
    if target.saved:
        what = "Inputs and target" if "target" in target.saved else "Inputs"
        lines.append(f"# {what} are saved beside it in {pt_name}.")
    lines.append("# The last line printed is the outcome, in the words of the record.")
    lines += ["", "import copy", "import dataclasses", "from dataclasses import dataclass, field"]
    lines += ["from pathlib import Path", "from typing import Any", "", "import numpy as np", "import torch"]
    lines += list(steps.imports)
    lines += [f"import {module}" for module in target.imports]
    lines += ["", "torch.set_num_threads(1)  # capmap gives each task one thread"]
    if target.saved:
        lines.append(f"saved = torch.load(Path(__file__).with_name({pt_name!r}), weights_only=False)")
    lines += target.lines
    if target.from_registry:
        lines += ["inputs = case.inputs", "kwargs = case.kwargs"]
    else:
        lines.append('inputs = saved["inputs"]')
        kwargs_text = _literal(case.kwargs) if case.kwargs else "{}"
        lines.append(f"kwargs = {kwargs_text}" if kwargs_text is not None else 'kwargs = saved["kwargs"]')
    lines += _case_lines(case, target, flat, layout)
    ok_text = '"ok"' if case.check else '"ok-unverified"'
    lines += [
        "",
        "",
        "def verdict(reference, outputs):",
        f"    tolerance = dict(check={case.check}, atol={case.atol!r}, rtol={case.rtol!r})",
        "    result = compare(reference, outputs, **tolerance)",
        '    return f"mismatch: {result.detail}" if not result.agrees else ' + ok_text,
        "",
        "",
        "def reproduce():",
        "    # The eager reference, as every capmap task runs it first.",
        "    with torch.no_grad():",
        "        reference = [t.detach() for t in output_tensors(call(*fresh_inputs()))]",
    ]
    lines += list(steps.body)
    lines += [
        "",
        _ROOT_CAUSE.strip("\n"),
        "",
        "",
        "# capmap's output flattening and comparison, copied from capmap so that nothing above needs it.",
        "",
        helper_source(flat),
        "",
        'if __name__ == "__main__":',
        '    print("outcome:", reproduce(), flush=True)',
    ]
    return "\n".join(lines) + "\n"


def write_script(case: Case, cell: Cell, run: RunInfo, out: Path) -> Path:
    """Writes `out` (and the `.pt` file beside it when the script needs one); returns `out`.

    Each file appears whole or not at all (written aside, then renamed), the `.pt` file first:
    a reader never finds a script whose saved inputs are missing or half written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    case = _inputs_built(case)
    target = choose_target(case)
    pt_file = out.with_suffix(".pt")
    text = script_text(case, cell, run, target, pt_file.name)
    if target.saved:
        _replace(pt_file, lambda tmp: torch.save(target.saved, tmp))
    else:
        pt_file.unlink(missing_ok=True)
    _replace(out, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return out


def _inputs_built(case: Case) -> Case:
    """The case with deferred inputs built (a script saves or spells out what the probes got);
    a deferred target stays a constructor call."""
    inputs = [resolve(v) for v in case.inputs]
    kwargs = {k: resolve(v) for k, v in case.kwargs.items()}
    return replace(case, inputs=inputs, kwargs=kwargs)


def temp_name(out: Path) -> Path:
    """Where `out` is written before it is renamed into place: hidden, named by the writer's pid."""
    return out.with_name(f".{out.name}.{os.getpid()}{TEMP_SUFFIX}")


def _replace(out: Path, write: Callable[[Path], object]) -> None:
    tmp = temp_name(out)
    try:
        write(tmp)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
