"""The fork server: one child per task (or a kept child for several tasks, while each leaves no
trace), the task's events relayed to the supervisor, the child's end reported whatever it was."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from capmap import child_state
from capmap.tracing.file_trace import share_code_hashes
from capmap.worker.forked_child import TIMING_LOG_ENV, ForkedChild, TaskOrder, _log_line
from capmap.worker.process_control import (
    _signal_name,
    _thread_count,
    set_parent_death_signal,
)
from capmap.worker.protocol import LOG_TAIL_BYTES, Channel, encode, write_all

# Set to 1 by the survey bench to measure children that start cold (no warm-up run).
NO_WARM_UP_ENV = "CAPMAP_NO_WARM_UP"


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
        # The children of one run parse each library file once between them (file_trace),
        # through the supervisor's folder, which outlives a worker it kills; alone, the
        # worker makes its own.
        given = os.environ.get("CAPMAP_CODE_HASHES", "")
        with contextlib.ExitStack() as stack:
            shared = given
            if not os.path.isdir(given):
                shared = stack.enter_context(tempfile.TemporaryDirectory(prefix="capmap-code-"))
            share_code_hashes(shared)
            try:
                self._serve()
            finally:
                share_code_hashes(None)

    def _serve(self) -> None:
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
                order = TaskOrder(task, case, paths, threads)
                self._child(
                    order, log.fileno(), go_read, events_write, (forked_at, threads_at_fork), tasks_read
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
                out: list[Any] = []
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
            from capmap.probes.task import warm_up

            warm_up(fresh, run_once=False)
        except Exception as exc:  # noqa: BLE001 - the child meets the same error and records it
            print(f"capmap.worker: cannot load the probes of {fresh}: {exc}", file=sys.stderr)

    def _child(
        self,
        order: TaskOrder,
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
        worker_rss = child_state.resident_bytes(parent)
        timing = (forked_at, child_at, threads_at_fork)
        ForkedChild(self.cases, self.settings, self.channel).serve(
            order, log_fd, tasks_fd, timing, worker_rss
        )


def _warm_up(paths: list[str]) -> dict[str, Any]:
    """Pays the capture paths' first-use start-up here, once, before the children that need it.

    Returns the facts for the `warmed` answer: seconds in all and per path, threads after.
    """
    import gc

    from capmap.probes.task import warm_up

    start = time.monotonic()
    timings: dict[str, float] = {}
    try:
        timings = warm_up(paths, run_once=os.environ.get(NO_WARM_UP_ENV) != "1")
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
