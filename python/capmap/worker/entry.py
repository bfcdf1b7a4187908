"""`python -m capmap.worker`: arguments, the hello, the warm-up, then the fork server."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from capmap.torch_threads import cap_threads_before_torch
from capmap.worker.fork_server import ForkServer
from capmap.worker.process_control import become_subreaper, claim_compile_cache, set_parent_death_signal
from capmap.worker.protocol import COMMANDS_FD, EVENTS_FD, PROTOCOL_VERSION, Channel, encode


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
        **environment.describe(reg.library, first_file, catalog.versioned_packages()),
        "cases": registry.inventory(reg),
        "excludes": [{"name": e.name, "reason": e.reason, "where": e.where} for e in reg.excludes],
        "coverage": _coverage_figure(reg) if with_coverage else None,
        "paths": catalog.announce(),
        "unavailable": catalog.unavailable(),
        # Lines the engine prints once per run (not once per worker): the library inferred.
        "notes": list(reg.notes),
    }


def _coverage_figure(reg: Any) -> dict[str, Any] | None:
    """covered / total public callables of the probed library, for the page's header; None for a
    registry that names no library and none was inferred (torch itself is no surveyed library,
    and walking its public API costs a worker two seconds at every start)."""
    if not reg.library.get("name"):
        return None
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
        import capmap.probes.task  # noqa: F401 - imported once here so every child starts warm
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
