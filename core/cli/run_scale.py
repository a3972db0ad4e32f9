"""What ``run`` adds for campaigns at scale: the campaign file, the shard, the price table and
the cost limit, read and checked before any work, and kept with the campaign.

Why apart from ``run_command``: each is optional and the same for every front end (the Python
API uses ``CostGuard`` and ``scaled_plan`` too), so the command stays a thin reader of options.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, replace
from typing import Any

from explaincheck.core.analysis.cost_limit import CostGuard, check_limit
from explaincheck.core.analysis.prices import Price, price_table, stored_form
from explaincheck.core.backends.ollama_hosts import normalize_host, redact_url
from explaincheck.core.backends.registry import normalize_spec
from explaincheck.core.campaign.plan import Plan
from explaincheck.core.campaign.shard import Shard, parse_shard

URL_KEYS = ("ollama-host", "openai-base-url")  # kept without userinfo or query


@dataclass(frozen=True)
class Scale:
    """The checked scale options of one run."""

    shard: Shard | None = None
    prices: dict[str, Price] = field(default_factory=dict)
    max_cost: float | None = None
    options: dict[str, Any] = field(default_factory=dict)  # every run option, as a file holds it


def prepare_scale(args: argparse.Namespace) -> Scale:
    """Apply ``--config`` to ``args`` (command line wins) and check the scale options."""
    from explaincheck.core.cli.campaign_file import apply_config, run_options, run_parser

    parser = run_parser()
    apply_config(args, parser)
    shard = parse_shard(args.shard) if getattr(args, "shard", None) else None
    prices = price_table(getattr(args, "price", ()) or (), getattr(args, "prices", None))
    max_cost = check_limit(getattr(args, "max_cost", None), prices)
    options = run_options(args, parser)
    for key in URL_KEYS:  # no secret reaches the store: no userinfo, query or fragment
        if key in options:
            options[key] = [checked_url(key, url) for url in options[key]]
    if "llm" in options:
        options["llm"] = [normalize_spec(spec) for spec in options["llm"]]
    return Scale(shard, prices, max_cost, options)


def checked_url(key: str, url: str) -> str:
    """A URL option as stored: refused (one line, before any work) when it cannot be used or
    carries credentials, else without its query and fragment."""
    from explaincheck.core.backends.openai_backend import normalize_base_url

    (normalize_base_url if key == "openai-base-url" else normalize_host)(url)
    return redact_url(url)


def scaled_plan(plan: Plan, scale: Scale) -> Plan:
    """The plan cut to the shard, with the run options, prices and shard as its notes."""
    from explaincheck.core.campaign.shard import shard_plan

    if scale.shard is not None:
        plan = shard_plan(plan, scale.shard)
    notes: dict[str, Any] = {"run_options": scale.options}
    if scale.prices:
        notes["prices"] = stored_form(scale.prices)
    if scale.shard is not None:
        notes["shard"] = str(scale.shard)
    return replace(plan, notes={**plan.notes, **notes})


__all__ = ["CostGuard", "Scale", "prepare_scale", "scaled_plan"]
