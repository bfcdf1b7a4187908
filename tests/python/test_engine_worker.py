"""The worker on its own, on real pipes: protocol order, isolation by fork, exits and signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLE, processes_naming, python_env, wait_until_gone

EAGER = ["eager"]


def test_hello_describes_library_environment_and_cases(worker_factory) -> None:
    w = worker_factory([EXAMPLE])
    hello = w.event()
    assert hello is not None and hello["type"] == "hello"
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


def test_task_events_arrive_in_protocol_order(worker_factory) -> None:
    w = worker_factory([EXAMPLE])
    assert w.event()["type"] == "hello"
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


def test_each_task_gets_a_fresh_child_in_its_own_process_group(worker_factory, tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os, torch\n"
        "from capmap import case\n"
        "def where(x):\n"
        "    print('pid', os.getpid(), 'pgid', os.getpgid(0), 'threads', torch.get_num_threads())\n"
        "    return x\n"
        "case('where[a]', 'probe.process', where, [torch.zeros(1)])\n"
        "case('where[b]', 'probe.process', where, [torch.zeros(1)])\n"
    )
    w = worker_factory([probe])
    assert w.event()["type"] == "hello"
    seen = []
    for task, name in enumerate(["where[a]", "where[b]"]):
        events = w.run_task(task, name, EAGER)
        child = events[0]["pid"]
        # The probe's own capture keeps the print in the record; the worker's log keeps it too.
        line = next(ln for ln in events[-1]["log_tail"].splitlines() if ln.startswith("pid "))
        _, pid, _, pgid, _, threads = line.split()
        assert int(pid) == child and int(pgid) == child and int(threads) == 1
        seen.append(child)
    assert seen[0] != seen[1]


def test_a_crash_ends_in_done_with_the_signal_and_the_python_stack(
    worker_factory, fault_registry: Path
) -> None:
    w = worker_factory([fault_registry])
    assert w.event()["type"] == "hello"
    done = w.run_task(1, "segfault", EAGER)[-1]
    assert done["signal"] == "SIGSEGV" and "exit" not in done
    assert "segfault" in done["log_tail"]  # faulthandler's stack names the case's function
    assert w.run_task(2, "abort", EAGER)[-1]["signal"] == "SIGABRT"
    exited = w.run_task(3, "exit3", EAGER)
    assert exited[-1]["exit"] == 3 and [e["type"] for e in exited] == ["started", "path", "done"]
    # The worker itself is untouched: the next task runs normally.
    assert w.run_task(4, "relu", EAGER)[-2]["record"]["status"] == "ok"


def test_state_a_case_corrupts_does_not_reach_the_next_task(worker_factory, fault_registry: Path) -> None:
    w = worker_factory([fault_registry])
    assert w.event()["type"] == "hello"
    assert w.run_task(1, "poison", EAGER)[-2]["record"]["status"] == "ok"
    for task, name in enumerate(["add_one[a]", "add_tensors"], start=2):
        record = w.run_task(task, name, EAGER)[-2]["record"]
        assert record["status"] == "ok", record


def test_output_flood_is_cut_to_the_tail(worker_factory, fault_registry: Path) -> None:
    w = worker_factory([fault_registry])
    assert w.event()["type"] == "hello"
    events = w.run_task(1, "flood", EAGER)
    record, done = events[-2]["record"], events[-1]
    assert record["status"] == "ok"
    assert done["exit"] == 0
    assert len(done["log_tail"].encode()) <= 4096 and "flood-finished" in done["log_tail"]
    assert len(record.get("log_tail", "")) <= 4096


def test_processes_a_case_leaves_behind_end_with_its_task(worker_factory, fault_registry: Path) -> None:
    w = worker_factory([fault_registry])
    assert w.event()["type"] == "hello"
    assert w.run_task(1, "orphan", EAGER)[-2]["record"]["status"] == "ok"
    # Only the worker itself may still name the registry.
    assert processes_naming(fault_registry) == [w.proc.pid]


def test_large_records_reach_the_supervisor_as_whole_lines(worker_factory, tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    # A message far over a pipe's buffer: the probe trims it, the line must still arrive whole.
    big.write_text(
        "import torch\nfrom capmap import case\n"
        "def shout(x):\n    raise ValueError('x' * 500_000)\n"
        "case('shout', 'probe.big', shout, [torch.zeros(1)])\n"
    )
    w = worker_factory([big])
    assert w.event()["type"] == "hello"
    record = w.run_task(1, "shout", EAGER)[-2]["record"]
    assert record["status"] == "fail" and record["error_type"] == "ValueError"
    assert 100 < len(record["message"]) <= 2000


def test_unknown_case_is_answered_without_a_child(worker_factory) -> None:
    w = worker_factory([EXAMPLE])
    assert w.event()["type"] == "hello"
    events = w.run_task(5, "no_such_case", EAGER)
    assert [e["type"] for e in events] == ["done"]
    assert events[0]["exit"] != 0 and "no_such_case" in events[0]["log_tail"]


def test_worker_exits_on_quit_and_on_closed_channel(worker_factory) -> None:
    w = worker_factory([EXAMPLE])
    assert w.event()["type"] == "hello"
    w.send({"type": "quit"})
    assert w.proc.wait(timeout=10) == 0
    w2 = worker_factory([EXAMPLE])
    assert w2.event()["type"] == "hello"
    w2.close_commands()
    assert w2.proc.wait(timeout=10) == 0
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
    w.proc.wait(timeout=5)
    assert wait_until_gone(fault_registry, 2.0) == [], f"child {child} outlived its worker"


def test_registry_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("from capmap import case\ncase('a', 'g', print, [])\ncase('a', 'g', print, [])\n")
    done = subprocess.run(
        [sys.executable, "-m", "capmap.worker", "--list", str(broken)],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=60,
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
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    hello = json.loads(done.stdout)
    assert hello["type"] == "hello" and len(hello["cases"]) >= 15
