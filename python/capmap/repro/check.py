"""Runs a repro script in a fresh process and judges whether it reproduced its record.

The process runs the way the supervisor runs a task: its own process group, a time limit, a
limit on the resident memory of the whole group. A script that dies by a signal, runs past the
limit or grows past the memory limit gets the engine's status (crashed, timeout, oom);
otherwise its last `outcome:` line says what happened.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
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


def run_script(script: Path, timeout: float, memory_limit: int, python: str = sys.executable) -> Outcome:
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [python, script.name],
            cwd=script.parent,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=script_environment(),
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        verdict = ""
        while True:
            try:
                proc.wait(timeout=_POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() > deadline:
                verdict = "timeout"
            elif _group_rss_bytes(proc.pid) > memory_limit:
                verdict = "oom"
            if verdict:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
        # Nothing the script started outlives it.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        log.seek(0)
        output = log.read().decode("utf-8", "replace")
    tail = output[-_OUTPUT_TAIL:]
    if verdict == "timeout":
        return Outcome("timeout", message=f"still running after {timeout:g} s", output_tail=tail)
    if verdict == "oom":
        return Outcome("oom", message=f"more than {memory_limit} bytes resident", output_tail=tail)
    if proc.returncode < 0:
        return Outcome("crashed", signal=_signal_name(-proc.returncode), output_tail=tail)
    at = output.rfind("outcome: ")
    while at > 0 and output[at - 1] != "\n":
        at = output.rfind("outcome: ", 0, at)
    match = _OUTCOME.match(output[at:].strip()) if at >= 0 else None
    if match is None:
        if proc.returncode != 0 and "Traceback (most recent call last)" in output:
            # The script raised before it reached a verdict: the check failed, not the record.
            return Outcome(CHECK_FAILED, exit=proc.returncode, message=last_line(output), output_tail=tail)
        return Outcome("crashed", exit=proc.returncode, message=first_line(output[-500:]), output_tail=tail)
    return Outcome(
        match.group(1), match.group(2) or "", clean_message(match.group(3) or ""), output_tail=tail
    )


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
