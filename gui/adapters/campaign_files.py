"""The Campaign tab's campaign files: its set-up saved as the TOML that ``explaincheck run
--config`` reads, and such a file opened back into the tab.

Why the run command's own keys: a file saved here runs unchanged on a cluster
(``explaincheck run --config campaign.toml --shard 1/8``), and a file written by
``explaincheck results --config`` opens here; ``load_config`` checks it exactly as ``run`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explaincheck.core.cli.campaign_file import config_text, load_config
from explaincheck.core.cli.run_arguments import run_parser
from explaincheck.core.workspace.presentation.campaign_cost import cost_limit, price_entries

# run option dest -> the tab's ``choices()`` key, for the options the tab shows
_CHOICE_KEYS = {
    "budget": "budget",
    "selection": "selection",
    "repeat": "repeat",
    "seed": "seed",
    "satisfy_rule": "satisfy_rule",
    "satisfy_tolerance": "tolerance",
    "db": "database",
    "wording": "wording",
    "metamorphic": "metamorphic",
    "behavioural": "behavioural",
}


def setup_options(setup: Any, env: str | None, choices: dict[str, Any]) -> dict[str, Any]:
    """Campaign-file keys for the tab's set-up (``CampaignSetup``) on the model ``env``."""
    options: dict[str, Any] = {}
    if env:
        options["env"] = env
    options["llm"] = list(setup.llms)
    if setup.categories:
        options["categories"] = ",".join(setup.categories)
    options.update(
        {
            "budget": setup.budget,
            "selection": setup.selection,
            "repeat": setup.repeat,
            "seed": setup.seed,
            "wording": setup.wording,
            "metamorphic": setup.metamorphic,
            "satisfy-rule": setup.satisfy_rule,
            "satisfy-tolerance": setup.tolerance,
            "db": setup.database,
        }
    )
    if choices.get("behavioural"):
        options["behavioural"] = True
    if choices.get("openai_host"):
        options["openai-base-url"] = [choices["openai_host"]]
    options.update(_cost_options(choices))
    return options


def _cost_options(choices: dict[str, Any]) -> dict[str, Any]:
    """``price`` and ``max-cost`` from the tab's Prices and Stop at cost fields (checked: a
    file saved here must run; the prices settings file is not copied in, it stays a default)."""
    options: dict[str, Any] = {}
    prices = price_entries(str(choices.get("prices") or ""))
    if prices:
        options["price"] = list(prices)
    limit = cost_limit(str(choices.get("max_cost") or ""))
    if limit is not None:
        options["max-cost"] = limit
    return options


def save_campaign(path: str | Path, setup: Any, env: str | None, choices: dict[str, Any]) -> None:
    text = config_text(
        setup_options(setup, env, choices),
        "saved by the explaincheck Campaign tab; run it with: explaincheck run --config FILE",
    )
    from explaincheck.core.atomic_files import write_text_atomically

    write_text_atomically(path, text)


def open_campaign(path: str | Path) -> tuple[dict[str, Any], str | None]:
    """The tab's ``choices()`` form of a campaign file, and the model(s) it names (or None):
    the tab runs its set-up on the open model, one environment at a time, so a file of several
    environments (``env = "all"``, a list) is named, not run here. An unusable file raises the
    ``ExplaincheckError`` that ``run --config`` would."""
    values = load_config(path, run_parser())
    choices: dict[str, Any] = {
        key: values[dest] for dest, key in _CHOICE_KEYS.items() if dest in values
    }
    if "llm" in values:
        choices["llms"] = [[spec, spec, True] for spec in values["llm"]]
        choices["only_llms"] = True
    if "categories" in values:
        choices["categories"] = [c.strip() for c in values["categories"].split(",") if c.strip()]
    if values.get("openai_base_url"):
        choices["openai_host"] = values["openai_base_url"][0]
    choices["prices"] = list(values.get("price") or [])  # the file's set-up: none is none
    choices["max_cost"] = values.get("max_cost") or ""
    envs = values.get("env") or []
    return choices, ", ".join([envs] if isinstance(envs, str) else envs) or None
