"""What categories attach to an oracle (``OracleResult.attachments``): kept by a policy attached
later, by pickling (the oracle crosses process boundaries) and by ``replace``, never written to
the oracle's cache, and generic, so ``core/policy`` needs nothing from ``core/factors``."""

from __future__ import annotations

import ast
import pickle
from dataclasses import replace
from pathlib import Path

from explaincheck.core.factors.types import FactorTruth, factor_truth, with_factors
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.serialization import from_cache, to_cache
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.policy.attach import attach
from explaincheck.core.policy.loading import policy_from_callable
from explaincheck.core.policy.types import policy_chain

ROOT = Path(__file__).resolve().parents[3]
THREE = ROOT / "tests" / "models" / "policy_three.prism"
TRUTH = FactorTruth(factors=(), states={}, intervened={"all": "abc"})


def _oracle():
    return compute_oracle(OracleRequest(str(THREE)), use_cache=False)


def test_a_policy_attached_later_keeps_the_factor_truth_and_any_other_attachment():
    oracle = with_factors(_oracle(), TRUTH).attach("other", [1, 2])
    policy = policy_from_callable(lambda _valuation: None, oracle, default="uniform")
    with_policy = attach(oracle, policy)
    assert policy_chain(with_policy) is not None
    assert factor_truth(with_policy) is TRUTH
    assert with_policy.attached("other") == [1, 2]
    # and the truth attached after the policy keeps the policy (same class)
    again = with_factors(attach(_oracle(), policy), TRUTH)
    assert policy_chain(again) is not None and factor_truth(again) is TRUTH


def test_attachments_survive_pickling_and_replace_but_not_the_cache():
    oracle = with_factors(_oracle(), TRUTH)
    assert factor_truth(pickle.loads(pickle.dumps(oracle))) == TRUTH
    assert factor_truth(replace(oracle, seconds=1.0)) is TRUTH
    data = to_cache(oracle)
    assert "attachments" not in data and "factors" not in data
    assert to_cache(oracle) == to_cache(_oracle()) | {"seconds": data["seconds"]}
    assert factor_truth(from_cache(data)) is None
    assert factor_truth(_oracle()) is None  # nothing attached by default, copies share nothing
    assert _oracle().attachments == {}


def test_core_policy_imports_nothing_from_core_factors():
    for path in (ROOT / "core" / "policy").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("explaincheck.core.factors"), path
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("explaincheck.core.factors") for a in node.names)
