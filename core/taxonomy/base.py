"""Contract of the query taxonomy: test cases, prompts, grades and the ``Category`` base class.

Each category of this project (ids in docs/method.md §2; ``registry.census`` counts them) is one
module here that subclasses ``Category`` and is registered by id in ``registry.py``; a plugin
package's categories subclass it too and are registered by entry point (docs/plugins.md).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from explaincheck.core.errors import ExplaincheckError

# re-exported (``X as X``): categories and plugins import these from here
from explaincheck.core.taxonomy.cases import VARIANT_MARK as VARIANT_MARK
from explaincheck.core.taxonomy.cases import WORDING_MARK as WORDING_MARK
from explaincheck.core.taxonomy.cases import Candidate as Candidate
from explaincheck.core.taxonomy.cases import Prompt as Prompt
from explaincheck.core.taxonomy.cases import Shot as Shot
from explaincheck.core.taxonomy.cases import TestCase as TestCase
from explaincheck.core.taxonomy.property_words import dead_end_words, words_of
from explaincheck.core.taxonomy.runs import OPTIMAL_RUN_NOTE, optimal_run

if TYPE_CHECKING:
    from explaincheck.core.environments.types import Environment
    from explaincheck.core.oracle.flawed import Flaw
    from explaincheck.core.oracle.types import OracleRequest, OracleResult, StateFacts
    from explaincheck.core.taxonomy.answers import AnswerForm
    from explaincheck.core.taxonomy.case_rules import SelectionRules
    from explaincheck.core.taxonomy.probes import Probe

# Dimensions as in the paper (section 4) and docs/method.md.
STATE = "state"
PREFERENCE = "preference"
SCOPE = "scope"
MODE = "mode"
EXPLANATION = "explanation"  # why-questions graded by exact interventions (factors)

# Verdicts (docs/method.md §6). ``error`` comes from the runner when no reply came, never grading;
# ``uncertain``: a pass or fail that could flip inside the oracle's intervals (``uncertainty``),
# stored but left out of every score.
PASS, FAIL, INVALID, ERROR, UNCERTAIN = "pass", "fail", "invalid", "error", "uncertain"
VERDICTS: tuple[str, ...] = (PASS, FAIL, INVALID, ERROR, UNCERTAIN)
UNSCORED: tuple[str, ...] = (ERROR, UNCERTAIN)  # left out of every score, counted instead
PRIORITIZED, RANDOM = "prioritized", "random"

# Phrasings per category question (``Category.phrase``); wording 0 is the original text.
WORDINGS = 3


@dataclass(frozen=True)
class GradingSettings:
    """How answers are graded. Satisfy: ``absolute`` (|p - V| <= tolerance) or ``half``."""

    satisfy_rule: str = "absolute"
    satisfy_tolerance: float = 0.05


@dataclass(frozen=True)
class Grade:
    """The verdict on one reply; never raised, always returned."""

    verdict: str  # PASS, FAIL, INVALID or UNCERTAIN
    reason: str
    answer: Any  # the parsed answer (JSON-friendly), or None when invalid
    expected: Any  # the oracle's expected answer (JSON-friendly)
    abs_error: float | None = None  # satisfy only: |p - V(s)|


@dataclass(frozen=True)
class RequestOffer:
    """How a front end offers an on-request category (``Category.offer``): a short suffix for
    its row ("on request: 9 extra model checks") and a tooltip saying what it costs."""

    label: str
    tooltip: str


class Category(ABC):
    """One query category of the taxonomy (paper section 4), registered by ``id``.

    A category knows its candidates and their δ (paper section 5), the question it asks, the form
    of the answer, the oracle's expected answer and how a read answer is judged. Reading the reply
    text is shared (``parsing.py``); so are selection (``selection.py``) and the prompt frame
    (``prompts.py``). Instances are stateless and shared through ``registry.CATEGORIES``.

    It also owns its presentation (``label``, ``name``, ``teachable`` and the ``answer_words`` /
    ``state_fact`` / ``*_reasons`` the Teach tab shows), so tables, figures and the Teach tab list
    no category ids: a new category is its module plus one line in ``registry.py``.

    A category that needs more than the oracle says it through hooks the pipeline calls for
    every category of a campaign (never one by id): ``with_facts`` (extra oracle facts before
    the cases are built), ``seen_through`` (those facts as a flawed explainer sees them),
    ``chance`` (its own random baseline) and ``follow_up`` (probes asked after a run).
    """

    id: ClassVar[str]
    dimension: ClassVar[str]  # STATE, PREFERENCE, SCOPE, MODE or EXPLANATION
    title: ClassVar[str]  # as in the paper, e.g. "Best action?"
    label: ClassVar[str]  # short table column label as in the paper's Table 1, e.g. "Best"
    name: ClassVar[str]  # longer name where there is room (figure axes, report prose)
    binary: ClassVar[bool] = False  # yes/no category with balanced positive/negative selection
    teachable: ClassVar[bool] = True  # offered in the Teach tab (``teaching.taught``)
    # Asked only by id: its extra facts cost model checks, so a default campaign leaves it out
    # (front ends say "on request", see ``on_request``).
    by_id_only: ClassVar[bool] = False
    # > 0: ``follow_up`` probes are asked after a complete run when the front end asks for them
    # (``run --behavioural``), each this many times; the front ends call them ``follow_up_words``.
    follow_up_trials: ClassVar[int] = 0
    follow_up_words: ClassVar[str] = "follow-up probes"
    # What the follow-up probes ask, in words for help texts (``follow_ups.follow_up_help``).
    follow_up_help: ClassVar[str] = ""
    # The facts ``with_facts`` attaches, in words ("" = none): a front end that shows this
    # category's cases outside a campaign (the Teach tab) computes them first and says so.
    extra_facts: ClassVar[str] = ""
    # Asks about a policy the user attached (or the LLM's own), not about the optimal one: its
    # cases exist only while a policy is loaded, and the docs count it apart (``census``).
    about_a_policy: ClassVar[bool] = False
    # The name of the extra view front ends show with this category's cases ("" = none); the
    # GUI's factor panel shows the cases of every category that names ``"factors"`` here.
    panel: ClassVar[str] = ""

    @property
    def lettered(self) -> bool:
        """Whether the case shows several named states K, L, ... (pairs and subsets)."""
        return self.dimension in (SCOPE, MODE)

    def not_applicable(self, oracle: OracleResult) -> str | None:
        """Why this category has no test case on ``oracle`` (the paper's "–"), or None."""
        return None if self.candidates(oracle) else "no candidate test case"

    def on_request(self, oracle: OracleResult) -> bool:
        """Whether this category is missing here only because it is opt-in: its truth is
        computed when a campaign asks for it by id (front ends say "on request", never "not
        applicable")."""
        return False

    def caveat(self, oracle: OracleResult) -> str | None:
        """Why this category, though applicable, adds nothing here and is left out of a default
        campaign (it can still be asked for by id), or None."""
        return None

    def offer(self, environment: Environment, oracle: OracleResult) -> RequestOffer | None:
        """What a front end says when this category is missing here only until it is asked for
        (``on_request``): its cost in words, so the user may tick it. None: nothing to offer
        (it stays "not applicable"). Reads declarations; may take a moment (worker thread)."""
        return None

    # --- hooks for facts beyond the oracle (called by the pipeline for every category) ---------

    def with_facts(
        self, oracle: OracleResult, environment: Environment, request: OracleRequest
    ) -> OracleResult:
        """``oracle`` with the extra facts this category grades with attached (computed once per
        campaign, before its cases are built); ``request`` is what ``oracle`` was computed from.
        Most categories need nothing beyond the oracle."""
        return oracle

    def seen_through(self, picture: OracleResult, truth: OracleResult, flaw: Flaw) -> OracleResult:
        """A flawed explainer's ``picture`` with this category's extra facts of ``truth`` as
        ``flaw`` sees them (``core/backends/flaw_backend.py``), so its answers follow from the
        flawed picture alone. Nothing to add by default."""
        return picture

    def chance(self, schema: dict[str, Any], expected: dict[str, Any]) -> float | None:
        """The probability that a uniform random answer to ``schema`` passes, when this category
        knows it better than the generic rule of ``analysis/chance.py`` (None: use that rule)."""
        return None

    def follow_up(
        self,
        case: TestCase,
        oracle: OracleResult,
        environment: Environment,
        request: OracleRequest,
    ) -> list[Probe]:
        """The probes to ask again about one graded case after a run (``follow_up_trials`` > 0);
        the campaign asks them with the same LLM and stores the replies."""
        return []

    def ruled(
        self, found: list[Candidate], oracle: OracleResult, rules: SelectionRules
    ) -> list[Candidate]:
        """``found`` under the campaign's selection ``rules`` where they change this category's
        pool or δ (satisfy's ``--delta``); most categories keep their candidates."""
        return found

    def no_case_reason(self, oracle: OracleResult, rules: SelectionRules) -> str:
        """Why an applicable category drew no case under ``rules`` (the plan's skip line)."""
        return "no candidate test case"

    @abstractmethod
    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        """Every candidate (or a documented seeded sample of them), in a deterministic order."""

    @abstractmethod
    def question(self, case: TestCase, oracle: OracleResult) -> str:
        """The question sentence(s), referring to "this state" or to the states by the names the
        prompt gives them (``state_letters.letters``: K, L, ...). This is wording 0."""

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, ...]:
        """Wordings 1 and 2: the same question in other words, with the same oracle answer
        (same quantity, same definitions, same answer form). Every built-in category has them
        (tests check it); the empty default only keeps a new category importable."""
        return ()

    def phrase(self, case: TestCase, oracle: OracleResult) -> str:
        """The question in the case's wording (0 = ``question``)."""
        if case.wording == 0:
            return self.question(case, oracle)
        others = self.rephrasings(case, oracle)
        if not 0 < case.wording <= len(others):
            raise ExplaincheckError(f"{self.id} has no wording {case.wording}")
        return others[case.wording - 1]

    def listed_actions(self, case: TestCase, oracle: OracleResult) -> tuple[str, ...]:
        """The actions a one-state prompt lists: every labelled action here; preference
        categories leave do-nothing actions out unless kept (``case_rules``)."""
        return oracle.state(case.states[0]).actions

    @abstractmethod
    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        """Key and admissible values of the answer (schema, prompt shape, parsing, random)."""

    @abstractmethod
    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        """What the oracle accepts, JSON-friendly, keyed like the answer; a list under the key
        means any one of them (best/worst) and a list of lists means groups in any inner order
        (ranking)."""

    @abstractmethod
    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> Any:
        """One right answer value (what the oracle answerer replies)."""

    @abstractmethod
    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        """PASS or FAIL for a read (canonical) answer, with a reason a human can check."""

    # --- presentation in the Teach tab (``teaching.lesson``) --------------------------------

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        """The oracle's answer (``right`` = ``oracle_answer``) in words for a person."""
        if isinstance(right, str):
            return f"state {right}" if len(right) == 1 and right.isupper() else right
        return json.dumps(right)

    def state_fact(self, oracle: OracleResult, state: StateFacts) -> str:
        """The oracle's value that decides the answer, for one state of a pair or subset."""
        words = words_of(oracle)
        if words.reaches_goal:
            return f"V = Pmax[F goal] = {state.value:.4g}"
        return f"V = {words.value_text(state.value)}"

    def state_reasons(self, oracle: OracleResult, state: StateFacts) -> tuple[list[str], list[int]]:
        """For a one-state case: why the answer holds, beyond V and Q (lines), and a run to
        highlight on the graph (may be empty)."""
        if state.dead_end:
            words = words_of(oracle)
            if words.reaches_goal:
                return ["Dead end: V(s) = 0, no policy can reach the goal from here."], []
            return [f"Dead end: {dead_end_words(words)}."], []
        run = optimal_run(oracle, state.id)
        return ([OPTIMAL_RUN_NOTE] if run else []), run

    def group_reasons(
        self, oracle: OracleResult, states: list[StateFacts], names: tuple[str, ...]
    ) -> tuple[list[str], list[int]]:
        """For a pair or subset (its states named ``names`` as in the prompt): why the answer
        follows from the states' facts, and a run to highlight (may be empty)."""
        return [], []
