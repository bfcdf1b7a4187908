"""The CI recipes under examples/ci: each validates against its published schema (offline), and
the Slurm array and the Kubernetes Indexed Job split a survey into shards that, run here as
separate processes, merge into the same snapshot as one run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from capmap_testing import REPO, python_env
from junitparser import JUnitXml
from slurm_cluster import missing_programs, slurm_cluster

RECIPES = REPO / "examples" / "ci"
REGISTRY = REPO / "tests" / "python" / "registries" / "report_cases.py"
SURVEY = f"{REGISTRY} --paths eager"
SHARDS = 3
# Kubernetes release whose schemas (from the kubernetes-validate package) the manifests must meet.
KUBERNETES = "1.37.0"


def tool(name: str) -> str:
    """A command installed beside this interpreter (requirements-dev.txt)."""
    path = shutil.which(name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    assert path, f"{name} is not installed: pip install -c constraints.txt -r requirements-dev.txt"
    return path


def offline_env() -> dict[str, str]:
    """Proxies that lead nowhere: a validator that reached for the network would fail."""
    env = dict(os.environ)
    env.update(HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9", NO_PROXY="")
    return env


def recipe_env(capmap_bin: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    """`capmap` on PATH (the build under test), results in tmp_path."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    link = bin_dir / "capmap"
    if not link.exists():
        link.symlink_to(capmap_bin)
    env = python_env(**{"CAPMAP_RESULTS": str(tmp_path / "results"), "CAPMAP_ARGS": SURVEY, **extra})
    env["PATH"] = os.pathsep.join([str(bin_dir), env["PATH"]])
    return env


def outcome(snapshot: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(c["name"], p): r["status"] for c in snapshot["cases"] for p, r in c["paths"].items()}


def test_the_github_workflow_meets_the_published_schema(tmp_path: Path) -> None:
    workflow = RECIPES / "github" / "capmap.yml"
    check = [tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows"]
    done = subprocess.run([*check, workflow], capture_output=True, text=True, env=offline_env(), check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # The check is real: a job whose timeout is not a number is refused.
    broken = tmp_path / "broken.yml"
    broken.write_text(workflow.read_text().replace("timeout-minutes: 360", "timeout-minutes: soon"))
    done = subprocess.run([*check, broken], capture_output=True, text=True, env=offline_env(), check=False)
    assert done.returncode == 1 and "timeout-minutes" in done.stdout


def test_the_github_workflow_shards_merge_and_report() -> None:
    workflow = yaml.safe_load((RECIPES / "github" / "capmap.yml").read_text())
    survey, report = workflow["jobs"]["survey"], workflow["jobs"]["report"]
    shards = survey["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1))
    runs = " ".join(step.get("run", "") for step in survey["steps"])
    assert f"--shard ${{{{ matrix.shard }}}}/{len(shards)}" in runs
    # The compile cache is restored before the survey and handed to capmap.
    uses = [step.get("uses", "") for step in survey["steps"]]
    cache = survey["steps"][next(i for i, u in enumerate(uses) if u.startswith("actions/cache@"))]
    (run_step,) = [step for step in survey["steps"] if "capmap run" in step.get("run", "")]
    assert survey["steps"].index(cache) < survey["steps"].index(run_step)
    assert run_step["env"]["CAPMAP_COMPILE_CACHE"] == cache["with"]["path"]
    assert report["needs"] == "survey"
    steps = " ".join(step.get("run", "") + step.get("uses", "") for step in report["steps"])
    for needed in ("capmap merge", "--junit junit.xml", "capmap diff", "--format md", "gh pr comment"):
        assert needed in steps


def test_the_kubernetes_manifests_meet_the_published_schemas(tmp_path: Path) -> None:
    manifests = sorted((RECIPES / "kubernetes").glob("*.yaml"))
    assert len(manifests) == 3
    validate = [tool("kubernetes-validate"), "--strict", "-k", KUBERNETES]
    done = subprocess.run(
        [*validate, *manifests], capture_output=True, text=True, env=offline_env(), check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("passed") == 3
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        (RECIPES / "kubernetes" / "survey-job.yaml").read_text().replace("completions:", "completion:")
    )
    done = subprocess.run([*validate, broken], capture_output=True, text=True, env=offline_env(), check=False)
    assert done.returncode != 0 and "completion" in done.stdout + done.stderr


def container(manifest: Path) -> dict[str, Any]:
    job = yaml.safe_load(manifest.read_text())
    (only,) = job["spec"]["template"]["spec"]["containers"]
    return only


def run_in_parallel(commands: list[tuple[list[str], dict[str, str]]], cwd: Path) -> None:
    processes = [
        subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for argv, env in commands
    ]
    for process in processes:
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, output


def assert_compile_caches(root: Path) -> None:
    """Each shard keeps its compiled kernels in a folder of its own, named by the versions."""
    assert sorted(p.name for p in root.iterdir()) == [f"shard-{i}" for i in range(1, SHARDS + 1)]
    for shard in root.iterdir():
        (versions,) = shard.iterdir()
        assert versions.name.startswith("torch-") and "-capmap-" in versions.name


def check_merged(results: Path, whole: dict[str, Any]) -> None:
    merged = json.loads((results / "snapshot.json").read_text())
    assert merged["header"]["complete"] is True
    assert outcome(merged) == outcome(whole)
    junit = JUnitXml.fromfile(str(results / "junit.xml"))
    assert junit.tests == len(outcome(whole))


@pytest.fixture(scope="module")
def whole(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same survey as one run: what the merged shards must equal."""
    folder = tmp_path_factory.mktemp("whole")
    done = subprocess.run(
        [str(capmap_bin), "run", *SURVEY.split(), "--jobs", "1", "--store", str(folder / "results.db")],
        capture_output=True, text=True, env=python_env(), timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads((folder / "snapshot.json").read_text())


def test_the_slurm_array_runs_as_local_processes_and_merges(
    capmap_bin: Path, tmp_path: Path, whole: dict[str, Any]
) -> None:
    slurm = RECIPES / "slurm"
    # Array indices as `sbatch --array=4-6` would number them: the script maps them to 1..N.
    commands = []
    for i in range(1, SHARDS + 1):
        array = {"SLURM_ARRAY_TASK_ID": str(3 + i), "SLURM_ARRAY_TASK_MIN": "4"}
        array |= {"SLURM_ARRAY_TASK_COUNT": str(SHARDS), "SLURM_CPUS_PER_TASK": "1"}
        commands.append((["bash", str(slurm / "survey.sbatch")], recipe_env(capmap_bin, tmp_path, **array)))
    run_in_parallel(commands, tmp_path)
    results = tmp_path / "results"
    assert sorted(p.name for p in results.glob("shard-*.db")) == [
        f"shard-{i}.db" for i in range(1, SHARDS + 1)
    ]
    assert_compile_caches(results / "compile-cache")
    run_in_parallel([(["bash", str(slurm / "merge.sbatch")], recipe_env(capmap_bin, tmp_path))], tmp_path)
    check_merged(results, whole)
    assert (results / "page.html").exists()


def test_the_slurm_recipe_runs_on_a_real_slurm_cluster(
    capmap_bin: Path, tmp_path: Path, whole: dict[str, Any]
) -> None:
    """submit.sh, as committed, on munged + slurmctld + slurmd: the shard array, then the merge
    job that waits for it, give the snapshot of one run."""
    missing = missing_programs()
    assert not missing, f"{missing} not installed: apt-get install slurm-wlm munge (scripts/test.sh does)"
    # A copy of the recipe folder, byte for byte, so that the jobs' logs land in tmp_path.
    recipe = tmp_path / "slurm"
    shutil.copytree(RECIPES / "slurm", recipe)
    results = tmp_path / "results"
    started = time.monotonic()
    with slurm_cluster() as cluster:
        env = cluster.env(recipe_env(capmap_bin, tmp_path, SHARDS=str(SHARDS)))
        done = subprocess.run(
            ["bash", str(recipe / "submit.sh")],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr + cluster.logs()
        words = done.stdout.split()
        survey, merge = (
            words[words.index("survey") + 2].rstrip(","),
            words[words.index("merge") + 2].rstrip(";"),
        )
        deadline = time.monotonic() + 900
        while cluster.job_state(merge) in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
            assert time.monotonic() < deadline, f"merge job {merge} not done in 900 s\n{cluster.logs()}"
            time.sleep(1)
        logs = "\n".join(p.read_text(errors="replace")[-2000:] for p in sorted(recipe.glob("capmap-*.log")))
        assert cluster.job_state(merge) == "COMPLETED", logs + cluster.logs()
        # One log per array task and one for the merge, written where the jobs ran.
        assert len(list(recipe.glob(f"capmap-survey-{survey}_*.log"))) == SHARDS, logs
        assert (recipe / f"capmap-merge-{merge}.log").exists()
    print(f"real Slurm: {SHARDS} shards and the merge in {time.monotonic() - started:.0f} s")
    assert sorted(p.name for p in results.glob("shard-*.db")) == [
        f"shard-{i}.db" for i in range(1, SHARDS + 1)
    ]
    assert_compile_caches(results / "compile-cache")
    check_merged(results, whole)
    assert (results / "page.html").exists()


def test_the_kubernetes_indexed_job_runs_as_local_processes_and_merges(
    capmap_bin: Path, tmp_path: Path, whole: dict[str, Any]
) -> None:
    survey = container(RECIPES / "kubernetes" / "survey-job.yaml")
    job = yaml.safe_load((RECIPES / "kubernetes" / "survey-job.yaml").read_text())
    assert job["spec"]["completionMode"] == "Indexed"
    declared = {e["name"]: e["value"] for e in survey["env"]}
    assert declared["SHARDS"] == str(job["spec"]["completions"])
    (results := tmp_path / "results").mkdir()
    # Each pod: the container's command, its environment, and the index Kubernetes gives it;
    # here with fewer shards, a small registry and a local folder for the shared volume.
    commands = []
    for index in range(SHARDS):
        local = {"SHARDS": str(SHARDS), "CAPMAP_ARGS": SURVEY, "CAPMAP_RESULTS": str(results)}
        local["CAPMAP_COMPILE_CACHE_ROOT"] = str(results / "compile-cache")
        env = recipe_env(capmap_bin, tmp_path, **{**declared, **local})
        env["JOB_COMPLETION_INDEX"] = str(index)
        commands.append(([*survey["command"], *survey["args"]], env))
    run_in_parallel(commands, tmp_path)
    assert_compile_caches(results / "compile-cache")
    merge = container(RECIPES / "kubernetes" / "merge-job.yaml")
    env = recipe_env(capmap_bin, tmp_path, CAPMAP_RESULTS=str(results))
    run_in_parallel([([*merge["command"], *merge["args"]], env)], tmp_path)
    check_merged(results, whole)
