"""Goal within k moves? (a state query): can the goal be reached from this state in at most k
moves, with some luck, whatever the probabilities?

Truth: the fewest moves to a goal state along transitions of positive probability
(``pool_counts.moves_to_goal``, read from the graph) is at most k. δ = 1 / (1 + |m − k − ½|) for
a state m moves away (salience: the states just inside and just outside k are the ones a
counting slip gets wrong); a state from which no sequence of moves reaches the goal gets δ = 0
(it is plainly "no"). Binary: selection balances the two answers.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import STATE, TestCase
from explaincheck.core.taxonomy.kinds import SingleStateCategory, YesNoCategory
from explaincheck.core.taxonomy.pool_counts import goal_flags, moves_to_goal

STEPS = 2
DEFINITION = (
    f"A move is one action and one of its possible outcomes. Count a sequence of at most {STEPS}"
    " moves even when it needs luck (an outcome of small probability)."
)


class WithinMoves(SingleStateCategory, YesNoCategory):
    id = "within_k"
    dimension = STATE
    title = f"Goal within {STEPS}?"
    label = f"≤{STEPS}"
    name = f"goal within {STEPS} moves"

    def not_applicable(self, oracle: OracleResult) -> str | None:
        moves = moves_to_goal(oracle)[~goal_flags(oracle)]
        near = int(((moves >= 0) & (moves <= STEPS)).sum())
        if not near:
            return f"no state outside the goal is within {STEPS} moves of it"
        if near == len(moves):
            return f"every state outside the goal is within {STEPS} moves of it"
        return None

    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        moves = int(moves_to_goal(oracle)[state.id])
        return 0.0 if moves < 0 else 1.0 / (1.0 + abs(moves - STEPS - 0.5))

    def is_positive(self, state: StateFacts, oracle: OracleResult) -> bool | None:
        return 0 <= int(moves_to_goal(oracle)[state.id]) <= STEPS

    def truth(self, case: TestCase, oracle: OracleResult) -> bool:
        return bool(self.is_positive(oracle.state(case.states[0]), oracle))

    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        moves = int(moves_to_goal(oracle)[case.states[0]])
        return "no sequence of moves reaches the goal" if moves < 0 else f"fewest moves: {moves}"

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return f"{DEFINITION} Can the goal be reached from this state within {STEPS} moves?"

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        return (
            f"{DEFINITION} Is there a sequence of at most {STEPS} moves from the current state"
            " that ends in the goal?",
            f"{DEFINITION} Starting here, could the agent be at the goal after {STEPS} moves or"
            " fewer?",
        )
