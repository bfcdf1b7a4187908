"""How pytest-xdist shares the tests between its workers (scripts/test.sh runs `-n 2 --dist
loadgroup`): a module's tests stay together, so a module fixture (four Sphinx sites, a Slurm
cluster) is made once; the modules that read one session fixture form one group, so that
fixture is computed once per run, not once per worker. The dearest groups are handed out first,
so no long group starts last."""

from __future__ import annotations

import pytest

# Modules that read the same session fixture (tests/python/conftest.py, user_install.py).
SHARED: dict[str, str] = {
    "test_kornia_survey": "kornia-runs",
    "test_kornia_registry_a": "kornia-runs",
    "test_kornia_registry_b": "kornia-runs",
    "test_wheel": "kornia-runs",
    "test_published_survey": "kornia-digests",
    "test_machine_independence": "kornia-digests",
}
# Groups that take a minute or more, dearest first (the table of test-seconds by module that
# scripts/test.sh prints): what is left for the end is short, so neither worker waits long idle.
FIRST = [
    "kornia-runs",
    "test_sphinx_themes",
    "kornia-digests",
    "test_repro",
    "test_function_selection",
    "test_compile_cache",
    "test_changed_selection",
    "test_probes",
    "test_repro_paths",
    "test_aoti",
    "test_engine_worker",
    "test_docs_site",
]


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist declares the mark when it is loaded; a run without it knows the mark too.
    config.addinivalue_line("markers", "xdist_group(name): the worker group of a test (tests/conftest.py)")


def group_of(item: pytest.Item) -> str:
    module = item.path.stem
    return SHARED.get(module, module)


# Before pytest-xdist's own hook, which reads the groups into the tests' ids.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.xdist_group(group_of(item)))
    # A stable sort: within a group, and among the other groups, the order stays the file's.
    rank = {name: index for index, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(group_of(item), len(FIRST)))
