"""Panning a 1,000-node drawn graph: the longest stall of the GUI event loop (issue 17).

A 32x32 slippery gridworld (1,024 states, drawn whole: every state and transition is an item)
is shown in a 1000x800 graph view, then panned across in small steps with ``centerOn``, each
step followed by the repaint Qt would do for a drag. A 10 ms timer on the GUI thread records the
longest gap between its ticks. Three zoom levels: the whole graph in view (``fit``), the default
readable scale (1:1, labels drawn) and zoomed in (2:1). Goal: <= 100 ms at every level.

    QT_QPA_PLATFORM=offscreen python benchmarks/gui_panning.py [--n 32] [--steps 60]
                                                               [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from gui_large_model import Stalls, synthetic_oracle, wait_until


def pan(app, graph, steps: int) -> float:
    """Pan diagonally across the scene; the longest event-loop stall in seconds."""
    view = graph.view
    rect = graph.view.content_rect
    view.auto_fit = False
    stalls = Stalls()
    stalls.start()
    for k in range(steps + 1):
        t = k / steps
        view.centerOn(rect.left() + t * rect.width(), rect.top() + t * rect.height())
        view.viewport().repaint()  # what a drag does on every mouse move
        app.processEvents()
    return stalls.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=32, help="grid side (32 -> 1,024 states)")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    import qasync
    from PySide6.QtWidgets import QApplication

    from explaincheck.gui.support.tasks import prepare_worker_threads
    from explaincheck.gui.views.graph_view import GraphView

    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app, already_running=True)
    prepare_worker_threads(loop)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)

    oracle = synthetic_oracle(args.n, "grid.prism")
    graph = GraphView()
    graph.resize(1000, 800)
    graph.show()
    graph.set_oracle(oracle)
    wait_until(app, lambda: graph.ready)
    print(f"{len(graph.node_items):,} nodes and {len(graph.edge_items):,} edges drawn")
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    worst = 0.0
    for name, scale in (("fit", None), ("1:1", 1.0), ("2:1", 2.0)):
        if scale is None:
            graph.view.fit()
        else:
            graph.view.resetTransform()
            graph.view.zoom(scale)
        app.processEvents()
        started = time.perf_counter()
        stall = pan(app, graph, args.steps)
        seconds = time.perf_counter() - started
        worst = max(worst, stall)
        print(
            f"zoom {name:>3}: {args.steps} pan steps in {seconds:.2f} s, "
            f"longest event-loop stall {stall * 1000:.0f} ms"
        )
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    load = os.getloadavg()
    print(
        f"worst stall {worst * 1000:.0f} ms (goal <= 100 ms); "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


if __name__ == "__main__":
    main()
