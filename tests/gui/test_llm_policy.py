"""File › Ask an LLM for its policy…: the window asks an answerer for its action state by state
on a worker, stores the replies in its results file as ``explaincheck policy --db`` does, and
attaches the policy so the graph, the State inspector, the Report tab's value-loss table and the
Workbench simulator show it; a bad spec gives one line and leaves the model alone; Stop keeps
the replies and attaches nothing."""

from __future__ import annotations

from gui_helpers import open_env, wait_for

from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.loading import complete
from explaincheck.core.policy.stored import POLICY_SELECTION, stored_policies
from explaincheck.core.store import Store
from explaincheck.gui.adapters.llm_policy import PolicyAsk
from explaincheck.gui.views.llm_policy_dialog import LlmPolicyDialog
from explaincheck.gui.views.policy_overlay import REGRET


def source(window) -> str:
    chain = getattr(window.model.oracle, "policy", None)
    return chain.policy.source if chain is not None else ""


def ask_and_wait(qtbot, window, ask: PolicyAsk) -> None:
    before = window.model.oracle
    assert window.llm_policy.ask(ask)
    assert window.llm_policy.running and window.commands.stop.isEnabled()
    assert not window.llm_policy.action.isEnabled()  # one run at a time
    wait_for(
        qtbot,
        lambda: window.model.oracle is not before and source(window) == f"llm:{ask.spec}",
        120,
    )
    wait_for(qtbot, lambda: window.graph.ready and not window.busy(), 60)


def test_the_oracle_as_a_policy_has_loss_zero_everywhere(qtbot, window, tmp_path):
    texts = [a.text() for a in window.menuBar().actions()[0].menu().actions()]
    assert texts[texts.index("Open policy…") + 1] == "Ask an LLM for its policy…"
    assert not window.llm_policy.action.isEnabled()  # no model yet
    base = open_env(qtbot, window, "frozen_lake")
    assert window.llm_policy.action.isEnabled()
    db = tmp_path / "asked.sqlite"
    lines: list[str] = []
    window.llm_policy.controller.progress.connect(lines.append)
    ask_and_wait(qtbot, window, PolicyAsk("oracle", budget=100, database=str(db)))
    chain = window.model.oracle.policy
    assert chain.value_loss == 0 and window.model.oracle.base_hash == base.model.content_hash
    assert all(s.regret == 0 for s in chain.states)
    assert window.graph.toolbar.colour_box.currentData() == REGRET  # the overlay draws it
    assert "π: " in window.graph.node_items[base.model.initial]._caption()

    window.inspector.show_state(base.model.initial)
    box = window.inspector.policy_box
    assert not box.isHidden()
    assert box.fields["regret"].text() == "0" and box.fields["loss"].text() == "0"
    assert box.fields["action"].text() in base.state(base.model.initial).best

    simulator = window.workbench.simulator
    assert simulator.chooser.itemText(2) == "policy llm:oracle"
    assert "value loss 0" in window.statusBar().currentMessage()

    # stored like ``policy --db``: the window opened the file, its rows rebuild the same policy
    assert window.results.db_path == str(db)
    rows = [r for r in window.results.rows if r.get("selection") == POLICY_SELECTION]
    assert len(rows) >= 1 and {r["llm"] for r in rows} == {"oracle"}
    assert (
        lines[-1]
        == f"Asking oracle for its policy: {len(rows)} states answered, 0 more in this round…"
    )
    rebuilt, asked = stored_policies(window.results.rows, base)["oracle"]
    assert asked == len(rows) and rebuilt.value_loss == 0
    table = window.report_view.policy_loss
    wait_for(qtbot, lambda: not table.isHidden() and table.model.rowCount() == 1, 60)
    assert table.model.index(0, 0).data() == "LLM oracle"


def test_the_random_answerer_is_the_uniform_policy_and_asking_again_resumes(
    qtbot, window, tmp_path
):
    base = open_env(qtbot, window, "frozen_lake")
    db = tmp_path / "asked.sqlite"
    ask_and_wait(qtbot, window, PolicyAsk("random", database=str(db)))
    uniform = solve_policy(base, complete(base, {}, "uniform", "uniform"))
    chain = window.model.oracle.policy
    assert chain.value_loss > 0.1  # a real loss on frozen lake, not a vacuous 0
    assert chain.value_loss_exact == uniform.value_loss_exact
    with Store.open(db, readonly=True) as store:
        first = len(store.executions())
    assert first >= 1

    ask_and_wait(qtbot, window, PolicyAsk("random", database=str(db)))  # cached: no new rows
    with Store.open(db, readonly=True) as store:
        assert len(store.executions()) == first
    assert window.model.oracle.policy.value_loss_exact == uniform.value_loss_exact


def test_a_bad_spec_gives_one_line_and_leaves_the_model_alone(qtbot, window, tmp_path):
    oracle = open_env(qtbot, window, "frozen_lake")
    assert not window.llm_policy.ask(PolicyAsk("nosuch:model", database=str(tmp_path / "x.db")))
    assert "unknown LLM 'nosuch:model'" in window.errors[-1]
    assert "\n" not in window.errors[-1]
    assert window.statusBar().currentMessage().startswith("Cannot ask for the policy: unknown")
    assert not window.llm_policy.ask(PolicyAsk("random", budget=0))
    assert "at least 1" in window.errors[-1]
    assert window.model.oracle is oracle and not window.llm_policy.running
    assert window.graph.toolbar.colour_box.findData(REGRET) < 0
    assert not (tmp_path / "x.db").exists()


def test_stop_keeps_the_replies_and_attaches_nothing(qtbot, window, tmp_path):
    oracle = open_env(qtbot, window, "frozen_lake")
    db = tmp_path / "stopped.sqlite"
    controller = window.llm_policy.controller
    with qtbot.waitSignal(controller.stopped, timeout=120_000) as stopped:
        assert window.llm_policy.ask(PolicyAsk("random", database=str(db)))
        window.stop()
    assert "Stopped asking random" in stopped.args[0] and str(db) in stopped.args[0]
    wait_for(qtbot, lambda: not window.busy(), 60)
    assert window.model.oracle is oracle
    assert window.llm_policy.action.isEnabled() and not window.commands.stop.isEnabled()


def test_the_dialog_offers_the_campaign_choices_and_takes_a_typed_spec(qtbot):
    from explaincheck.gui.adapters.backend_choices import llm_choices

    dialog = LlmPolicyDialog(llm_choices(), PolicyAsk("oracle", 7, "optimal", "p.sqlite"))
    qtbot.addWidget(dialog)
    assert dialog.request() == PolicyAsk("oracle", 7, "optimal", "p.sqlite")
    index = dialog.spec.findData("random")
    assert index >= 0
    dialog.spec.setCurrentIndex(index)  # a listed choice: its spec, not its text
    assert dialog.request().spec == "random"
    dialog.spec.setEditText("ollama:llama3.2:1b")
    assert dialog.request().spec == "ollama:llama3.2:1b"


def test_replies_stored_by_the_command_are_not_asked_again(qtbot, window, tmp_path):
    import subprocess
    import sys

    db = tmp_path / "cli.sqlite"
    # a child process: the command runs its own asyncio loop, the window's is running here
    command = ["policy", "--env", "frozen_lake", "--llm", "oracle", "--db", str(db)]
    code = f"from explaincheck.core.cli.main import main; raise SystemExit(main({command!r}))"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    with Store.open(db, readonly=True) as store:
        stored = len(store.executions())
    open_env(qtbot, window, "frozen_lake")
    assert window.llm_policy.proposed().spec  # the dialog starts from some LLM
    ask_and_wait(qtbot, window, PolicyAsk("oracle", database=str(db)))
    with Store.open(db, readonly=True) as store:
        assert len(store.executions()) == stored  # same keys: every reply came from the file
    assert window.model.oracle.policy.value_loss == 0
    assert window.llm_policy.proposed() == PolicyAsk("oracle", 100, "uniform", str(db))


def test_an_llm_that_cannot_be_reached_or_never_answers_gives_one_line(qtbot, window, tmp_path):
    import socket

    from support.ollama_standin import Script, StandinOllama

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    oracle = open_env(qtbot, window, "frozen_lake")
    controller = window.llm_policy.controller
    db = str(tmp_path / "dead.sqlite")
    with qtbot.waitSignal(controller.failed, timeout=120_000) as failed:
        assert window.llm_policy.ask(PolicyAsk(f"ollama:m@http://127.0.0.1:{port}", database=db))
    assert failed.args[0].startswith("no Ollama server answers (")
    assert "\n" not in failed.args[0] and window.errors[-1] == failed.args[0]
    wait_for(qtbot, lambda: not window.busy(), 60)

    with StandinOllama({"m": Script(mode="http500")}) as server:  # answers, but every chat fails
        with qtbot.waitSignal(controller.failed, timeout=120_000) as failed:
            assert window.llm_policy.ask(PolicyAsk(f"ollama:m@{server.url}", database=db))
        wait_for(qtbot, lambda: not window.busy(), 60)
    assert failed.args[0].startswith(f"ollama:m@{server.url} gave no reply (")
    assert "scripted failure" in failed.args[0] and "\n" not in failed.args[0]
    assert window.model.oracle is oracle  # no all-default policy pretends to be the LLM's
    with Store.open(db, readonly=True) as store:  # the first round only: then it gave up
        assert [r["verdict"] for r in store.executions()] == ["error"]
