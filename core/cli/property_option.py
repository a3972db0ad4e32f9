"""``--property`` of ``oracle``, ``run``, ``selfcheck``, ``policy``, ``sweep`` and ``bench
export``: the property the oracle is computed for (``core/oracle/property.py``), said once."""

from __future__ import annotations

import argparse

from explaincheck.core.errors import ExplaincheckError

PROPERTY_HELP = (
    "the property V is computed for: PRISM property text such as"
    ' \'R{"time"}min=? [F "done"]\', Pmax=?/Pmin=? [F φ], [φ U ψ] or [F<=k φ];'
    " FILE.props[:NAME]; or the name of one of the environment's own properties (explaincheck"
    " envs lists them). Default: Pmax=? [F goal] (--goal X is Pmax=? [F X])"
)


def add_property_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--property",
        default=None,
        metavar="TEXT|FILE[:NAME]|NAME",
        help=PROPERTY_HELP,
    )


def check_goal_and_property(goal: str | None, prop: str | None) -> None:
    """A property names its own target: ``--goal`` beside it is one clear line."""
    if goal and prop:
        raise ExplaincheckError(
            "give --goal or --property, not both: the property names its own target"
            f" (--goal {goal} is the property 'Pmax=? [F {goal}]')"
        )


def model_constants(spec: str | None, constants: str | None) -> str | None:
    """``--const`` without the constants a property file declares (its step bounds): the
    model is not given them."""
    if not spec or not constants:
        return constants
    from explaincheck.core.oracle.property import (
        is_props_path,
        read_props_file,
        split_props_spec,
        without_constants,
    )

    if not is_props_path(spec):
        return constants
    declared = read_props_file(split_props_spec(spec)[0]).constants
    return without_constants(constants, tuple(declared)) or None
