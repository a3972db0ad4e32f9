"""Power and false alarms of ``explaincheck compare``'s gate, beside the unpaired z-test.

Simulated campaigns, one verdict per case and campaign, tested by the gate itself
(``core.analysis.compare.gate_lines`` on the paired scores, intervals and mde skipped: the gate
at --max-drop 0 reads neither); the first replicate also goes through the whole
``compare_campaigns`` (result rows, pairing) and must give the same decision. The answerer is a
reference explainer: each case has its own pass probability — most cases always pass or always
fail (answers at temperature 0), a share ``--flaky`` of them pass with a probability drawn
uniformly from [0.2, 0.8] — and each campaign draws every verdict afresh.

- Power: the new campaign is the same answerer with faults that flip ``--flip`` of the n cases
  (cases it would always pass now always fail). Printed: the share of replicates in which the
  gate fires, and in which the unpaired one-sided two-proportion z-test (statsmodels
  ``proportions_ztest``, lm-evaluation-harness's way of comparing runs) finds the drop at the
  same α on the same data.
- False alarms (A/A): two campaigns of the same answerer with different random draws; the share
  of replicates in which the gate fires — for the reference explainer above, and for a noisy
  one whose every case is a fresh coin with its own bias (``--noisy-flaky``, default 1: the
  most discordant pairs, the hardest case for the gate's α).

Exit status 1 unless power ≥ 0.9 and false alarms ≤ 0.05 (the issue's bar: n = 500, 3 % flips,
α = 0.05, 1,000 A/A replicates).

    python benchmarks/compare_power.py [--cases 500] [--flip 0.03] [--flaky 0.02]
        [--replicates 1000] [--categories 5] [--alpha 0.05] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportions_ztest

from explaincheck.core.analysis.compare import (
    compare_campaigns,
    gate_lines,
    minimum_detectable_drop,
)

CATEGORIES = ("satisfy", "best_action", "ranking", "safer", "subset_dead_end", "more_promising")


def answerer(cases: int, flaky: float, rng: np.random.Generator) -> np.ndarray:
    """Each case's pass probability: 80 % of the stable cases always pass, the rest never;
    a share ``flaky`` of the cases in between."""
    probability = (rng.random(cases) < 0.8).astype(float)
    wobbly = rng.random(cases) < flaky
    probability[wobbly] = rng.uniform(0.2, 0.8, int(wobbly.sum()))
    return probability


def campaign(verdicts: np.ndarray, categories: int) -> pd.DataFrame:
    """The result rows the gate reads for one campaign (one execution per case)."""
    n = len(verdicts)
    category = [CATEGORIES[i % categories] for i in range(n)]
    return pd.DataFrame(
        {
            "environment": "simulated",
            "model_hash": "h",
            "llm": "x",
            "category": category,
            "case_key": [f"{c}/prioritized/{i}/{i}" for i, c in enumerate(category)],
            "verdict": np.where(verdicts, "pass", "fail"),
        }
    )


def gate_fires(base: np.ndarray, new: np.ndarray, categories: int, alpha: float) -> bool:
    pairs = pd.DataFrame(
        {
            "category": [CATEGORIES[i % categories] for i in range(len(base))],
            "base": base.astype(float),
            "new": new.astype(float),
        }
    )
    return any(line.regression for line in gate_lines(pairs, alpha=alpha, detail=False))


def whole_gate_fires(base: np.ndarray, new: np.ndarray, categories: int, alpha: float) -> bool:
    """The same decision through result rows and the pairing (``compare_campaigns``)."""
    found = compare_campaigns(
        campaign(base, categories), campaign(new, categories), "x", "x", alpha=alpha, detail=False
    )
    return found.regression


def z_test_fires(base: np.ndarray, new: np.ndarray, alpha: float) -> bool:
    n = len(base)
    _, p = proportions_ztest([base.sum(), new.sum()], [n, n], alternative="larger")
    return bool(p < alpha)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--flip", type=float, default=0.03)
    parser.add_argument("--flaky", type=float, default=0.02)
    parser.add_argument("--noisy-flaky", type=float, default=1.0)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--categories", type=int, default=5)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    power = {"gate": 0, "z-test": 0}
    alarms = {"gate": 0, "z-test": 0}
    noisy_alarms = {"gate": 0, "z-test": 0}
    flips = round(args.flip * args.cases)
    for replicate in range(args.replicates):
        probability = answerer(args.cases, args.flaky, rng)
        base = rng.random(args.cases) < probability
        faulty = probability.copy()
        always = np.flatnonzero(probability == 1.0)
        faulty[rng.choice(always, size=flips, replace=False)] = 0.0  # the faults
        new = rng.random(args.cases) < faulty
        fired = gate_fires(base, new, args.categories, args.alpha)
        if replicate == 0 and fired != whole_gate_fires(base, new, args.categories, args.alpha):
            raise SystemExit("the gate on paired scores and compare_campaigns disagree")
        power["gate"] += fired
        power["z-test"] += z_test_fires(base, new, args.alpha)
        again = rng.random(args.cases) < probability  # A/A: the same answerer drawn again
        alarms["gate"] += gate_fires(base, again, args.categories, args.alpha)
        alarms["z-test"] += z_test_fires(base, again, args.alpha)
        noisy = answerer(args.cases, args.noisy_flaky, rng)
        first, second = rng.random(args.cases) < noisy, rng.random(args.cases) < noisy
        noisy_alarms["gate"] += gate_fires(first, second, args.categories, args.alpha)
        noisy_alarms["z-test"] += z_test_fires(first, second, args.alpha)
    elapsed = time.perf_counter() - started
    r = args.replicates
    print(
        f"n = {args.cases} cases in {args.categories} categories, faults flip {flips}"
        f" ({args.flip:.0%}), flaky share {args.flaky:.0%}, alpha = {args.alpha},"
        f" {r} replicates each ({elapsed:.0f} s)"
    )
    print(f"{'test':<8} {'power':>7} {'false alarms (A/A)':>19} {'A/A, noisy answerer':>20}")
    for test in ("gate", "z-test"):
        print(
            f"{test:<8} {power[test] / r:>7.3f} {alarms[test] / r:>19.3f}"
            f" {noisy_alarms[test] / r:>20.3f}"
        )
    print(
        "the gate's smallest drop detected with power 0.8 at these pairs, without flaky cases:"
        f" {minimum_detectable_drop(args.cases, 0.0, args.alpha / (args.categories + 1)):.3f}"
    )
    ok = power["gate"] / r >= 0.9 and max(alarms["gate"], noisy_alarms["gate"]) / r <= 0.05
    print("PASS" if ok else "FAIL: power must be >= 0.9 and false alarms <= 0.05")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
