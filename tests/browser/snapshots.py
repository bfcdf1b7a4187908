"""Hand-made snapshots for the page tests and the page benchmark.

They follow the snapshot contract in docs/reference/snapshot.md and
are written without the merge step, so the page is tested on its own.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

PAGE_PATHS = ("onnx", "export", "compile")

_FAILURE_CATEGORY = {
    "fail": "unclassified",
    "mismatch": "numeric-mismatch",
    "timeout": "timeout",
    "crashed": "crash",
    "oom": "oom",
}


def header(library: str = "kornia", **extra: Any) -> dict[str, Any]:
    h: dict[str, Any] = {
        "tool": "capmap 0.1.0",
        "library": {
            "name": library,
            "version": "0.9.0",
            "revision": "0123456789abcdef",
            "source_url": "https://github.com/kornia/kornia/blob/{revision}/{path}#L{line}",
            "docs_url": "https://kornia.readthedocs.io/en/latest/search.html?q={ref}",
        },
        "versions": {
            "torch": "2.13.0",
            "onnx": "1.18.0",
            "onnxruntime": "1.22.0",
            "onnxscript": "0.3.0",
            "python": "3.11.7",
        },
        "settings": {"opset": 18, "export_strict": False},
        "run_key": "0011223344556677",
        "device": "cpu",
        "cpu": "test cpu",
        "cores": 2,
        "generated_at": "2026-01-15T12:00:00Z",
        "complete": True,
        "missing": 0,
        "paths": ["eager", *PAGE_PATHS],
        "excludes": [],
        "coverage": None,
    }
    h.update(extra)
    return h


def path_result(
    page_status: str,
    cause: str = "",
    category: str = "",
    frame: str = "",
    graph_breaks: int | None = None,
) -> dict[str, Any]:
    raw = {"n/a": "skipped", "ok-breaks": "ok-breaks"}.get(page_status, page_status)
    result: dict[str, Any] = {"status": raw, "page_status": page_status, "seconds": 0.5}
    if cause:
        result.update(cause=cause, category=category, detail=f"{cause} (detail)", message=cause)
    if frame:
        result["frames"] = ["kornia/core/check.py:10 in check", frame]
    if graph_breaks is not None:
        result["graph_breaks"] = graph_breaks
    return result


def case(
    name: str, group: str, paths: dict[str, dict[str, Any]], note: str = "", ref: str = ""
) -> dict[str, Any]:
    operator = name.split("[", 1)[0]
    variant = name.split("[", 1)[1][:-1] if "[" in name else ""
    package, _, section = group.partition(".")
    return {
        "name": name,
        "operator": operator,
        "variant": variant,
        "group": group,
        "package": package,
        "section": section,
        "note": note,
        "ref": ref or f"kornia.{package}.{operator}",
        "where": f"python/capmap/registries/kornia/{package}.py:1",
        "tags": [],
        "skip": None,
        "paths": paths,
    }


def small_snapshot() -> dict[str, Any]:
    """Seven cases whose answer to every filter is worked out by hand in test_page.py."""
    ok = path_result("ok")
    dd_frame = "kornia/geometry/transform/imgwarp.py:120 in warp_affine"
    cases = [
        case("rgb_to_gray", "color.gray", {"onnx": ok, "export": ok, "compile": ok}),
        case(
            "rgb_to_hsv",
            "color.hsv",
            {
                "onnx": ok,
                "export": ok,
                "compile": path_result(
                    "ok-breaks",
                    "graph break on a data-dependent branch",
                    "control-flow",
                    "kornia/color/hsv.py:44 in rgb_to_hsv",
                    graph_breaks=2,
                ),
            },
        ),
        case(
            "warp_affine[bilinear]",
            "geometry.transform",
            {
                "onnx": path_result("fail", "data-dependent output shape", "data-dependent", dd_frame),
                "export": path_result("fail", "data-dependent output shape", "data-dependent", dd_frame),
                "compile": path_result("ok", graph_breaks=0),
            },
            note="align_corners=True",
            ref="kornia.geometry.transform.warp_affine",
        ),
        case(
            "warp_affine[nearest]",
            "geometry.transform",
            {
                "onnx": path_result("mismatch", "outputs differ from eager", "numeric-mismatch"),
                "export": ok,
                "compile": path_result("ok", graph_breaks=0),
            },
            ref="kornia.geometry.transform.warp_affine",
        ),
        case(
            "find_homography_dlt",
            "geometry.homography",
            {
                "onnx": path_result(
                    "fail",
                    "no ONNX lowering for aten::linalg_svd",
                    "missing-onnx-lowering",
                    "kornia/geometry/homography.py:210 in find_homography_dlt",
                ),
                "export": ok,
                "compile": path_result("timeout", "timed out after 300 s", "timeout"),
            },
        ),
        case(
            "canny",
            "filters.canny",
            {
                "onnx": ok,
                "export": path_result(
                    "fail",
                    "unsupported Python construct",
                    "unsupported-python",
                    "kornia/filters/canny.py:77 in canny",
                ),
                "compile": path_result("crashed", "crash (SIGSEGV)", "crash"),
            },
        ),
        case(
            "random_crop",
            "augmentation",
            {p: path_result("n/a", "random output, not compared", "not-applicable") for p in PAGE_PATHS},
            note="random",
        ),
    ]
    cases.sort(key=lambda c: c["name"])
    return {"schema_version": 1, "header": header(), "cases": cases}


HOSTILE = "<script>window.__pwned = 1</script>"


def hostile_snapshot() -> dict[str, Any]:
    """Names, notes and messages that would run script if they were parsed as HTML."""
    quote = '"\'><img src=x onerror="window.__pwned=2">'
    cases = [
        case(
            HOSTILE,
            "evil.<b>section</b>",
            {
                "onnx": path_result(
                    "fail",
                    "</script><script>window.__pwned = 3</script>",
                    "unclassified",
                    "kornia/x.py:1 in f",
                ),
                "export": path_result("mismatch", quote, "numeric-mismatch"),
                "compile": path_result("ok"),
            },
            note="line\u2028separator </script> & \"quotes\" 'single'",
            ref="kornia.evil</script>",
        ),
        case(
            f"plain[{quote}]",
            "evil",
            {"onnx": path_result("ok"), "export": path_result("ok"), "compile": path_result("ok")},
            note="<!-- comment --> @@DATA@@",
        ),
    ]
    h = header(library="<i>lib</i>")
    h["library"]["version"] = "\"1.0'"
    h["library"]["source_url"] = ""
    h["library"]["docs_url"] = ""
    return {"schema_version": 1, "header": h, "cases": cases}


_CAUSES = [
    ("data-dependent output shape", "data-dependent"),
    ("no ONNX lowering for aten::linalg_svd", "missing-onnx-lowering"),
    ("no ONNX lowering for aten::grid_sampler_3d", "missing-onnx-lowering"),
    ("graph break on a data-dependent branch", "control-flow"),
    ("unsupported Python construct", "unsupported-python"),
    ("in-place mutation of an input", "mutation"),
    ("float64 is not supported", "dtype"),
    ("outputs differ from eager", "numeric-mismatch"),
    ("random generator inside the graph", "random-generator"),
    ("internal torch error", "torch-bug"),
]
_PACKAGES = [
    "augmentation",
    "color",
    "contrib",
    "enhance",
    "feature",
    "filters",
    "geometry",
    "losses",
    "metrics",
]


def synthetic_snapshot(count: int, seed: int = 7) -> dict[str, Any]:
    """A large snapshot with a realistic mix of statuses, causes and sections."""
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        # Three variants per operator, as registries often have.
        package = _PACKAGES[(i // 3) % len(_PACKAGES)]
        section = f"{package}_part{(i // 3) % 6}"
        operator = f"{package}_op_{i // 3:05d}"
        paths: dict[str, dict[str, Any]] = {}
        for p in PAGE_PATHS:
            roll = rng.random()
            if roll < 0.7:
                paths[p] = path_result("ok", graph_breaks=0 if p == "compile" else None)
            elif roll < 0.75 and p == "compile":
                paths[p] = path_result(
                    "ok-breaks", *_CAUSES[3], "kornia/a.py:5 in f", graph_breaks=rng.randrange(1, 5)
                )
            elif roll < 0.78:
                paths[p] = path_result("n/a", "eager failed", "eager-failure")
            else:
                status = rng.choice(["fail", "fail", "fail", "mismatch", "timeout", "crashed", "oom"])
                cause, category = rng.choice(_CAUSES)
                if status != "fail":
                    cause, category = f"{status} in {p}", _FAILURE_CATEGORY[status]
                frame = f"kornia/{package}/{section}.py:{rng.randrange(10, 900)} in {operator}"
                paths[p] = path_result(status, cause, category, frame)
        cases.append(
            case(
                f"{operator}[v{i % 3}]",
                f"{package}.{section}",
                paths,
                note=f"note {rng.randrange(1000)}",
            )
        )
    cases.sort(key=lambda c: c["name"])
    return {"schema_version": 1, "header": header(), "cases": cases}


def write_snapshot(snapshot: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(snapshot, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def _with_files(entry: dict[str, Any], *files: str) -> dict[str, Any]:
    entry["files"] = {f: "0011223344556677" for f in files}
    return entry


def public_names_snapshot() -> dict[str, Any]:
    """Cases defined in private modules and found by their public names, with the causes
    the page sorts apart: failures (two missing ONNX lowerings of one kind), a graph
    break of a path that works, a case not run, a mismatch, and a constant export."""
    ok = path_result("ok")
    svd = "No ONNX lowering for torch.linalg.svd (aten._linalg_svd)"
    solve = "No ONNX lowering for torch.linalg.solve (aten._linalg_solve_ex)"
    item = "A tensor value becomes a Python number (`.item()`, int(tensor)) that decides a shape"
    brk = path_result(
        "ok-breaks", "Reads a tensor value back into Python (`.item()`)", "data-dependent", graph_breaks=1
    )
    mismatch = path_result(
        "mismatch",
        "Captured graph runs, but its output differs from eager beyond tolerance",
        "numeric-mismatch",
    )
    mismatch.update(max_abs_diff=0.00105, mismatched=7, check_failed="values")
    constant = {"status": "constant", "page_status": "constant", "seconds": 0.2}
    weights = {
        p: path_result("n/a", "Not run: needs pretrained weights", "not-applicable") for p in PAGE_PATHS
    }
    cases = [
        _with_files(
            case(
                "warp_perspective",
                "geometry.transform.imgwarp",
                {
                    "onnx": path_result("fail", solve, "missing-onnx-lowering"),
                    "export": ok,
                    "compile": path_result("ok", graph_breaks=0),
                },
                ref="kornia.geometry.transform.imgwarp.warp_perspective",
            ),
            "kornia/geometry/transform/imgwarp.py",
        ),
        _with_files(
            case(
                "rgb_to_grayscale",
                "color.gray",
                {"onnx": constant, "export": ok, "compile": path_result("ok", graph_breaks=0)},
                ref="kornia.color.gray.rgb_to_grayscale",
            ),
            "kornia/color/gray.py",
        ),
        _with_files(
            case(
                "RandomGaussianNoise[mean=0.1]",
                "augmentation.2d.intensity",
                {"onnx": mismatch, "export": ok, "compile": path_result("ok", graph_breaks=0)},
                ref="kornia.augmentation._2d.intensity.gaussian_noise.RandomGaussianNoise",
            ),
            "kornia/augmentation/_2d/intensity/gaussian_noise.py",
        ),
        _with_files(
            case(
                "Keypoints",
                "geometry.keypoints",
                {"onnx": ok, "export": ok, "compile": ok},
                ref="kornia.geometry.keypoints.Keypoints",
            ),
            "kornia/geometry/keypoints.py",
        ),
        _with_files(
            case(
                "Keypoints.from_tensor",
                "geometry.keypoints",
                {
                    "onnx": path_result(
                        "fail", item, "data-dependent", "kornia/geometry/keypoints.py:40 in f"
                    ),
                    "export": path_result(
                        "fail", item, "data-dependent", "kornia/geometry/keypoints.py:40 in f"
                    ),
                    "compile": brk,
                },
                ref="kornia.geometry.keypoints.Keypoints",
            ),
            "kornia/geometry/keypoints.py",
        ),
        _with_files(
            case(
                "So3.exp",
                "geometry.liegroup",
                {"onnx": path_result("fail", svd, "missing-onnx-lowering"), "export": ok, "compile": ok},
                ref="kornia.geometry.liegroup.So3",
            ),
            "kornia/geometry/liegroup/so3.py",
        ),
        _with_files(
            case(
                "find_homography_dlt",
                "geometry.homography",
                {"onnx": path_result("fail", svd, "missing-onnx-lowering"), "export": ok, "compile": ok},
                ref="kornia.geometry.homography.find_homography_dlt",
            ),
            "kornia/geometry/homography.py",
        ),
        case("DISK", "feature.disk", weights, ref="kornia.feature.disk.disk.DISK"),
    ]
    cases.sort(key=lambda c: c["name"])
    return {"schema_version": 1, "header": header(path_info=_PATH_INFO), "cases": cases}


# What the paths measure, as their plug-ins describe them (long unbreakable words included).
_PATH_INFO = {
    name: {
        "label": label,
        "short": short,
        "description": description,
        "order": order,
        "reference": name == "eager",
    }
    for name, label, short, order, description in (
        ("eager", "eager", "eager", 0, "the case called as is: the reference"),
        (
            "onnx",
            "ONNX",
            "ONNX",
            10,
            "torch.onnx.export(dynamo=True) of the export path's program, run in ONNX Runtime",
        ),
        ("export", "torch.export", "export", 20, "torch.export.export at the traced shapes, then compared"),
        (
            "compile",
            "torch.compile",
            "compile",
            30,
            "torch.compile (inductor, fullgraph=False): graph breaks",
        ),
    )
}
