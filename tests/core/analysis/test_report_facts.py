"""The report's campaign facts, its page layout and spelling, and terminal-safe tables."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from analysis_data import small_rows

from explaincheck.core.analysis import plots, report
from explaincheck.core.cli.main import main
from explaincheck.core.store import ExecutionRecord, Store, results_frame, software_version

HOSTILE_LLM = "m\x1b]0;pwned\x07\x1b[2J\x9b1m\u202eevil"
SETTINGS = {
    "budget": 7,
    "categories": [],
    "constants": None,
    "environment": "frozen_lake",
    "goal_label": None,
    "grading": {"satisfy_rule": "half", "satisfy_tolerance": 0.05},
    "llms": ["ollama:gemma3:1b@http://gpu1:11434", "random"],
    "repeat": 3,
    "repeat_temperature": 0.7,
    "seed": 42,
    "selection": "both",
    "unsafe_label": None,
}


def write(path, rows) -> None:
    with Store.open(path) as store:
        campaign = store.begin_campaign(
            identity="c1",
            settings=SETTINGS,
            environment="frozen_lake",
            model_path="/models/frozen_lake/model.prism",
            model_hash="0123456789abcdef0123",
            constants="N=4",
            planned=len(rows),
        )
        for i, r in enumerate(rows):
            store.record(
                ExecutionRecord(
                    exec_key=f"k{i}",
                    campaign_id=campaign,
                    environment=r["environment"],
                    model_hash="h",
                    llm=r["llm"],
                    category=r["category"],
                    dimension=r["dimension"],
                    selection=r["selection"],
                    case_index=r["states"][0],
                    case_key=r["case_key"],
                    positive=None,
                    states=r["states"],
                    valuations=[{}],
                    delta=r["delta"],
                    repeat=r["repeat"],
                    prompt=r["prompt"],
                    schema={},
                    options={"temperature": 0.0, "num_ctx": 4096},
                    reply=r["reply"],
                    verdict=r["verdict"],
                    reason=r["reason"],
                    grading={},
                    started_at="t",
                    finished_at="t",
                    answer=r["answer"],
                    expected=r["expected"],
                    abs_error=r["abs_error"],
                    host="http://gpu1:11434" if r["llm"] != "random" else "",
                )
            )


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "results.sqlite"
    write(path, small_rows())
    return path


def test_html_report_states_the_campaign_facts(db, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["report", "--db", str(db), "--out", str(out), "--format", "html"]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    facts = page[page.index("Campaign facts") : page.index("Table 1")]
    cells = re.findall(r"<t[hd]>([^<]*)</t[hd]>", facts)
    pairs = dict(zip(cells[::2], cells[1::2], strict=False))
    assert pairs["explaincheck"] == software_version()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", pairs["started"])
    assert pairs["environment"] == "frozen_lake"
    assert pairs["constants"] == "N=4"
    assert pairs["model file"] == "/models/frozen_lake/model.prism"
    assert pairs["LLMs"] == "ollama:gemma3:1b@http://gpu1:11434, random"
    assert pairs["budget"] == "7 cases per category"
    assert pairs["seed"] == "42"
    assert pairs["selection"] == "prioritised and random"
    assert pairs["repeats"] == "3 (temperature 0.7)"
    assert pairs["satisfy rule"] == "half: p and V(s) on the same side of ½"
    assert pairs["categories"] == "default"  # an empty list: the default set
    assert "http://gpu1:11434" in facts and "&quot;num_ctx&quot;: 4096" in facts
    assert "Campaign facts" in capsys.readouterr().out


def test_html_page_has_margins_and_one_spelling(db, tmp_path):
    page = report.render_html(
        report.build_report(pd.DataFrame(small_rows()), campaigns=_campaigns(db))
    )
    style = page[page.index("<style>") : page.index("</style>")]
    assert re.search(r"body \{[^}]*padding: 0 2em", style)  # never touches the window edge
    prose = re.sub(r"\w+/prioritized/\d+/\d+", "", page)  # stored case keys keep the value
    assert "prioritized" not in prose
    assert "prioritised" in page


def test_heat_map_text_is_readable():
    figure = plots.table1_heatmap(pd.DataFrame(small_rows()))
    (axes, *_) = figure.axes
    sizes = [t.get_fontsize() for t in axes.texts]
    sizes += [t.get_fontsize() for t in axes.get_xticklabels() + axes.get_yticklabels()]
    assert sizes and min(sizes) >= 8.25  # 11 px at 96 dpi when shown at 100 %
    assert "prioritised/random" in axes.get_title()


def test_terminal_tables_carry_no_escape_sequences(tmp_path, capsys):
    rows = small_rows()
    for r in rows:
        if r["llm"] == "m1":
            r["llm"] = HOSTILE_LLM
    path = tmp_path / "r.sqlite"
    write(path, rows)
    assert main(["report", "--db", str(path), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "\u202e" not in out and "evil" in out


def _campaigns(db):
    with Store.open(db, readonly=True) as store:
        return store.campaigns()


def test_redundant_safer_gets_a_footnote_and_default_campaigns_say_what_they_left_out(tmp_path):
    db = tmp_path / "jug.sqlite"
    common = ["run", "--env", "water_jug", "--llm", "random", "--budget", "2", "--db", str(db)]
    assert main(common) == 0  # default categories: safer left out (D = 1 − V in water_jug)
    assert main([*common, "--categories", "safer"]) == 0  # asked for explicitly
    with Store.open(db, readonly=True) as store:
        campaigns = store.campaigns()
    built = report.build_report(results_frame(db), campaigns=campaigns)
    sections = {s.key: s for s in built.sections}
    note = sections["table1"].note
    assert "safer in water_jug: every run ends in the goal or in an unsafe state" in note
    shown = sections["campaign_facts"].table.loc["categories"].tolist()
    assert "default (left out: safer)" in shown and "safer" in shown
