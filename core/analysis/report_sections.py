"""The report's parts: one function per part of ``build_report``, each making its sections.

Why apart from report.py: report.py renders (text, Markdown, CSV, HTML) and lists the parts in
their order (``PARTS``); what a part computes and says lives here, one small function each, so
a new section is a function here (or in a module of its own) and one line in ``PARTS``. Every
function takes the ``ReportInputs`` computed once per build (the cell scores above all) and is
called only when its part is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

from explaincheck.core.analysis import (
    case_quality,
    chance,
    cost,
    difficulty,
    examples,
    facts,
    models,
    paired,
    prioritization,
    robustness,
    rq1_cells,
    rq1_power,
    satisfy,
    scores,
)
from explaincheck.core.analysis.fault_detection import fault_sections
from explaincheck.core.analysis.layout import BASELINE_LLM, CEILING_LLM
from explaincheck.core.analysis.report_parts import CSV, HTML, MARKDOWN, Section
from explaincheck.core.campaign.prices import money, money_table
from explaincheck.core.plural import counted
from explaincheck.core.store import CampaignRow, now, software_version
from explaincheck.core.taxonomy.base import PRIORITIZED
from explaincheck.core.taxonomy.case_rules import SMALL_GAP


@dataclass
class ReportInputs:
    """What every part reads, computed once per build: the scored rows (without the reading
    cases when they are excluded), all rows (the reading-case tables count them), the cell
    scores, the execution counts and the figures made so far (the fault part adds its own)."""

    results: pd.DataFrame
    all_results: pd.DataFrame
    cells: pd.DataFrame
    counts: pd.DataFrame
    campaigns: Sequence[CampaignRow] = ()
    tolerance: float = satisfy.DEFAULT_TOLERANCE
    exclude_reading: bool = False
    figures: dict[str, Figure] = field(default_factory=dict)
    include_degenerate: bool = False  # count the cells that measure nothing in the means

    @property
    def measured(self) -> pd.DataFrame:
        """The scored rows the means and RQ1 read: those of degenerate cells left out (unless
        they are included)."""
        return self.results if self.include_degenerate else case_quality.measured(self.results)

    @property
    def measured_cells(self) -> pd.DataFrame:
        """The cells the means and RQ1 read (``counted``)."""
        if "counted" not in self.cells.columns:
            return self.cells
        return self.cells[self.cells["counted"].astype(bool)].reset_index(drop=True)

    @property
    def selections(self) -> str:
        """The selections present, in the titles' words ("prioritised/random")."""
        present = scores.selections_present(self.results)
        return "/".join(str(prose(s)) for s in present) or "none"


LEFT_OUT = f"the {CEILING_LLM} answerer is left out (1.00 by construction)"


def table1(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "table1",
            f"Table 1 — score per category ({i.selections})",
            scores.table1(i.results, i.cells),
            note=_table1_note(i.campaigns, i.exclude_reading, i.include_degenerate)
            + uncertain_note(i.counts),
            bold=scores.harder_mask(i.results, i.cells),
            figure="table1_heatmap",
        )
    ]


def table1_intervals(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "table1_intervals",
            f"Table 1 with 95% Wilson intervals and the number of cases ({i.selections})",
            scores.interval_table(i.results, i.cells),
            note=(
                "score [low, high] n=cases: with 95% confidence the explainer's pass "
                "rate on cases like these lies in the interval (Wilson score interval "
                "over the cases). Wide intervals mean few cases: differences inside "
                "them are not evidence."
            ),
        )
    ]


def invalid_share(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "invalid_share",
            f"Share of invalid replies per category ({i.selections})",
            scores.invalid_table(i.results, i.cells),
        )
    ]


def executions(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "executions",
            "Executions per environment and LLM",
            i.counts,
            note=(
                "errors (no reply) are excluded from every score and retried on resume;"
                " uncertain verdicts (the oracle's intervals cannot decide them) are excluded"
                " and kept."
            ),
        )
    ]


def cases(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "cases",
            f"Scored cases per category ({i.selections})",
            scores.cases_table(i.results, i.cells),
            note="For the balanced binary categories this is 2k (k per class).",
        )
    ]


def rq1_counts(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "rq1_counts",
            "RQ1 — prioritisation effect over comparable cells (the paper's count)",
            prioritization.effect_counts(i.measured, cells=i.measured_cells),
            note=(
                "harder = prioritised score below random (uncorrected for chance, as "
                f"in the paper: see the tests below); {LEFT_OUT}."
            ),
        )
    ]


def rq1_wilcoxon(i: ReportInputs) -> list[Section]:
    tests = prioritization.rq1_tests(i.measured, cells=i.measured_cells)
    return [
        Section(
            "rq1_wilcoxon",
            "RQ1 — one-sided Wilcoxon signed-rank tests (headline: chance-corrected)",
            tests.drop(columns="conclusion"),
            note=f"{_rq1_note(tests)} {rq1_power.power_sentence(i.measured)}"
            + _degenerate_left_out(i),
        )
    ]


def _degenerate_left_out(i: ReportInputs) -> str:
    """The sentence saying how many cells measure nothing and whether they count."""
    if "degenerate" not in i.cells.columns:
        return ""
    found = int((i.cells["degenerate"] != "").sum())
    if not found:
        return ""
    if i.include_degenerate:
        return f" {counted(found, 'cell')} that measure nothing on their model are counted here."
    return (
        f" {counted(found, 'cell')} that measure nothing on their model ("
        f"{scores.DEGENERATE_MARK} in Table 1) are left out; `report --include-degenerate`"
        " counts them."
    )


def rq1_cell_table(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "rq1_cells",
            "RQ1 — cells under both selections (same_cases: no contrast, left out)",
            rq1_cells.rq1_cells(i.measured),
            formats=frozenset({CSV}),
        )
    ]


def rq2_models(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "rq2_models",
            "RQ2 — mean score per LLM over environments",
            models.model_comparison(i.measured, cells=i.measured_cells),
            note=(
                "mean = over environments of the Table 1 average; baseline = the "
                "random answerer on the same environments; vs_baseline = mean − "
                "baseline."
            ),
        )
    ]


def rq3_difficulty(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "rq3_difficulty",
            "RQ3 — category difficulty (hardest first)",
            difficulty.category_difficulty(i.measured, cells=i.measured_cells)
            .drop(columns=["dimension", "label"])
            .rename(columns={"dimension_label": "dimension"}),
            note=f"Mean cell score pooled over LLMs and both selections; {LEFT_OUT}.",
            figure="difficulty",
        )
    ]


def satisfy_errors(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "satisfy_errors",
            "Satisfy — absolute error and both grading rules",
            satisfy.satisfy_errors(i.results, i.tolerance),
            note=(
                f"score_absolute: |p − V(s)| ≤ {i.tolerance:g}; score_half: p and V(s) "
                "on the same side of ½; score_stored: the verdicts stored by the run. "
                "mae over answered (parsed) replies."
            ),
        )
    ]


def invalid_examples(i: ReportInputs) -> list[Section]:
    return [
        Section(
            "invalid_examples",
            "Examples of invalid replies",
            examples.invalid_examples(i.results),
            formats=frozenset({MARKDOWN, HTML, CSV}),
        )
    ]


def all_cells(i: ReportInputs) -> list[Section]:
    return [Section("cells", "All cells (numeric)", i.cells, formats=frozenset({CSV}))]


def _table1_note(
    campaigns: Sequence[CampaignRow], exclude_reading: bool, include_degenerate: bool = False
) -> str:
    """How to read Table 1, with the categories' caveats and the degenerate campaigns."""
    return (
        "Score = share of passing cases (a case's score is the share of its passing "
        "repeats). – = not applicable (no case for that environment); err = no reply "
        "at all. Invalid replies count as not passed; errors are excluded. Bold: "
        "prioritised score lower than random (* on the terminal). "
        f"{scores.SMALL_MARK} = fewer than {scores.SMALL_CELL} cases: a rough "
        "estimate (see the intervals below)."
        + "".join(f" Note — {line}" for line in facts.category_caveats(campaigns))
        + "".join(
            f" Caveat — {line}"
            for line in case_quality.degenerate_notes(campaigns, include_degenerate)
        )
        + (" Reading cases are left out of every score." if exclude_reading else "")
        + satisfy.delta_note(campaigns)
    )


def uncertain_note(counts: pd.DataFrame) -> str:
    """The line under Table 1 counting the verdicts the oracle's intervals could not decide
    (verified method, docs/method.md "Uncertain verdicts"); "" when there are none."""
    found = int(counts["uncertain"].sum()) if "uncertain" in counts and len(counts) else 0
    if not found:
        return ""
    return (
        f" {counted(found, 'uncertain verdict')} (could flip inside the oracle's value"
        " intervals) left out of every score."
    )


def prose(selection: object) -> object:
    """A selection in the report's prose: British "prioritised" (the stored value keeps the
    contract spelling ``prioritized``)."""
    return "prioritised" if selection == PRIORITIZED else selection


def campaign_facts(i: ReportInputs) -> list[Section]:
    """The campaign facts and the LLM settings, first in every format."""
    if not i.campaigns:
        return []
    return [
        Section(
            "campaign_facts",
            "Campaign facts",
            facts.campaign_facts(i.campaigns),
            note=f"Report made by explaincheck {software_version()} on {now()[:10]}.",
        ),
        Section(
            "llm_settings",
            "LLMs and their settings",
            facts.llm_settings(i.results),
            note="hosts without credentials; options as sent with every request.",
        ),
    ]


def quality(i: ReportInputs) -> list[Section]:
    """Per cell, the share of reading cases and the cases decided by less than 0.01 (over all
    rows: the reading cases are counted even where the scores leave them out)."""
    results, excluded = i.all_results, i.exclude_reading
    return [
        Section(
            "reading_share",
            "Share of reading cases per cell"
            + (" (left out of every score here)" if excluded else ""),
            case_quality.reading_table(results),
            note=(
                "A reading case holds a state whose words give a failure away (an absorbing"
                " failure, an unsafe-labelled state): it is answered by reading, not by"
                " reasoning (docs/method.md §4). ? = stored before cases were marked."
                " `report --exclude-reading` leaves them out of the scores."
            ),
        ),
        Section(
            "small_gap",
            f"Cases whose deciding difference is below {SMALL_GAP:g}",
            case_quality.small_gap_table(results),
            note=(
                "The value difference that decides a pair, a ranking or a best/worst case;"
                " below 0.01 no explainer can be expected to resolve it. `run --min-gap G`"
                " leaves such cases out."
            ),
        ),
    ]


def chance_baseline(i: ReportInputs) -> list[Section]:
    """Random baseline against chance, when the baseline ran and the schemas are stored."""
    results, cells = i.results, i.cells
    if BASELINE_LLM not in set(results["llm"]) or "schema" not in results.columns:
        return []
    return [
        Section(
            "chance",
            f"The {BASELINE_LLM} baseline against chance",
            chance.chance_table(results, cells=cells),
            note=(
                "chance = expected score of a uniform random answer on the same cases (from the "
                f"stored schema and expected answer); score = the {BASELINE_LLM} answerer's. "
                "Means over environments; all = mean over categories."
            ),
        )
    ]


def faults(i: ReportInputs) -> list[Section]:
    """Fault detection with the reference explainers (flaw:..., noisy:Q), when they ran. APFD
    needs the whole candidate pool, which a database does not hold: ``explaincheck faults``."""
    sections, found = fault_sections(i.results)
    i.figures.update(found)
    return sections


def robustness_checks(i: ReportInputs) -> list[Section]:
    """Wording spread, metamorphic consistency and repeat stability, where the run has them."""
    results = i.results
    found = []
    wordings = robustness.wording_table(results)
    if len(wordings) and len([c for c in wordings.columns if c.startswith("wording")]) > 1:
        found.append(
            Section(
                "wording_spread",
                "Robustness — score under each wording of the question",
                wordings,
                note=(
                    "Score per LLM and category (pooled over environments and selections, "
                    "metamorphic variants left out) for each phrasing of the question; all "
                    "phrasings have the same oracle answer. spread = max − min: a large spread "
                    "means the score measures the wording more than the explainer."
                ),
            )
        )
    consistency = robustness.consistency_table(results)
    if len(consistency):
        found.append(
            Section(
                "consistency",
                "Robustness — metamorphic consistency",
                consistency,
                note=(
                    "consistency = share of case families (a case and its variants, same LLM "
                    "and repeat) whose answers all agree once the transformation is undone "
                    "(swap: the answer letter swaps; rename: new letters for the same states; "
                    "actions / subset_order: listed in reverse). Per variant: share agreeing "
                    "with the untransformed case. Independent of correctness: a model can be "
                    "consistently wrong."
                ),
            )
        )
    repeats = robustness.repeat_table(results)
    if len(repeats):
        found.append(
            Section(
                "repeats",
                "Robustness — agreement between repeats",
                repeats,
                note=(
                    "Cases asked k times (temperature > 0). agreement = share of cases whose k "
                    "answers all agree; score = mean share of passing repeats; majority_vote = "
                    "share of cases where more than half of the repeats pass; pass^k = all k "
                    "pass; pass@k = at least one passes." + robustness.determinism_note(results)
                ),
            )
        )
    return found


def paired_llms(i: ReportInputs) -> list[Section]:
    """Paired comparison of every two LLMs under test, Wilson intervals per cell, RQ1 per LLM."""
    results, cells = i.results, i.cells
    found = []
    family = paired.compare_family(results, paired.compared_llms(results))
    members = sum(int((t.index != paired.OVERALL).sum()) for t in family.values())
    for (llm_a, llm_b), table in family.items():
        survivors = [c for c in table.index if c != paired.OVERALL and table.at[c, "significant"]]
        overall = (
            f"overall p = {table.at[paired.OVERALL, 'p_mcnemar']:.3g} "
            f"(Holm {table.at[paired.OVERALL, 'p_holm']:.3g})"
            if paired.OVERALL in table.index
            else "no overall pairs"
        )
        found.append(
            Section(
                f"paired_{_slug(llm_a)}_vs_{_slug(llm_b)}",
                f"Paired comparison — a = {llm_a} vs b = {llm_b}",
                _p_text(table, ("p_mcnemar", "p_holm")),
                note=(
                    "Pairs = distinct cases answered by both: each side's repeats (and the same "
                    "question under both selections) are aggregated into one score per case "
                    "first, so a case counts once; errors are left out. Wilson 95% interval per "
                    "score; difference a − b with a paired bootstrap (BCa) 95% CI; McNemar's "
                    "exact test on the discordant cases (a_only, b_only: a or b scores higher; "
                    "with repeats the sign test of the per-case differences); p_holm = Holm over "
                    f"the whole family of {members} (LLM pair, category) tests of this report "
                    f"(the overall rows: Holm over the {len(family)} LLM pair(s)). Differences "
                    f"that survive Holm at 0.05: {', '.join(survivors) if survivors else 'none'}"
                    f"; {overall}."
                ),
            )
        )
    # per-cell Wilson intervals: the table1_intervals section (over cases, as Table 1 scores)
    rq1 = paired.rq1_per_llm(results, cells=cells)
    if len(rq1) and (rq1["cells"] > 0).any():
        found.append(
            Section(
                "rq1_per_llm",
                "RQ1 per LLM — prioritisation effect with effect size",
                _p_text(rq1, ("wilcoxon_p", "corrected_p")).rename(
                    columns={"prioritized": "prioritised"}
                ),
                note=(
                    "prioritised / random = pooled pass rate of each selection; cohens_h = "
                    "Cohen's h between them (negative: prioritised cases are harder; |h| 0.2 "
                    "small, 0.5 medium, 0.8 large); wilcoxon_p = the paper's one-sided "
                    "Wilcoxon over the LLM's comparable cells (– with fewer than 5 untied "
                    "cells); corrected_p = the same test on chance-corrected case scores, "
                    "corrected_difference its mean prioritised − random with a 95% bootstrap "
                    "interval over (environment, category) clusters. role: under test, or "
                    "negative control (random, noisy:Q: corrected_p must be ≥ 0.05), or "
                    "reference (flaw:...)."
                ),
            )
        )
    return found


def _rq1_note(tests: pd.DataFrame) -> str:
    """What the RQ1 rows are, the headline's conclusion and the negative controls beside it."""
    headline = tests.loc[prioritization.HEADLINE]
    return (
        "Headline: each case scored (score − chance) / (1 − chance) with its exact chance, over "
        "the answerers under test (random, oracle, noisy:Q and flaw:... left out): "
        f"{headline['conclusion']}. "
        + prioritization.controls_sentence(tests)
        + " The paper's test scores cases uncorrected over every answerer but the oracle; for "
        "best and worst action δ = 1 − chance, so it finds prioritised cases harder to *guess* "
        "even for the random answerer. mean_difference = prioritised − random over the cells "
        "(negative: prioritised harder), ci = 95% bootstrap over (environment, category) "
        "clusters: cells of different LLMs share their cases, so they are not independent "
        "(the corrected tests run over cluster means for that reason; the paper's p-value "
        "treats cells as independent). Cells whose two selections drew the same cases "
        "(same_cases in rq1_cells.csv) are left out of the corrected tests."
    )


def cost_per_execution(i: ReportInputs) -> list[Section]:
    """Cost per LLM and category, when replies were timed."""
    results = i.results
    if "latency" not in results.columns or "prompt_tokens" not in results.columns:
        return []
    table = cost.cost_table(results)
    if table.empty:
        return []
    return [
        Section(
            "cost",
            "Cost per execution",
            table,
            note=(
                "Generated replies only (cached replies and errors left out). seconds_each = "
                "mean wall time per reply; tokens = mean per reply; tokens_per_second = "
                "generated tokens / wall time. A campaign of N executions takes about N × "
                "seconds_each per LLM (cost.campaign_seconds)."
            ),
        )
    ]


def money_per_llm(i: ReportInputs) -> list[Section]:
    """Money per LLM and for the campaign, when a price table applies (``--price``)."""
    table = money_table(i.results)
    if table.empty:
        return []
    table["cost"] = table["cost"].map(money)  # 4 places: a reply costs fractions of a cent
    return [
        Section(
            "money",
            "Cost in money per LLM",
            table,
            note=(
                "From the stored token counts and the price table (per million prompt and "
                "completion tokens; reasoning tokens are part of the completion). "
                "cached_prompt_tokens are the part of the prompt a server took from its "
                "prompt cache, at the cached-input price when one is given (IN/OUT/CACHED), "
                "else at the input price. Replies from the reply cache cost 0; replies "
                "without token counts are left out."
            ),
        )
    ]


def _p_text(table: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """p-values shown with 3 significant digits (the generic cell format rounds to 2 places)."""
    shown = table.copy()
    for column in columns:
        shown[column] = ["–" if pd.isna(v) else f"{float(v):.3g}" for v in shown[column].tolist()]
    return shown


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text)


def summary(results: pd.DataFrame, counts: pd.DataFrame) -> str:
    """The report's first line: how many executions, environments, LLMs and errors."""
    environments = results["environment"].nunique()
    llms = ", ".join(sorted(map(str, results["llm"].unique())))
    errors = int(counts["errors"].sum()) if len(counts) else 0
    uncertain = int(counts["uncertain"].sum()) if "uncertain" in counts and len(counts) else 0
    also = f", {uncertain} uncertain" if uncertain else ""
    return (
        f"{counted(len(results), 'execution')} over {counted(environments, 'environment')};"
        f" LLMs: {llms}; {counted(errors, 'error')}{also} excluded from scores."
    )
