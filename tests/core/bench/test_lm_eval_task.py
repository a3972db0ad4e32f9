"""``bench export --lm-eval DIR``: an lm-evaluation-harness task whose scoring is explaincheck's
grader (issue 53 point 9). lm-eval is kept out of the test extra (three of its dependencies are
source only), so the suite reads the exported YAML and calls the generated ``utils.py`` the way
lm-eval does (``process_results(doc, [reply])`` per document); docs/benchmark.md quotes a run
of lm-eval itself against the OpenAI-compatible stand-in."""

from __future__ import annotations

import importlib.util
import json

import pytest
import yaml
from support.ollama_standin import schema_answer

from explaincheck.core.bench import lm_eval_task
from explaincheck.core.bench.asking import generate_options
from explaincheck.core.bench.grading import Oracles, bench_table, oracle_reply, random_reply
from explaincheck.core.bench.questions import read_set
from explaincheck.core.cli.main import main

ENVS = ["--env", "frozen_lake", "--env", "wolf_goat_cabbage", "--budget", "1"]


class _Loader(yaml.SafeLoader):
    """YAML with lm-eval's ``!function module.name`` tag kept as its text."""


_Loader.add_constructor("!function", lambda loader, node: ("function", node.value))


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lm") / "task"
    assert main(["bench", "export", "--lm-eval", str(folder), *ENVS]) == 0
    return folder


def load_utils(folder):
    spec = importlib.util.spec_from_file_location(f"lm_utils_{id(folder)}", folder / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_task_folder_holds_the_set_and_a_yaml_with_bench_runs_settings(task_dir, tmp_path):
    assert main(["bench", "export", "--out", str(tmp_path / "set"), *ENVS]) == 0
    for name in ("questions.jsonl", "manifest.json"):  # the set itself, byte for byte
        assert (task_dir / name).read_bytes() == (tmp_path / "set" / name).read_bytes()
    bench = read_set(task_dir)
    config = yaml.load((task_dir / "explaincheck_bench.yaml").read_text(), Loader=_Loader)
    assert config["task"] == "explaincheck_bench" and config["output_type"] == "generate_until"
    assert config["process_results"] == ("function", "utils.process_results")
    assert config["custom_dataset"] == ("function", "utils.load_questions")
    options = generate_options(bench)
    kwargs = config["generation_kwargs"]
    assert kwargs == {
        "until": [],  # no stop sequence: lm-eval's default "\n\n" would cut a JSON answer
        "do_sample": False,
        "temperature": options["temperature"],
        "max_gen_toks": options["max_tokens"],
        "seed": options["seed"],
    }
    assert [m["metric"] for m in config["metric_list"]] == ["pass", "fail", "invalid"]
    assert config["metadata"]["explaincheck_sha256"] == bench.manifest["sha256"]
    utils = load_utils(task_dir)
    assert callable(utils.process_results) and callable(utils.load_questions)
    docs = lm_eval_task.rows(task_dir)
    assert [d["id"] for d in docs] == [q.id for q in bench.questions]  # the set's order
    assert {d["prompt"] for d in docs} == {q.prompt for q in bench.questions}
    assert all(isinstance(v, str) for d in docs for v in d.values())  # a columnar dataset


def test_process_results_gives_bench_grades_verdicts_on_the_same_replies(task_dir):
    bench = read_set(task_dir)
    oracles = Oracles(bench)
    replies = {}
    for number, question in enumerate(bench.questions):
        kind = number % 4
        if kind == 0:
            replies[question.id] = oracle_reply(question, oracles)
        elif kind == 1:
            replies[question.id] = random_reply(question, oracles)
        elif kind == 2:
            replies[question.id] = "I cannot tell from the map."
        else:  # the first choice the schema allows, as the stand-in server answers
            replies[question.id] = json.dumps(schema_answer(question.schema))
    utils = load_utils(task_dir)
    verdicts = {}
    for doc in lm_eval_task.rows(task_dir):
        scores = utils.process_results(doc, [replies[doc["id"]]])
        assert sorted(scores.values()) == [0, 0, 1]
        (verdicts[doc["id"]],) = [name for name, value in scores.items() if value]
    assert verdicts == bench_table(bench, replies)["verdicts"]
    assert set(verdicts.values()) == {"pass", "fail", "invalid"}


def test_load_questions_is_a_dataset_when_lm_eval_asks(task_dir):
    datasets = pytest.importorskip("datasets")  # comes with lm-eval, not with the test extra
    found = load_utils(task_dir).load_questions(version=1.0)
    assert isinstance(found, datasets.DatasetDict)
    assert list(found["test"]["id"]) == [q.id for q in read_set(task_dir).questions]


def test_export_needs_a_folder(capsys):
    assert main(["bench", "export", "--env", "frozen_lake"]) == 2
    assert "needs --out DIR or --lm-eval DIR" in capsys.readouterr().err
