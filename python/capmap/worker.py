"""The fork server the supervisor runs: `python -m capmap.worker --settings JSON REGISTRY...`.

It imports torch, the registry and the probes once, then forks one child per task, so a case
that crashes, hangs or corrupts interpreter state costs only its own child, and every child
starts from the same clean, warm parent. Messages are JSON lines: commands arrive on fd 3,
events leave on fd 4 (never stdout: cases print). See "Worker protocol" in docs/DESIGN.md.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import faulthandler
import json
import math
import os
import select
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from capmap import child_state
from capmap.deferred import forget_built

COMMANDS_FD = 3
# Raised when the messages change; the engine refuses a worker that speaks another version.
PROTOCOL_VERSION = 2
EVENTS_FD = 4
LOG_TAIL_BYTES = 4096
MESSAGE_CHARS = 2000
# Any other string field longer than this is cut, so one runaway value cannot make a record
# too big for the supervisor to take in.
FIELD_CHARS = 64 * 1024
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
# Set by the engine bench: children append their fork timings to this file.
TIMING_LOG_ENV = "CAPMAP_TIMING_LOG"
# Set to 1 by the survey bench to measure children that start cold (no warm-up run).
NO_WARM_UP_ENV = "CAPMAP_NO_WARM_UP"
# A kept child takes at most this many tasks, and none once it has grown this much beyond its
# worker: past that, a fresh fork is cheaper than what the child carries.
KEPT_CHILD_TASKS = 64
KEPT_CHILD_GROWTH = 1 << 30
THREAD_ENV_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "CAPMAP_THREADS")


def cap_threads_before_torch() -> None:
    """One thread everywhere before torch loads: no OpenMP pool may exist when we fork."""
    for var in THREAD_ENV_VARS:
        os.environ[var] = "1"
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)


def claim_compile_cache() -> int | None:
    """Give this worker an inductor cache folder of its own for as long as it lives.

    The worker's warm-up and all its children compile into it, as one long-lived process
    would: a kernel one case built is found by every later case (models share most of their
    convolution and norm kernels). Children that run at once may share it: inductor builds
    each kernel under a file lock named by its hash and writes its graphs and Python modules
    atomically. A slot is a folder guarded by an flock, so the next run's worker reuses it and
    its compiles start warm. Returns the lock's descriptor (kept open), or None when the user
    chose inductor's folder themselves.

    The slots live in $CAPMAP_COMPILE_SLOTS, set by `capmap run --compile-cache DIR` to DIR's
    folder for this torch and capmap (a folder a CI job keeps between runs); else in the system's
    temporary folder.
    """
    import tempfile

    kept = os.environ.get("CAPMAP_COMPILE_SLOTS")
    if kept:
        base = kept
    elif "TORCHINDUCTOR_CACHE_DIR" in os.environ:
        # Absolute now, as inductor makes it at first use: a child's first compile must not
        # look like a task that changed the environment.
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.abspath(os.environ["TORCHINDUCTOR_CACHE_DIR"])
        return None
    else:
        base = os.path.join(tempfile.gettempdir(), f"capmap-inductor-{os.getuid()}")
    import fcntl

    os.makedirs(base, exist_ok=True)
    slot = 0
    while True:
        fd = os.open(os.path.join(base, f"slot-{slot}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            slot += 1
            continue
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(base, f"slot-{slot}")
        return fd


def become_subreaper() -> None:
    """Orphans of this worker's children become its own, so it can reap a task's whole group."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def set_parent_death_signal(sig: int) -> None:
    """Ask Linux to send `sig` to this process when its parent dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(PR_SET_PDEATHSIG): {os.strerror(err)}")


def _plain(value: Any) -> Any:
    """A JSON-safe copy: valid UTF-8 strings, no NaN/Infinity (the C++ parser rejects both)."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        try:
            return _plain(value.item())
        except (TypeError, ValueError, RuntimeError):
            pass
    return str(value)


def trim_record(record: dict[str, Any]) -> dict[str, Any]:
    """Keeps message and log fields to their documented sizes."""
    out = dict(record)
    for key, value in out.items():
        if not isinstance(value, str):
            continue
        if key == "message" and len(value) > MESSAGE_CHARS:
            out[key] = value[: MESSAGE_CHARS - 3] + "..."
        elif key == "log_tail" and len(value) > LOG_TAIL_BYTES:
            out[key] = value[-LOG_TAIL_BYTES:]
        elif len(value) > FIELD_CHARS:
            out[key] = value[: FIELD_CHARS - 3] + "..."
    return out


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(_plain(message), ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def write_all(fd: int, data: bytes) -> None:
    """Writes every byte: a large record must reach the supervisor as one whole line."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Channel:
    """The two pipes to the supervisor."""

    def __init__(self, commands_fd: int = COMMANDS_FD, events_fd: int = EVENTS_FD) -> None:
        self.commands_fd = commands_fd
        self.events_fd = events_fd

    def send(self, message: dict[str, Any]) -> None:
        write_all(self.events_fd, encode(message))


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


def _thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


def _log_tail(log_fd: int) -> str:
    size = os.fstat(log_fd).st_size
    start = max(0, size - LOG_TAIL_BYTES)
    data = os.pread(log_fd, size - start, start)
    return data.decode("utf-8", "replace")


@dataclass
class _RunningChild:
    """A forked child and what the worker holds for it: its task until the task's `done` is
    out, and, for a kept child, the pipe its next task goes down."""

    task: Any  # None while a kept child waits for a task
    pid: int
    pidfd: int
    events_fd: int  # read end of the child's own event pipe, relayed line by line to fd 4
    log: Any  # the current task's stdout/stderr file
    tasks_fd: int = -1  # write end of the kept child's task pipe; -1: one task, then it exits
    threads: int = 1
    earlier_tasks: int = 0  # tasks this child finished before the current one
    pending: bytes = b""


# What a child sends its worker when a task is over (never relayed to the supervisor).
_FINISHED = b'{"type":"finished"'


class ForkServer:
    """Runs each task in a fresh child forked from this warm process, several at once.

    The supervisor may send a task while others run: one warm worker then serves every job
    slot, so the import and the warm-up are paid once per run, not once per slot. Each child
    writes its events into a pipe of its own; the worker relays them to fd 4 whole line by
    whole line, so lines of concurrent children never mix and a child killed in the middle of
    a line leaves no fragment behind.
    """

    def __init__(self, channel: Channel, cases: dict[str, Any], settings: dict[str, Any]) -> None:
        self.channel = channel
        self.cases = cases
        self.settings = settings
        self._crash_log: Any = None
        self._running_at = 0.0
        self._warmed: set[str] = set()
        self._children: dict[int, _RunningChild] = {}  # by pidfd
        self._by_events: dict[int, _RunningChild] = {}  # by events fd
        self._poller = select.poll()

    def serve(self) -> None:
        commands = self.channel.commands_fd
        self._poller.register(commands, select.POLLIN)
        buffered = b""
        try:
            while True:
                for fd, _ in self._poller.poll():
                    if fd in self._by_events:
                        self._relay(self._by_events[fd])
                    elif fd in self._children:
                        self._finish(self._children[fd])
                    elif fd == commands:
                        chunk = os.read(commands, 1 << 16)
                        if not chunk:
                            return  # the supervisor closed the channel
                        buffered += chunk
                        *lines, buffered = buffered.split(b"\n")
                        for line in lines:
                            if self._command(line) == "quit":
                                return
        finally:
            for child in list(self._children.values()):
                with contextlib.suppress(OSError):
                    os.killpg(child.pid, signal.SIGKILL)
                self._finish(child, announce=False)

    def _command(self, raw: bytes) -> str:
        line = raw.strip()
        if not line:
            return ""
        try:
            command = json.loads(line)
        except ValueError:
            command = None
        if not isinstance(command, dict):
            print(f"capmap.worker: ignoring malformed command: {line[:200]!r}", file=sys.stderr)
            return ""
        kind = command.get("type")
        if kind == "task":
            self.run(command)
        elif kind == "warm_up":
            paths = [str(p) for p in command.get("paths", [])]
            self.channel.send({"type": "warmed", **_warm_up(paths)})
            self._warmed.update(paths)
        elif kind != "quit":
            print(f"capmap.worker: ignoring unknown command type {kind!r}", file=sys.stderr)
        return str(kind)

    def run(self, command: dict[str, Any]) -> None:
        """Forks the child of one task and returns at once; `done` follows when it ends."""
        task = command.get("task")
        case = self.cases.get(command.get("case", ""))
        if case is None:
            self.channel.send(
                {
                    "type": "done",
                    "task": task,
                    "exit": 2,
                    "log_tail": f"capmap.worker: no case named {command.get('case')!r} in the registry",
                }
            )
            return
        paths = [str(p) for p in command.get("paths", ["eager"])]
        threads = max(1, int(command.get("threads", 1)))
        reuse = bool(command.get("reuse", False))
        self._warm(paths)
        if reuse and self._hand_to_kept_child(task, case, paths, threads):
            return

        log = tempfile.TemporaryFile(prefix="capmap-task-")
        # The child waits on this pipe until `started` is out, so no event of the child can
        # reach the supervisor before it knows the child's pid.
        go_read, go_write = os.pipe()
        events_read, events_write = os.pipe()
        # A kept child reads its later tasks from this pipe.
        tasks_read, tasks_write = os.pipe() if reuse else (-1, -1)
        sys.stdout.flush()
        sys.stderr.flush()
        # The fork-safety check, kept for the benches and tests: a thread alive now would be
        # missing in the child, along with any lock it held.
        threads_at_fork = _thread_count() if TIMING_LOG_ENV in os.environ else 0
        forked_at = time.monotonic()
        try:
            pid = os.fork()
        except OSError as exc:
            # Out of processes or memory: the task fails, the worker stays up for the next one.
            for fd in (go_read, go_write, events_read, events_write, tasks_read, tasks_write):
                if fd >= 0:
                    os.close(fd)
            log.close()
            self.channel.send({"type": "done", "task": task, "exit": 71, "log_tail": f"fork failed: {exc}"})
            return
        if pid == 0:
            try:
                os.close(go_write)
                os.close(events_read)
                if tasks_write >= 0:
                    os.close(tasks_write)
                self._child(
                    task,
                    case,
                    paths,
                    threads,
                    log.fileno(),
                    go_read,
                    events_write,
                    (forked_at, threads_at_fork),
                    tasks_read,
                )
            finally:
                os._exit(70)
        os.close(go_read)
        os.close(events_write)
        if tasks_read >= 0:
            os.close(tasks_read)
        with contextlib.suppress(OSError):  # the child may have done it already, or be gone
            os.setpgid(pid, pid)
        child = _RunningChild(task, pid, os.pidfd_open(pid), events_read, log, tasks_write, threads)
        self._children[child.pidfd] = child
        self._by_events[child.events_fd] = child
        self._poller.register(child.pidfd, select.POLLIN)
        self._poller.register(child.events_fd, select.POLLIN)
        self.channel.send({"type": "started", "task": task, "pid": pid})
        with contextlib.suppress(OSError):  # a child that is already gone is reported when reaped
            os.write(go_write, b"g")
        os.close(go_write)

    def _hand_to_kept_child(self, task: Any, case: Any, paths: list[str], threads: int) -> bool:
        """Gives the task to an idle kept child with the same threads; False when there is none."""
        for child in list(self._children.values()):
            if child.task is not None or child.tasks_fd < 0 or child.threads != threads:
                continue
            log = tempfile.TemporaryFile(prefix="capmap-task-")
            order = {
                "task": task,
                "case": case.name,
                "paths": paths,
                "threads": threads,
                # The child opens the worker's descriptor of the log: no file name to clean up.
                "log": f"/proc/{os.getpid()}/fd/{log.fileno()}",
                "sent_at": time.monotonic(),
            }
            child.task, child.log = task, log
            self.channel.send({"type": "started", "task": task, "pid": child.pid})
            try:
                write_all(child.tasks_fd, encode(order))
            except OSError:
                # It died while idle: its end is reported as this task's, like a crash at start.
                return True
            return True
        return False

    def _relay(self, child: _RunningChild, *, final: bool = False) -> None:
        """Forwards the child's complete event lines to the supervisor."""
        while True:
            try:
                chunk = os.read(child.events_fd, 1 << 16)
            except BlockingIOError:
                chunk = None
            if chunk:
                child.pending += chunk
                *lines, child.pending = child.pending.split(b"\n")
                out = []
                for line in lines:
                    if line.startswith(_FINISHED):
                        if out:
                            write_all(self.channel.events_fd, b"".join(out))
                            out = []
                        self._task_finished(child, json.loads(line))
                    else:
                        out.append(line + b"\n")
                if out:
                    write_all(self.channel.events_fd, b"".join(out))
            if not chunk:
                if chunk is not None and child.events_fd in self._by_events:
                    # End of file: every writer is gone; the pidfd says when the child is reaped.
                    self._poller.unregister(child.events_fd)
                    del self._by_events[child.events_fd]
                return
            if not final:
                return

    def _task_finished(self, child: _RunningChild, finished: dict[str, Any]) -> None:
        """A kept child ended its task and waits for the next: `done` goes out now. A child
        that will not take another exits instead, and its exit is its task's `done`."""
        if not finished.get("kept") or child.task is None:
            return
        self._end_strays(child.pid)
        done = {
            "type": "done",
            "task": child.task,
            "exit": int(finished.get("code", 0)),
            "log_tail": _log_tail(child.log.fileno()),
            "kept": True,
            "earlier_tasks": child.earlier_tasks,
        }
        child.log.close()
        child.task, child.log = None, None
        child.earlier_tasks += 1
        self.channel.send(done)

    def _end_strays(self, group: int) -> None:
        """Kills and reaps processes of a kept child's group that became this worker's own."""
        kept = {c.pid for c in self._children.values()}
        for pid in child_state.child_pids():
            if pid in kept:
                continue
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    pgid = int(stat.read().rsplit(")", 1)[1].split()[2])
            except (OSError, ValueError, IndexError):
                continue
            if pgid == group:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)

    def _finish(self, child: _RunningChild, *, announce: bool = True) -> None:
        _, status = os.waitpid(child.pid, 0)
        # Nothing a case started may outlive its task: the processes it left behind are killed
        # and, having become this worker's (it is a subreaper), reaped before `done` goes out.
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while True:
                os.waitpid(-child.pid, 0)
        # What the child wrote before it ended goes out before its `done`; a line it was cut
        # off in the middle of is dropped.
        os.set_blocking(child.events_fd, False)
        self._relay(child, final=True)
        for fd in (child.pidfd, child.events_fd):
            with contextlib.suppress(KeyError, ValueError):
                self._poller.unregister(fd)
            os.close(fd)
        if child.tasks_fd >= 0:
            os.close(child.tasks_fd)
        self._children.pop(child.pidfd, None)
        self._by_events.pop(child.events_fd, None)
        if child.task is None:
            return  # a kept child that ended while idle owes no task a `done`
        done: dict[str, Any] = {"type": "done", "task": child.task}
        if child.earlier_tasks:
            done["earlier_tasks"] = child.earlier_tasks
        if os.WIFSIGNALED(status):
            done["signal"] = _signal_name(os.WTERMSIG(status))
        else:
            done["exit"] = os.waitstatus_to_exitcode(status)
        done["log_tail"] = _log_tail(child.log.fileno())
        child.log.close()
        if announce:
            self.channel.send(done)

    def _warm(self, paths: list[str]) -> None:
        """Loads the probes of paths not warmed up, once, so no child pays for the import again."""
        fresh = [p for p in paths if p not in self._warmed]
        if not fresh:
            return
        self._warmed.update(fresh)
        try:
            from capmap import probes

            probes.warm_up(fresh, run_once=False)
        except Exception as exc:  # noqa: BLE001 - the child meets the same error and records it
            print(f"capmap.worker: cannot load the probes of {fresh}: {exc}", file=sys.stderr)

    def _child(
        self,
        task: Any,
        case: Any,
        paths: list[str],
        threads: int,
        log_fd: int,
        go_fd: int,
        events_fd: int,
        fork_facts: tuple[float, int],
        tasks_fd: int = -1,
    ) -> None:
        forked_at, threads_at_fork = fork_facts
        child_at = time.monotonic()
        parent = os.getppid()
        os.setpgid(0, 0)
        set_parent_death_signal(signal.SIGKILL)
        if os.getppid() != parent or os.read(go_fd, 1) != b"g":
            os._exit(1)  # the worker died before the task began
        os.close(go_fd)
        # Only the worker talks to the supervisor; this child talks to the worker.
        others = [c.tasks_fd for c in self._children.values() if c.tasks_fd >= 0]
        for fd in (
            self.channel.commands_fd,
            self.channel.events_fd,
            *self._children,
            *self._by_events,
            *others,
        ):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.channel = Channel(commands_fd=-1, events_fd=events_fd)
        os.set_inheritable(events_fd, False)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        sys.stdout.reconfigure(line_buffering=True)
        sys.stderr.reconfigure(line_buffering=True)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # A fatal signal leaves the Python stack in the task's log, and the child still dies by
        # it. Its own descriptor: a probe may point fds 1 and 2 elsewhere while a case runs. A
        # kept child puts each later task's log on the same descriptor number.
        self._crash_log = os.fdopen(log_fd, "w")
        faulthandler.enable(file=self._crash_log)
        worker_rss = child_state.resident_bytes(parent)
        ran = 0
        while True:
            code, kept = self._run_in_child(task, case, paths, threads, tasks_fd, worker_rss, ran)
            if TIMING_LOG_ENV in os.environ:
                _log_timing(task, forked_at, child_at, self._running_at, time.monotonic(), threads_at_fork)
            ran += 1
            if kept:
                order = _next_order(tasks_fd)
                if order is not None:
                    task, paths, threads = order["task"], order["paths"], order["threads"]
                    case = self.cases[order["case"]]
                    forked_at = child_at = float(order.get("sent_at", time.monotonic()))
                    threads_at_fork = 0
                    replacement = os.open(order["log"], os.O_WRONLY | os.O_APPEND)
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
            from capmap import probes

            probes.run_task(case, paths, settings, emit)
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
    return json.loads(data)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m capmap.worker", description=__doc__)
    parser.add_argument("--settings", default="{}", help="probe settings as a JSON object")
    parser.add_argument("--list", action="store_true", help="print the hello message on stdout and exit")
    parser.add_argument("registries", nargs="*", help=".py files, folders of them, or importable modules")
    return parser.parse_args(argv)


def _hello(reg: Any, *, with_coverage: bool) -> dict[str, Any]:
    from capmap import environment, registry
    from capmap.probes import catalog

    first_file = next((Path(m.__file__) for m in reg.modules if getattr(m, "__file__", None)), None)
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "pid": os.getpid(),
        **environment.describe(reg.library, first_file),
        "cases": registry.inventory(reg),
        "excludes": [{"name": e.name, "reason": e.reason, "where": e.where} for e in reg.excludes],
        "coverage": _coverage_figure(reg) if with_coverage else None,
        "paths": catalog.announce(),
    }


def _coverage_figure(reg: Any) -> dict[str, Any] | None:
    """covered / total public callables of the probed library, for the page's header."""
    from capmap import coverage

    try:
        report = coverage.measure(reg)
    except Exception:  # noqa: BLE001 - a library we cannot walk simply has no figure
        return None
    if not report.total:
        return None
    return {"covered": report.covered, "total": report.total, "percent": report.percent}


def _warm_up(paths: list[str]) -> dict[str, Any]:
    """Pays the capture paths' first-use start-up here, once, before the children that need it.

    Returns the facts for the `warmed` answer: seconds in all and per path, threads after.
    """
    import gc

    from capmap import probes

    start = time.monotonic()
    timings: dict[str, float] = {}
    try:
        timings = probes.warm_up(paths, run_once=os.environ.get(NO_WARM_UP_ENV) != "1")
    except Exception as exc:  # noqa: BLE001 - children meet the same error and record it
        print(f"capmap.worker: cannot warm up {paths}: {exc}", file=sys.stderr)
    # What the warm-up left alive is shared by every later child, like the imports.
    gc.collect()
    gc.freeze()
    facts = {
        "seconds": round(time.monotonic() - start, 3),
        "paths": timings,
        "threads_after": _thread_count(),
    }
    if TIMING_LOG_ENV in os.environ:
        _log_line({"warm_up_s": facts["seconds"], "paths": timings, "threads_after": facts["threads_after"]})
    return facts


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    say: Callable[[dict[str, Any]], None]
    channel = Channel()
    if args.list:

        def say(message: dict[str, Any]) -> None:
            sys.stdout.write(encode(message).decode())
            sys.stdout.flush()

    else:
        try:
            os.fstat(COMMANDS_FD)
            os.fstat(EVENTS_FD)
        except OSError:
            print("capmap.worker: fds 3 and 4 must be open (the supervisor starts workers)", file=sys.stderr)
            return 2
        say = channel.send
        set_parent_death_signal(signal.SIGKILL)
        become_subreaper()
        claim_compile_cache()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the supervisor's to handle

    try:
        settings = json.loads(args.settings)
        if not isinstance(settings, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        say({"type": "error", "message": f"--settings: {exc}"})
        return 2

    cap_threads_before_torch()
    from capmap import registry
    from capmap.cases import RegistryError

    # With --list, stdout carries only the answer: what the registry prints goes to stderr.
    saved_stdout = os.dup(1) if args.list else -1
    if args.list:
        sys.stdout.flush()
        os.dup2(2, 1)
    try:
        reg = registry.load(args.registries)
    except RegistryError as exc:
        reg = None
        problem = str(exc)
    finally:
        if args.list:
            sys.stdout.flush()
            os.dup2(saved_stdout, 1)
            os.close(saved_stdout)
    if reg is None:
        say({"type": "error", "message": problem})
        return 2
    # Walking the library's public API costs a second or two; only a run stores the figure.
    hello = _hello(reg, with_coverage=not args.list)
    if args.list:
        say(hello)
        return 0

    try:
        import capmap.probes  # noqa: F401 - imported once here so every child starts warm
    except Exception as exc:  # noqa: BLE001 - reported as one line, like a registry error
        say({"type": "error", "message": f"capmap.probes: cannot import: {type(exc).__name__}: {exc}"})
        return 2
    # Objects alive now are shared by every child; keep the collector from touching (and so
    # copying) their pages after each fork.
    import gc

    gc.collect()
    gc.freeze()
    say(hello)
    try:
        ForkServer(channel, reg.by_name(), settings).serve()
    except BrokenPipeError:
        pass  # the supervisor is gone
    return 0


if __name__ == "__main__":
    sys.exit(main())
