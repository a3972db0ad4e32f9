"""``explaincheck plugins``: what is installed and from where; ``plugins check DIST``: the
generic contract checks (core/plugin_checks.py) on one plugin package, one line per failure.

The plugin package of the tests (tests/support/plugin_package, explaincheck-ferrylab) is
installed under other names here, so the tests hold whether or not the suite runs with
explaincheck-ferrylab itself installed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from support.plugin_site import ENTRY_POINTS, PACKAGE, install, run_explaincheck

from explaincheck.core.cli.plugins_command import listing_lines


def test_plugins_lists_each_package_its_entry_points_and_what_they_registered(tmp_path):
    groups = {
        **ENTRY_POINTS,
        "explaincheck.backends": {**ENTRY_POINTS["explaincheck.backends"], "gone": "x:Y"},
    }
    site = install(tmp_path / "site", "explaincheck-listlab", "1.2", groups)
    done = run_explaincheck("plugins", "--json", sites=(site,))
    assert done.returncode == 0, done.stderr
    (found,) = [p for p in json.loads(done.stdout) if p["distribution"] == "explaincheck-listlab"]
    assert found["version"] == "1.2"
    assert Path(found["location"]) == PACKAGE / "explaincheck_ferrylab"  # where its code is
    assert {(e["group"], e["name"]) for e in found["entry_points"]} == {
        ("explaincheck.categories", "within_k"),
        ("explaincheck.backends", "first"),
        ("explaincheck.backends", "gone"),
        ("explaincheck.environments", "ferry"),
    }
    assert found["registered"] == [
        {"kind": "category", "id": "explaincheck-listlab/within_k", "entry_point": "within_k"},
        {"kind": "backend", "id": "explaincheck-listlab/first", "entry_point": "first"},
        {"kind": "environment", "id": "explaincheck-listlab/ferry", "entry_point": "ferry"},
    ]
    assert found["left_out"] == [
        {
            "kind": "backend",
            "entry_point": "gone",
            "name": "",
            "problem": "No module named 'x'",
        }
    ]
    text = run_explaincheck("plugins", sites=(site,)).stdout.splitlines()
    start = text.index(f"explaincheck-listlab 1.2  ({PACKAGE / 'explaincheck_ferrylab'})")
    assert text[start + 1 : start + 9] == [
        "  entry point explaincheck.categories: within_k ="
        " explaincheck_ferrylab.category:WithinMoves",
        "  entry point explaincheck.backends: first = explaincheck_ferrylab.backend:KIND",
        "  entry point explaincheck.backends: gone = x:Y",
        "  entry point explaincheck.environments: ferry = explaincheck_ferrylab:ENVIRONMENTS",
        "  category     explaincheck-listlab/within_k  (entry point within_k)",
        "  backend      explaincheck-listlab/first  (entry point first)",
        "  environment  explaincheck-listlab/ferry  (entry point ferry)",
        "  left out:    backend (entry point gone): No module named 'x'",
    ]


def test_no_plugin_is_one_line():
    assert listing_lines([]) == [
        "no plugin package is installed (entry point groups: explaincheck.categories,"
        " explaincheck.backends, explaincheck.environments)"
    ]


def test_plugins_check_reports_nothing_on_the_plugin_package_of_the_tests(tmp_path):
    site = install(tmp_path / "site", "explaincheck-checklab", "0.3.1", ENTRY_POINTS)
    done = run_explaincheck("plugins", "check", "explaincheck_CheckLab", sites=(site,))
    assert (done.returncode, done.stdout) == (
        0,
        "explaincheck-checklab 0.3.1: 1 category, 1 backend, 1 environment checked;"
        " nothing fails\n",
    ), done.stderr
    as_json = run_explaincheck("plugins", "check", "explaincheck-checklab", "--json", sites=(site,))
    assert json.loads(as_json.stdout) == {
        "distribution": "explaincheck-checklab",
        "version": "0.3.1",
        "checked": {
            "category": ["explaincheck-checklab/within_k"],
            "backend": ["explaincheck-checklab/first"],
            "environment": ["explaincheck-checklab/ferry"],
        },
        "findings": [],
    }


BROKEN = """
import json
from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.backends.registry import BackendKind
from explaincheck_ferrylab.category import WithinMoves


class Unworded(WithinMoves):
    id = "unworded"

    def rephrasings(self, case, oracle):
        return ()


class Chatty(Backend):
    async def answer(self, prompt, case):
        return Reply(text="Well, it depends.")


KIND = BackendKind("chatty", lambda argument, context: Chatty(), "talks", instant=True)
"""


def test_plugins_check_prints_each_failure_in_one_line_and_exits_1(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "broken_lab.py").write_text(BROKEN)
    envs = site / "broken_envs"
    shutil.copytree(PACKAGE / "explaincheck_ferrylab" / "envs" / "ferry", envs / "ferry")
    (envs / "ferry" / "describe.py").write_text("def describe(state):\n    return 'here'\n")
    (site / "broken_envs_entry.py").write_text(f"ROOT = {str(envs)!r}\n")
    groups = {
        "explaincheck.categories": {"unworded": "broken_lab:Unworded"},
        "explaincheck.backends": {"chatty": "broken_lab:KIND"},
        "explaincheck.environments": {"ferry": "broken_envs_entry:ROOT"},
    }
    install(site, "explaincheck-brokenlab", "0.1", groups)
    done = run_explaincheck("plugins", "check", "explaincheck-brokenlab", sites=(site,))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == (
        f"explaincheck-brokenlab 0.1: 1 category, 1 backend, 1 environment checked;"
        f" {len(lines) - 1} failed"
    )
    # one line per broken promise: the first case that shows it, and how many more do
    assert [line.split(": ")[:2] for line in lines[:-1]] == [
        ["environment explaincheck-brokenlab/ferry", "describe.py"],
        ["category explaincheck-brokenlab/unworded", "rephrasings"],
        ["backend explaincheck-brokenlab/chatty", "answers"],
    ]
    assert re.fullmatch(
        r"category explaincheck-brokenlab/unworded: rephrasings: frozen_lake"
        r" explaincheck-brokenlab/unworded/prioritized/0/\d+: explaincheck-brokenlab/unworded"
        r" has no wording 1 \(rephrasings must give wordings 1 to 2\) \(and \d+ more like it\)",
        lines[1],
    ), lines[1]
    assert lines[2].startswith("backend explaincheck-brokenlab/chatty: answers: ")
    assert "its reply is invalid ('Well, it depends.')" in lines[2]
    as_json = run_explaincheck(
        "plugins", "check", "explaincheck-brokenlab", "--json", sites=(site,)
    )
    assert as_json.returncode == 1
    found = json.loads(as_json.stdout, parse_constant=_refuse)["findings"]
    assert len(found) == len(lines) - 1 and set(found[0]) == {"subject", "check", "problem"}


def _refuse(name: str) -> None:
    raise AssertionError(f"not strict JSON: {name}")


def test_plugins_check_of_a_package_not_installed_is_one_line_and_exit_2():
    done = run_explaincheck("plugins", "check", "no-such-lab")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("explaincheck plugins: no plugin package 'no-such-lab' is")
    assert len(done.stderr.splitlines()) == 1
