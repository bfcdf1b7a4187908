"""The forked child of a task: runs it, reports it, and is kept for another only while each task
leaves no trace (see child_state) and it has not grown too much."""

from __future__ import annotations

import faulthandler
import io
import json
import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any

from capmap import child_state
from capmap.deferred import forget_built
from capmap.torch_threads import THREAD_ENV_VARS
from capmap.worker.protocol import Channel, encode, trim_record

# Set by the engine bench: children append their fork timings to this file.
TIMING_LOG_ENV = "CAPMAP_TIMING_LOG"
# A kept child takes at most this many tasks, and none once it has grown this much beyond its
# worker: past that, a fresh fork is cheaper than what the child carries.
KEPT_CHILD_TASKS = 64
KEPT_CHILD_GROWTH = 1 << 30


def _log_line(line: dict[str, Any]) -> None:
    fd = os.open(os.environ[TIMING_LOG_ENV], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, encode(line))  # one short O_APPEND write: lines of parallel workers never mix
    finally:
        os.close(fd)


def _log_timing(
    task: Any, forked_at: float, child_at: float, running_at: float, ended_at: float, parent_threads: int
) -> None:
    """One line per task for the benches: fork and child setup time, threads at fork. A task a
    kept child ran (parent_threads 0) has no fork: its setup counts from the worker's order."""
    line: dict[str, Any] = {"task": task}
    if parent_threads:
        line["parent_threads"] = parent_threads
    else:
        line["kept"] = True
    line |= {
        "fork_s": child_at - forked_at,
        "setup_s": running_at - forked_at,
        "forked_at": forked_at,
        "ended_at": ended_at,
    }
    _log_line(line)


@dataclass
class TaskOrder:
    """What the worker asks a child to run: the task's id, its case, paths and threads."""

    task: Any
    case: Any
    paths: list[str]
    threads: int


class ForkedChild:
    """The forked child's side of a task: its output into the task's log, the task run and
    reported, and, when it may stay, the next task the worker hands it."""

    def __init__(self, cases: dict[str, Any], settings: dict[str, Any], channel: Channel) -> None:
        self.cases = cases
        self.settings = settings
        self.channel = channel
        self._crash_log: Any = None
        self._running_at = 0.0

    def serve(
        self,
        order: TaskOrder,
        log_fd: int,
        tasks_fd: int,
        timing: tuple[float, float, int],
        worker_rss: int,
    ) -> None:
        """Runs the task, then, while the child is kept, the worker's next orders; never returns."""
        forked_at, child_at, threads_at_fork = timing
        task, case, paths, threads = order.task, order.case, order.paths, order.threads
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, io.TextIOWrapper):
                stream.reconfigure(line_buffering=True)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # A fatal signal leaves the Python stack in the task's log, and the child still dies by
        # it. Its own descriptor: a probe may point fds 1 and 2 elsewhere while a case runs. A
        # kept child puts each later task's log on the same descriptor number.
        self._crash_log = os.fdopen(log_fd, "w")
        faulthandler.enable(file=self._crash_log)
        ran = 0
        while True:
            code, kept = self._run_in_child(task, case, paths, threads, tasks_fd, worker_rss, ran)
            if TIMING_LOG_ENV in os.environ:
                _log_timing(task, forked_at, child_at, self._running_at, time.monotonic(), threads_at_fork)
            ran += 1
            if kept:
                sent = _next_order(tasks_fd)
                if sent is not None:
                    task, paths, threads = sent["task"], sent["paths"], sent["threads"]
                    case = self.cases[sent["case"]]
                    forked_at = child_at = float(sent.get("sent_at", time.monotonic()))
                    threads_at_fork = 0
                    replacement = os.open(sent["log"], os.O_WRONLY | os.O_APPEND)
                    for fd in (log_fd, 1, 2):
                        os.dup2(replacement, fd)
                    os.close(replacement)
                    continue
                code = 0  # the worker closed the pipe: no more tasks
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)

    def _run_in_child(
        self,
        task: Any,
        case: Any,
        paths: list[str],
        threads: int,
        tasks_fd: int,
        worker_rss: int,
        ran: int,
    ) -> tuple[int, bool]:
        """Runs one task in this child; returns its exit code and whether the child is kept for
        another (it told the worker so either way)."""
        settings = self._cap_child_threads(threads)
        before = (
            child_state.ProcessState(_library_of(case), [case.target, case.inputs, case.kwargs])
            if tasks_fd >= 0
            else None
        )

        def emit(message: dict[str, Any]) -> None:
            event = dict(message)
            if isinstance(event.get("record"), dict):
                event["record"] = trim_record(event["record"])
            event["task"] = task
            self.channel.send(event)

        code = 0
        self._running_at = time.monotonic()
        try:
            from capmap.probes.task import run_task

            run_task(case, paths, settings, emit)
        except BaseException:  # noqa: BLE001 - whatever escapes is reported through the exit code
            traceback.print_exc()
            code = 1
        kept = False
        if before is not None and code == 0:
            reason = _why_not_keep(before, worker_rss, ran + 1)
            kept = reason is None
            if not kept:
                print(f"capmap.worker: this child takes no further task: {reason}", flush=True)
        if tasks_fd >= 0:
            self.channel.send({"type": "finished", "task": task, "code": code, "kept": kept})
        return code, kept

    def _cap_child_threads(self, threads: int) -> dict[str, Any]:
        """This child's share of threads: torch, OpenMP, inductor, ONNX Runtime (via settings)."""
        for var in THREAD_ENV_VARS:
            os.environ[var] = str(threads)
        import torch

        torch.set_num_threads(threads)
        # TORCHINDUCTOR_COMPILE_THREADS=1 covers an inductor imported later by a probe.
        inductor_config = sys.modules.get("torch._inductor.config")
        if inductor_config is not None:
            inductor_config.compile_threads = 1  # type: ignore[attr-defined]
        return dict(self.settings, threads=threads)


def _library_of(case: Any) -> str | None:
    """The top-level package the case's target comes from: its names are checked after a task."""
    target = getattr(case.target, "factory", case.target)
    module = getattr(target, "__module__", None) or getattr(type(target), "__module__", "") or ""
    return module.split(".", 1)[0] or None


def _why_not_keep(before: child_state.ProcessState, worker_rss: int, ran: int) -> str | None:
    """Why this child must not take another task, or None when it may."""
    # What the task built and compiled goes; the compiler's disk cache stays.
    forget_built()
    dynamo = sys.modules.get("torch._dynamo")
    if dynamo is not None:
        dynamo.reset()
    if ran >= KEPT_CHILD_TASKS:
        return f"it ran {ran} tasks"
    changed = before.changes()
    if changed:
        shown = ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")
        return f"the task changed {shown}"
    if child_state.child_pids():
        return "the task left a process running"
    grown = child_state.resident_bytes() - worker_rss
    if grown > KEPT_CHILD_GROWTH:
        return f"it holds {grown >> 20} MiB more than its worker"
    return None


def _next_order(tasks_fd: int) -> dict[str, Any] | None:
    """Blocks until the worker sends this kept child its next task; None when it closes the pipe."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(tasks_fd, 1 << 16)
        if not chunk:
            return None
        data += chunk
    order: dict[str, Any] = json.loads(data)
    return order
