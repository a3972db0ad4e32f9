"""How long a 10^5-state model takes to appear in the GUI once its oracle is known (issue 17).

The oracle is the slippery gridworld of ``benchmarks/gridworld.py``, computed by the tool as a
user's would be (verified method, facts kept as columns from 5,000 states on; the first run takes
about a minute, later runs read the cache). ``--synthetic`` instead synthesises per-state facts in
Python (the same states, actions and transitions, made-up values): the shape only models under
5,000 states or an oracle forced to the exact method get, so at 10^5 states it shows how that
path scales, not what a user of a model this large sees.

Two figures, each from the moment the oracle is handed over until the neighbourhood is drawn:
the graph view alone (``GraphView.set_oracle`` -> ``ready``) and the whole main window
(``ModelController.deliver`` -> graph ``ready``, so the inspector, results, campaign and
teaching panels' own work on the GUI thread counts too). Also the longest stall of the event loop
in that interval, from a 10 ms timer. Goal: <= 2 s. Then the Campaign and Teach tabs are shown
in turn (a large model's hidden tabs take it up only then): until their categories / first
lesson are ready, and the longest stall meanwhile.

    QT_QPA_PLATFORM=offscreen python benchmarks/gui_large_model.py [--n 317] [--synthetic]
                                                                   [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gridworld import MOVES, SIDEWAYS, gridworld_prism, holes

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def synthetic_oracle(n: int, path: str):
    """The gridworld's states and transitions as an OracleResult, with made-up values."""
    from explaincheck.core.oracle.types import ModelSummary, OracleResult, StateFacts

    hole_cells = holes(n)
    cells = [(x, y) for y in range(n) for x in range(n)]
    ids = {cell: i for i, cell in enumerate(cells)}
    goal = (n - 1, n - 1)

    def moved(x: int, y: int, direction: str) -> int:
        dx, dy = MOVES[direction]
        return ids[(max(0, min(n - 1, x + dx)), max(0, min(n - 1, y + dy)))]

    states = []
    for (x, y), sid in ids.items():
        done = (x, y) in hole_cells or (x, y) == goal
        successors: dict[str, dict[int, float]] = {}
        q: dict[str, float] = {}
        if done:
            successors = {"": {sid: 1.0}}
        else:
            for action, sides in SIDEWAYS.items():
                out: dict[int, float] = {}
                for target, p in ((action, 0.8), (sides[0], 0.1), (sides[1], 0.1)):
                    t = moved(x, y, target)
                    out[t] = out.get(t, 0.0) + p
                successors[action] = out
                q[action] = (x + y) / (2 * n) + (0.01 if action in ("down", "right") else 0.0)
        value = 1.0 if (x, y) == goal else 0.0 if (x, y) in hole_cells else max(q.values())
        best = tuple(a for a in q if q[a] == max(q.values()))
        worst = tuple(a for a in q if q[a] == min(q.values()))
        states.append(
            StateFacts(
                id=sid,
                valuation={"x": x, "y": y},
                labels=("init",) * (sid == 0)
                + ("goal",) * ((x, y) == goal)
                + ("unsafe",) * ((x, y) in hole_cells),
                value=value,
                danger=1.0 if (x, y) in hole_cells else 0.1,
                q=q,
                best=best,
                worst=worst,
                action_order=(best, worst) if q else (),
                optimal_action=best[0] if best else None,
                dead_end=(x, y) in hole_cells,
                bottleneck=(x, y) == (n // 2, n // 2),
                centrality=0.0,
                is_goal=(x, y) == goal,
                is_unsafe=(x, y) in hole_cells,
                is_initial=sid == 0,
                successors=successors,
            )
        )
    model = ModelSummary(
        path=path,
        constants="",
        goal_label="goal",
        unsafe_label="unsafe",
        states=len(states),
        choices=sum(max(1, len(s.q)) for s in states),
        transitions=sum(len(t) for s in states for t in s.successors.values()),
        initial=0,
        variables=("x", "y"),
        labels=("init", "goal", "unsafe"),
        actions=tuple(SIDEWAYS),
        content_hash="synthetic",
    )
    return OracleResult(
        model=model,
        states=tuple(states),
        method="synthetic",
        tie_tolerance=0.0,
        has_danger=True,
        warnings=(),
        seconds=0.0,
    )


class Stalls:
    """The longest gap between ticks of a 10 ms timer on the GUI thread."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.stamps: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(lambda: self.stamps.append(time.perf_counter()))

    def start(self) -> None:
        self.stamps = [time.perf_counter()]
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        self.stamps.append(time.perf_counter())
        return max(b - a for a, b in zip(self.stamps, self.stamps[1:], strict=False))


def wait_until(app, condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("timed out")
        app.processEvents()
        time.sleep(0.001)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=317, help="grid side (317 -> 100,489 states)")
    parser.add_argument(
        "--synthetic", action="store_true", help="per-state facts made up in Python (no Storm)"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the window figure")
    args = parser.parse_args()

    import qasync
    from PySide6.QtWidgets import QApplication

    from explaincheck.gui.support.settings import Settings
    from explaincheck.gui.support.tasks import prepare_worker_threads

    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app, already_running=True)
    prepare_worker_threads(loop)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)

    folder = Path(tempfile.mkdtemp(prefix="gui_large_"))
    prism = folder / f"grid{args.n}.prism"
    prism.write_text(gridworld_prism(args.n))
    from explaincheck.gui.adapters.model_controller import resolve_environment

    environment = resolve_environment(str(prism))
    started = time.perf_counter()
    if args.synthetic:
        oracle = synthetic_oracle(args.n, str(prism))
    else:
        from explaincheck.core.oracle import compute_oracle

        oracle = compute_oracle(environment.request())
    print(f"{len(oracle.states):,} states; oracle ready in {time.perf_counter() - started:.1f} s")

    from explaincheck.gui.adapters.model_controller import keep_out_of_gc
    from explaincheck.gui.views.graph_view import GraphView

    keep_out_of_gc()  # as the controller does when it delivers an oracle
    stalls = Stalls()
    graph = GraphView()
    graph.resize(1000, 800)
    graph.show()
    app.processEvents()  # its first paint is not the model's cost (as for the window below)
    stalls.start()
    started = time.perf_counter()
    graph.set_oracle(oracle, environment.variables)
    wait_until(app, lambda: graph.ready)
    seconds = time.perf_counter() - started
    print(
        f"graph view alone: neighbourhood of {len(graph.node_items)} states shown in "
        f"{seconds:.2f} s (longest event-loop stall {stalls.stop() * 1000:.0f} ms)"
    )
    graph.close()

    from explaincheck.gui.main_window import MainWindow

    window = MainWindow(Settings(str(folder / "settings.ini")))
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    window.model.environment = environment
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    stalls.start()
    started = time.perf_counter()
    window.model.deliver(oracle)
    wait_until(app, lambda: window.graph.ready and window.graph.oracle is oracle)
    seconds = time.perf_counter() - started
    stall = stalls.stop()
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    print(
        f"main window: neighbourhood of {len(window.graph.node_items)} states shown in "
        f"{seconds:.2f} s after the oracle (longest event-loop stall {stall * 1000:.0f} ms); "
        f"goal <= 2 s"
    )
    for tab, done in (
        ("campaign", lambda: window.campaign_view.category_box.applied is oracle),
        ("teach", lambda: window.teach_view.ready and window.teach_view.oracle is oracle),
    ):  # what a large model's hidden tabs compute once they are shown
        stalls.start()
        started = time.perf_counter()
        window.show_tab(tab)
        wait_until(app, done)
        print(
            f"{tab} tab shown: ready in {time.perf_counter() - started:.2f} s "
            f"(longest event-loop stall {stalls.stop() * 1000:.0f} ms)"
        )
    window.campaigns.stop()
    window.close()
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
