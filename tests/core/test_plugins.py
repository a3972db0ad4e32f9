"""A plugin package found by entry point adds a category, a backend and an environment: the
package is docs/plugins.md's own files, installed as a ``dist-info`` folder on ``sys.path``, and a
campaign runs with all three in a fresh process (the registries read entry points on import)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "plugins.md"


def install_page_plugin(site: Path) -> None:
    """The page's files under ``site``, and a dist-info with the entry points of its
    pyproject block (what ``pip install`` would write)."""
    text = PAGE.read_text(encoding="utf-8")
    for path, body in re.findall(r"File `([^`]+)`:\n\n```\w*\n(.*?)\n```", text, flags=re.S):
        target = site / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body + "\n", encoding="utf-8")
    project = tomllib.loads(re.search(r"```toml\n(\[project\].*?)\n```", text, re.S).group(1))
    info = site / "explaincheck_mylab-0.1.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: explaincheck-mylab\n")
    groups = project["project"]["entry-points"]
    lines = [
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
        for group, points in groups.items()
    ]
    info.joinpath("entry_points.txt").write_text("\n".join(lines))


def explaincheck(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", "explaincheck.core.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)


def test_a_plugin_package_adds_its_category_backend_and_environment(tmp_path):
    site = tmp_path / "site"
    install_page_plugin(site)
    db = tmp_path / "mylab.sqlite"
    done = explaincheck(
        site, "run", "--env", "walk", "--llm", "coin", "--llm", "oracle",
        "--categories", "lost,satisfy", "--budget", "4", "--db", str(db),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = explaincheck(site, "results", "--db", str(db), "--json")
    rows = json.loads(shown.stdout)
    assert {(r["llm"], r["category"]) for r in rows} == {
        (llm, category) for llm in ("coin", "oracle") for category in ("lost", "satisfy")
    }
    assert {r["environment"] for r in rows} == {"walk"}
    lost = [r for r in rows if r["category"] == "lost" and r["llm"] == "oracle"]
    assert lost and all(r["verdict"] == "pass" for r in lost)  # the plugin's truth, graded
    # the walk has a dead end (x = 0) and live states: the balanced category asks one of each
    assert sorted(r["expected"]["answer"] for r in lost) == ["no", "yes"]
    envs = explaincheck(site, "envs", "--json")
    assert "walk" in {e["id"] for e in json.loads(envs.stdout)}


def test_a_plugin_that_does_not_load_is_one_warning_and_left_out(tmp_path):
    site = tmp_path / "site"
    info = site / "broken-0.1.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: broken\n")
    info.joinpath("entry_points.txt").write_text(
        "[explaincheck.backends]\nbad = no_such_module:KIND\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = "from explaincheck.core.backends.registry import KINDS; print(' '.join(KINDS))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0 and "random" in done.stdout.split()
    assert "bad" not in done.stdout.split()
    warnings = [line for line in done.stderr.splitlines() if "plugin 'bad'" in line]
    assert len(warnings) == 1 and "No module named 'no_such_module'" in warnings[0]
    assert "Traceback" not in done.stderr
