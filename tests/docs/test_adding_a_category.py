"""docs/adding-a-category.md, followed literally: its module and its registration lines, installed
over the package (``support.category_overlay``, nothing written into the checkout), make a
category that the commands of "Try it" run end to end (plan, cases, grading with the ``oracle``
and ``random`` answerers) and that passes the generic per-category tests unedited."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.category_overlay import install, restore

from explaincheck.core.cli.main import main

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "adding-a-category.md"
REGISTRY = REPO / "core" / "taxonomy" / "registry.py"
# the tests the page says run over every registered category
GENERIC = (
    "tests/core/taxonomy/test_taxonomy_properties.py",
    "tests/core/taxonomy/test_taxonomy_metamorphic.py",
    "tests/core/taxonomy/test_pool_counts.py",
    "tests/core/taxonomy/test_prompt_lint.py",
)
PYTEST_OPTIONS = ("-n", "0", "-p", "no:cacheprovider", "-p", "overlay_plugin")  # one process
PLUGIN = """
from pathlib import Path
from support.category_overlay import install


def pytest_configure(config):
    install({module!r}, Path({source!r}), Path({registry!r}))


def pytest_terminal_summary(terminalreporter):
    from explaincheck.core.taxonomy.registry import CATEGORIES

    terminalreporter.write_line("registered: " + ",".join(CATEGORIES))
"""


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), re.S)


def module_name() -> str:
    """The module the page creates, from its heading ``The module: `core/taxonomy/X.py```."""
    found = re.search(r"The module: `core/taxonomy/(\w+)\.py`", DOC.read_text())
    assert found, "the page names the module it creates"
    return found.group(1)


def registered(registry: str) -> str:
    """``registry`` with the page's diff applied: each added line after its context line."""
    (diff,) = blocks("diff")
    lines = registry.splitlines()
    anchor = -1
    for line in diff.splitlines():
        kind, text = line[:1], line[1:]
        if kind == " ":
            anchor = lines.index(text, anchor + 1)
        elif kind == "+":
            anchor += 1
            lines.insert(anchor, text)
    return "\n".join(lines) + "\n"


@pytest.fixture
def overlay(tmp_path):
    """The page's module and registry, written to ``tmp_path`` and installed; undone after."""
    (source,) = blocks("python")
    name = module_name()
    if (REGISTRY.parent / f"{name}.py").exists():
        pytest.skip(f"core/taxonomy/{name}.py is in the checkout: the page was followed for real")
    module_path = tmp_path / f"{name}.py"
    module_path.write_text(source)
    registry_path = tmp_path / "registry.py"
    registry_path.write_text(registered(REGISTRY.read_text()))
    assert registry_path.read_text() != REGISTRY.read_text()
    before = install(name, module_path, registry_path)
    try:
        yield name, module_path, registry_path
    finally:
        restore(name, before)


def test_the_page_makes_two_source_edits(overlay):
    from explaincheck.core.taxonomy.registry import CATEGORIES

    name, _, registry_path = overlay
    added = set(registry_path.read_text().splitlines()) - set(REGISTRY.read_text().splitlines())
    assert len(added) == 2  # the import and the entry
    order = list(CATEGORIES)
    assert order.index(name) == order.index("bottleneck") + 1  # with its dimension


def test_try_it_runs_the_pipeline_with_the_oracle_and_random(overlay, tmp_path, capsys):
    name = overlay[0]
    (commands,) = blocks("bash")
    outputs = []
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        for command in commands.strip().splitlines():
            words = shlex.split(command)
            assert words[0] == "explaincheck"
            capsys.readouterr()
            assert main(words[1:]) == 0, command
            outputs.append(capsys.readouterr().out)
    finally:
        os.chdir(cwd)
    rows = json.loads(outputs[-1])
    assert {r["category"] for r in rows} == {name}
    by_llm = {llm: [r for r in rows if r["llm"] == llm] for llm in ("oracle", "random")}
    assert all(len(found) == 6 for found in by_llm.values())  # budget 6, prioritised
    assert all(r["verdict"] == "pass" for r in by_llm["oracle"])
    assert {r["verdict"] for r in by_llm["random"]} <= {"pass", "fail"}  # always readable
    answers = [r["expected"]["answer"] for r in by_llm["oracle"]]
    assert answers.count("yes") == answers.count("no") == 3  # balanced
    holes = [r["delta"] for r in by_llm["oracle"] if r["expected"]["answer"] == "yes"]
    live = [r["delta"] for r in by_llm["oracle"] if r["expected"]["answer"] == "no"]
    assert holes == [1.0, 1.0, 1.0]  # the page: the holes have δ = 1 ...
    assert live == sorted(live, reverse=True) and max(live) < 1  # ... then the lowest V first


def test_the_generic_tests_pass_with_the_new_category(overlay, tmp_path):
    name, module_path, registry_path = overlay
    plugin = tmp_path / "overlay_plugin.py"
    plugin.write_text(
        PLUGIN.format(module=name, source=str(module_path), registry=str(registry_path))
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO / "tests")])}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *PYTEST_OPTIONS, *GENERIC],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    (listed,) = re.findall(r"^registered: (.*)$", run.stdout, re.M)
    assert name in listed.split(","), listed  # the tests ran with the new category
