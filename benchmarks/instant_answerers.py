"""How fast the instant answerers (random, oracle, hedge, noisy, flaw, ...) answer every category.

Why: a kind that declares itself ``instant`` is run without a worker pool, a progress estimate or
a server, so it must answer a campaign's worth of questions in well under a second. The unit test
(tests/core/backends/test_backend_facts.py) checks that each instant kind answers every category
with no server; the figure lives here, because a timing limit in a test fails on a loaded
machine (issue 39: 15.1 s against a 2 s limit at load 20).

    python benchmarks/instant_answerers.py [--budget 5] [--env frozen_lake]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from explaincheck.core.backends.registry import KINDS, BackendContext, create_backend
from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=5)
    parser.add_argument("--env", default="frozen_lake")
    args = parser.parse_args()
    campaign = Campaign(environment=args.env, llms=("oracle",))
    environment = load_environment(campaign)
    oracle = oracle_for(campaign, environment)
    cases = [c for cid in CATEGORIES for c in select_cases(oracle, cid, budget=args.budget)]
    ctx = BackendContext(
        oracle=oracle, environment=environment, ollama_hosts=("http://127.0.0.1:9",)
    )
    print(f"{len(cases)} cases on {args.env}, load average {os.getloadavg()[0]:.1f}")
    for kind in (k for k in KINDS.values() if k.instant):
        backend = create_backend((kind.offered() or (kind.example,))[0], ctx)

        async def answer_all(backend=backend) -> int:
            for case in cases:
                await backend.answer(render_prompt(case, oracle, environment), case)
            return len(cases)

        started = time.perf_counter()
        count = asyncio.run(answer_all())
        took = time.perf_counter() - started
        print(
            f"{kind.prefix:<10} {count} replies in {took:6.3f} s"
            f" ({took / count * 1000:.2f} ms each)"
        )


if __name__ == "__main__":
    main()
