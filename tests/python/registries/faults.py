"""Fault injection: cases that crash, hang, eat memory, flood output or sabotage torch.

Each fault must end in its own record (crashed, timeout, oom, fail ...) while every ordinary
case around it still gets an ok record. Tests copy this file to a uniquely named folder and use
its path as a marker: any process whose command line names it was started for that test.
"""

import ctypes
import os
import subprocess
import sys
import time
from pathlib import Path

import torch
from capmap import case, library

library("faults")

# Above any --memory-limit the tests use, yet a bound, so a supervisor that fails to kill the
# hog cannot take the machine down with it.
HOG_SAFETY_CAP = 3 << 30
HOG_CHUNK = 16 << 20
FLOOD_BYTES = 50 << 20
FLOOD_END = "flood-finished"


def segfault(x: torch.Tensor) -> torch.Tensor:
    ctypes.string_at(0)
    return x


def abort(x: torch.Tensor) -> torch.Tensor:
    os.abort()


def spin(x: torch.Tensor) -> torch.Tensor:
    while True:
        pass


def hog(x: torch.Tensor) -> torch.Tensor:
    held = []
    while len(held) * HOG_CHUNK < HOG_SAFETY_CAP:
        held.append(b"\x01" * HOG_CHUNK)  # bytes are written, so the pages are resident
        time.sleep(0.02)
    time.sleep(3600)
    return x


def exit3(x: torch.Tensor) -> torch.Tensor:
    os._exit(3)


def flood(x: torch.Tensor) -> torch.Tensor:
    line = "y" * 1023 + "\n"
    block = line * 1024
    for _ in range(FLOOD_BYTES // len(block)):
        sys.stdout.write(block)
    print(FLOOD_END, flush=True)
    return x + 1


def _sabotaged(*args: object, **kwargs: object) -> torch.Tensor:
    raise RuntimeError("torch.add was replaced by a previous case")


def poison(x: torch.Tensor) -> torch.Tensor:
    torch.add = _sabotaged  # a module-level change that would leak into later cases without fork
    torch.Tensor.add = _sabotaged
    return x * 2


def add_one(x: torch.Tensor) -> torch.Tensor:
    return torch.add(x, 1)


def add_tensors(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x.add(y)


def raises(x: torch.Tensor) -> torch.Tensor:
    raise ValueError("this case fails in eager on purpose")


def crash_once_when_exporting(x: torch.Tensor) -> torch.Tensor:
    """Dies in the first capture path that traces it (export), and works from then on, so the
    paths after the crash show whether they were run again in a fresh child."""
    mark = Path(__file__).with_name("crashed_once")
    if torch.compiler.is_exporting() and not mark.exists():
        mark.touch()
        ctypes.string_at(0)
    return x * 3


def orphan(x: torch.Tensor) -> torch.Tensor:
    """Leaves a process running after it returns; the worker must end it with the task."""
    subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(300)", os.path.abspath(__file__)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return x + 2


_x = torch.arange(12, dtype=torch.float32).reshape(3, 4)

case("segfault", "faults.crash", segfault, [_x])
case("abort", "faults.crash", abort, [_x])
case("exit3", "faults.crash", exit3, [_x])
case("spin", "faults.hang", spin, [_x])
case("hog", "faults.memory", hog, [_x])
case("flood", "faults.output", flood, [_x])
case("poison", "faults.state", poison, [_x])
case("raises", "faults.eager", raises, [_x])
case("orphan", "faults.process", orphan, [_x])
case("crash_once_when_exporting", "faults.capture", crash_once_when_exporting, [_x])
case("add_one[a]", "ordinary.add", add_one, [_x])
case("add_one[b]", "ordinary.add", add_one, [_x + 1])
case("add_tensors", "ordinary.add", add_tensors, [_x, _x])
case("relu", "ordinary.activation", torch.relu, [_x - 5])
case("skipped", "ordinary.skip", torch.relu, [_x], skip="listed, never run")
