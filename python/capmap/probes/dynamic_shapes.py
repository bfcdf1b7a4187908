"""What the dynamic-shape paths share: one trace with dynamic dimensions, and inputs of other sizes.

The dimensions asked to vary are marked `Dim.AUTO`: the batch (dim 0 of every tensor whose dim 0
has the first tensor's size) and, when the case says spatial dims may vary, the last two of every
tensor of 3 or more dims with the first such tensor's height and width. Every other dimension
(channels, a fixed 3 of a point, a kernel's size) stays static, as a deployer exports it. A case
lets spatial dims vary with a tag `dynamic:batch,spatial` (`dynamic:none` checks the traced
sizes only). The program then runs on
two more input sets, batch ×2 and batch ×3 (spatial +8 too where spatial may vary), each
compared with eager on the same inputs. Tensors grow by repeating their rows (batch) and their
last row and column (spatial), so every sample stays a valid input of the case.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch.utils import _pytree as pytree

from capmap.compare import Comparison
from capmap.errors import LibraryRoot, clean_message
from capmap.probes.context import ProbeContext
from capmap.probes.process_plumbing import Stopwatch

SPATIAL_GROWTH = 8
_WHY_LIMIT = 600


@dataclass(frozen=True)
class VaryingDim:
    leaf: int  # index among the inputs' pytree leaves
    dim: int
    kind: str  # "batch" or "spatial"

    def describe(self, tensor_index: int) -> str:
        return f"input {tensor_index} dim {self.dim} ({self.kind})"


@dataclass
class SizeSet:
    """Inputs of other sizes and eager's outputs on them (None: eager fails at these sizes)."""

    label: str
    inputs: tuple[Any, ...]
    reference: list[torch.Tensor] | None
    eager_error: str = ""


def size_label(label: str, inputs: tuple[Any, ...]) -> str:
    """'batch ×2: [4, 3, 8, 8]': which sizes, shown by the first tensor input."""
    first = next((x for x in pytree.tree_leaves(list(inputs)) if isinstance(x, torch.Tensor)), None)
    return f"{label}: {list(first.shape) if first is not None else '?'}"


@dataclass
class DynamicTrace:
    """One dynamic export of a case, what it pinned, and the other sizes to run it on."""

    program: Any = None
    error: BaseException | None = None
    seconds: float = 0.0
    size_oblivious: bool = False
    dynamic: list[str] = field(default_factory=list)  # varying dims the program keeps dynamic
    specialized: list[str] = field(default_factory=list)  # varying dims it pinned, with the size
    why: str = ""  # the guards that pinned them
    sets: list[SizeSet] = field(default_factory=list)
    guards_dropped: int = 0  # tracer guards torch could not turn into code (see drop_unnamed_guards)
    frames: list[str] = field(default_factory=list)  # the library lines whose guards pinned a dim
    # What `pinned_at_run` needs to find a guard's line: the traced shapes, the inputs' pytree
    # paths, each leaf's place among the tensors, the dims asked to vary, the library's root.
    origin: tuple[Any, ...] = ()

    def fields(self) -> dict[str, Any]:
        facts: dict[str, Any] = {"export_seconds": self.seconds, "dynamic_dims": self.dynamic}
        if self.specialized:
            facts["specialized_dims"] = self.specialized
        if self.size_oblivious:
            facts["size_oblivious"] = True
        if self.program is not None:
            facts["graph_nodes"] = len(self.program.graph.nodes)
        if self.guards_dropped:
            facts["guards_dropped"] = self.guards_dropped
        return facts

    def pinned_names(self) -> list[str]:
        return [s.rsplit(" = ", 1)[0] for s in self.specialized]

    def specialized_message(self) -> str:
        text = f"specialized: {', '.join(self.specialized)}"
        return f"{text}; {self.why}" if self.why else text

    def guards_of(self, names: list[str]) -> tuple[str, list[str]]:
        """The guards on the named varying dims ("input 0 dim 0 (batch)") and the library lines
        that added them: why a dim the trace kept dynamic is refused at another size."""
        if not self.origin:
            return "", []
        traced, paths, tensor_index, dims, root = self.origin
        chosen = [d for d in dims if d.describe(tensor_index[d.leaf]) in names]
        return pinning_guards(traced, paths, chosen, root)


def over_all_sizes(agreed: list[Comparison]) -> Comparison:
    """The comparisons of the sizes that agreed, as one: verified at some size is verified, so
    it is vacuous only when it was at each."""
    vacuous = [r.vacuous for r in agreed]
    return Comparison(vacuous=vacuous[0] if vacuous and all(vacuous) else None)


def varying_kinds(ctx: ProbeContext) -> set[str]:
    return case_kinds(ctx.case)


def case_kinds(case: Any) -> set[str]:
    """Which kinds of dims the case lets vary: its `dynamic:` tag, else the batch alone."""
    hint = next((t.split(":", 1)[1] for t in case.tags if t.startswith("dynamic:")), None)
    if hint is None:
        return {"batch"}
    kinds = {w.strip() for w in hint.replace("+", ",").split(",") if w.strip()}
    return set() if kinds == {"none"} else kinds & {"batch", "spatial"}


def varying_dims(leaves: list[Any], kinds: set[str]) -> list[VaryingDim]:
    tensors = [(i, x) for i, x in enumerate(leaves) if isinstance(x, torch.Tensor) and x.dim() > 0]
    dims: list[VaryingDim] = []
    if "batch" in kinds and tensors:
        batch = tensors[0][1].shape[0]
        dims += [VaryingDim(i, 0, "batch") for i, x in tensors if x.shape[0] == batch]
    images = [(i, x) for i, x in tensors if x.dim() >= 3]
    if "spatial" in kinds and images:
        height, width = images[0][1].shape[-2:]
        for i, x in images:
            if x.shape[-2] == height:
                dims.append(VaryingDim(i, x.dim() - 2, "spatial"))
            if x.shape[-1] == width:
                dims.append(VaryingDim(i, x.dim() - 1, "spatial"))
    return dims


def _grow(x: torch.Tensor, dims: list[VaryingDim], batch_factor: int, spatial: int) -> torch.Tensor:
    for d in dims:
        if d.kind == "batch" and batch_factor > 1:
            x = torch.cat([x] * batch_factor, dim=d.dim)
        elif d.kind == "spatial" and spatial:
            size = x.shape[d.dim]
            rows = torch.arange(size + spatial).clamp(max=size - 1)
            x = x.index_select(d.dim, rows)
    return x.clone()


def other_sizes(leaves: list[Any], spec: Any, dims: list[VaryingDim]) -> list[tuple[str, tuple[Any, ...]]]:
    """The two other input sets: batch ×2, and batch ×3 with spatial +8 where spatial varies."""
    by_leaf: dict[int, list[VaryingDim]] = {}
    for d in dims:
        by_leaf.setdefault(d.leaf, []).append(d)
    spatial = any(d.kind == "spatial" for d in dims)
    batch = any(d.kind == "batch" for d in dims)
    plans = []
    if batch:
        plans.append(("batch ×2", 2, 0))
    if batch or spatial:
        label = " and ".join(
            filter(None, ["batch ×3" if batch else "", f"spatial +{SPATIAL_GROWTH}" if spatial else ""])
        )
        plans.append((label, 3 if batch else 1, SPATIAL_GROWTH if spatial else 0))
    sets = []
    for label, factor, grow in plans:
        grown = [
            _grow(x, by_leaf[i], factor, grow)
            if i in by_leaf
            else (x.clone() if isinstance(x, torch.Tensor) else x)
            for i, x in enumerate(leaves)
        ]
        sets.append((label, tuple(pytree.tree_unflatten(grown, spec))))
    return sets


def _source_key(source: Any) -> tuple[tuple[Any, ...], int] | None:
    """`L['tensors'][0].size()[2]` → ((0,), 2): the input's place among the arguments, the dim."""
    if getattr(getattr(source, "prop", None), "name", "") != "SIZE":
        return None
    chain: list[Any] = []
    base = source.base
    while hasattr(base, "index") and hasattr(base, "base"):
        chain.append(base.index)
        base = base.base
    return tuple(reversed(chain)), int(source.idx)


def _leaf_key(path: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(getattr(k, "idx", getattr(k, "key", k)) for k in path)


def _where(frame: Any, root: LibraryRoot | None) -> str:
    """A guard's source line as the records show frames: inside the library relative to it."""
    if frame is None:
        return "an unknown line"
    if root is not None and root.shows(frame.filename):
        return root.format(frame.filename, frame.lineno, frame.name)
    return f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"


# The library line below torch's own frames where each guard of a trace was added, by the id of
# the guard's SLoc (kept alive by the guard itself): torch names the innermost frame outside its
# tracer, which for a size guarded inside torch.reshape or F.pad is a line of torch, not the
# library call that made it.
_LIBRARY_LINES: dict[int, Any] = {}


@contextlib.contextmanager
def library_guard_lines(root: LibraryRoot | None) -> Iterator[None]:
    """While a trace runs, notes for each guard the innermost stack frame inside the library."""
    from torch.fx.experimental import symbolic_shapes

    original = getattr(symbolic_shapes.ShapeEnv, "_get_sloc", None)
    if root is None or original is None:
        yield
        return

    def get_sloc(env: Any, *args: Any, **kwargs: Any) -> Any:
        sloc = original(env, *args, **kwargs)
        frame = sloc.framework_loc
        if not (hasattr(frame, "filename") and root.shows(frame.filename)):
            inside = [f for f in traceback.extract_stack() if root.shows(f.filename)]
            if inside:
                _LIBRARY_LINES[id(sloc)] = inside[-1]
        return sloc

    _LIBRARY_LINES.clear()
    symbolic_shapes.ShapeEnv._get_sloc = get_sloc  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        symbolic_shapes.ShapeEnv._get_sloc = original  # type: ignore[method-assign]


def pinning_guards(
    shapes: list[Any], paths: list[tuple[Any, ...]], pinned: list[VaryingDim], root: LibraryRoot | None
) -> tuple[str, list[str]]:
    """Why each pinned dim was pinned: the first guard on its symbol, and where the code added
    it; and those places that lie in the library, as a record's frames."""
    symbolic = (x for shape in shapes if shape is not None for x in shape if hasattr(x, "node"))
    env = next((x.node.shape_env for x in symbolic), None)
    if env is None:
        return "", []
    symbol_of: dict[tuple[tuple[Any, ...], int], Any] = {}
    for symbol, sources in env.var_to_sources.items():
        for source in sources:
            key = _source_key(source)
            if key is not None:
                symbol_of.setdefault(key, symbol)
    reasons: list[str] = []
    frames: list[str] = []
    for d in pinned:
        key = _leaf_key(paths[d.leaf])
        symbol = symbol_of.get((key, d.dim))
        if symbol is None:
            symbol = _by_suffix(symbol_of, key, d.dim)
        guard = next((g for g in env.guards if symbol is not None and symbol in g.expr.free_symbols), None)
        if guard is None:
            continue
        where = guard.sloc.framework_loc
        if not (hasattr(where, "filename") and root is not None and root.shows(where.filename)):
            where = _LIBRARY_LINES.get(id(guard.sloc), where)
        text = f"guard {guard.expr} at {_where(where, root)}"
        if text not in reasons:
            reasons.append(text)
        if where is not None and root is not None and root.shows(where.filename):
            line = root.format(where.filename, where.lineno, where.name)
            if line not in frames:
                frames.append(line)
    return clean_message("; ".join(reasons), _WHY_LIMIT), frames


def _by_suffix(symbol_of: dict[tuple[tuple[Any, ...], int], Any], key: tuple[Any, ...], dim: int) -> Any:
    # The varargs wrapper's sources start one level up (`tensors[i]`): match the innermost indexes.
    for (chain, d), symbol in symbol_of.items():
        if d == dim and chain and key[-len(chain) :] == chain:
            return symbol
    return None


def drop_unnamed_guards(program: Any, inputs: list[Any]) -> int:
    """torch 2.9 writes the tracer's guards of a `*tensors` forward as `L['tensors'][i]`, a
    name the guard function of `program.module()` cannot resolve: every call of the program
    (and its ONNX conversion) raises NameError, whatever the operator. A user's own module with
    named arguments does not meet it. Those guards are dropped; the input constraints, which
    check the same sizes, stay. Returns how many were dropped (0 where torch names them right)."""
    code = getattr(program, "_guards_code", None)
    if not code or not any("L[" in line for line in code):
        return 0
    try:
        with torch.no_grad():
            program.module()(*inputs)
        return 0
    except NameError as exc:
        if "'L'" not in str(exc):
            return 0
    except Exception:  # noqa: BLE001 - any other failure is the program's, reported by the paths
        return 0
    program._guards_code = []
    return len(code)


def _takes_varargs(module: torch.nn.Module) -> bool:
    params = list(inspect.signature(module.forward).parameters.values())
    return len(params) == 1 and params[0].kind == inspect.Parameter.VAR_POSITIONAL


def _leaf_shapes(program: Any, count: int) -> list[Any] | None:
    """The traced shape of each user input leaf (None for a constant), in pytree order."""
    from torch.export.graph_signature import InputKind, TensorArgument

    placeholders = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    shapes: list[Any] = []
    for spec in program.graph_signature.input_specs:
        if spec.kind != InputKind.USER_INPUT:
            continue
        if isinstance(spec.arg, TensorArgument):
            shapes.append(placeholders[spec.arg.name].meta["val"].shape)
        else:
            shapes.append(None)
    return shapes if len(shapes) == count else None


def trace(ctx: ProbeContext) -> DynamicTrace:
    """Exports the capture module with dynamic dims and prepares the other input sets."""
    with ctx.library_trace():
        return trace_module(
            ctx.capture_module().eval(),
            ctx.capture_inputs(),
            varying_kinds(ctx),
            strict=bool(ctx.settings["export_strict"]),
            captured_tensors=ctx.captured_tensors,
            root=ctx.root,
        )


def trace_module(
    module: torch.nn.Module,
    inputs: tuple[Any, ...],
    kinds: set[str],
    *,
    strict: bool,
    captured_tensors: Any,
    root: LibraryRoot | None = None,
) -> DynamicTrace:
    """`trace` on plain values: what the dynamic paths' repro scripts call, so that they pin,
    keep and grow the same dims as the paths do."""
    from torch.export import Dim
    from torch.fx.experimental.symbolic_shapes import is_concrete_int

    found = DynamicTrace()
    leaves, spec = pytree.tree_flatten(tuple(inputs))
    dims = varying_dims(leaves, kinds)
    asked: dict[int, dict[int, Any]] = {}
    for d in dims:
        asked.setdefault(d.leaf, {})[d.dim] = Dim.AUTO
    # Only the dims asked to vary are dynamic; every other one stays static.
    shapes_spec = pytree.tree_unflatten(
        [asked.get(i) if isinstance(x, torch.Tensor) else None for i, x in enumerate(leaves)], spec
    )
    # Export pins sizes 0 and 1 (they decide broadcasting); a batch of one would read as pinned.
    found.size_oblivious = any(leaves[d.leaf].shape[d.dim] <= 1 for d in dims)
    if _takes_varargs(module):
        shapes_spec = (shapes_spec,)  # the spec follows forward's signature: one entry, *args
    watch = Stopwatch()
    with contextlib.ExitStack() as stack:
        if found.size_oblivious:
            import torch.fx.experimental._config as fx_config

            stack.enter_context(fx_config.patch(backed_size_oblivious=True))  # type: ignore[attr-defined]
        try:
            with library_guard_lines(root):
                found.program = torch.export.export(
                    module, tuple(inputs), dynamic_shapes=shapes_spec, strict=strict
                )
        except Exception as exc:  # noqa: BLE001 - the failure is what the paths report
            found.error = exc
    found.seconds = watch.seconds()
    if found.program is None:
        return found
    if _takes_varargs(module):
        found.guards_dropped = drop_unnamed_guards(found.program, list(inputs))

    tensor_index = {
        leaf: n for n, leaf in enumerate(i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor))
    }
    traced = _leaf_shapes(found.program, len(leaves))
    for d in dims:
        name = d.describe(tensor_index[d.leaf])
        size = traced[d.leaf][d.dim] if traced is not None and traced[d.leaf] is not None else None
        # A symbol the trace replaced by a constant is still a SymInt, one that is a number.
        if size is not None and is_concrete_int(size):
            found.specialized.append(f"{name} = {int(size)}")
        else:
            found.dynamic.append(name)
    paths = [p for p, _ in pytree.tree_flatten_with_path(tuple(inputs))[0]]
    found.origin = (traced or [], paths, tensor_index, dims, root)
    if found.specialized:
        found.why, found.frames = found.guards_of(found.pinned_names())
        return found

    with torch.no_grad():
        for label, grown in other_sizes(leaves, spec, dims):
            try:
                reference = [t.detach() for t in captured_tensors(module(*grown))]
                found.sets.append(SizeSet(label, grown, reference))
            except Exception as exc:  # noqa: BLE001 - the case itself does not take these sizes
                message = clean_message(f"{type(exc).__name__}: {exc}", 300)
                found.sets.append(SizeSet(label, grown, None, message))
    return found


_GUARDED_SIZE = re.compile(r"_(\d+)\.size\(\)\[(\d+)\]")


def guarded_dims(message: str, dynamic: list[str]) -> list[str]:
    """The varying dims a failed runtime guard (`Guard failed: tensors_0.size()[0] == 1`) names."""
    if not message.startswith("Guard failed:"):
        return []
    named = {f"input {i} dim {d} " for i, d in _GUARDED_SIZE.findall(message)}
    return [name for name in dynamic if any(name.startswith(prefix) for prefix in named)]


def refused_at(found: DynamicTrace, inputs: tuple[Any, ...]) -> tuple[list[str], str]:
    """Whether the exported program's own guards refuse `inputs`: the varying dims they pin and
    the guard's words, or nothing. The ONNX graph keeps no guard, so where ONNX Runtime fails at
    another size this says whether the trace had pinned the size after all."""
    if found.program is None:
        return [], ""
    try:
        with torch.no_grad():
            found.program.module()(*inputs)
    except Exception as exc:  # noqa: BLE001 - only a guard's refusal is looked for
        words = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return guarded_dims(words, found.dynamic), words
    return [], ""


def unchecked_note(sets: list[SizeSet]) -> str:
    """Why no other size was compared: eager itself fails there, or the case lets nothing vary."""
    if not sets:
        return "no dimension may vary: only the traced sizes were checked"
    failures = "; ".join(f"{s.label}: {s.eager_error}" for s in sets)
    return f"eager fails at the other sizes, so only the traced sizes were checked ({failures})"


def repro_trace_lines(spec_settings: Any, case: Any) -> tuple[str, ...]:
    """The start of a dynamic path's repro script: capmap's own dynamic trace (which dims may
    vary, which the trace pinned, the other sizes and eager's outputs there)."""
    strict = bool(spec_settings["export_strict"])
    kinds = sorted(case_kinds(case))
    return (
        "    # The dims that may vary, the trace that keeps them dynamic and the other sizes follow",
        "    # capmap's rules, so this step calls capmap's code (capmap.probes.dynamic_shapes):",
        "    # the batch (and height and width where the case lets them vary) is Dim.AUTO, every other",
        "    # dim static; the other sizes are batch x2 and x3 (spatial +8).",
        "    from capmap import surveyed_library",
        "    from capmap.probes import dynamic_shapes",
        "",
        "    found = dynamic_shapes.trace_module(",
        f"        capture_module().eval(), capture_inputs(), set({kinds!r}), strict={strict},",
        "        captured_tensors=captured_tensors,",
        "        root=surveyed_library.root_for(target),  # guard lines as the record gives them",
        "    )",
    )
