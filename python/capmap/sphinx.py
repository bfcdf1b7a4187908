"""capmap's Sphinx extension: the compatibility page and the version matrix rendered while the
docs build, from the snapshots committed beside them.

In ``conf.py``: ``extensions = ["capmap.sphinx"]``. Then, in any page::

    .. capmap-survey:: _data/snapshot.json
       :baseline: _data/previous.json
       :packages: color, filters

    .. capmap-history:: _data/torch-2.9.1.json _data/snapshot.json

Paths are relative to the page (or, starting with ``/``, to the source folder). The C++ renderer
(``capmap render --rst``, ``capmap history``) writes the page; this module checks the JSON, hands
it over, parses what comes back and declares the JSON files as dependencies of the page, so an
incremental build renders a page again exactly when one of its snapshots changed. Operators link
to the project's own documented objects, or to an intersphinx inventory, under their full name or
a shorter public one (``kornia.metrics.AEPE`` for ``kornia.metrics.endpoint_error.AEPE``);
an undocumented operator stays plain text and warns nothing, even under ``-n``.

Configuration: ``capmap_binary`` (relative to conf.py's folder; default: ``$CAPMAP_BIN``, relative
to the folder sphinx-build runs in, the ``capmap`` beside this Python, then ``PATH``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Parser, directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import ReferenceRole, SphinxDirective, new_document

logger = logging.getLogger(__name__)

ROLE = "capmap-ref"
RENDER_TIMEOUT_S = 600


def find_capmap_binary(configured: str = "") -> str:
    """The capmap executable, as an absolute path (capmap runs from each page's folder): the
    configured path, ``$CAPMAP_BIN`` (relative to the current folder), the one installed beside
    this Python (a venv's), then ``PATH``. Raises RuntimeError saying what was looked at."""
    for candidate in (configured, os.environ.get("CAPMAP_BIN", "")):
        if candidate:
            path = os.path.abspath(candidate)
            if not os.access(path, os.X_OK):
                raise RuntimeError(f"capmap binary {candidate} ({path}) is not an executable file")
            return path
    beside = Path(sys.executable).parent / "capmap"
    if os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("capmap")
    if found:
        return found
    raise RuntimeError("no capmap binary: pip install capmap, or set capmap_binary in conf.py or CAPMAP_BIN")


class SnapshotError(Exception):
    """A snapshot the directive cannot use; the message names the file and the problem."""


def check_json(path: Path, shown: str) -> None:
    """Raises SnapshotError naming the file, and the line and column of a syntax error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SnapshotError(f"{shown}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SnapshotError(f"{shown}: cannot be read: {e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SnapshotError(f"{shown}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from None
    if not isinstance(data, (dict, list)):
        raise SnapshotError(f"{shown}:1: not a snapshot: a JSON {type(data).__name__}")


def run_capmap(binary: str, args: list[str], cwd: Path) -> None:
    """Runs capmap; a failure raises SnapshotError with capmap's own one-line reason."""
    try:
        done = subprocess.run(
            [binary, *args], cwd=cwd, capture_output=True, text=True, timeout=RENDER_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SnapshotError(f"capmap {args[0]} did not run: {e}") from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
        why = lines[-1] if lines else f"exit {done.returncode}"
        raise SnapshotError(why.removeprefix("capmap: "))


class OperatorReference(ReferenceRole):
    """``:capmap-ref:`name <dotted.ref>```: a Python object reference that stays quiet when
    nothing documents the object."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        ref = addnodes.pending_xref(
            self.rawtext,
            refdomain="py",
            reftype="obj",
            reftarget=self.target,
            refexplicit=True,
            refwarn=False,
            refdoc=self.env.docname,
        )
        ref["capmap"] = True
        ref += nodes.inline(self.title, self.title, classes=["cm-op"])
        return [ref], []


def shorter_names(target: str) -> list[str]:
    """Public names a library may document ``a.b.c.D`` under: modules dropped from the middle,
    longest first (``a.b.D``, ``a.c.D``, then ``a.D``)."""
    parts = target.split(".")
    found: list[str] = []
    for dropped in range(1, len(parts) - 1):
        for start in range(len(parts) - 1 - dropped, 0, -1):
            name = ".".join(parts[:start] + parts[start + dropped :])
            if name not in found:
                found.append(name)
    return found


def resolve_shorter_name(
    app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref, contnode: nodes.TextElement
) -> nodes.reference | None:
    """An operator's reference under a shorter public name, in this project or an inventory."""
    if not node.get("capmap"):
        return None
    domain = env.get_domain("py")
    for name in shorter_names(node["reftarget"]):
        attempt = node.deepcopy()
        attempt["reftarget"] = name
        found = domain.resolve_xref(env, node["refdoc"], app.builder, "obj", name, attempt, contnode)
        if found is None and "sphinx.ext.intersphinx" in app.extensions:
            from sphinx.ext.intersphinx import missing_reference

            found = missing_reference(app, env, attempt, contnode)
        if found is not None:
            return found
    return None


def quiet_when_undocumented(app: Sphinx, domain: Any, node: nodes.Element) -> bool | None:
    """An operator nobody documents is plain text, not a broken link."""
    return True if node.get("capmap") else None


class RenderedPage(SphinxDirective):
    """Renders with capmap and inserts the RST it writes as this page's own sections."""

    def snapshot_file(self, argument: str) -> str:
        """The snapshot's path for capmap, which runs in the page's folder (so the version
        matrix names the files as the page does)."""
        rel, absolute = self.env.relfn2path(argument, self.env.docname)
        self.env.note_dependency(rel)
        check_json(Path(absolute), argument)
        return os.path.relpath(absolute, self.page_folder())

    def page_folder(self) -> Path:
        return Path(self.env.doc2path(self.env.docname)).parent

    def insert(self, rst: str, source: str) -> list[nodes.Node]:
        # Parsed as RST whatever the page's own markup (a MyST page too), then its sections
        # and targets take ids unique within the page.
        host = self.state.document
        page = new_document(source, host.settings)
        page.reporter = host.reporter
        Parser().parse(rst, page)
        # Directives such as rst-class leave work for the host's transforms.
        for pending in page.findall(nodes.pending):
            host.note_pending(pending)
        for node in list(page.findall(nodes.Element)):
            if node.get("ids") and node is not page:
                names = list(node["names"])
                node["ids"] = []
                node["names"] = []
                if isinstance(node, nodes.section) and names:
                    node["names"] = names[:1]
                    host.note_implicit_target(node, node)
                else:
                    host.set_id(node)
        return list(page.children)

    def render(self, args: list[str], output: str) -> list[nodes.Node]:
        """Runs capmap with ``{dir}`` in `args` standing for a fresh folder, then inserts the
        RST it wrote there as `output`."""
        try:
            binary = find_capmap_binary(self.config.capmap_binary)
            self.env.note_dependency(os.path.abspath(binary))
            with tempfile.TemporaryDirectory(prefix="capmap-sphinx-") as tmp:
                run_capmap(binary, [a.replace("{dir}", tmp) for a in args], self.page_folder())
                out = Path(tmp) / output
                return self.insert(out.read_text(encoding="utf-8"), str(out))
        except (SnapshotError, RuntimeError) as e:
            logger.error("%s: %s", self.name, e, location=self.get_location())
            return []


class SurveyDirective(RenderedPage):
    """``.. capmap-survey:: SNAPSHOT`` with ``:baseline: SNAPSHOT`` and ``:packages: a, b``."""

    required_arguments = 1
    option_spec = {  # noqa: RUF012 - docutils reads this class attribute
        "baseline": directives.unchanged_required,
        "packages": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        # The page's explorer finds its data by one fixed id (temp_data lives for one page).
        if self.env.temp_data.get("capmap_survey"):
            logger.error(
                "%s: one survey per page (this page has one already)", self.name, location=self.get_location()
            )
            return []
        self.env.temp_data["capmap_survey"] = True
        try:
            snapshot = self.snapshot_file(self.arguments[0])
            args = ["render", snapshot, "--rst", "{dir}/page.rst", "--xref-role", ROLE]
            if "baseline" in self.options:
                baseline = self.snapshot_file(self.options["baseline"])
                args += ["--baseline", baseline]
            if "packages" in self.options:
                packages = [p.strip() for p in self.options["packages"].split(",") if p.strip()]
                args += ["--packages", ",".join(packages)]
        except SnapshotError as e:
            logger.error("%s: %s", self.name, e, location=self.get_location())
            return []
        return self.render(args, "page.rst")


class HistoryDirective(RenderedPage):
    """``.. capmap-history:: SNAPSHOT...``: where each operator works, by torch version."""

    required_arguments = 1
    optional_arguments = 64
    option_spec = {"title": directives.unchanged_required}  # noqa: RUF012

    def run(self) -> list[nodes.Node]:
        try:
            snapshots = [self.snapshot_file(a) for a in self.arguments]
        except SnapshotError as e:
            logger.error("%s: %s", self.name, e, location=self.get_location())
            return []
        args = ["history", *snapshots, "--out", "{dir}"]
        if "title" in self.options:
            args += ["--title", self.options["title"]]
        return self.render(args, "history.rst")


def binary_beside_conf(app: Sphinx, config: Any) -> None:
    """A relative ``capmap_binary`` is relative to conf.py's folder, as Sphinx reads its paths."""
    if config.capmap_binary:
        config.capmap_binary = os.path.join(app.confdir, config.capmap_binary)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("capmap_binary", "", "env", str)
    app.connect("config-inited", binary_beside_conf)
    app.add_role(ROLE, OperatorReference())
    app.add_directive("capmap-survey", SurveyDirective)
    app.add_directive("capmap-history", HistoryDirective)
    app.connect("missing-reference", resolve_shorter_name, priority=900)
    app.connect("warn-missing-reference", quiet_when_undocumented)
    from capmap import __version__

    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
