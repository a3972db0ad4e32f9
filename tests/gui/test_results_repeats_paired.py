"""Results: "Group repeats" shows one row per case with its k answers, agreement and pass
count; the side-by-side view marks which per-category differences survive Holm."""

from __future__ import annotations

from scipy.stats import binomtest

from explaincheck.core.workspace.presentation.paired_summary import (
    DOES_NOT,
    SURVIVES,
    paired_summary,
)


def repeated_rows() -> list[dict]:
    """Case 1 asked 3 times with one dissenting answer; case 2 three times, all the same."""
    rows = []
    for case, answers, verdicts in (
        ("c1", [0.5, 0.5, 0.9], ["pass", "pass", "fail"]),
        ("c2", [0.2, 0.21, 0.2], ["fail", "fail", "fail"]),
    ):
        for repeat, (answer, verdict) in enumerate(zip(answers, verdicts, strict=True)):
            rows.append(
                {
                    "environment": "frozen_lake",
                    "llm": "local:gemma3-270m",
                    "category": "satisfy",
                    "selection": "prioritized",
                    "case_key": case,
                    "states": [1 if case == "c1" else 2],
                    "repeat": repeat,
                    "verdict": verdict,
                    "answer": {"probability": answer},
                    "delta": 0.1,
                    "prompt": "p",
                    "reply": "r",
                    "reason": "",
                }
            )
    return rows


def test_group_repeats_shows_k_answers_agreement_and_passes(qtbot, window):
    panel = window.results_view.executions
    window.results.add(repeated_rows())
    panel.group_button.click()
    assert panel.group_table.isVisibleTo(panel) and not panel.table.isVisibleTo(panel)
    model = panel.groups
    assert model.rowCount() == 2
    shown = {
        model.data(model.index(r, 3)): [model.data(model.index(r, c)) for c in (4, 5, 6, 7, 8)]
        for r in range(2)
    }
    assert shown["1"] == ["3", "2/3", "⚠ flaky", "no", "0.5 | 0.5 | 0.9"]
    # within the 0.05 tolerance; three fails of three: stable-fail
    assert shown["2"] == ["3", "0/3", "✗ stable", "yes", "0.2 | 0.21 | 0.2"]
    panel.failures.click()  # the filters still apply: only the failed executions are grouped
    assert {model.data(model.index(r, 5)) for r in range(model.rowCount())} == {"0/1", "0/3"}
    panel.group_button.click()
    assert panel.table.isVisibleTo(panel)


def paired_rows() -> list[dict]:
    """A beats B on 12 of 12 discordant satisfy cases and ties on ranking (2 vs 2)."""
    rows = []
    plan = [("satisfy", i, "pass", "fail") for i in range(12)]
    plan += [
        ("ranking", i, "pass" if i < 2 else "fail", "pass" if i >= 8 else "fail") for i in range(10)
    ]
    for category, i, verdict_a, verdict_b in plan:
        for llm, verdict in (("A", verdict_a), ("B", verdict_b)):
            rows.append(
                {
                    "environment": "frozen_lake",
                    "llm": llm,
                    "category": category,
                    "selection": "prioritized",
                    "case_key": f"{category}-{i}",
                    "states": [i],
                    "repeat": 0,
                    "verdict": verdict,
                    "answer": {"yes": verdict == "pass"},
                    "delta": 0.0,
                    "prompt": "p",
                    "reply": "r",
                    "reason": "",
                }
            )
    return rows


def test_paired_summary_matches_mcnemar_and_holm():
    found = {cell["category"]: cell for cell in paired_summary(paired_rows(), "A", "B")}
    p_satisfy = binomtest(0, 12, 0.5).pvalue
    assert abs(found["satisfy"]["p_mcnemar"] - p_satisfy) < 1e-12
    assert found["ranking"]["p_mcnemar"] == 1.0
    assert abs(found["satisfy"]["p_holm"] - 2 * p_satisfy) < 1e-12  # the smallest p, × 2
    assert found["satisfy"]["mark"] == SURVIVES
    assert found["ranking"]["mark"] == DOES_NOT


def test_side_by_side_shows_holm_marks(qtbot, window):
    panel = window.results_view.compare
    window.results.add(paired_rows())
    panel._refill_llms()
    panel.llm_a.setCurrentText("A")
    panel.llm_b.setCurrentText("B")
    qtbot.waitUntil(lambda: panel.stats_table.rowCount() == 3, timeout=30_000)
    marks = {
        panel.stats_table.item(r, 0).text(): panel.stats_table.item(r, 7).text() for r in range(3)
    }
    assert marks["satisfy"] == "survives Holm"
    assert marks["ranking"] == "does not survive"
    assert "survive Holm: satisfy" in panel.stats_note.text()
