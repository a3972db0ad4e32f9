"""A report built for a few parts computes those alone, and each part is the full report's."""

from __future__ import annotations

import importlib
import pkgutil

import pandas as pd
import pytest

from explaincheck.core import analysis
from explaincheck.core.analysis import report, scores
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store, results_frame

LLMS = ("random", "oracle", "noisy:0.3", "flaw:distance")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    db = tmp_path_factory.mktemp("on_request") / "results.sqlite"
    args = ["run", "--env", "frozen_lake", "--budget", "3", "--selection", "both"]
    args += [part for llm in LLMS for part in ("--llm", llm)]
    assert main([*args, "--repeat", "2", "--db", str(db)]) == 0
    with Store.open(db, readonly=True) as store:
        campaigns = store.campaigns()
    frame = results_frame(db)
    return frame, campaigns, report.build_report(frame, campaigns=campaigns)


def _same(part: report.Section, whole: report.Section) -> None:
    assert (part.title, part.note, part.figure, part.formats) == (
        whole.title,
        whole.note,
        whole.figure,
        whole.formats,
    )
    pd.testing.assert_frame_equal(part.table, whole.table)
    if whole.bold is None:
        assert part.bold is None
    else:
        pd.testing.assert_frame_equal(part.bold, whole.bold)


def test_every_section_asked_for_alone_is_the_full_reports(results):
    frame, campaigns, full = results
    keys = [section.key for section in full.sections]
    # the data reach the parts whose keys depend on it
    expected = {"campaign_facts", "repeats", "paired_flaw_distance_vs_noisy_0_3", "rq1_per_llm"}
    assert expected <= set(keys)
    assert any(key.startswith("fault_detection") for key in keys)
    for whole in full.sections:
        built = report.build_report(frame, campaigns=campaigns, only={whole.key})
        assert [s.key for s in built.sections] == [whole.key]
        _same(built.sections[0], whole)
        assert built.summary == full.summary


def test_a_group_gives_its_sections_and_the_tab_gets_only_what_it_shows(results):
    frame, campaigns, full = results
    for group in report.GROUPS:
        built = report.build_report(frame, campaigns=campaigns, only={group})
        expected = [s for s in full.sections if report._selects(s.key, report.GROUPS[group])]
        assert expected and [s.key for s in built.sections] == [s.key for s in expected]
    shown = {"table1", "rq2_models", "table1_heatmap"}
    built = report.build_report(frame, campaigns=campaigns, only=shown)
    assert [s.key for s in built.sections] == ["table1", "rq2_models"]
    assert list(built.figures) == ["table1_heatmap"]
    assert list(full.figures)[:2] == ["table1_heatmap", "difficulty"]


def test_cell_scores_run_once_per_build(results, monkeypatch):
    frame, campaigns, full = results
    calls = []
    original = scores.cell_scores

    def counted(rows: pd.DataFrame) -> pd.DataFrame:
        calls.append(len(rows))
        return original(rows)

    for info in pkgutil.iter_modules(analysis.__path__):  # wherever it was imported by name
        module = importlib.import_module(f"{analysis.__name__}.{info.name}")
        if getattr(module, "cell_scores", None) is original:
            monkeypatch.setattr(module, "cell_scores", counted)
    rebuilt = report.build_report(frame, campaigns=campaigns)
    # once for the whole report (23 times on 10,000 rows before); only the fault-detection
    # part still scores subsets of its own (the reference explainers' rows)
    assert calls.count(len(frame)) == 1 and len(calls) <= 3, calls
    assert report.render_text(rebuilt) == report.render_text(full)
    calls.clear()
    report.build_report(frame, campaigns=campaigns, only={"table1", "rq1_wilcoxon", "rq2_models"})
    assert calls == [len(frame)]
