"""Runner overhead: >= 2,000 executions against a stand-in Ollama server answering after 50 ms.

Why: with slow LLMs the runner must add next to nothing: the ideal wall time of N executions at a
fixed 50 ms per reply and 8 in flight is N x 50 ms / 8. The whole real pipeline runs (planned
frozen_lake cases, real prompts, the official ``ollama`` client over HTTP, grading, SQLite
writes committed on the next turn of the event loop); only the LLM is the stand-in, in its own
process so it does not share the runner's interpreter. Issue 17 asks wall time <= 1.05 x
ideal. The same requests from the bare client (no runner) give the floor on this machine; the
difference is the runner's own cost, printed per execution, with the load average (2 shared
cores make every figure move).

    python benchmarks/runner_overhead.py [--executions 2000] [--delay 0.05] [--concurrency 8]
        [--server ollama|openai] [--profile]

``--server openai`` runs the same campaign through ``openai:MODEL`` against the stand-in
OpenAI-compatible server (the official ``openai`` client, json_schema response format);
``--profile`` adds where the runner's CPU goes (own time by package, from cProfile).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from explaincheck.core.backends.llm import Decoding
from explaincheck.core.backends.registry import BackendContext, create_backend
from explaincheck.core.campaign.plan import Campaign, Plan, plan_campaign
from explaincheck.core.campaign.runner import CampaignRunner
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import ERROR

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "tests" / "support" / "ollama_standin.py"
OPENAI_STANDIN = ROOT / "tests" / "support" / "openai_standin.py"
MODEL = "bench:latest"
LIMIT = 1.05


def start_standin(delay: float, server: str = "ollama") -> tuple[subprocess.Popen, str]:
    script = OPENAI_STANDIN if server == "openai" else STANDIN
    process = subprocess.Popen(
        [sys.executable, str(script), "--model", MODEL, "--delay", str(delay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline().split()
    if line[:1] != ["PORT"]:
        process.kill()
        raise SystemExit("the stand-in server did not start")
    url = f"http://127.0.0.1:{line[1]}"
    return process, f"{url}/v1" if server == "openai" else url


def plan_for(executions: int, server: str = "ollama") -> Plan:
    """frozen_lake, every category, prioritized cases (all prompts distinct), repeated (each
    repeat with its own seed, so a distinct request) until >= ``executions``."""
    base = Campaign("frozen_lake", (f"{server}:{MODEL}",), budget=20)
    cases = plan_campaign(base).total
    repeat = math.ceil(executions / cases)
    return plan_campaign(Campaign("frozen_lake", base.llms, budget=20, repeat=repeat))


async def run(
    plan: Plan, db: Path, url: str, concurrency: int
) -> tuple[float, float, int, int, int]:
    campaign = plan.campaign
    context = BackendContext(
        oracle=plan.oracle,
        environment=plan.environment,
        decoding=Decoding(campaign.seed, campaign.repeat, campaign.repeat_temperature),
        concurrency=concurrency,
        timeout=30,
        ollama_hosts=(url,),
        openai_hosts=(url,),
    )
    backends = {spec: create_backend(spec, context) for spec in campaign.llms}
    with Store.open(db) as store:
        runner = CampaignRunner(plan, store, backends)
        for backend in backends.values():
            await backend.prepare()  # listing and /api/show are not part of the measurement
        started, cpu = time.perf_counter(), time.process_time()
        outcome = await runner.run()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        errors = store.count(ERROR)
        stored = store.count()
        sent = sum(not row["cached"] for row in store.iter_executions())
    await context.close()
    assert outcome.complete, outcome
    return wall, cpu, stored, errors, sent


async def bare_openai(plan: Plan, url: str, concurrency: int) -> tuple[float, float]:
    """``bare_client`` with the official ``openai`` client."""
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="no-key", timeout=30, max_retries=0)
    todo = list(plan.executions)

    async def worker() -> None:
        while todo:
            execution = todo.pop()
            await client.chat.completions.create(
                model=MODEL,
                messages=[{"role": "user", "content": execution.prompt.text}],
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": execution.prompt.schema},
                },
                temperature=0.0,
                seed=execution.repeat,
            )

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    await client.close()
    return wall, cpu


_PACKAGES = (  # (label, path fragment) for --profile, first match wins
    ("openai client", "/openai/"),
    ("openai client: typing introspection", "typing"),
    ("HTTP (httpx, httpcore, h11)", "/h11/"),
    ("HTTP (httpx, httpcore, h11)", "anyio"),
    ("HTTP (httpx, httpcore, h11)", "sniffio"),
    ("HTTP (httpx, httpcore, h11)", "/http"),
    ("pydantic (reply parsing)", "/pydantic"),
    ("ollama client", "/ollama/"),
    ("store (SQLite writes)", "core/store/"),
    ("reply cache", "core/campaign/cache.py"),
    ("runner", "core/campaign/"),
    ("grading and parsing", "core/taxonomy/"),
    ("backends", "core/backends/"),
    ("asyncio and sockets", "/asyncio/"),
    ("json", "/json/"),
    ("store (SQLite writes)", "sqlite3"),
    ("asyncio and sockets", "socket"),
    ("asyncio and sockets", "select."),
    ("SSL", "ssl"),
    ("interpreter built-ins", "~"),
)


def profile_summary(stats: object, executions: int) -> str:
    """Own CPU time per package, per execution, largest first."""
    totals: dict[str, float] = {}
    for (path, _, name), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = f"{path} {name}"
        label = next((label for label, part in _PACKAGES if part in where), "other")
        totals[label] = totals.get(label, 0.0) + own
    lines = [
        f"  {label:<38} {seconds / executions * 1000:6.3f} ms per execution"
        for label, seconds in sorted(totals.items(), key=lambda item: -item[1])
    ]
    return "where the CPU goes (cProfile, own time; profiling slows everything):\n" + "\n".join(
        lines
    )


async def bare_client(plan: Plan, url: str, concurrency: int) -> tuple[float, float]:
    """The same requests straight from the official client (no runner): the floor on this
    machine, to tell the runner's own overhead from the client's and the machine's."""
    import ollama

    client = ollama.AsyncClient(host=url, timeout=30)
    todo = list(plan.executions)

    async def worker() -> None:
        while todo:
            execution = todo.pop()
            await client.chat(
                model=MODEL,
                messages=[{"role": "user", "content": execution.prompt.text}],
                format=execution.prompt.schema,
                options={"temperature": 0.0, "seed": execution.repeat, "num_ctx": 8192},
                stream=False,
            )

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    await client.close()
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--server", choices=["ollama", "openai"], default="ollama")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    plan = plan_for(args.executions, args.server)
    server, url = start_standin(args.delay, args.server)
    bare = bare_openai if args.server == "openai" else bare_client
    profiled = ""
    try:
        with tempfile.TemporaryDirectory() as folder:
            wall, cpu, stored, errors, sent = asyncio.run(
                run(plan, Path(folder) / "bench.sqlite", url, args.concurrency)
            )
            if args.profile:
                import cProfile
                import pstats

                profiler = cProfile.Profile(time.process_time)  # CPU, not waiting
                profiler.enable()
                asyncio.run(run(plan, Path(folder) / "profile.sqlite", url, args.concurrency))
                profiler.disable()
                profiled = profile_summary(pstats.Stats(profiler), plan.total)
        floor, floor_cpu = asyncio.run(bare(plan, url, args.concurrency))
    finally:
        server.kill()
    ideal = plan.total * args.delay / args.concurrency
    ratio = wall / ideal
    print(
        f"{args.server}: executions {plan.total} (stored {stored}, errors {errors},"
        f" requests sent {sent}), reply delay"
        f" {args.delay * 1000:.0f} ms, concurrency {args.concurrency}\n"
        f"wall {wall:.2f} s, ideal {ideal:.2f} s, ratio {ratio:.3f}"
        f" ({'within' if ratio <= LIMIT else 'OVER'} {LIMIT}x)\n"
        f"the same requests from the bare client, no runner: {floor:.2f} s,"
        f" ratio {floor / ideal:.3f}\n"
        f"the runner's own cost over the bare client: {(wall - floor) / plan.total * 1000:.2f} ms"
        f" wall per execution; CPU {cpu / plan.total * 1000:.2f} ms per execution"
        f" (bare client {floor_cpu / plan.total * 1000:.2f} ms);"
        f" load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    if profiled:
        print(profiled)
    ok = stored == sent == plan.total and errors == 0
    return 0 if ratio <= LIMIT and ok else 1


if __name__ == "__main__":
    sys.exit(main())
