"""Starts repro scripts as `python SCRIPT` would, from an interpreter that imported torch once.

Run as a file (`python .../script_launcher.py`), never as `capmap.…`: it imports nothing of
capmap, so a script it starts sees none of it, as in a process of its own. It imports torch, the
exporters and ONNX Runtime once (each where installed), then reads one JSON request per line on
stdin, `{"script": PATH, "log": PATH}`, and for each forks a child that becomes the script's
process: a session and process group of its own, the script's folder as its working directory
and `sys.path[0]`, stdin from /dev/null, stdout and stderr into the log. It answers
`{"pid": N}` once the child runs and `{"status": WAIT_STATUS}` when it has ended. A script
spends four to five seconds importing what the launcher imported once.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

# What every repro script imports first; a module this torch or environment lacks is skipped.
PRELOADED = (
    "numpy",
    "torch",
    "torch.export._trace",
    "torch._dynamo",
    "torch._inductor.compile_fx",
    "onnx",
    "onnxruntime",
    "onnxscript.function_libs.torch_lib.ops",
    "torch.onnx._internal.exporter._compat",
)


def preload() -> None:
    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that does not import is the script's to meet
            pass


def become_script(script: str, log: str) -> None:
    """In the forked child: run `script` as its own `__main__` and leave with its exit code."""
    code = 1
    try:
        os.setsid()
        folder = os.path.dirname(script)
        os.chdir(folder)
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(null)
        os.close(out)
        sys.argv = [os.path.basename(script)]
        sys.path[0] = folder
        import runpy

        try:
            runpy.run_path(os.path.basename(script), run_name="__main__")
            code = 0
        except SystemExit as done:
            code = _exit_code(done.code)
        except BaseException:  # noqa: BLE001 - reported the way Python reports an uncaught one
            sys.excepthook(*sys.exc_info())
            code = 1
        import atexit

        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    print(value, file=sys.stderr)
    return 1


def serve(answers_fd: int) -> None:
    answers = os.fdopen(answers_fd, "w", buffering=1)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            answers.close()
            become_script(request["script"], request["log"])
        answers.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        answers.write(json.dumps({"status": status}) + "\n")


if __name__ == "__main__":
    # The answers keep the pipe the caller reads; whatever an import prints goes to stderr.
    answers_fd = os.dup(1)
    os.dup2(2, 1)
    preload()
    serve(answers_fd)
