"""Open policy… in the window: the graph draws π and colours by regret, the inspector shows
π(s), V^π(s), V*(s) and the regret, the Campaign tab offers the policy categories and the Report
tab shows the value-loss table (with an LLM policy stored by ``explaincheck policy``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gui_helpers import open_env, wait_for

from explaincheck.gui.views import colours
from explaincheck.gui.views.policy_overlay import REGRET, short_choice

HAND = Path(__file__).resolve().parents[2] / "docs/examples/policies/frozen_lake_hand.csv"


def test_open_policy_draws_it_everywhere(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    db = tmp_path / "p.sqlite"
    # a child process: the command runs its own asyncio loop, the window's is running here
    command = ["policy", "--env", "frozen_lake", "--llm", "random", "--db", str(db)]
    code = f"from explaincheck.core.cli.main import main; raise SystemExit(main({command!r}))"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    window.open_database(str(db))
    wait_for(qtbot, lambda: not window.busy())
    window.policy.open_policy(str(HAND))
    wait_for(qtbot, lambda: getattr(window.model.oracle, "policy", None) is not None)
    wait_for(qtbot, lambda: window.graph.ready and not window.busy())
    chain = window.model.oracle.policy
    graph = window.graph
    assert graph.toolbar.colour_box.currentData() == REGRET
    worst = max(chain.states, key=lambda s: s.regret)
    assert graph.node_items[worst.id].fill().name() == colours.danger_colour(1.0).name()
    assert "π: right" in graph.node_items[0]._caption()
    assert short_choice(chain.state(11).action) == "left .5 · down .5"

    window.inspector.show_state(2)
    box = window.inspector.policy_box
    assert not box.isHidden()
    assert box.fields["action"].text() == "right"
    assert box.fields["regret"].text().startswith(f"{chain.state(2).regret:.6g}")
    assert "115/673" in box.fields["V_policy"].text() or chain.initial != 2

    wait_for(qtbot, lambda: window.campaign_view.category_box.applied is window.model.oracle, 60)
    item = window.campaign_view.category_items["policy_optimal"]
    assert not item.isDisabled()

    simulator = window.workbench.simulator  # the Workbench simulator can let it choose
    assert simulator.chooser.itemText(2) == "policy frozen_lake_hand.csv"
    assert simulator.loaded_policy(0) == {"right": 1.0}

    table = window.report_view.policy_loss
    wait_for(qtbot, lambda: not table.isHidden(), 60)
    names = [table.model.index(r, 0).data() for r in range(table.model.rowCount())]
    assert names == ["frozen_lake_hand.csv", "LLM random"]


def test_a_bad_policy_leaves_the_model_alone(qtbot, window, tmp_path):
    oracle = open_env(qtbot, window, "frozen_lake")
    bad = tmp_path / "bad.csv"
    bad.write_text("r,c,action\n0,0,fly\n")
    window.policy.open_policy(str(bad))
    wait_for(qtbot, lambda: bool(window.errors))
    assert "unknown action 'fly'" in window.errors[-1]
    assert window.model.oracle is oracle
    assert window.graph.toolbar.colour_box.findData(REGRET) < 0
