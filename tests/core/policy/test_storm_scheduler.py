"""A scheduler exported by Storm (JSON with state valuations) loads as a policy: Storm's own
optimal scheduler on Frozen Lake loses nothing; one that names states by number is refused."""

from __future__ import annotations

import json
import subprocess
import sys

from policy_helpers import lake_oracle

from explaincheck.core.cli.main import main
from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.loading import load_policy

# Storm in a child process, as the oracle runs it (a crash there cannot take pytest with it).
EXPORT = """
import sys, stormpy
path, constants, out = sys.argv[1:]
program = stormpy.parse_prism_program(path)
properties = stormpy.parse_properties('Pmax=? [F "goal"]', program)
program, properties = stormpy.instantiate_constants(program, constants, properties)
options = stormpy.BuilderOptions(properties, build_full=True)
model = stormpy.build_model(program, options=options)
result = stormpy.model_checking(model, properties[0], extract_scheduler=True)
open(out, "w").write(result.get_scheduler().to_json_str(model))
"""


def _storm_scheduler(tmp_path):
    request = load_builtin("frozen_lake").request()
    out = tmp_path / "scheduler.json"
    args = [sys.executable, "-c", EXPORT, request.model_path, request.constants, str(out)]
    subprocess.run(args, check=True, capture_output=True, timeout=120)
    return out


def test_storms_optimal_scheduler_loads_and_loses_nothing(tmp_path):
    oracle = lake_oracle()
    path = _storm_scheduler(tmp_path)
    entries = json.loads(path.read_text())
    assert all(isinstance(e["s"], dict) for e in entries)  # valuations, not numbers
    chain = solve_policy(oracle, load_policy(path, oracle).policy)
    assert chain.value_loss_exact == 0


def test_a_scheduler_by_state_number_is_refused(capsys, tmp_path):
    path = _storm_scheduler(tmp_path)
    entries = json.loads(path.read_text())
    for number, entry in enumerate(entries):
        entry["s"] = number
    path.write_text(json.dumps(entries))
    assert main(["oracle", "frozen_lake", "--policy", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "named by Storm's number" in err[0]
