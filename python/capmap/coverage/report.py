"""The coverage figures of one registry (public names and public methods), as JSON and as text."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from capmap.coverage.callables import PublicCallable
from capmap.coverage.methods import PublicMethod


@dataclass
class CoverageReport:
    library: str
    version: str
    callables: list[PublicCallable]
    by_case: dict[int, list[str]]
    by_exclusion: dict[int, str]
    stray_cases: list[dict[str, str]]
    methods: list[PublicMethod] = field(default_factory=list)
    methods_by_case: dict[int, list[str]] = field(default_factory=dict)
    methods_by_exclusion: dict[int, str] = field(default_factory=dict)
    # Cases of library objects at public-looking paths that the API does not export
    # (kornia.feature.siftdesc.sift_describe): counted nowhere, and not mistakes either.
    unlisted_cases: list[dict[str, str]] = field(default_factory=list)
    # Public names bound to a private object of a private module (torchmetrics.functional.
    # image_gradients is torchmetrics.functional.image._deprecated._image_gradients): the
    # library's wrappers of deprecated imports, left out of both figures.
    deprecated: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.callables)

    @property
    def covered(self) -> int:
        return sum(1 for c in self.callables if id(c.obj) in self.by_case or id(c.obj) in self.by_exclusion)

    @property
    def percent(self) -> float:
        return round(100.0 * self.covered / self.total, 2) if self.total else 100.0

    def missing(self) -> dict[str, list[str]]:
        grouped: dict[str, list[str]] = defaultdict(list)
        for c in self.callables:
            if id(c.obj) not in self.by_case and id(c.obj) not in self.by_exclusion:
                grouped[c.module].append(c.canonical.rsplit(".", 1)[1])
        return {m: sorted(names) for m, names in sorted(grouped.items())}

    @property
    def methods_total(self) -> int:
        return len(self.methods)

    @property
    def methods_covered(self) -> int:
        return sum(1 for m in self.methods if self._method_done(m))

    @property
    def methods_percent(self) -> float:
        total = self.methods_total
        return round(100.0 * self.methods_covered / total, 2) if total else 100.0

    def _method_done(self, m: PublicMethod) -> bool:
        return id(m.func) in self.methods_by_case or id(m.func) in self.methods_by_exclusion

    def methods_missing(self) -> dict[str, list[str]]:
        """Uncovered methods grouped by the class that names them (its shortest public name)."""
        grouped: dict[str, list[str]] = defaultdict(list)
        for m in self.methods:
            if not self._method_done(m):
                grouped[m.owner].append(m.canonical.rsplit(".", 1)[1])
        return {owner: sorted(names) for owner, names in sorted(grouped.items())}

    def methods_json(self) -> dict[str, Any]:
        return {
            "covered": self.methods_covered,
            "total": self.methods_total,
            "percent": self.methods_percent,
            "by_cases": sum(1 for m in self.methods if id(m.func) in self.methods_by_case),
            "excluded": sum(
                1
                for m in self.methods
                if id(m.func) in self.methods_by_exclusion and id(m.func) not in self.methods_by_case
            ),
            "missing": self.methods_missing(),
        }

    def packages(self) -> dict[str, dict[str, int]]:
        """Covered and total names per top package (`torchmetrics.functional`)."""
        counts: dict[str, dict[str, int]] = {}
        for c in self.callables:
            entry = counts.setdefault(".".join(c.module.split(".")[:2]), {"covered": 0, "total": 0})
            entry["total"] += 1
            entry["covered"] += int(id(c.obj) in self.by_case or id(c.obj) in self.by_exclusion)
        return dict(sorted(counts.items()))

    def to_json(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "version": self.version,
            "covered": self.covered,
            "total": self.total,
            "percent": self.percent,
            "by_cases": sum(1 for c in self.callables if id(c.obj) in self.by_case),
            "excluded": sum(
                1 for c in self.callables if id(c.obj) in self.by_exclusion and id(c.obj) not in self.by_case
            ),
            "missing": self.missing(),
            "stray_cases": self.stray_cases,
            "unlisted_cases": self.unlisted_cases,
            "deprecated": self.deprecated,
            "packages": self.packages(),
            "methods": self.methods_json(),
        }


def format_text(report: CoverageReport) -> str:
    data = report.to_json()
    methods = data["methods"]
    lines = [
        f"{report.library} {report.version}: {report.covered}/{report.total} public callables covered "
        f"({report.percent:.1f}%): {data['by_cases']} by cases, {data['excluded']} excluded",
        f"methods: {methods['covered']}/{methods['total']} public methods covered "
        f"({report.methods_percent:.1f}%): {methods['by_cases']} by cases, {methods['excluded']} excluded",
    ]
    missing = report.missing()
    if missing:
        count = sum(len(v) for v in missing.values())
        lines.append(f"missing ({count}):")
        for module, names in missing.items():
            lines.append(f"  {module}: {', '.join(names)}")
    if methods["missing"]:
        count = sum(len(v) for v in methods["missing"].values())
        lines.append(f"missing methods ({count}):")
        for owner, names in methods["missing"].items():
            lines.append(f"  {owner}: {', '.join(names)}")
    if report.deprecated:
        lines.append(
            f"left out: {len(report.deprecated)} deprecated aliases (public names of private wrappers "
            f"that warn and call the new home), e.g. {report.deprecated[0]}"
        )
    if report.unlisted_cases:
        count = len(report.unlisted_cases)
        lines.append(f"cases of {report.library} objects its public API does not export ({count}):")
        for s in report.unlisted_cases:
            lines.append(f"  {s['where']}: {s['case']} -> {s['ref']}")
    if report.stray_cases:
        lines.append(
            f"cases whose target is not a public callable of {report.library} ({len(report.stray_cases)}):"
        )
        for s in report.stray_cases:
            lines.append(f"  {s['where']}: {s['case']} -> {s['ref']}")
    return "\n".join(lines)
