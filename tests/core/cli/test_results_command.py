"""``explaincheck results``: terminal width, filters, one execution in full, hostile text."""

from __future__ import annotations

import json

import pytest

from explaincheck.core.cli.main import main
from explaincheck.core.cli.results_command import cut, selected_verdicts, table
from explaincheck.core.store import ExecutionRecord, Store, now
from explaincheck.core.terminal_text import safe_terminal

LONG_REASON = (
    "answered up; accepted {left} (Q: left=0.7647, down=0.5882, right=0.4902, up=0.451); "
    "the optimal action keeps the agent away from the holes on both sides of the corridor"
)
HOSTILE = "\x1b]0;pwned\x07\x1b[2Jevil\x9b31m\u202egnp.exe\x1b]8;;http://x\x1b\\link"


def record(key: str, llm: str, verdict: str, reason: str = "ok", **changes) -> ExecutionRecord:
    values = dict(
        exec_key=key,
        campaign_id=1,
        environment="frozen_lake",
        model_hash="h",
        llm=llm,
        category="best_action",
        dimension="preference",
        selection="prioritized",
        case_index=3,
        case_key=f"best_action/prioritized/3/{key}",
        positive=True,
        states=[11],
        valuations=[{"r": 2, "c": 3}],
        delta=0.25,
        repeat=0,
        prompt="Which action is best?\nline two of the prompt",
        schema={"type": "object"},
        options={"temperature": 0.0},
        reply='{"answer": "up"}',
        thinking="let me think",
        verdict=verdict,
        reason=reason,
        grading={"satisfy_rule": "absolute"},
        started_at=now(),
        finished_at=now(),
        answer={"answer": "up"},
        expected={"accepted": ["left"]},
    )
    values.update(changes)
    return ExecutionRecord(**values)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.sqlite"
    with Store.open(path) as store:
        store.begin_campaign(
            identity="c",
            settings={},
            environment="frozen_lake",
            model_path="m.prism",
            model_hash="h",
            constants="",
            planned=5,
        )
        store.record(record("a", "random", "pass"))
        store.record(record("b", "random", "fail", LONG_REASON))
        store.record(record("c", "ollama:gemma3:1b", "invalid", "no JSON object in the reply"))
        store.record(record("d", "ollama:gemma3:1b", "error", "timed out", reply=None))
        store.record(record("e", f"x{HOSTILE}", "fail", f"reason {HOSTILE}", reply=HOSTILE))
    return path


def run(capsys, monkeypatch, *args: str, columns: int = 80) -> tuple[int, str, str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    code = main(["results", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("columns", [60, 80, 120, 200])
def test_table_fits_the_terminal(db, capsys, monkeypatch, columns):
    code, out, _ = run(capsys, monkeypatch, "--db", str(db), columns=columns)
    assert code == 0
    lines = out.rstrip("\n").splitlines()
    assert max(len(line) for line in lines) <= columns
    assert lines[-1] == "5 executions: 1 pass, 2 fail, 1 invalid, 1 error"


def test_long_reasons_are_wrapped_and_cut_at_a_word(db):
    from explaincheck.core.store import result_dict

    with Store.open(db, readonly=True) as store:
        rows = [result_dict(r) for r in store.iter_executions(row_id=2)]
    text = table(rows, 80)
    body = text.splitlines()[1:-1]
    assert len(body) == 3  # the reason on three lines, the rest cut
    shown = " ".join(line.strip() for line in body)
    assert "answered up; accepted {left}" in shown and shown.endswith("…")
    last_word = shown.split()[-1].rstrip("…")
    assert last_word in LONG_REASON.split()  # a whole word before the ellipsis
    wide = table(rows, 400).splitlines()[1]
    assert wide.endswith(LONG_REASON)  # room enough: nothing cut


def test_cut_ends_at_a_word_with_an_ellipsis():
    assert cut("short", 10) == "short"
    assert cut("the quick brown fox jumps", 14) == "the quick…"
    assert cut("abcdefghijklmnop", 8) == "abcdefg…"  # one long word: cut with the ellipsis


def test_verdict_fail_includes_invalid_and_values_add_up(db, capsys, monkeypatch):
    assert selected_verdicts(["fail"]) == ("fail", "invalid")
    _, out, _ = run(capsys, monkeypatch, "--db", str(db), "--verdict", "fail", "--json")
    assert sorted(r["verdict"] for r in json.loads(out)) == ["fail", "fail", "invalid"]
    _, out, _ = run(capsys, monkeypatch, "--db", str(db), "--verdict", "invalid", "--json")
    assert [r["verdict"] for r in json.loads(out)] == ["invalid"]
    _, out, _ = run(
        capsys, monkeypatch, "--db", str(db), "--verdict", "pass", "--verdict", "error", "--json"
    )
    assert [r["verdict"] for r in json.loads(out)] == ["pass", "error"]


def test_llm_filter_is_repeatable(db, capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, "--db", str(db), "--llm", "ollama:gemma3:1b", "--json")
    assert [r["id"] for r in json.loads(out)] == [3, 4]
    _, out, _ = run(
        capsys, monkeypatch, "--db", str(db), "--llm", "random", "--llm", "ollama:gemma3:1b"
    )
    assert out.splitlines()[-1] == "4 executions: 1 pass, 1 fail, 1 invalid, 1 error"


def test_id_prints_one_execution_in_full(db, capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "--db", str(db), "--id", "2")
    assert code == 0
    assert "reason     " + LONG_REASON in out  # whole, never cut
    assert "  Which action is best?\n  line two of the prompt" in out
    assert 'reply\n  {"answer": "up"}' in out and "thinking\n  let me think" in out
    assert 'expected   {"accepted": ["left"]}' in out
    assert "state 11: c = 3, r = 2" in out and "δ = 0.25" in out and "class: positive" in out
    code, _, err = run(capsys, monkeypatch, "--db", str(db), "--id", "99")
    assert code == 2 and "no execution 99" in err


def test_hostile_text_never_reaches_the_terminal(db, capsys, monkeypatch):
    for args in ([], ["--id", "5"], ["--verdict", "fail"]):
        _, out, _ = run(capsys, monkeypatch, "--db", str(db), *args, columns=300)
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
        assert "\u202e" not in out
        assert "evil" in out  # the text itself is kept, only the controls go


def test_json_escapes_c1_and_bidi_controls(db, capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, "--db", str(db), "--id", "5", "--json")
    assert "\x9b" not in out and "\u202e" not in out and "\x1b" not in out
    assert "\\u009b" in out and "\\u202e" in out and "\\u001b" in out
    (row,) = json.loads(out)
    assert row["reply"] == HOSTILE  # escaping changes nothing for a JSON reader


def test_safe_terminal_leaves_nothing_a_terminal_acts_on():
    # the escapes are shown as text (tests/core/test_terminal_text.py pins the exact form)
    hostile = "a\x1b[31mred\x1b]0;title\x07\x1b]8;;http://e\x1b\\link\r\x00\x9b2J\u202ertl\u2066"
    shown = safe_terminal(hostile)
    assert not any(ch in shown for ch in "\x1b\x07\r\x00\x9b\u202e\u2066")
    assert "red" in shown and "link" in shown and "rtl" in shown
    assert safe_terminal("tab\tnew\nline é ü 日本 ✓") == "tab\tnew\nline é ü 日本 ✓"


def test_failures_at_80_columns_show_their_states():
    """A failing case is found again by its states (issue 50: `results --verdict fail` at 80
    columns dropped the states before the selection)."""
    rows = [
        {"id": 2, "llm": "random", "category": "bottleneck", "selection": "prioritized",
         "repeat": 0, "states": [13], "verdict": "fail", "answer": {"answer": "no"},
         "reason": "answered no, expected yes: the state is a bottleneck (C_B = 0.08016)"},
        {"id": 7, "llm": "noisy:0.5", "category": "subset_dead_end", "selection": "random",
         "repeat": 0, "states": [1, 4, 9, 12], "verdict": "fail", "answer": {"answer": "no"},
         "reason": "answered no, expected yes: dead end in the subset: L"},
    ]  # fmt: skip
    header, first, *rest = table(rows, 80).splitlines()
    assert header.split()[:4] == ["id", "llm", "category", "states"]
    assert first.split()[:4] == ["2", "random", "bottleneck", "13"]
    assert any(
        line.split()[:4] == ["7", "noisy:0.5", "subset_dead_end", "1,4,9,12"] for line in rest
    )
    assert max(len(line) for line in table(rows, 80).splitlines()) <= 80
