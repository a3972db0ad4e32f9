"""``train-set`` on a campaign of ``oracle``, ``random`` and ``flaw:myopic:2``: every chosen answer
passes the grader and every rejected reply fails it (graded again here, record by record), the
records have OpenAI's chat fine-tuning shape and TRL's conversational shapes, and the JSONL
loads the way ``datasets.load_dataset("json", ...)`` loads it (pyarrow's JSON reader, which
``datasets`` uses; ``datasets`` itself is not a dependency of the suite)."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.json as pa_json
import pytest

from explaincheck.core.campaign.regrade import _oracle_from, case_of
from explaincheck.core.campaign.split_file import read_split
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS
from explaincheck.core.taxonomy.grading import grade_reply

LLMS = ("oracle", "random", "flaw:myopic:2")
MESSAGES = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A campaign on two environments, its split, and a set of each format."""
    root = tmp_path_factory.mktemp("train_set")
    db, split = root / "base.sqlite", root / "split.json"
    for env in ("frozen_lake", "wolf_goat_cabbage"):
        args = ["run", "--env", env, "--budget", "6", "--selection", "both", "--db", str(db)]
        for llm in LLMS:
            args += ["--llm", llm]
        assert main(args) == 0
    assert main(["split", "--db", str(db), "--out", str(split)]) == 0
    for fmt in ("openai-chat", "sft", "dpo"):
        for explain in (False, True):
            out = root / f"{fmt}{'-explain' if explain else ''}"
            args = ["train-set", "--db", str(db), "--split", str(split), "--format", fmt]
            assert main([*args, "--out", str(out), *(["--explain"] if explain else [])]) == 0
    return root


def lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def graded(made, folder):
    """Each record with its origin, its test case and the oracle of its model."""
    with Store.open(made / "base.sqlite", readonly=True) as store:
        settings = {c.model_hash: c.settings for c in store.campaigns()}
        rows = {(r.model_hash, r.case_key): r for r in store.iter_stored()}
    oracles = {}
    for record, origin in zip(
        lines(folder / "train.jsonl"), lines(folder / "index.jsonl"), strict=True
    ):
        model = origin["model_hash"]
        oracle = oracles.setdefault(model, _oracle_from(settings[model], model))
        row = rows[(model, origin["case_key"])]
        yield record, origin, case_of(row), oracle, row


@pytest.mark.parametrize("folder", ["sft", "openai-chat", "sft-explain", "dpo", "dpo-explain"])
def test_every_chosen_answer_passes_and_every_rejected_reply_fails(made, folder):
    found = list(graded(made, made / folder))
    assert found
    for record, origin, case, oracle, row in found:
        if "messages" in record:
            user, assistant = record["messages"]
            chosen, rejected = assistant["content"], None
        else:
            (user,), (answer,), (wrong,) = record["prompt"], record["chosen"], record["rejected"]
            chosen, rejected = answer["content"], wrong["content"]
        assert user["content"] == row.prompt  # the prompt the LLM was asked
        assert grade_reply(case, chosen, oracle).verdict == PASS, origin
        if rejected is not None:
            assert grade_reply(case, rejected, oracle).verdict in (FAIL, INVALID), origin
            assert origin["rejected_llm"] in ("random", "flaw:myopic:2")
        if folder.endswith("explain") and case.category in ("best_action", "satisfy"):
            why, answer_line = chosen.split("\n")
            assert why.startswith("Q(" if case.category == "best_action" else "V(")
            assert json.loads(answer_line)  # the JSON answer on the last line
    split = read_split(made / "split.json")
    train = {(c.model_hash, c.case_key) for c in split.train}
    assert all((o["model_hash"], o["case_key"]) in train for _, o, *_ in found)


def test_dpo_holds_the_failures_of_both_reference_answerers(made):
    origins = lines(made / "dpo" / "index.jsonl")
    assert {o["rejected_llm"] for o in origins} == {"random", "flaw:myopic:2"}
    # one record per distinct failing reply of a question
    keys = [(o["case_key"], o["rejected_llm"]) for o in origins]
    assert len(keys) >= len(set(keys))


def openai_chat_problems(record) -> list[str]:
    """OpenAI's checks of a chat fine-tuning example (its cookbook's format validation)."""
    problems = []
    if not isinstance(record, dict) or set(record) - {"messages", "tools", "parallel_tool_calls"}:
        problems.append("unrecognised top-level keys")
    messages = record.get("messages")
    if not isinstance(messages, list) or not messages:
        return [*problems, "missing messages list"]
    for message in messages:
        if "role" not in message or "content" not in message:
            problems.append("message missing key")
        if set(message) - {"role", "content", "name", "function_call", "weight"}:
            problems.append("message unrecognized key")
        if message.get("role") not in ("system", "user", "assistant", "function", "tool"):
            problems.append("unrecognized role")
        if not isinstance(message.get("content"), str) or not message["content"]:
            problems.append("missing content")
    if not any(m.get("role") == "assistant" for m in messages):
        problems.append("example missing assistant message")
    return problems


def test_the_chat_records_validate_against_openai_and_trl_formats(made):
    for folder in ("openai-chat", "sft", "sft-explain"):
        records = lines(made / folder / "train.jsonl")
        assert all(openai_chat_problems(r) == [] for r in records)
        assert all([m["role"] for m in r["messages"]] == ["user", "assistant"] for r in records)
        table = pa_json.read_json(made / folder / "train.jsonl")  # how datasets reads JSONL
        assert table.num_rows == len(records)
        assert table.schema.field("messages").type == MESSAGES
    table = pa_json.read_json(made / "dpo" / "train.jsonl")
    assert table.column_names == ["prompt", "chosen", "rejected"]
    assert all(table.schema.field(name).type == MESSAGES for name in table.column_names)


def test_the_card_names_the_split_the_hashes_and_the_counts(made):
    info = json.loads((made / "sft" / "dataset_info.json").read_text(encoding="utf-8"))
    split = read_split(made / "split.json")
    card = (made / "sft" / "README.md").read_text(encoding="utf-8")
    assert info["split"]["sha256"] == split.sha256 and split.sha256 in card
    assert info["records"] == len(lines(made / "sft" / "train.jsonl"))
    assert sum(info["records_per_category"].values()) == info["records"]
    for model in info["models"]:
        assert model["model_hash"] in card
    assert info["data_sha256"] in card and 'load_dataset("json"' in card
    assert card.startswith("---\nconfigs:")  # a Hugging Face dataset card's front matter


def test_a_bad_split_or_format_is_one_line(made, tmp_path, capsys):
    broken = tmp_path / "split.json"
    broken.write_text('{"format": "something else"}', encoding="utf-8")
    args = ["train-set", "--db", str(made / "base.sqlite"), "--format", "sft", "--out"]
    assert main([*args, str(tmp_path / "o"), "--split", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "split.json: not a split file" in err and "Traceback" not in err
