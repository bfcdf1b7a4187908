"""The worker on its own, on real pipes: protocol order, isolation by fork, exits and signals."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from capmap_testing import EXAMPLE, FAULTS, WorkerHarness, processes_naming, python_env, wait_until_gone

EAGER = ["eager"]

# Cases that report on the process they run in, or make records bigger than a pipe's buffer.
PROBE_REGISTRY = """\
import os
import torch
from capmap import case

def where(x):
    print('pid', os.getpid(), 'pgid', os.getpgid(0), 'threads', torch.get_num_threads(),
          'env', os.environ['OMP_NUM_THREADS'], os.environ['CAPMAP_THREADS'])
    return x

def many(x):
    return [x] * 30_000

def shout(x):
    raise ValueError('x' * 500_000)

case('where[a]', 'probe.process', where, [torch.zeros(1)])
case('where[b]', 'probe.process', where, [torch.zeros(1)])
case('many', 'probe.big', many, [torch.zeros(1)])
case('shout', 'probe.big', shout, [torch.zeros(1)])
"""


def started_worker(registries: list[str | Path]) -> tuple[WorkerHarness, dict]:
    w = WorkerHarness(registries)
    hello = w.event()
    assert hello is not None and hello["type"] == "hello", w.stderr()[-2000:]
    return w, hello


# Workers are slow to start (torch): tests that leave a worker usable share one per registry.
@pytest.fixture(scope="module")
def example_worker() -> Iterator[tuple[WorkerHarness, dict]]:
    w, hello = started_worker([EXAMPLE])
    yield w, hello
    w.close()


@pytest.fixture(scope="module")
def fault_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WorkerHarness, Path]]:
    registry = tmp_path_factory.mktemp(f"faults_{uuid.uuid4().hex[:12]}") / "faults.py"
    shutil.copy(FAULTS, registry)
    w, _ = started_worker([registry])
    yield w, registry
    w.close()


@pytest.fixture(scope="module")
def probe_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerHarness]:
    registry = tmp_path_factory.mktemp("probe") / "probe.py"
    registry.write_text(PROBE_REGISTRY)
    w, _ = started_worker([registry])
    yield w
    w.close()


def test_hello_describes_library_environment_and_cases(example_worker) -> None:
    w, hello = example_worker
    assert hello["pid"] == w.proc.pid
    assert hello["library"]["name"] == "example"
    assert hello["library"]["revision"]
    assert set(hello["versions"]) == {"torch", "onnx", "onnxruntime", "onnxscript", "python"}
    assert hello["versions"]["torch"].split("+")[0] == __import__("torch").__version__.split("+")[0]
    assert hello["device"] == "cpu" and hello["cores"] >= 1 and hello["cpu"]
    names = [c["name"] for c in hello["cases"]]
    assert len(names) == len(set(names)) >= 15
    lstm = next(c for c in hello["cases"] if c["name"] == "TinyLSTM")
    assert lstm["skip"] and lstm["package"] == "nn" and lstm["section"] == "layers.recurrent"


def test_task_events_arrive_in_protocol_order(example_worker) -> None:
    w, _ = example_worker
    events = w.run_task(7, "ConvBlock", EAGER)
    kinds = [e["type"] for e in events]
    assert kinds == ["started", "path", "record", "done"]
    assert all(e["task"] == 7 for e in events)
    started, path, record, done = events
    assert started["pid"] != w.proc.pid
    assert path["path"] == "eager"
    assert record["path"] == "eager" and record["record"]["status"] == "ok"
    assert record["record"]["outputs"] == ["Tensor[2,8,8,8] float32"]
    assert done["exit"] == 0 and "signal" not in done


def test_each_task_gets_a_fresh_child_in_its_own_process_group(probe_worker) -> None:
    seen = []
    for task, (name, share) in enumerate([("where[a]", 1), ("where[b]", 2)]):
        events = probe_worker.run_task(task, name, EAGER, threads=share)
        child = events[0]["pid"]
        # The probe's own capture keeps the print in the record; the worker's log keeps it too.
        line = next(ln for ln in events[-1]["log_tail"].splitlines() if ln.startswith("pid "))
        _, pid, _, pgid, _, threads, _, omp, capmap_threads = line.split()
        assert int(pid) == child and int(pgid) == child
        assert int(threads) == int(omp) == int(capmap_threads) == share
        seen.append(child)
    assert seen[0] != seen[1]


def test_a_crash_ends_in_done_with_the_signal_and_the_python_stack(fault_worker) -> None:
    w, _ = fault_worker
    done = w.run_task(1, "segfault", EAGER)[-1]
    assert done["signal"] == "SIGSEGV" and "exit" not in done
    assert "segfault" in done["log_tail"]  # faulthandler's stack names the case's function
    assert w.run_task(2, "abort", EAGER)[-1]["signal"] == "SIGABRT"
    exited = w.run_task(3, "exit3", EAGER)
    assert exited[-1]["exit"] == 3 and [e["type"] for e in exited] == ["started", "path", "done"]
    # The worker itself is untouched: the next task runs normally.
    assert w.run_task(4, "relu", EAGER)[-2]["record"]["status"] == "ok"


def test_state_a_case_corrupts_does_not_reach_the_next_task(fault_worker) -> None:
    w, _ = fault_worker
    assert w.run_task(11, "poison", EAGER)[-2]["record"]["status"] == "ok"
    for task, name in enumerate(["add_one[a]", "add_tensors"], start=12):
        record = w.run_task(task, name, EAGER)[-2]["record"]
        assert record["status"] == "ok", record


def test_output_flood_is_cut_to_the_tail(fault_worker) -> None:
    w, _ = fault_worker
    events = w.run_task(21, "flood", EAGER)
    record, done = events[-2]["record"], events[-1]
    assert record["status"] == "ok"
    assert done["exit"] == 0
    assert len(done["log_tail"].encode()) <= 4096 and "flood-finished" in done["log_tail"]
    assert len(record.get("log_tail", "")) <= 4096


def test_processes_a_case_leaves_behind_end_with_its_task(fault_worker) -> None:
    w, registry = fault_worker
    assert w.run_task(31, "orphan", EAGER)[-2]["record"]["status"] == "ok"
    # Only the worker itself may still name the registry.
    assert processes_naming(registry) == [w.proc.pid]


def test_large_records_reach_the_supervisor_as_whole_lines(probe_worker) -> None:
    # One record far over a pipe's 64 KiB buffer (30 000 outputs), and one error message far
    # over the documented size: both must arrive as one whole, parseable line.
    record = probe_worker.run_task(41, "many", EAGER)[-2]["record"]
    assert record["status"] == "ok" and len(record["outputs"]) == 30_000
    record = probe_worker.run_task(42, "shout", EAGER)[-2]["record"]
    assert record["status"] == "fail" and record["error_type"] == "ValueError"
    assert 100 < len(record["message"]) <= 2000


def test_unknown_case_is_answered_without_a_child(example_worker) -> None:
    w, _ = example_worker
    events = w.run_task(5, "no_such_case", EAGER)
    assert [e["type"] for e in events] == ["done"]
    assert events[0]["exit"] != 0 and "no_such_case" in events[0]["log_tail"]


def test_worker_exits_on_quit_and_on_closed_channel(worker_factory) -> None:
    w = worker_factory([EXAMPLE])
    assert w.event()["type"] == "hello"
    w.send({"type": "quit"})
    assert w.proc.wait(timeout=60) == 0
    w2 = worker_factory([EXAMPLE])
    assert w2.event()["type"] == "hello"
    w2.close_commands()
    assert w2.proc.wait(timeout=60) == 0
    assert w2.event(5) is None


def test_child_dies_with_its_worker(worker_factory, fault_registry: Path) -> None:
    w = worker_factory([fault_registry])
    assert w.event()["type"] == "hello"
    w.send({"type": "task", "task": 1, "case": "spin", "paths": EAGER, "threads": 1})
    started = w.event()
    assert started["type"] == "started"
    child = started["pid"]
    assert w.event()["type"] == "path"
    os.kill(w.proc.pid, signal.SIGKILL)
    w.proc.wait(timeout=60)
    assert wait_until_gone(fault_registry, 10.0) == [], f"child {child} outlived its worker"


def test_registry_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("from capmap import case\ncase('a', 'g', print, [])\ncase('a', 'g', print, [])\n")
    done = subprocess.run(
        [sys.executable, "-m", "capmap.worker", "--list", str(broken)],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=600,
        check=False,
    )
    assert done.returncode == 2
    message = json.loads(done.stdout)
    assert message["type"] == "error"
    assert "broken.py:3" in message["message"] and "broken.py:2" in message["message"]


def test_list_prints_hello_on_stdout() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "capmap.worker", "--list", EXAMPLE],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    hello = json.loads(done.stdout)
    assert hello["type"] == "hello" and len(hello["cases"]) >= 15


def test_records_are_encoded_as_strict_json() -> None:
    import numpy as np
    import torch
    from capmap.worker import encode, trim_record

    record = {
        "max_abs_diff": float("nan"),
        "limit": float("inf"),
        "low": -float("inf"),
        "count": np.int64(3),
        "diff": torch.tensor(0.5),
        "message": "bad byte \udcff here",
        "shape": (1, 2),
    }
    line = encode(record)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    # The strict parser of the supervisor rejects NaN/Infinity numbers and invalid UTF-8.
    decoded = json.loads(line.decode("utf-8"), parse_constant=lambda c: pytest.fail(f"bare {c}"))
    assert decoded["max_abs_diff"] == "NaN"
    assert (decoded["limit"], decoded["low"]) == ("Infinity", "-Infinity")
    assert (decoded["count"], decoded["diff"], decoded["shape"]) == (3, 0.5, [1, 2])
    assert decoded["message"].startswith("bad byte ")

    trimmed = trim_record({"message": "m" * 5000, "log_tail": "t" * 9000 + "END", "status": "fail"})
    assert len(trimmed["message"]) == 2000 and trimmed["message"].endswith("...")
    assert len(trimmed["log_tail"]) == 4096 and trimmed["log_tail"].endswith("END")


def test_each_live_worker_gets_its_own_compile_cache_and_slots_are_reused(tmp_path: Path) -> None:
    """Each live worker compiles into a folder of its own; a finished worker's slot is reused."""
    claim = (
        "import os, sys; from capmap.worker import claim_compile_cache; claim_compile_cache(); "
        "print(os.environ['TORCHINDUCTOR_CACHE_DIR'], flush=True); sys.stdin.read()"
    )
    env = python_env(TMPDIR=str(tmp_path))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)

    def start() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-c", claim], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )

    first, second = start(), start()
    try:
        assert first.stdout is not None and second.stdout is not None
        dirs = {first.stdout.readline().strip(), second.stdout.readline().strip()}
        assert len(dirs) == 2
        first.communicate("", timeout=120)
        third = start()
        assert third.stdout is not None
        reused = third.stdout.readline().strip()
        third.communicate("", timeout=120)
        assert reused in dirs
    finally:
        for p in (first, second):
            if p.poll() is None:
                p.kill()


def test_a_cache_folder_the_user_chose_gets_a_subfolder_per_cpu_setting(tmp_path: Path) -> None:
    """Torch keys its cache without ATEN_CPU_CAPABILITY, and its kernels loaded under another
    setting crashed: the user's folder is kept, with one absolute subfolder per setting, and a
    worker's child that inherits the keyed folder keeps it as it is."""
    claim = (
        "import os; from capmap.worker import claim_compile_cache; "
        "print(claim_compile_cache(), os.environ['TORCHINDUCTOR_CACHE_DIR'])"
    )

    def claimed(**settings: str) -> list[str]:
        env = python_env(**settings)
        for var in ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR"):
            if var not in settings:
                env.pop(var, None)
        return subprocess.run(
            [sys.executable, "-c", claim], capture_output=True, text=True, env=env, cwd=tmp_path, check=True
        ).stdout.split()

    native = claimed(TORCHINDUCTOR_CACHE_DIR="my-cache")
    avx2 = claimed(TORCHINDUCTOR_CACHE_DIR="my-cache", ATEN_CPU_CAPABILITY="avx2")
    for lock, folder in (native, avx2):
        assert lock == "None"
        assert Path(folder).parent == tmp_path / "my-cache" and Path(folder).name.startswith("kernels-")
    assert native[1] != avx2[1]
    assert claimed(TORCHINDUCTOR_CACHE_DIR=native[1]) == native


def test_one_worker_runs_several_children_at_once_and_keeps_their_lines_whole(
    worker_factory, tmp_path: Path
) -> None:
    registry = tmp_path / "probe.py"
    registry.write_text(PROBE_REGISTRY)
    w = worker_factory([registry])
    assert w.event()["type"] == "hello"
    # Four tasks in flight at once, two of them with records far bigger than a pipe's buffer.
    tasks = {1: "many", 2: "where[a]", 3: "shout", 4: "many"}
    for task, name in tasks.items():
        w.send({"type": "task", "task": task, "case": name, "paths": EAGER, "threads": 1})
    events: dict[int, list[dict]] = {task: [] for task in tasks}
    while any(not ev or ev[-1]["type"] != "done" for ev in events.values()):
        ev = w.event(120)
        assert ev is not None, w.stderr()[-2000:]
        events[ev["task"]].append(ev)
    pids = {ev[0]["pid"] for ev in events.values()}
    assert len(pids) == 4, "every task has a child of its own"
    for task, name in tasks.items():
        kinds = [e["type"] for e in events[task]]
        assert kinds == ["started", "path", "record", "done"], (name, kinds)
        record = events[task][2]["record"]
        if name == "many":
            assert record["status"] == "ok" and len(record["outputs"]) == 30_000
        elif name == "shout":
            assert record["status"] == "fail" and record["message"].endswith("...")
        assert events[task][-1]["exit"] == 0


def test_a_warmed_worker_forks_with_one_thread_and_its_children_compile_warm(
    worker_factory, tmp_path: Path
) -> None:
    timing = tmp_path / "timing.jsonl"
    w = worker_factory(
        [EXAMPLE],
        env={"CAPMAP_TIMING_LOG": str(timing), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")},
    )
    assert w.event()["type"] == "hello", w.stderr()[-2000:]
    w.send({"type": "warm_up", "paths": ["eager", "export", "onnx", "compile"]})
    warmed = w.event(600)
    assert warmed["type"] == "warmed" and warmed["threads_after"] == 1, warmed
    events = w.run_task(1, "relu", ["eager", "export", "onnx", "compile"], timeout=300)
    records = {e["path"]: e["record"] for e in events if e["type"] == "record"}
    assert {p: r["status"] for p, r in records.items()} == {
        "eager": "ok",
        "export": "ok",
        "onnx": "ok",
        "compile": "ok",
    }
    lines = [json.loads(line) for line in timing.read_text().splitlines()]
    warm = next(line for line in lines if "warm_up_s" in line)
    assert set(warm["paths"]) == {"export", "onnx", "compile"}, warm
    assert warm["threads_after"] == 1
    fork = next(line for line in lines if line.get("task") == 1)
    assert fork["parent_threads"] == 1
    # The child met a compiler that had already started up: a cold one spends well over a
    # second in its first compile (imports, CPU probe, toolchain), a warm one a tenth of that.
    # Both figures come from one process under the same load; the bound is ten times the
    # typical ratio, so only a child that starts the compiler again fails it.
    assert records["compile"]["compile_seconds"] < warm["paths"]["compile"]
