"""Training data with exact labels from a split's train part (``explaincheck train-set``).

Why here: every question of a campaign has an exact answer, so its failures are labelled
training data for free: the prompt the LLM saw, the oracle's answer in the reply schema (what it
should have said) and, for preference training, the LLM's own failing reply (what it did say).
Only the train part of a split is used (``split_file``), so the held-out part stays a fair test
of what training changed (``compare --cases split.json:held-out``).

Per record the project's own grader decides (``taxonomy.grading.grade_reply``, the campaign's
grading settings): a chosen answer goes in only when it *passes* (an oracle answer the verified
oracle cannot decide, ``uncertain``, is left out and counted), a rejected reply only when it
*fails* (``fail`` or ``invalid``). Formats:

- ``openai-chat``: OpenAI's chat fine-tuning JSONL, ``{"messages": [user, assistant]}``;
- ``sft``: the conversational ``messages`` records TRL's ``SFTTrainer`` reads (the same shape);
- ``dpo``: TRL's conversational preference records ``{"prompt": [user], "chosen": [assistant],
  "rejected": [assistant]}``, one per distinct failing reply of a training question.

With ``explain`` the assistant turn starts with the oracle's values behind the answer
(``taxonomy.rationale``: "Q(left) = 0.53 > Q(up) = 0.27") on a line of its own, then the JSON
answer; the grader reads the JSON as it reads any reply, and checks it. Prompts are the stored
ones of campaigns without shots (a few-shot run's prompts hold examples). Each record's origin
(environment, model hash, case key, category, the rejected reply's LLM) is the same line of
``index.jsonl``; no extra keys go into the records, since OpenAI's validator refuses them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explaincheck.core.analysis.paired import question_identity
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.campaign.regrade import _oracle_from, case_of, kept_do_nothing
from explaincheck.core.campaign.split_file import Split
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.store import Store, StoredExecution
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS, GradingSettings, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.rationale import rationale

OPENAI_CHAT, SFT, DPO = "openai-chat", "sft", "dpo"
FORMATS = (OPENAI_CHAT, SFT, DPO)
FAILING = (FAIL, INVALID)


@dataclass
class TrainingSet:
    """The records (in order), their origins (same order) and what was left out, and why."""

    format: str
    explain: bool
    records: list[dict[str, Any]] = field(default_factory=list)
    origins: list[dict[str, Any]] = field(default_factory=list)
    questions: Counter[str] = field(default_factory=Counter)  # training questions per category
    left_out: Counter[str] = field(default_factory=Counter)  # reason -> count
    models: dict[str, str] = field(default_factory=dict)  # model hash -> environment

    def per_category(self) -> dict[str, int]:
        return dict(sorted(Counter(o["category"] for o in self.origins).items()))


def assistant_text(case: TestCase, oracle: OracleResult, explain: bool) -> str:
    """The oracle's answer as a reply (the reply schema's JSON), after its values if asked."""
    reply = OracleBackend(oracle).reply_text(case)
    why = rationale(case, oracle) if explain else ""
    return f"{why}\n{reply}" if why else reply


def build_training_set(
    db_path: str | Path, split: Split, fmt: str, *, explain: bool = False
) -> TrainingSet:
    """Records of ``fmt`` for the train part of ``split`` from the stored executions."""
    if fmt not in FORMATS:
        raise ExplaincheckError(f"unknown --format {fmt!r} (valid: {', '.join(FORMATS)})")
    wanted = {(c.environment, c.model_hash, question_identity(c.case_key)) for c in split.train}
    found = TrainingSet(fmt, explain)
    if not wanted:
        raise ExplaincheckError("the split's train part is empty: nothing to train on")
    with Store.open(db_path, readonly=True) as store:
        campaigns = {c.id: c for c in store.campaigns()}
        rows = [
            r
            for r in store.iter_stored()
            if (r.environment, r.model_hash, question_identity(r.case_key)) in wanted
            and not campaigns[r.campaign_id].settings.get("shots")
        ]
    if not rows:
        raise ExplaincheckError(
            f"{db_path} holds no execution of the split's train part (made from"
            f" {split.source or 'another file'})"
        )
    by_question: dict[tuple[str, str, str], list[StoredExecution]] = {}
    for row in rows:
        key = (row.environment, row.model_hash, question_identity(row.case_key))
        by_question.setdefault(key, []).append(row)
    oracles: dict[str, OracleResult] = {}
    settings = {c.model_hash: c.settings for c in campaigns.values()}
    for (environment, model_hash, _), asked in by_question.items():
        if model_hash not in oracles:
            oracles[model_hash] = _oracle_from(settings.get(model_hash), model_hash)
            found.models[model_hash] = environment
        _add_question(found, asked, oracles[model_hash], campaigns)
    return found


def _add_question(
    found: TrainingSet,
    asked: list[StoredExecution],
    oracle: OracleResult,
    campaigns: dict[int, Any],
) -> None:
    first = asked[0]
    case = case_of(first, kept_do_nothing(campaigns[first.campaign_id].settings))
    grading = GradingSettings(**first.grading)
    found.questions[case.category] += 1
    chosen = assistant_text(case, oracle, found.explain)
    if grade_reply(case, chosen, oracle, grading).verdict != PASS:
        found.left_out["the oracle's answer does not pass the grader (uncertain)"] += 1
        return
    user = {"role": "user", "content": first.prompt}
    answer = {"role": "assistant", "content": chosen}
    origin = {
        "environment": first.environment,
        "model_hash": first.model_hash,
        "case_key": first.case_key,
        "category": first.category,
        "chosen_verdict": PASS,
    }
    if found.format != DPO:
        found.records.append({"messages": [user, answer]})
        found.origins.append(origin)
        return
    seen: set[str] = set()
    for row in asked:
        if row.reply is None or row.reply in seen or row.verdict not in FAILING:
            continue
        seen.add(row.reply)
        verdict = grade_reply(case, row.reply, oracle, grading).verdict
        if verdict not in FAILING:  # graded otherwise now (another rule): not a rejected one
            found.left_out["a stored failure that the grader now passes"] += 1
            continue
        found.records.append(
            {"prompt": [user], "chosen": [answer], "rejected": [_assistant(row.reply)]}
        )
        found.origins.append({**origin, "rejected_llm": row.llm, "rejected_verdict": verdict})
    if not seen:
        found.left_out["training questions no LLM failed (no rejected reply)"] += 1


def _assistant(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def jsonl(records: list[dict[str, Any]]) -> str:
    """One strict JSON object per line (Unicode kept)."""
    return "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in records)
