"""capmap's own code copied into a repro script, so that the script needs no capmap: the output
flattening and comparison (from capmap.compare and capmap.capture), and the root cause of an
error as capmap reports it."""

from __future__ import annotations

import ast
import builtins
import inspect
from pathlib import Path
from types import ModuleType

from capmap import compare as _compare

# What the helper code copied into a script may use besides what it defines.
_SCRIPT_GLOBALS = {"torch", "np", "dataclasses", "dataclass", "field", "Any", "copy"}


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
    wanted = ["numpy_to_tensor", "clone_inputs", "Comparison", "compare", "_compare_values", "vacuous_reason"]
    if not flat:
        wanted = ["_MAX_DEPTH", "flatten", "_walk", *wanted]
    parts = _definitions(_compare, wanted)
    if flat:
        from capmap import capture

        copied = ["_MAX_DEPTH", "_ATOMS", "_MODULE_INTERNALS", "attributes", "is_opaque", "_plural"]
        parts = _definitions(capture, [*copied, "flatten_output", "tensors_of"]) + parts
    code = "\n\n\n".join(parts) + "\n"
    missing = _undefined(code)
    if missing:
        # capmap's helpers changed in a way this copy does not follow: fail here, not in the script.
        raise RuntimeError(
            f"repro: the copied helpers use {', '.join(sorted(missing))}, which they do not define"
        )
    return code


ROOT_CAUSE = '''
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
