"""How much memory Storm's explicit build of a program may use within the state limit.

stormpy 2.0's ``BuilderOptions`` has no state limit, so a model beyond it is only seen once the
whole build is done (26-44 s under load for 2-3 million states). Storm's build grows its memory
about linearly in the states, choices and transitions it has explored, and the program bounds the
choices and transitions a state can have. A build whose resident memory passes what ``limit``
states of that shape can need has explored more than ``limit`` states and is stopped then.
"""

from __future__ import annotations

import os
from math import prod

from explaincheck.core.oracle.storm.types import Expression, PrismProgram

# Peak growth of a float build with labels, valuations and choice origins kept, measured on a
# chain (170 B a state: 1 choice, 1 transition), a 2-action grid (309 B: 2, 4) and a 4-action
# grid with 3 updates a command (661 B: 4, 12); rounded up, with a margin on top.
STATE_BYTES = 128
CHOICE_BYTES = 32
TRANSITION_BYTES = 40
MARGIN = 1.25
SLACK_BYTES = 64 << 20  # allocator and hash-map growth steps
NOT_CALIBRATED = -1  # a Rational build (not measured): the watchdog's generous default applies


def fanout(program: PrismProgram) -> tuple[int, int]:
    """Upper bounds on the choices and the transitions of one state: an unlabelled command is
    one choice of its updates; an action synchronises one command of every module that has it."""
    choices = transitions = 0
    by_action: dict[str, dict[str, list[int]]] = {}
    for module in program.modules:
        for command in module.commands:
            updates = len(command.updates)
            if command.is_labeled:
                by_action.setdefault(command.action_name, {}).setdefault(module.name, [])
                by_action[command.action_name][module.name].append(updates)
            else:
                choices += 1
                transitions += updates
    for modules in by_action.values():
        choices += prod(len(counts) for counts in modules.values())
        transitions += prod(sum(counts) for counts in modules.values())
    return max(choices, 1), max(transitions, 1)


def range_bound(program: PrismProgram) -> int | None:
    """The product of the variables' ranges (an over-estimate of the reachable states), or None
    when a bound is not a plain number.

    The bounds are read from the program with its constants substituted, and an expression that
    still names a variable is never evaluated: Storm's ``evaluate_as_int`` on one (a global
    variable bounded by a defined constant, ``global c : [0..R]``) is a segfault, not an
    exception."""
    sizes = []
    try:
        program = program.substitute_constants()
        variables = [*program.global_integer_variables, *program.global_boolean_variables]
        for module in program.modules:
            variables += [*module.integer_variables, *module.boolean_variables]
        for variable in variables:
            if hasattr(variable, "lower_bound_expression"):
                low = _plain_int(variable.lower_bound_expression)
                high = _plain_int(variable.upper_bound_expression)
                if low is None or high is None:
                    return None
                sizes.append(max(high - low + 1, 1))
            else:
                sizes.append(2)
    except Exception:  # a bound Storm cannot evaluate: no over-estimate
        return None
    return prod(sizes)


def _plain_int(expression: Expression) -> int | None:
    """The value of a bound without variables (None for one that names any)."""
    if expression.contains_variables():
        return None
    return int(expression.evaluate_as_int())


def growth_bound(program: PrismProgram, state_limit: int) -> int | None:
    """Bytes a float build of at most ``state_limit`` states of ``program`` cannot outgrow, or
    None when the variables' ranges already keep the model within the limit."""
    bound = range_bound(program)
    if bound is not None and bound <= state_limit:
        return None
    choices, transitions = fanout(program)
    per_state = STATE_BYTES + CHOICE_BYTES * choices + TRANSITION_BYTES * transitions
    return SLACK_BYTES + int(state_limit * per_state * MARGIN)


def resident_bound(program: PrismProgram, state_limit: int) -> int:
    """This process's resident memory a build must stay under (0: no bound), from now."""
    growth = growth_bound(program, state_limit)
    return 0 if growth is None else resident_now() + growth


def resident_now() -> int:
    try:
        with open("/proc/self/statm") as stream:
            return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
