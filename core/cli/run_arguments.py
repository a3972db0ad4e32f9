"""The options of ``explaincheck run``: the parser's arguments, and the ``Campaign`` and the
backend settings they describe.

Why apart from the run itself (``run_command``): a campaign file's keys are these options
(``campaign_file``, ``run_scale`` read them through ``run_parser``), ``regrade`` shares the
satisfy options, and the tests build campaigns from them, none of which needs the run.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace

from explaincheck.core.backends.ollama_hosts import configured_hosts
from explaincheck.core.backends.registry import parse_spec
from explaincheck.core.campaign.matrix import expand_environments
from explaincheck.core.campaign.plan import Campaign, selection_name
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.campaign.settings import campaign_from_settings
from explaincheck.core.campaign.shot_settings import ShotSettings
from explaincheck.core.cli.campaign_file import track_given
from explaincheck.core.cli.oracle_command import add_policy_arguments, positive_int
from explaincheck.core.cli.property_option import add_property_argument, check_goal_and_property
from explaincheck.core.cli.target_argument import add_target_arguments
from explaincheck.core.environments.registry import BUILTIN_IDS
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.follow_ups import follow_up_help
from explaincheck.core.taxonomy.registry import CATEGORIES


def category_ids() -> str:
    """The category ids by dimension, from the registry (so a new category lists itself)."""
    by_dimension: dict[str, list[str]] = {}
    for category_id, category in CATEGORIES.items():
        by_dimension.setdefault(category.dimension, []).append(category_id)
    return "\n".join(f"  {dim:<11} {', '.join(ids)}" for dim, ids in by_dimension.items())


def add_satisfy_arguments(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--satisfy-rule`` and ``--satisfy-tolerance`` (``run`` and ``regrade`` share them)."""
    parser.add_argument(
        "--satisfy-rule",
        default="absolute",
        choices=["absolute", "half"],
        help="satisfy passes when |p - V| <= the tolerance (absolute) or p and V lie on the"
        f" same side of 1/2 (half){note} (absolute)",
    )
    parser.add_argument(
        "--satisfy-tolerance",
        type=float,
        default=0.05,
        metavar="T",
        help="tolerance of the absolute satisfy rule, from 0 to 1 (0.05)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every option of ``run`` (a campaign file's keys are their long names)."""
    parser.add_argument(
        "--env",
        action="append",
        default=None,
        metavar="ENV|MODEL|all",
        help="a built-in environment id or a .prism file (required here or in --config);"
        " repeatable, or all (every installed environment): one campaign per environment into"
        " the one --db, with one progress bar, resumed as a whole",
    )
    parser.add_argument(
        "--llm", action="append", default=None, metavar="SPEC", help="LLM under test (repeatable)"
    )
    parser.add_argument(
        "--categories",
        default="default",
        metavar="default|all|ID,ID",
        help=(
            "categories to test, ids listed above (default: every one that applies here, less "
            "a safer that repeats more_promising; all: every one that applies)"
        ),
    )
    parser.add_argument("--budget", type=int, default=20, help="test cases per category (20)")
    parser.add_argument(
        "--selection",
        default="prioritized",
        type=_selection,
        choices=["prioritized", "random", "both"],
        help="highest-δ cases, a seeded random draw, or both (prioritized; the spelling"
        " prioritised is accepted too and stored as prioritized)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the answers: decoding and the reference answerers' draws (0); it picks"
        " the cases too unless --case-seed is given",
    )
    parser.add_argument(
        "--case-seed",
        type=int,
        default=None,
        metavar="S",
        help="seed that picks the cases (default: --seed); keep it fixed and vary --seed to ask"
        " the same questions again with other draws (an A/A check, a CI gate)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="times each prompt is asked (1); above 1 each repeat has its own seed and"
        " temperature 0.7 (greedy repeats would only repeat the same answer)",
    )
    parser.add_argument(
        "--wording",
        default="0",
        metavar="0|1|2|all",
        help="phrasing of each question (0, the original); all asks every phrasing",
    )
    parser.add_argument(
        "--metamorphic",
        action="store_true",
        help="also ask each case with its states swapped/reordered/renamed and its actions"
        " reordered, to measure how consistent the answers are",
    )
    parser.add_argument(
        "--db", default="results.sqlite", help="results database (default: results.sqlite)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=4, help="requests in flight per LLM, per Ollama host (4)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds one request may take, from sending it to its last word (120): time it"
        " waits in a server's queue counts, so keep --concurrency within the server's slots",
    )
    parser.add_argument(
        "--ollama-host",
        action="append",
        default=[],
        metavar="URL",
        help="Ollama server (repeatable: requests spread over the hosts)",
    )
    parser.add_argument("--const", default=None, help="constant values, e.g. N=3,p=0.5")
    add_target_arguments(parser, "the environment's")
    add_property_argument(parser)
    add_satisfy_arguments(parser, "; stored replies can be re-graded later")
    parser.add_argument(
        "--retries",
        type=int,
        default=3,
        help="times a failed or timed-out request is tried again, with growing pauses (3)",
    )
    parser.add_argument(
        "--llama-binding",
        choices=["xllamacpp", "llama-cpp-python"],
        default=None,
        help="the llama.cpp binding of the local models (default: EXPLAINCHECK_LLAMA_BINDING,"
        " else the prebuilt xllamacpp; llama-cpp-python is the extra local-compiled)",
    )
    parser.add_argument(
        "--state-limit",
        type=positive_int,
        default=None,
        help="refuse models with more states (default 2,000,000)",
    )
    parser.add_argument(
        "--behavioural",
        action="store_true",
        help=follow_up_help(),  # from the registry: the categories that have follow-ups
    )
    add_policy_arguments(parser)  # --policy FILE: the policy categories ask about its choices
    add_rule_arguments(parser)
    add_shot_arguments(parser)
    add_scale_arguments(parser)


def add_shot_arguments(parser: argparse.ArgumentParser) -> None:
    """Few-shot repair: ask a split's cases, each after K solved training cases."""
    parser.add_argument(
        "--shots",
        type=int,
        default=None,
        metavar="K",
        help="put K solved training cases of the same category (nearest delta, never of the"
        " question's neighbourhood) before each question; needs --shots-from",
    )
    parser.add_argument(
        "--shots-from",
        default=None,
        metavar="split.json",
        help="a split (explaincheck split): its held-out cases are asked, whatever --budget"
        " and --selection say, and the shots come from its train part",
    )
    parser.add_argument(
        "--shots-on",
        default="held-out",
        choices=["held-out", "train", "all"],
        help="which part of the split to ask (held-out; train or all show over-fitting)",
    )
    parser.add_argument(
        "--shots-explain",
        action="store_true",
        help="each shot also shows the oracle's values behind its answer",
    )


def _selection(text: str) -> str:
    return selection_name(text)


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    """The selection rules of docs/method.md §4 (``taxonomy.case_rules``)."""
    parser.add_argument(
        "--keep-do-nothing",
        action="store_true",
        help="offer do-nothing actions (every outcome is the state itself, always among the"
        " best) in best/worst/ranking questions; left out by default",
    )
    parser.add_argument(
        "--min-gap",
        type=float,
        default=0.0,
        metavar="G",
        help="leave out pairs, rankings and best/worst cases whose deciding value difference is"
        " below G (0: keep the paper's δ, no filtering)",
    )
    parser.add_argument(
        "--balance",
        default="on",
        choices=["on", "off"],
        help="yes/no categories: as many yes- as no-cases, as the paper's text says (on), or"
        " drawn from all candidates (off)",
    )
    parser.add_argument(
        "--delta",
        default="band",
        choices=["band", "paper"],
        help="satisfy's δ: from the tolerance band around 1/2, whose states a constant 1/2"
        " passes and which are left out (band), or the paper's 1 - 2|V - 1/2| (paper)",
    )


def add_scale_arguments(parser: argparse.ArgumentParser) -> None:
    """Campaign files, shards, OpenAI-compatible servers, prices and the cost limit."""
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="a campaign file (TOML): every option of this command as a key, e.g."
        ' budget = 10, llm = ["random", "oracle"]; options given here override it',
    )
    parser.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="run only the I-th of N deterministic parts of the plan (1/3, 2/3, 3/3); join the"
        " databases with explaincheck merge",
    )
    parser.add_argument(
        "--openai-base-url",
        action="append",
        default=[],
        metavar="URL",
        help="OpenAI-compatible server for openai:MODEL (repeatable: requests spread over the"
        " servers; default OPENAI_BASE_URL, else https://api.openai.com/v1)",
    )
    parser.add_argument(
        "--max-tokens",
        type=positive_int,
        default=256,
        help="output cap of every LLM that generates: OpenAI-compatible and Ollama servers and"
        " the local models (256; a reasoning model thinking aloud may need more; an Ollama"
        " model with the thinking capability gets 8192 more for its reasoning)",
    )
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="MODEL=IN/OUT[/CACHED]",
        help="money per million prompt/completion tokens of a model (repeatable), e.g."
        " gpt-4o-mini=0.15/0.6, and optionally per million cached prompt tokens"
        " (gpt-4o-mini=0.15/0.6/0.075; else they cost IN); kept with the campaign for results"
        " and reports",
    )
    parser.add_argument(
        "--prices",
        default=None,
        metavar="FILE",
        help='a price settings file ([prices] "MODEL" = "IN/OUT"; default'
        " ~/.config/explaincheck/prices.toml when it exists)",
    )
    parser.add_argument(
        "--max-cost",
        type=float,
        default=None,
        metavar="AMOUNT",
        help="stop cleanly once the replies of this campaign cost this much (needs prices)",
    )
    track_given(parser)


# Options that describe one model: with several environments they would be applied to models
# they were not written for (``property`` arrives with ``--property``; absent, it is None).
ONE_MODEL_OPTIONS = ("const", "goal", "unsafe", "policy", "property")


def environments_from(args: argparse.Namespace) -> tuple[str, ...]:
    """The environments ``--env`` names (``all``: every installed one), each once, in order;
    the options that belong to one model are refused with several."""
    given = args.env
    names = [given] if isinstance(given, str) else list(given or ())
    if not [name for name in names if name.strip()]:
        raise ExplaincheckError("--env is required (on the command line or in --config)")
    envs = expand_environments(names, BUILTIN_IDS)
    if len(envs) > 1:
        for dest in ONE_MODEL_OPTIONS:
            if getattr(args, dest, None):
                option = "--" + dest.replace("_", "-")
                raise ExplaincheckError(
                    f"{option} belongs to one model, but --env names {len(envs)} environments:"
                    f" run them one --env at a time with {option}, or drop it"
                )
    return envs


def campaigns_from(args: argparse.Namespace) -> tuple[Campaign, ...]:
    """One campaign per environment of ``--env``, each with every other option (checked once,
    before any model is loaded)."""
    envs = environments_from(args)
    first = campaign_from(args, envs[0])
    return (first, *(replace(first, environment=env) for env in envs[1:]))


def campaign_from(args: argparse.Namespace, env: str | None = None) -> Campaign:
    """The campaign the options describe on ``env`` (default: the one ``--env``), each option
    checked (one line naming it)."""
    if env is None:
        envs = environments_from(args)
        if len(envs) > 1:
            raise ExplaincheckError(f"one environment expected here, --env names {len(envs)}")
        env = envs[0]
    if not args.llm:
        raise ExplaincheckError("--llm is required (on the command line or in --config)")
    for spec in args.llm:
        parse_spec(spec)
    configured_hosts(args.ollama_host)  # a bad --ollama-host is one clear line, before any work
    if args.concurrency < 1:
        raise ExplaincheckError(f"--concurrency must be at least 1 (got {args.concurrency})")
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        raise ExplaincheckError(
            f"--timeout must be a positive number of seconds (got {args.timeout:g})"
        )
    check_goal_and_property(args.goal, getattr(args, "property", None))
    retries = getattr(args, "retries", 3)
    if retries < 0:
        raise ExplaincheckError(f"--retries must be 0 or more (got {retries})")
    return campaign_from_settings(
        env,
        args.llm,
        categories=args.categories,
        budget=args.budget,
        selection=args.selection,
        repeat=args.repeat,
        seed=args.seed,
        case_seed=getattr(args, "case_seed", None),
        wording=args.wording,
        metamorphic=args.metamorphic,
        keep_do_nothing=args.keep_do_nothing,
        min_gap=args.min_gap,
        balance=args.balance == "on",
        delta=getattr(args, "delta", "band"),
        satisfy_rule=args.satisfy_rule,
        satisfy_tolerance=args.satisfy_tolerance,
        constants=args.const,
        goal_label=args.goal,
        unsafe_label=args.unsafe,
        state_limit=args.state_limit,
        shots=shots_from(args),
        property=getattr(args, "property", None),
    )


def shots_from(args: argparse.Namespace) -> ShotSettings | None:
    """The few-shot settings the options give (the split read and checked now), or None."""
    path, k = getattr(args, "shots_from", None), getattr(args, "shots", None)
    if path is None:
        if k is not None:
            raise ExplaincheckError("--shots needs --shots-from split.json (the training cases)")
        return None
    from explaincheck.core.campaign.shots import shot_settings
    from explaincheck.core.campaign.split_file import part_name

    on = getattr(args, "shots_on", "held-out")
    part = on if on == "all" else part_name(on)
    return shot_settings(k or 0, path, part, bool(getattr(args, "shots_explain", False)))


def backend_settings(args: argparse.Namespace) -> BackendSettings:
    """The backend settings the command line gives (``--ollama-host``, ``--timeout``, ...)."""
    return BackendSettings(
        ollama_hosts=tuple(args.ollama_host),
        timeout=args.timeout,
        concurrency=args.concurrency,
        retries=getattr(args, "retries", 3),
        llama_binding=getattr(args, "llama_binding", None),
        openai_hosts=tuple(getattr(args, "openai_base_url", None) or ()),
        max_tokens=getattr(args, "max_tokens", None) or 256,
    )


def run_parser() -> argparse.ArgumentParser:
    """The ``run`` command's options (the keys a campaign file may hold)."""
    parser = argparse.ArgumentParser(prog="explaincheck run", add_help=False)
    add_arguments(parser)
    return parser
