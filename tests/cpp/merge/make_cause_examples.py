"""Regenerates cause_examples.json: real failure messages from small torch programs.

Each scenario provokes one kind of capture failure with the installed torch / onnx /
onnxruntime and records what a probe would store (path, status, exception type, message,
graph-break id), plus the category the scenario is meant to demonstrate. The C++ cause tests
classify every stored example and check that each shipped rule is exercised.

Entries whose scenario starts with "survey:" were copied from records of a real Kornia survey
run (capmap run), those starting with "run:" from a capmap run of tests/cpp/merge/cause_cases.py
(programs that provoke the failures no Kornia case in a small sample shows) or of the MONAI survey
(surveys/monai/monai_cases.py); regenerating keeps
both. `--from-store` copies one more such record, as stored, without running the scenarios.

Run:  PYTHONPATH=python python3 tests/cpp/merge/make_cause_examples.py
      python3 tests/cpp/merge/make_cause_examples.py --from-store STORE CASE PATH CATEGORY [BREAK]
      (BREAK: the index of a graph-break reason of an ok-breaks record; default 0)
"""

from __future__ import annotations

import copy
import io
import json
import sqlite3
import sys
import time
import warnings
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("cause_examples.json")
examples: list[dict[str, Any]] = []


def copy_from_store(store: str, case: str, path: str, category: str, break_index: int = 0) -> None:
    """Appends the record a real run stored for CASE × PATH as `survey:CASE` (Kornia) or `run:CASE`."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT status, record FROM records WHERE case_name = ? AND path = ?", (case, path)
        ).fetchall()
        library = {json.loads(info)["library"]["name"] for (info,) in db.execute("SELECT info FROM runs")}
    if len(rows) != 1:
        sys.exit(f"{store}: {len(rows)} records for {case} × {path} (want exactly one run key)")
    status, record = rows[0][0], json.loads(rows[0][1])
    message, gb_id, error_type = (
        record.get("message", ""),
        record.get("gb_id") or "",
        record.get("error_type", ""),
    )
    if status == "ok-breaks":
        reason = record["break_reasons"][break_index]
        message, gb_id, error_type = reason["reason"], reason.get("gb_id") or "", ""
    prefix = "survey:" if library == {"kornia"} else "run:"
    entry = {
        "scenario": prefix + case,
        "path": path,
        "status": status,
        "category": category,
        "error_type": error_type or "",
        "message": message.strip()[:1000],
        "gb_id": gb_id,
    }
    stored = json.loads(OUT.read_text())
    if any(e["scenario"] == entry["scenario"] and e["path"] == path for e in stored):
        sys.exit(f"{OUT.name} already holds {prefix}{case} × {path}")
    stored.append(entry)
    OUT.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")
    print(f"added {prefix}{case} × {path}: {message.strip().splitlines()[0][:120]}", file=sys.stderr)


if __name__ == "__main__" and sys.argv[1:2] == ["--from-store"]:
    copy_from_store(*sys.argv[2:6], *[int(a) for a in sys.argv[6:7]])
    sys.exit(0)

import torch  # noqa: E402 - only the scenarios need torch
from capmap.errors import describe  # noqa: E402
from capmap.probes.compile import SPLIT_WITHOUT_REASON, _reason  # noqa: E402


def add(
    scenario: str,
    path: str,
    status: str,
    category: str,
    exc: BaseException | None = None,
    message: str = "",
    error_type: str = "",
    gb_id: str = "",
) -> None:
    if exc is not None:
        # The same reduction the probes apply: deepest cause, cleaned and trimmed.
        info = describe(exc, None)
        error_type, message = info.error_type, info.message
    examples.append(
        {
            "scenario": scenario,
            "path": path,
            "status": status,
            "category": category,
            "error_type": error_type,
            "message": message.strip()[:1000],
            "gb_id": gb_id,
        }
    )


def capture(fn: Callable[[], Any]) -> BaseException | None:
    sink = io.StringIO()
    try:
        with redirect_stdout(sink), redirect_stderr(sink), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as exc:  # noqa: BLE001 - every failure is the point here
        return exc
    return None


def probe_export(
    scenario: str, category: str, module: torch.nn.Module, args: tuple, strict: bool = False
) -> None:
    exc = capture(lambda: torch.export.export(module, args, strict=strict))
    if exc is None:
        print(f"{scenario}: export succeeded", file=sys.stderr)
        return
    add(scenario, "export", "fail", category, exc)


def probe_make_fx(scenario: str, category: str, fn: Callable[..., Any], args: tuple) -> None:
    """make_fx's trace, as a decomposition or an exporter's fallback runs it."""
    from torch.fx.experimental.proxy_tensor import make_fx

    exc = capture(lambda: make_fx(fn)(*args))
    if exc is None:
        print(f"{scenario}: make_fx succeeded", file=sys.stderr)
        return
    add(scenario, "export", "fail", category, exc)


def probe_onnx(scenario: str, category: str, module: torch.nn.Module, args: tuple) -> None:
    exc = capture(lambda: torch.onnx.export(module, args, dynamo=True, opset_version=18))
    if exc is None:
        print(f"{scenario}: onnx succeeded", file=sys.stderr)
        return
    add(scenario, "onnx", "export-fail", category, exc)


def probe_breaks(scenario: str, category: str, fn: Callable[..., Any], args: tuple) -> None:
    # fullgraph=True turns the first graph break into an exception carrying the same text the
    # compile probe stores as a break reason.
    torch._dynamo.reset()
    exc = capture(lambda: torch.compile(fn, fullgraph=True, backend="eager")(*args))
    if exc is None:
        print(f"{scenario}: no graph break", file=sys.stderr)
        return
    reason = _reason(str(exc))
    add(
        scenario,
        "compile",
        "ok-breaks",
        category,
        message=reason["reason"],
        error_type="",
        gb_id=reason["gb_id"] or "",
    )


def probe_onnx_runtime(scenario: str, category: str, module: torch.nn.Module, args: tuple) -> None:
    import onnxruntime

    def run() -> None:
        program = torch.onnx.export(module, args, dynamo=True, opset_version=18)
        session = onnxruntime.InferenceSession(program.model_proto.SerializeToString())
        session.run(None, {session.get_inputs()[0].name: args[0].numpy()})

    exc = capture(run)
    if exc is None:
        print(f"{scenario}: onnx runtime succeeded", file=sys.stderr)
        return
    add(scenario, "onnx", "ort-load-fail", category, exc)


class Wrap(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def tensor_if(a: torch.Tensor) -> torch.Tensor:
    if a.sum() > 0:
        return a * 2
    return a - 1


x = torch.rand(2, 3, 8, 8)
m = torch.rand(4, 4)

# Missing ONNX lowerings: linear algebra decompositions without an ONNX counterpart.
probe_onnx("svd", "missing-onnx-lowering", Wrap(lambda a: torch.linalg.svd(a)[0]), (m,))
probe_onnx("eigh", "missing-onnx-lowering", Wrap(lambda a: torch.linalg.eigh(a @ a.T)[0]), (m,))
probe_onnx("qr", "missing-onnx-lowering", Wrap(lambda a: torch.linalg.qr(a)[0]), (m,))
probe_onnx("lstsq", "data-dependent", Wrap(lambda a: torch.linalg.lstsq(a, a).solution), (m,))
probe_onnx("solve", "missing-onnx-lowering", Wrap(lambda a: torch.linalg.solve(a, a)), (m,))

# Data-dependent shapes and values.
probe_export("item-size", "data-dependent", Wrap(lambda a: torch.zeros(int(a.sum().item() * 10))), (x,))
probe_export("tensor-if", "control-flow", Wrap(lambda a: a * 2 if a.sum() > 0 else a - 1), (x,))
probe_export("tensor-if-strict", "control-flow", Wrap(tensor_if), (x,), strict=True)
probe_export(
    "generator-strict",
    "random-generator",
    Wrap(lambda a: a + torch.rand(a.shape, generator=torch.Generator())),
    (x,),
    strict=True,
)
probe_onnx("tensor-if", "control-flow", Wrap(lambda a: a * 2 if a.sum() > 0 else a - 1), (x,))


probe_breaks("tensor-if", "control-flow", tensor_if, (x,))
probe_breaks("item", "data-dependent", lambda a: a * a.sum().item(), (x,))
probe_make_fx("make-fx-item", "data-dependent", lambda a: a * a.sum().item(), (x,))
probe_breaks("tolist", "data-dependent", lambda a: a * len(a.flatten().tolist()), (x,))
probe_breaks("time", "unsupported-python", lambda a: a * time.time(), (x,))
probe_breaks("deepcopy", "unsupported-python", lambda a: copy.deepcopy(a) + 1, (x,))
probe_breaks("print", "unsupported-python", lambda a: (print("x"), a + 1)[1], (x,))

# Random generator arguments.
probe_export(
    "generator",
    "random-generator",
    Wrap(lambda a: a + torch.rand(a.shape, generator=torch.Generator())),
    (x,),
)
probe_breaks(
    "generator", "random-generator", lambda a: a + torch.rand(a.shape, generator=torch.Generator()), (x,)
)
probe_onnx(
    "generator",
    "random-generator",
    Wrap(lambda a: a + torch.rand(a.shape, generator=torch.Generator())),
    (x,),
)


# Mutation of a constant tensor attribute or a buffer.
class MutatesConstant(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.ones(3)

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        self.scale.add_(1)
        return a * self.scale


class ReplacesBuffer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(1))

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        self.count = self.count + 1
        return a + self.count


probe_export("mutate-constant", "mutation", MutatesConstant(), (torch.rand(3),), strict=True)
probe_export("replace-buffer", "mutation", ReplacesBuffer(), (torch.rand(3),), strict=True)
probe_onnx("mutate-constant", "mutation", MutatesConstant(), (torch.rand(3),))

# Dtype limits: ONNX Runtime kernels that exist only for some element types.
probe_onnx_runtime("det-float64", "dtype", Wrap(torch.det), (torch.rand(4, 4, dtype=torch.float64),))
probe_onnx("eigvals", "missing-onnx-lowering", Wrap(torch.linalg.eigvals), (m,))


# Inductor's C++ backend failing to build (a compiler that cannot compile anything).
def inductor_failure() -> None:
    import torch._inductor.config as inductor_config

    torch._dynamo.reset()
    old = inductor_config.cpp.cxx
    inductor_config.cpp.cxx = ("false",)
    try:
        exc = capture(lambda: torch.compile(lambda a: (a.sin() + 1).sum(1))(torch.rand(8, 8)))
    finally:
        inductor_config.cpp.cxx = old
    if exc is not None:
        add("inductor-cxx", "compile", "fail", "torch-bug", exc)


inductor_failure()


def batch_of_two_only(a: torch.Tensor) -> torch.Tensor:
    return a * 2.0 if a.shape[0] == 2 else a


def dynamic_constraint_violation() -> None:
    # A dim marked Dim.DYNAMIC that the code branches on: export refuses to keep it dynamic.
    dims = (({0: torch.export.Dim.DYNAMIC},),)  # Wrap.forward(*args): one entry, for args
    module, args = Wrap(batch_of_two_only), (torch.randn(2, 3),)
    exc = capture(lambda: torch.export.export(module, args, dynamic_shapes=dims))
    add("export-dynamic-constraint", "export-dynamic", "fail", "dynamic-shape", exc)


dynamic_constraint_violation()


def aoti_without_compiler() -> None:
    # AOTInductor builds its package with the C++ compiler: a machine without one fails here.
    import os
    import tempfile

    program = torch.export.export(Wrap(torch.sigmoid), (torch.randn(2, 3),))
    package = os.path.join(tempfile.mkdtemp(), "case.pt2")

    def build() -> None:
        with torch._inductor.config.patch({"cpp.cxx": ("capmap-no-such-compiler",)}):
            torch._inductor.aoti_compile_and_package(program, package_path=package)

    add("aoti-no-compiler", "aoti", "compile-fail", "torch-bug", capture(build))


aoti_without_compiler()

# Engine records: the messages the supervisor writes itself (src/run/supervisor.cc,
# src/run/task_planner.cc).
add("crash", "onnx", "crashed", "crash", message="the child process died from SIGSEGV during the onnx path")
add(
    "crash-exit",
    "compile",
    "crashed",
    "crash",
    message="the child process exited with code 1 during the compile path",
)
add(
    "crash-repeated",
    "export",
    "crashed",
    "crash",
    message="dispatched 3 times without a record: capmap itself was killed each time this task ran",
)
add(
    "timeout",
    "compile",
    "timeout",
    "timeout",
    message="the compile path ran past the time limit of 300 s and was killed",
)
add(
    "oom",
    "export",
    "oom",
    "oom",
    message="the export path used 4.3 GiB of memory, over the limit of 4.0 GiB, and was killed",
)
add("mismatch", "onnx", "mismatch", "numeric-mismatch", message="output 0: shape [2, 3], eager [2, 4]")
add("mismatch-count", "compile", "mismatch", "numeric-mismatch", message="0 outputs, eager returned 1")
add(
    "mismatch-values",
    "onnx",
    "mismatch",
    "numeric-mismatch",
    message="output 0: 5 of 96 values beyond tolerance (max |diff| 0.031; allowed 0.0002 + 0.001·|eager|)",
)
add("mismatch-dtype", "export", "mismatch", "dtype", message="output 1: dtype torch.int64, eager torch.int32")
add(
    "mismatch-nan",
    "onnx",
    "mismatch",
    "numeric-mismatch",
    message="output 0: NaN at 12 different positions (eager 0 NaN, capture 12 of 4096)",
)
add("mismatch-non-finite", "compile", "mismatch", "numeric-mismatch", message="output 0: 3 non-finite values")
add(
    "mismatch-ill-conditioned",
    "compile",
    "mismatch",
    "numeric-mismatch",
    message="output 0: 19 of 32 values beyond tolerance (max |diff| 0.00389; allowed 0.0002 + "
    "0.001·|eager|)\nill-conditioned on these inputs: eager float32 already differs from eager "
    "float64 by 0.00389 (the capture from eager float32 by 0.00389), so the comparison cannot "
    "tell a wrong capture from rounding",
)
eager_exc = capture(lambda: torch.rand(2, 3) @ torch.rand(4, 5))
if eager_exc is not None:
    add("eager-matmul", "eager", "fail", "eager-failure", eager_exc)
    add("eager-fail", "onnx", "eager-fail", "eager-failure", eager_exc)
add("skipped", "compile", "skipped", "not-applicable", message="needs a CUDA device")
add("no-tensor-output", "onnx", "no-tensor-output", "not-applicable", message="returned NoneType")
# The compile probe's own reason when graphs split and dynamo logged no break (torch 2.9).
add(
    "graphs-split",
    "compile",
    "ok-breaks",
    "torch-bug",
    message=f"{SPLIT_WITHOUT_REASON}: 7 graphs, and dynamo recorded no reason for them",
)

if OUT.exists():
    examples += [e for e in json.loads(OUT.read_text()) if e["scenario"].startswith(("survey:", "run:"))]
# Graph-break reasons seen on Kornia's quick tier (AugmentationSequential, RandomMixUpV2).
for scenario, gb_id, category, reason in [
    (
        "kornia-mixup-item",
        "GB0124",
        "data-dependent",
        "Unsupported Tensor.item() call with capture_scalar_outputs=False: Dynamo does not support "
        "tracing `Tensor.item()` with config.capture_scalar_outputs=False.",
    ),
    (
        "kornia-color-jiggle-local-scalar",
        "GB0033",
        "data-dependent",
        "Data dependent operator: Operator `aten._local_scalar_dense.default` has a non-Tensor output "
        "whose value is dependent on the data of Tensor inputs.",
    ),
    (
        "kornia-sequential-generator",
        "GB0003",
        "unsupported-python",
        "Attempt to trace generator: Generators cannot be compiled directly with `torch.compile`.",
    ),
    (
        "kornia-sequential-next",
        "GB4347",
        "unsupported-python",
        "Missing tp_iternext: Dynamo does not support next() on list_iterator. Add tp_iternext_impl to "
        "this VariableTracker subclass.",
    ),
]:
    add(scenario, "compile", "ok-breaks", category, message=reason, gb_id=gb_id)


# Messages seen on a sample (shard 1/12) of the whole Kornia survey.
for scenario, path, status, category, error_type, gb_id, message in [
    (
        "kornia-aten-equal",
        "export",
        "fail",
        "data-dependent",
        "DataDependentOutputException",
        "",
        "aten.equal.default",
    ),
    (
        "kornia-submodule",
        "export",
        "fail",
        "unsupported-python",
        "NameError",
        "",
        "module is not installed as a submodule",
    ),
    (
        "kornia-onnx-dict-kwargs",
        "onnx",
        "export-fail",
        "unsupported-python",
        "TypeError",
        "",
        "got an unexpected keyword argument 'image0'",
    ),
    (
        "kornia-pytree-output",
        "export",
        "fail",
        "unsupported-python",
        "RuntimeError",
        "",
        "Found <class 'kornia.geometry.vector.Vector3'> in output, which is not a known type. If "
        "this type holds tensors, you need to register a pytree for it.",
    ),
    (
        "kornia-compiled-fn",
        "onnx",
        "export-fail",
        "torch-bug",
        "AssertionError",
        "",
        "expected compiled_fn to be GraphModule, got <class 'function'>",
    ),
    (
        "kornia-generator-method",
        "compile",
        "ok-breaks",
        "random-generator",
        "",
        "GB7650",
        "torch.Generator method: torch.Generator.manual_seed() is a stateful RNG operation that "
        "cannot be soundly traced in the FX graph.",
    ),
    (
        "kornia-as-proxy",
        "compile",
        "ok-breaks",
        "unsupported-python",
        "",
        "GB0055",
        "Failed to convert args/kwargs to proxy: Missing `as_proxy()` implementation for some arg/kwarg.",
    ),
]:
    add(scenario, path, status, category, message=message, error_type=error_type, gb_id=gb_id)

OUT.write_text(json.dumps(examples, indent=2, sort_keys=True) + "\n")
print(f"wrote {len(examples)} examples to {OUT}", file=sys.stderr)
