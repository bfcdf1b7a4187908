"""What the worker does to its own process: its compile-cache slot, its children's reaper, its
death with the supervisor's; signal names and thread counts."""

from __future__ import annotations

import ctypes
import hashlib
import os
import signal
import tempfile

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def claim_compile_cache() -> int | None:
    """Give this worker an inductor cache folder of its own for as long as it lives.

    The worker's warm-up and all its children compile into it, as one long-lived process
    would: a kernel one case built is found by every later case (models share most of their
    convolution and norm kernels). Children that run at once may share it: inductor builds
    each kernel under a file lock named by its hash and writes its graphs and Python modules
    atomically. A slot is a folder guarded by an flock, so the next run's worker reuses it and
    its compiles start warm. Returns the lock's descriptor (kept open), or None when the user
    chose inductor's folder themselves (then its subfolder for this CPU, `keyed_cache_folder`).

    The slots live in $CAPMAP_COMPILE_SLOTS, set by `capmap run --compile-cache DIR` to DIR's
    folder for this torch and capmap (a folder a CI job keeps between runs); else in the system's
    temporary folder.
    """

    kept = os.environ.get("CAPMAP_COMPILE_SLOTS")
    if kept:
        base = os.path.join(kept, f"kernels-{kernel_key()}")
    elif "TORCHINDUCTOR_CACHE_DIR" in os.environ:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = keyed_cache_folder(os.environ["TORCHINDUCTOR_CACHE_DIR"])
        return None
    else:
        base = os.path.join(tempfile.gettempdir(), f"capmap-inductor-{os.getuid()}-{kernel_key()}")
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


def keyed_cache_folder(chosen: str) -> str:
    """The folder under a user's TORCHINDUCTOR_CACHE_DIR that this CPU and these kernel settings
    compile into, absolute (inductor makes it absolute at first use; a child's first compile
    must not look like a task that changed the environment).

    Torch keys its cache without ATEN_CPU_CAPABILITY: kernels a run under ATEN_CPU_CAPABILITY=avx2
    left in the folder, loaded by a run without it, corrupted the heap (28 of 41 quick-tier
    compiles died from SIGABRT). A folder that already is the keyed one (a worker's own child)
    is kept as it is."""
    folder = os.path.abspath(chosen)
    name = f"kernels-{kernel_key()}"
    return folder if os.path.basename(folder) == name else os.path.join(folder, name)


# The CPU features and settings that choose the kernels torch and inductor build and call.
_KERNEL_FLAGS = ("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "amx_tile")


def kernel_key() -> str:
    """12 hex digits of the CPU's vector features and the kernel settings
    (`capmap.environment.KERNEL_SETTINGS`). Compiled graphs are kept apart by it: a graph
    inductor compiled under one torch ISA (`ATEN_CPU_CAPABILITY`) and loaded under another gave
    wrong values (a float64 convolution off by 1.2, an erf by 1e180), and a CI cache restored
    on a runner with another CPU must not hand it another CPU's kernels."""
    from capmap.environment import KERNEL_SETTINGS

    flags: set[str] = set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    flags = set(value.split())
                    break
    except OSError:
        pass
    parts = [f for f in _KERNEL_FLAGS if f in flags]
    parts += [f"{k}={os.environ[k]}" for k in KERNEL_SETTINGS if k in os.environ]
    return hashlib.sha256(" ".join(parts).encode()).hexdigest()[:12]


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


def _thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"
