"""The PRISM benchmark suite's reward and bounded properties: V(s0) through explaincheck's one
oracle pipeline (``compute_in_process``: Storm's check of the property, a deadline through the
product of ``property_values``) against stormpy's own build and check of the same file, with times.

The suite's files are not in this repository. The instances stormpy's wheel ships are found by
themselves (consensus coin2-2 and coin2, csma2-2, firewire3-0.5; tests/core/oracle/
test_property_suite.py checks them); the others are looked for in ``--suite DIR`` (a checkout of
github.com/prismmodelchecker/prism-benchmarks' models/mdps, or the files copied flat), and a
missing one is said, not failed. (Some suite files name no model type; PRISM reads a .nm as an
MDP, Storm needs the keyword ``mdp`` on its first line: add it to the copy.) zeroconf ships
only probabilities of F (no reward, no bounded property): it is listed with one of them.

    python benchmarks/suite_properties.py [--suite DIR] [--markdown]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

# (file, constants, property): the suite's .pctl texts, the wheel's label names where they differ
CASES: tuple[tuple[str, str, str], ...] = (
    ("coin2-2.nm", "", 'R{"steps"}min=? [F "finished"]'),
    ("coin2-2.nm", "", 'R{"steps"}max=? [F "finished"]'),
    ("coin2-2.nm", "", 'Pmax=? [F<=20 "finished"]'),
    ("csma2-2.nm", "", 'R{"time"}min=? [F "all_delivered"]'),
    ("csma2-2.nm", "", 'R{"time"}max=? [F "all_delivered"]'),
    ("csma2-2.nm", "", 'Pmin=? [!"collision_max_backoff" U "all_delivered"]'),
    ("csma2-2.nm", "", 'Pmin=? [F<=30 "all_delivered"]'),
    ("firewire3-0.5.nm", "", 'R{"time"}min=? [F "elected"]'),
    ("firewire3-0.5.nm", "", 'R{"time"}max=? [F "elected"]'),
    ("firewire3-0.5.nm", "", 'R{"time_sending"}max=? [F "elected"]'),
    ("wlan0.nm", "COL=0", 'R{"cost"}min=? [F s1=12 & s2=12]'),
    ("wlan0.nm", "COL=0", 'R{"time"}min=? [F s1=12 & s2=12]'),
    ("wlan0.nm", "COL=0", 'R{"time"}max=? [F s1=12 & s2=12]'),
    ("wlan0.nm", "COL=0", 'R{"collisions"}max=? [F s1=12 & s2=12]'),
    ("wlan0.nm", "COL=0", "Pmin=? [F<=100 s1=12 & s2=12]"),
    ("coin2.nm", "K=4", 'R{"steps"}min=? [F "finished"]'),
    ("csma2_4.nm", "", 'R{"time"}min=? [F "all_delivered"]'),
    ("zeroconf.nm", "reset=true,N=20,K=2", "Pmax=? [F (l=4 & ip=1)]"),
)


def wheel_dir() -> Path:
    import stormpy

    return Path(stormpy.__file__).parent / "examples" / "files" / "mdp"


def find(name: str, suite: Path | None) -> Path | None:
    for folder in (wheel_dir(), suite):
        if folder is None:
            continue
        direct = folder / name
        if direct.is_file():
            return direct
        found = sorted(folder.rglob(name))
        if found:
            return found[0]
    return None


def ours(path: Path, constants: str, text: str) -> tuple[float, int]:
    """V(s0) through explaincheck's one oracle pipeline (``compute_in_process``: Storm's check
    of the property, a deadline over the product with the steps left), and the states (the
    product's for a deadline)."""
    from explaincheck.core.oracle.compute import compute_in_process
    from explaincheck.core.oracle.property import parse_property
    from explaincheck.core.oracle.types import OracleRequest

    prop = parse_property(text)
    request = OracleRequest(
        str(path),
        constants,
        prop.goal_text,
        "no_unsafe_label",
        state_limit=10_000_000,
        centrality=False,
        property=prop,
    )
    result = compute_in_process(request)
    return float(result.states[result.model.initial].value), result.model.states


def storm_alone(path: Path, constants: str, text: str) -> float:
    import stormpy

    program = stormpy.parse_prism_program(str(path))
    props = stormpy.parse_properties(text, program)
    if constants:
        program, props = stormpy.instantiate_constants(program, constants, props)
    built = stormpy.build_model(program, props)
    return float(stormpy.model_checking(built, props[0]).get_value(built.initial_states[0]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=None, help="the suite's models folder")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    rows = []
    for name, constants, text in CASES:
        path = find(name, args.suite)
        if path is None:
            rows.append((name, constants, text, "not found", "", "", "", ""))
            continue
        started = time.perf_counter()
        try:
            value, states = ours(path, constants, text)
        except Exception as error:  # a file of another model type, a missing constant
            rows.append((name, constants, text, f"refused: {error}", "", "", "", ""))
            continue
        own = time.perf_counter() - started
        started = time.perf_counter()
        expected = storm_alone(path, constants, text)
        alone = time.perf_counter() - started
        same = (math.isinf(value) and math.isinf(expected)) or math.isclose(
            value, expected, rel_tol=1e-6, abs_tol=1e-9
        )
        rows.append(
            (name, constants, text, f"{states:,}", f"{value:.10g}", f"{expected:.10g}",
             "yes" if same else "NO", f"{own:.1f} / {alone:.1f}")
        )  # fmt: skip
    header = (
        "file",
        "constants",
        "property",
        "states",
        "V(s0)",
        "stormpy",
        "equal",
        "s (ours / storm)",
    )
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    else:
        for row in rows:
            print("  ".join(map(str, row)))
    return 0 if all(r[6] in ("yes", "") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
