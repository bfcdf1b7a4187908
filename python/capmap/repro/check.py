"""Runs a repro script in a fresh process and judges whether it reproduced its record.

The process runs the way the supervisor runs a task: its own process group, a time limit, a
limit on the resident memory of the whole group. A script that dies by a signal, runs past the
limit or grows past the memory limit gets the engine's status (crashed, timeout, oom);
otherwise its last `outcome:` line says what happened.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from capmap.errors import clean_message

DEFAULT_MEMORY_LIMIT = 8 << 30
_POLL_SECONDS = 0.2
_OUTCOME = re.compile(r"^outcome: ([\w-]+)(?: \((\w+)\))?(?:: (.*))?$", re.DOTALL)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_OUTPUT_TAIL = 4000


@dataclass
class Outcome:
    """What a script's run came to, in the record's terms."""

    status: str
    error_type: str = ""
    message: str = ""
    signal: str = ""
    exit: int | None = None
    output_tail: str = ""

    def line(self) -> str:
        """`checker-fail (ValidationError): first line` — what the page and the report show."""
        if self.signal:
            return f"{self.status}: killed by {self.signal}"
        if self.status == CHECK_FAILED:
            return f"the check itself failed (the script raised): {self.message}"
        if self.status == "crashed" and self.exit is not None:
            return f"{self.status}: exit {self.exit}"
        kind = f" ({self.error_type})" if self.error_type else ""
        first = first_line(self.message)
        return f"{self.status}{kind}: {first}" if first else f"{self.status}{kind}"


# The outcome of a script that raised before printing its verdict: the check says nothing of the
# record, and the line it shows is the traceback's last.
CHECK_FAILED = "check-failed"


def last_line(text: str) -> str:
    return next((s.strip() for s in reversed(str(text).splitlines()) if s.strip()), "")


def first_line(text: str) -> str:
    return next((s.strip() for s in str(text).splitlines() if s.strip()), "")


def _group_rss_bytes(pgid: int) -> int:
    """Resident memory of every process in the group (the script and anything it started)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            if int(fields[2]) != pgid:
                continue
            with open(f"/proc/{entry.name}/statm", "rb") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


def script_environment() -> dict[str, str]:
    """The user's environment without capmap's own variables: the script runs as a user would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAPMAP_")}
    return env


class ScriptLauncher:
    """One `script_launcher.py` process for a whole check: it imports torch and the exporters
    once and forks each script from there, so a script does not pay four seconds of imports.
    The script still runs with nothing of capmap imported, in a process group of its own."""

    def __init__(self, python: str = sys.executable) -> None:
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).with_name("script_launcher.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=script_environment(),
        )
        self._pending = b""

    def start(self, script: Path, log: Path) -> int:
        """Forks the script's process; returns its pid (also its process group's id)."""
        assert self.proc.stdin is not None
        request = json.dumps({"script": str(script.resolve()), "log": str(log)}) + "\n"
        try:
            self.proc.stdin.write(request.encode())
            self.proc.stdin.flush()
        except OSError as exc:
            raise LauncherGone(f"the script launcher ended: {exc}") from exc
        answer = self._answer(None)
        assert answer is not None
        return int(answer["pid"])

    def ended(self, timeout: float | None) -> int | None:
        """The script's wait status once it has ended, else None after `timeout` seconds."""
        answer = self._answer(timeout)
        return None if answer is None else int(answer["status"])

    def _answer(self, timeout: float | None) -> dict[str, Any] | None:
        # Read from the descriptor itself: a buffered reader could hold the next answer where
        # select() does not see it.
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._pending:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise LauncherGone("the script launcher ended")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class LauncherGone(RuntimeError):
    """The launcher process ended before it answered."""


def run_script(
    script: Path,
    timeout: float,
    memory_limit: int,
    python: str = sys.executable,
    launcher: ScriptLauncher | None = None,
) -> Outcome:
    """Runs `script` as `python SCRIPT` in its folder; with `launcher`, forked from it."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "output"
        pid, ended = _launched(launcher, script, log) or _spawned(python, script, log)
        returncode, verdict = _watch(pid, ended, timeout, memory_limit)
        output = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    tail = output[-_OUTPUT_TAIL:]
    if verdict == "timeout":
        return Outcome("timeout", message=f"still running after {timeout:g} s", output_tail=tail)
    if verdict == "oom":
        return Outcome("oom", message=f"more than {memory_limit} bytes resident", output_tail=tail)
    if returncode < 0:
        return Outcome("crashed", signal=_signal_name(-returncode), output_tail=tail)
    at = output.rfind("outcome: ")
    while at > 0 and output[at - 1] != "\n":
        at = output.rfind("outcome: ", 0, at)
    match = _OUTCOME.match(output[at:].strip()) if at >= 0 else None
    if match is None:
        if returncode != 0 and "Traceback (most recent call last)" in output:
            # The script raised before it reached a verdict: the check failed, not the record.
            return Outcome(CHECK_FAILED, exit=returncode, message=last_line(output), output_tail=tail)
        return Outcome("crashed", exit=returncode, message=first_line(output[-500:]), output_tail=tail)
    return Outcome(
        match.group(1), match.group(2) or "", clean_message(match.group(3) or ""), output_tail=tail
    )


# A started script: its pid, and a wait for its exit code (None while it still runs).
_Started = tuple[int, Callable[[float], "int | None"]]


def _launched(launcher: ScriptLauncher | None, script: Path, log: Path) -> _Started | None:
    if launcher is None:
        return None
    try:
        pid = launcher.start(script, log)
    except LauncherGone:
        return None  # started the plain way instead

    def ended(timeout: float) -> int | None:
        status = launcher.ended(timeout)
        return None if status is None else os.waitstatus_to_exitcode(status)

    return pid, ended


def _spawned(python: str, script: Path, log: Path) -> _Started:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [python, script.name],
            cwd=script.parent,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=script_environment(),
            start_new_session=True,
        )

    def ended(timeout: float) -> int | None:
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    return proc.pid, ended


def _watch(
    pid: int, ended: Callable[[float], int | None], timeout: float, memory_limit: int
) -> tuple[int, str]:
    """Waits for the script's process `pid` (the leader of its own group) to end, killing its
    group past the time or memory limit. Returns (its exit code, or minus the signal that ended
    it; "timeout", "oom" or "")."""
    deadline = time.monotonic() + timeout
    verdict = ""
    while True:
        returncode = ended(_POLL_SECONDS)
        if returncode is not None:
            break
        if time.monotonic() > deadline:
            verdict = "timeout"
        elif _group_rss_bytes(pid) > memory_limit:
            verdict = "oom"
        if verdict:
            _kill_group(pid)
            while (returncode := ended(_POLL_SECONDS)) is None:
                pass
            break
    # Nothing the script started outlives it.
    _kill_group(pid)
    return returncode, verdict


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def _comparable(text: str) -> str:
    return _ADDRESS.sub("0x?", first_line(text))


def reproduces(record: dict[str, Any], outcome: Outcome) -> bool:
    """Same status, and for a failure the same first message line (addresses blanked)."""
    status = str(record.get("status", ""))
    if status != outcome.status:
        return False
    if status == "crashed":
        if record.get("signal"):
            return bool(record["signal"] == outcome.signal)
        return record.get("exit") == outcome.exit
    if status in ("timeout", "oom"):
        return True
    recorded = _comparable(record.get("message", ""))
    found = _comparable(outcome.message)
    if recorded.endswith("..."):
        return found.startswith(recorded[:-3].rstrip())
    return recorded == found


def limits_for(record: dict[str, Any], timeout: float) -> tuple[float, int]:
    """The time and memory limits a cell's script runs under: the record's own for timeout/oom."""
    status = record.get("status")
    limit = float(record.get("limit_seconds") or timeout) if status == "timeout" else timeout
    memory = (
        int(record.get("limit_bytes") or DEFAULT_MEMORY_LIMIT) if status == "oom" else DEFAULT_MEMORY_LIMIT
    )
    return limit, memory
