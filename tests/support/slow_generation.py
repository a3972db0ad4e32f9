"""``explaincheck run`` with a stand-in local model whose generation takes ``SECONDS`` on the
native worker thread (as a llama.cpp generation does, and as uninterruptible): the Ctrl-C test
and benchmarks/ctrl_c.py start it as a child process and send it SIGINT.

    python slow_generation.py MARKER DB [SECONDS]

MARKER is created when the first slow generation has started.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from explaincheck.core.backends import registry
from explaincheck.core.backends.base import Reply
from explaincheck.core.backends.llm import LLMBackend, RequestIdentity
from explaincheck.core.backends.native_worker import WORKER
from explaincheck.core.cli.main import main


class SlowGeneration(LLMBackend):
    """Answers after ``seconds`` of blocking work on the native worker."""

    concurrency = 1

    def __init__(self, marker: Path, seconds: float) -> None:
        self.spec = "slowgen"
        self.marker = marker
        self.seconds = seconds

    def request_identity(self, prompt, repeat=0) -> RequestIdentity:
        return RequestIdentity("slowgen", ("here",), "slow", {"repeat": repeat})

    async def answer(self, prompt, case, *, repeat=0) -> Reply:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(WORKER, self._generate)

    def _generate(self) -> Reply:
        self.marker.touch()
        time.sleep(self.seconds)  # stands for llama.cpp's generation: nothing interrupts it
        return Reply('{"probability": 0.5}', latency=self.seconds, host="here")


if __name__ == "__main__":
    marker, db = Path(sys.argv[1]), sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 600.0
    registry.KINDS["slowgen"] = registry.BackendKind(
        "slowgen", lambda rest, ctx: SlowGeneration(marker, seconds), "a slow stand-in"
    )
    args = ["run", "--env", "frozen_lake", "--llm", "random", "--llm", "slowgen"]
    sys.exit(main([*args, "--categories", "satisfy", "--budget", "3", "--db", db]))
