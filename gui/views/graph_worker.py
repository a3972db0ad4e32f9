"""The graph's own worker thread.

Its index and layouts must not queue behind the other panels' work on the shared pool (on a
10^5-state model the teaching and campaign panels read the whole model there at the same
moment, and the first neighbourhood waited seconds for them).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_GRAPH_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="explaincheck-graph")


async def in_graph_thread(function: Callable[..., T], *args: Any) -> T:
    """Run ``function`` on the graph's worker thread and await its result."""
    return await asyncio.get_running_loop().run_in_executor(
        _GRAPH_THREAD, functools.partial(function, *args)
    )
