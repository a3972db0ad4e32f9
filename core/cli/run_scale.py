"""What ``run`` adds for campaigns at scale: the campaign file, the shard, the price table and
the cost limit, read and checked before any work, and kept with the campaign.

Why apart from ``run_command``: each is optional, and the run sequence
(``workspace.campaign.run_campaign``) applies the shard, prices and options for every front
end, so the command stays a thin reader of options.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

from explaincheck.core.backends.ollama_hosts import normalize_host, redact_url
from explaincheck.core.backends.registry import normalize_spec
from explaincheck.core.campaign.cost_limit import check_limit, check_priced
from explaincheck.core.campaign.prices import Price, price_table
from explaincheck.core.campaign.shard import Shard, parse_shard
from explaincheck.core.cli.campaign_file import apply_config, run_options
from explaincheck.core.cli.run_arguments import run_parser

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
    parser = run_parser()
    apply_config(args, parser)
    shard = parse_shard(args.shard) if getattr(args, "shard", None) else None
    prices = price_table(getattr(args, "price", ()) or (), getattr(args, "prices", None))
    max_cost = check_limit(getattr(args, "max_cost", None), prices)
    if max_cost is not None:  # before the oracle: an unpriced model would count as free
        check_priced(args.llm or (), prices)
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


__all__ = ["Scale", "prepare_scale"]
