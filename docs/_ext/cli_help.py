"""The `capmap-help` directive: a command's `--help` text, taken from the capmap binary at build time.

    ```{capmap-help} run
    ```

An empty argument gives the top-level `capmap --help`. The binary is the one
`capmap.sphinx.find_capmap_binary` finds: the `capmap_binary` setting, `CAPMAP_BIN`, a `capmap`
beside the running Python, then PATH.
"""

from __future__ import annotations

import subprocess
from typing import Any, ClassVar

from capmap.sphinx import find_capmap_binary
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

SUBCOMMANDS = ("run", "list", "merge", "causes", "render", "diff", "coverage", "repro", "report", "history")
HELP_SECONDS = 60


def help_text(binary: str, subcommand: str) -> str:
    """What `capmap [SUBCOMMAND] --help` prints, without trailing blank lines."""
    command = [binary, *([subcommand] if subcommand else []), "--help"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=HELP_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"{' '.join(command)}: {error}") from error
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout.rstrip()


class CapmapHelp(SphinxDirective):
    """Inserts the `--help` text of one capmap subcommand (or of capmap itself) as a literal block."""

    optional_arguments = 1
    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"caption": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        subcommand = self.arguments[0].strip() if self.arguments else ""
        if subcommand and subcommand not in SUBCOMMANDS:
            known = ", ".join(SUBCOMMANDS)
            raise self.error(f"capmap-help: unknown subcommand {subcommand!r}; one of {known}")
        try:
            binary = find_capmap_binary(str(self.config.capmap_binary or ""))
            text = help_text(binary, subcommand)
        except RuntimeError as error:
            raise self.error(f"capmap-help: {error}") from error
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        self.set_source_info(block)
        return [block]


def setup(app: Sphinx) -> dict[str, Any]:
    if "capmap_binary" not in app.config.values:
        app.add_config_value("capmap_binary", "", "env", types=[str])
    app.add_directive("capmap-help", CapmapHelp)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
