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
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

COMMANDS_FD = 3
EVENTS_FD = 4
LOG_TAIL_BYTES = 4096
MESSAGE_CHARS = 2000
# Any other string field longer than this is cut, so one runaway value cannot make a record
# too big for the supervisor to take in.
FIELD_CHARS = 64 * 1024
PR_SET_PDEATHSIG = 1
# Set by the engine bench: children append their fork timings to this file.
TIMING_LOG_ENV = "CAPMAP_TIMING_LOG"
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

    Workers share one machine but must not share inductor's on-disk cache: two children that
    build the same kernel at once can load a half-written library ("file too short"). A slot
    is a folder guarded by an flock, so a slot's cache is reused by the next run's worker and
    compiles stay warm. Returns the lock's descriptor (kept open), or None when the user chose
    a cache folder themselves.
    """
    if "TORCHINDUCTOR_CACHE_DIR" in os.environ:
        return None
    import fcntl
    import tempfile

    base = os.path.join(tempfile.gettempdir(), f"capmap-inductor-{os.getuid()}")
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

    def commands(self) -> Iterator[dict[str, Any]]:
        """Yields commands until the supervisor closes its end."""
        with open(self.commands_fd, "rb", closefd=False) as stream:
            for raw in stream:
                line = raw.strip()
                if not line:
                    continue
                try:
                    command = json.loads(line)
                except ValueError:
                    command = None
                if not isinstance(command, dict):
                    print(f"capmap.worker: ignoring malformed command: {line[:200]!r}", file=sys.stderr)
                    continue
                yield command


def _log_timing(task: Any, forked_at: float, child_at: float, running_at: float, ended_at: float) -> None:
    """One line per task for bench/engine_bench.py: how long fork and child setup took."""
    line = {
        "task": task,
        "fork_s": child_at - forked_at,
        "setup_s": running_at - forked_at,
        "forked_at": forked_at,
        "ended_at": ended_at,
    }
    fd = os.open(os.environ[TIMING_LOG_ENV], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, encode(line))  # one short O_APPEND write: lines of parallel workers never mix
    finally:
        os.close(fd)


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


class ForkServer:
    """Runs each task in a fresh child forked from this warm process."""

    def __init__(self, channel: Channel, cases: dict[str, Any], settings: dict[str, Any]) -> None:
        self.channel = channel
        self.cases = cases
        self.settings = settings
        self._crash_log: Any = None
        self._warmed: set[str] = set()

    def serve(self) -> None:
        for command in self.channel.commands():
            kind = command.get("type")
            if kind == "quit":
                return
            if kind == "task":
                self.run(command)
            else:
                print(f"capmap.worker: ignoring unknown command type {kind!r}", file=sys.stderr)

    def run(self, command: dict[str, Any]) -> None:
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
        self._warm(paths)

        log = tempfile.TemporaryFile(prefix="capmap-task-")
        # The child waits on this pipe until `started` is out, so no event of the child can
        # reach the supervisor before it knows the child's pid.
        go_read, go_write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        forked_at = time.monotonic()
        try:
            pid = os.fork()
        except OSError as exc:
            # Out of processes or memory: the task fails, the worker stays up for the next one.
            for fd in (go_read, go_write):
                os.close(fd)
            log.close()
            self.channel.send({"type": "done", "task": task, "exit": 71, "log_tail": f"fork failed: {exc}"})
            return
        if pid == 0:
            try:
                os.close(go_write)
                self._child(task, case, paths, threads, log.fileno(), go_read, forked_at)
            finally:
                os._exit(70)
        os.close(go_read)
        with contextlib.suppress(OSError):  # the child may have done it already, or be gone
            os.setpgid(pid, pid)
        try:
            self.channel.send({"type": "started", "task": task, "pid": pid})
            with contextlib.suppress(OSError):  # a child that is already gone is reported below
                os.write(go_write, b"g")
            os.close(go_write)
            _, status = os.waitpid(pid, 0)
        except BaseException:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            raise
        # Nothing a case started may outlive its task.
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        done: dict[str, Any] = {"type": "done", "task": task}
        if os.WIFSIGNALED(status):
            done["signal"] = _signal_name(os.WTERMSIG(status))
        else:
            done["exit"] = os.waitstatus_to_exitcode(status)
        done["log_tail"] = _log_tail(log.fileno())
        log.close()
        self.channel.send(done)

    def _warm(self, paths: list[str]) -> None:
        """Loads the probes of new paths here, once, so no child pays for them again."""
        fresh = [p for p in paths if p not in self._warmed]
        if not fresh:
            return
        self._warmed.update(fresh)
        try:
            from capmap import probes

            probes.warm_up(fresh)
        except Exception as exc:  # noqa: BLE001 - the child meets the same error and records it
            print(f"capmap.worker: cannot load the probes of {fresh}: {exc}", file=sys.stderr)

    def _child(
        self, task: Any, case: Any, paths: list[str], threads: int, log_fd: int, go_fd: int, forked_at: float
    ) -> None:
        child_at = time.monotonic()
        parent = os.getppid()
        os.setpgid(0, 0)
        set_parent_death_signal(signal.SIGKILL)
        if os.getppid() != parent or os.read(go_fd, 1) != b"g":
            os._exit(1)  # the worker died before the task began
        os.close(go_fd)
        os.close(self.channel.commands_fd)
        os.set_inheritable(self.channel.events_fd, False)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        sys.stdout.reconfigure(line_buffering=True)
        sys.stderr.reconfigure(line_buffering=True)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # A fatal signal leaves the Python stack in the task's log, and the child still dies by
        # it. Its own descriptor: a probe may point fds 1 and 2 elsewhere while a case runs.
        self._crash_log = os.fdopen(log_fd, "w")
        faulthandler.enable(file=self._crash_log)
        settings = self._cap_child_threads(threads)

        def emit(message: dict[str, Any]) -> None:
            event = dict(message)
            if isinstance(event.get("record"), dict):
                event["record"] = trim_record(event["record"])
            event["task"] = task
            self.channel.send(event)

        code = 0
        running_at = time.monotonic()
        try:
            from capmap import probes

            probes.run_task(case, paths, settings, emit)
        except BaseException:  # noqa: BLE001 - whatever escapes is reported through the exit code
            traceback.print_exc()
            code = 1
        if TIMING_LOG_ENV in os.environ:
            _log_timing(task, forked_at, child_at, running_at, time.monotonic())
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)

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


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m capmap.worker", description=__doc__)
    parser.add_argument("--settings", default="{}", help="probe settings as a JSON object")
    parser.add_argument("--list", action="store_true", help="print the hello message on stdout and exit")
    parser.add_argument("registries", nargs="*", help=".py files, folders of them, or importable modules")
    return parser.parse_args(argv)


def _hello(reg: Any, *, with_coverage: bool) -> dict[str, Any]:
    from capmap import environment, registry

    first_file = next((Path(m.__file__) for m in reg.modules if getattr(m, "__file__", None)), None)
    return {
        "type": "hello",
        "pid": os.getpid(),
        **environment.describe(reg.library, first_file),
        "cases": registry.inventory(reg),
        "excludes": [{"name": e.name, "reason": e.reason, "where": e.where} for e in reg.excludes],
        "coverage": _coverage_figure(reg) if with_coverage else None,
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

    gc.freeze()
    say(hello)
    try:
        ForkServer(channel, reg.by_name(), settings).serve()
    except BrokenPipeError:
        pass  # the supervisor is gone
    return 0


if __name__ == "__main__":
    sys.exit(main())
