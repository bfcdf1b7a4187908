"""How much of a library's public API the registry covers.

`python -m capmap.coverage [REGISTRY...] [--fail-under P] [--json]` walks the probed library's
public API, collects every public callable (function or class defined by the library) and every
public method of those classes, and checks each against the registry's cases and exclusions.
One object reachable under several public names counts once and is covered when any of its
names is. Names and methods are reported as two figures.

By role: callables.py (the public API walk), methods.py (the methods of public classes),
matching.py (what cases and exclusions cover: `measure`), report.py (the figures, as JSON and
text), cli.py (`capmap coverage`).
"""

from capmap.coverage.callables import PublicCallable, is_deprecated_alias, public_callables
from capmap.coverage.cli import main
from capmap.coverage.matching import excluded_by, measure, resolve
from capmap.coverage.methods import ARITHMETIC_DUNDERS, PublicMethod, public_methods
from capmap.coverage.report import CoverageReport, format_text

__all__ = [
    "ARITHMETIC_DUNDERS",
    "CoverageReport",
    "PublicCallable",
    "PublicMethod",
    "excluded_by",
    "format_text",
    "is_deprecated_alias",
    "main",
    "measure",
    "public_callables",
    "public_methods",
    "resolve",
]
