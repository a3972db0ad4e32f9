"""Few-shot repair (``run --shots K --shots-from split.json``): which solved training cases go in
front of a question, and how the prompt shows them.

The rule (docs/method.md, "Training sets and few-shot repair"): the shots of a question are
training cases of the split

1. of the same model (environment and model hash) and the same category,
2. whose neighbourhood shares no state with the question's (so no shot states a value the
   question's answer is made of, also when a training case is asked: it is never its own shot),
3. whose oracle answer the project's grader passes (``pass``: an ``uncertain`` one is no
   example),

the K with the δ nearest the question's (ties: the case key, then the states), one per
distinct question. The list for K + 1 starts with the list for K. Each shot shows its question
as the LLM would see it (without the task, said once at the top), its answer in the reply
schema, and with ``--shots-explain`` the oracle's values behind it (``taxonomy.rationale``).
The prompt's text holds the shots, so the reply cache and the execution keys see them: a
rerun asks the same prompts; ``Prompt.shots`` carries them as data too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.campaign.shot_settings import ShotSettings
from explaincheck.core.campaign.split_file import TRAIN, Split, SplitCase, read_split
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import PASS, GradingSettings, Prompt, Shot, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.rationale import rationale

RESPOND = "\nRespond only with a JSON object"
INTRODUCTION = "Solved examples of this kind of question, each with its correct answer"


def shot_settings(k: int, split_path: str, part: str, explain: bool) -> ShotSettings:
    """The settings of ``--shots K --shots-from FILE``: the file read (and its rule checked)
    now, so a bad file is one line before any work; its sha256 goes into the identity."""
    if k < 0:
        raise ExplaincheckError(f"--shots must be 0 or more (got {k})")
    split = read_split(split_path)
    return ShotSettings(k, str(split_path), split.sha256, part, explain)


def unique_questions(cases: Iterable[SplitCase]) -> list[SplitCase]:
    """One entry per distinct question (both selections may hold one), first kept."""
    seen: set[tuple[object, ...]] = set()
    found = []
    for case in cases:
        key = (*case.model, case.question)
        if key not in seen:
            seen.add(key)
            found.append(case)
    return found


@dataclass
class ShotPlanner:
    """The shots of one model's questions, under one campaign's settings."""

    split: Split
    settings: ShotSettings
    oracle: OracleResult
    environment: Environment
    environment_name: str
    grading: GradingSettings = field(default_factory=GradingSettings)
    keep_do_nothing: bool = False
    _passes: dict[str, bool] = field(default_factory=dict, repr=False)
    short: int = 0  # questions that got fewer than K shots (too few training cases qualify)
    asked_count: int = 0

    @classmethod
    def load(
        cls,
        settings: ShotSettings,
        oracle: OracleResult,
        environment: Environment,
        environment_name: str,
        grading: GradingSettings,
        keep_do_nothing: bool = False,
    ) -> ShotPlanner:
        """Read the split again and check that it is the one the campaign was planned with."""
        split = read_split(settings.split)
        if split.sha256 != settings.split_sha256:
            raise ExplaincheckError(
                f"{settings.split} has changed since this campaign was planned with it"
                f" (sha256 {split.sha256[:12]}, planned {settings.split_sha256[:12]})"
            )
        return cls(split, settings, oracle, environment, environment_name, grading, keep_do_nothing)

    @property
    def model(self) -> tuple[str, str]:
        return (self.environment_name, self.oracle.model.content_hash)

    def asked(self, categories: Iterable[str] = ()) -> list[SplitCase]:
        """The entries this campaign asks: the chosen part(s) of the split on this model (one
        per question), of ``categories`` when given."""
        wanted = set(categories)
        mine = [
            c
            for part in self.settings.parts
            for c in self.split.part(part)
            if c.model == self.model
        ]
        if not mine:
            held = sorted({f"{c.environment} ({c.model_hash[:12]})" for c in self._every()})
            raise ExplaincheckError(
                f"{self.settings.split} holds no {' or '.join(self.settings.parts)} case of"
                f" {self.environment_name} at this model ({self.oracle.model.content_hash[:12]});"
                f" it holds: {', '.join(held) or 'nothing'}"
            )
        found = [c for c in mine if not wanted or c.category in wanted]
        return unique_questions(found)

    def _every(self) -> tuple[SplitCase, ...]:
        return self.split.train + self.split.held_out

    def cases(self, categories: Iterable[str] = ()) -> list[TestCase]:
        return [c.test_case(self.keep_do_nothing) for c in self.asked(categories)]

    def shots_for(self, case: TestCase) -> list[SplitCase]:
        """The K shots of ``case`` by the rule above."""
        if self.settings.k == 0:
            return []
        own = self._entry(case)
        near = set(own.neighbourhood)
        key = (case.category, case.states)
        pool = [
            c
            for c in unique_questions(self.split.part(TRAIN))
            if c.model == self.model
            and c.category == case.category
            and (c.category, c.states) != key
            and not near.intersection(c.neighbourhood)
        ]
        pool.sort(key=lambda c: (abs(c.delta - case.delta), c.case_key, c.states))
        chosen = []
        for candidate in pool:
            if self._passes_grader(candidate):
                chosen.append(candidate)
                if len(chosen) == self.settings.k:
                    break
        return chosen

    def _entry(self, case: TestCase) -> SplitCase:
        for entry in self._every():
            if entry.model == self.model and entry.case_key == case.key:
                return entry
        raise ExplaincheckError(f"case {case.key} is not in {self.settings.split}")

    def _passes_grader(self, entry: SplitCase) -> bool:
        if entry.case_key not in self._passes:
            case = entry.test_case(self.keep_do_nothing)
            reply = OracleBackend(self.oracle).reply_text(case)
            grade = grade_reply(case, reply, self.oracle, self.grading)
            self._passes[entry.case_key] = grade.verdict == PASS
        return self._passes[entry.case_key]

    def prompt(self, case: TestCase, prompt: Prompt) -> Prompt:
        """``prompt`` with the shots of ``case`` in front of its question (unchanged at K = 0
        or when no training case qualifies)."""
        entries = self.shots_for(case)
        self.asked_count += 1
        self.short += len(entries) < self.settings.k
        if not entries:
            return prompt
        shots = tuple(self._shot(e) for e in entries)
        return with_shots(prompt, shots, self.environment, self._bodies(entries))

    def shortfall(self) -> str | None:
        """One line when some questions got fewer than K shots, else None."""
        if not self.short:
            return None
        return (
            f"{self.short} of {self.asked_count} questions of {self.environment_name} got fewer"
            f" than {self.settings.k} shots: too few training cases of their category lie outside"
            " their neighbourhood (the shots come from the same model only)"
        )

    def _shot(self, entry: SplitCase) -> Shot:
        case = entry.test_case(self.keep_do_nothing)
        return Shot(
            case_key=entry.case_key,
            category=entry.category,
            states=entry.states,
            delta=entry.delta,
            reply=OracleBackend(self.oracle).reply_text(case),
            rationale=rationale(case, self.oracle) if self.settings.explain else "",
        )

    def _bodies(self, entries: list[SplitCase]) -> list[str]:
        return [
            question_body(
                render_prompt(e.test_case(self.keep_do_nothing), self.oracle, self.environment),
                self.environment,
                keep_answer_form=False,
            )
            for e in entries
        ]


def question_body(prompt: Prompt, environment: Environment, *, keep_answer_form: bool) -> str:
    """A prompt without the task paragraph (and without "Respond only …" unless kept)."""
    text = prompt.text
    task = environment.task.strip()
    if task and text.startswith(task):
        text = text[len(task) :].lstrip("\n")
    if not keep_answer_form and RESPOND in text:
        text = text[: text.rindex(RESPOND)]
    return text.strip()


def with_shots(
    prompt: Prompt, shots: tuple[Shot, ...], environment: Environment, bodies: list[str]
) -> Prompt:
    """The task once, the solved examples, then the question with its answer form."""
    explained = any(s.rationale for s in shots)
    lines = [environment.task.strip(), ""]
    lines.append(INTRODUCTION + (" and the values behind it" if explained else "") + ":")
    for number, (shot, body) in enumerate(zip(shots, bodies, strict=True), 1):
        lines += ["", f"Example {number}.", body, f"Answer: {shot.reply}"]
        if shot.rationale:
            lines.append(f"Because: {shot.rationale}")
    lines += ["", "Now your question.", question_body(prompt, environment, keep_answer_form=True)]
    return replace(prompt, text="\n".join(lines), shots=shots)
