"""The frozen set as an lm-evaluation-harness task (``bench export --lm-eval DIR``).

Why a folder lm-eval includes rather than a registered task: lm-eval runs third-party tasks from
``--include_path DIR`` (YAML beside a ``utils.py``), and a task that ships its questions and
scoring together needs no dataset hub. The folder holds the set itself (``questions.jsonl`` and
``manifest.json``, byte for byte ``bench export``'s), ``explaincheck_bench.yaml`` and a
``utils.py`` of three lines that calls this module: the dataset is the set's questions (id,
prompt, category, the expected answer as text), and ``process_results`` grades each reply with
``bench.grading.grade_question``, so a verdict is the one ``bench grade`` gives on the same
reply. The generation settings are ``bench run``'s (``asking.generate_options``: greedy, the
set's seed, the 256-token cap) and no stop sequence, so a JSON answer is not cut at a blank
line. lm-eval itself is not a dependency: ``datasets`` is imported only when lm-eval asks for
the dataset, from lm-eval's own environment (where explaincheck must be installed too).
"""

from __future__ import annotations

import importlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from explaincheck.core.atomic_files import write_text_atomically
from explaincheck.core.bench.asking import generate_options
from explaincheck.core.bench.grading import Oracles, grade_question
from explaincheck.core.bench.questions import BenchSet, Question, read_set, write_set
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS

TASK = "explaincheck_bench"
YAML_FILE, UTILS_FILE = f"{TASK}.yaml", "utils.py"
SPLIT = "test"
VERDICTS = (PASS, FAIL, INVALID)  # one 0/1 metric each; their means are the rates

UTILS = '''"""explaincheck's frozen benchmark as an lm-evaluation-harness task, written by
`explaincheck bench export --lm-eval`. The questions are questions.jsonl beside this file; each
reply is graded by explaincheck's own grader (install explaincheck where lm-eval runs)."""

from pathlib import Path

from explaincheck.core.bench import lm_eval_task

HERE = Path(__file__).resolve().parent


def load_questions(**_options):
    return lm_eval_task.dataset(HERE)


def process_results(doc, results):
    return lm_eval_task.process_results(HERE, doc, results)
'''


def task_yaml(bench: BenchSet) -> str:
    """The task's YAML: generate_until over the set's questions, scored by ``utils.py``."""
    options = generate_options(bench)
    metrics = "".join(
        f"  - metric: {verdict}\n    aggregation: mean\n    higher_is_better: {verdict == PASS}\n"
        for verdict in VERDICTS
    )
    return (
        f"# explaincheck's frozen benchmark {bench.manifest['name']} v{bench.manifest['version']}"
        f" ({bench.manifest['questions']} questions, sha256 {bench.manifest['sha256']}),\n"
        "# written by `explaincheck bench export --lm-eval`. Run with\n"
        f"#   lm_eval --include_path DIR --tasks {TASK} --model local-chat-completions \\\n"
        "#     --model_args model=M,base_url=URL/v1/chat/completions"
        f",seed={options['seed']} --apply_chat_template\n"
        "# pass: explaincheck's verdict is pass (fail, invalid: the other verdicts).\n"
        f"task: {TASK}\n"
        f"custom_dataset: !function utils.load_questions\n"
        f"test_split: {SPLIT}\n"
        "output_type: generate_until\n"
        "doc_to_text: prompt\n"
        "doc_to_target: target\n"
        "num_fewshot: 0\n"
        "generation_kwargs:\n"
        "  until: []\n"
        "  do_sample: false\n"
        f"  temperature: {options['temperature']}\n"
        f"  max_gen_toks: {options['max_tokens']}\n"
        f"  seed: {options['seed']}\n"
        "process_results: !function utils.process_results\n"
        f"metric_list:\n{metrics}"
        "metadata:\n"
        f"  version: {_version(bench)}\n"
        f"  explaincheck_sha256: {bench.manifest['sha256']}\n"
    )


def _version(bench: BenchSet) -> float:
    version = str(bench.manifest["version"])
    return float(version) if version.replace(".", "", 1).isdigit() else 0.0


def write_task(bench: BenchSet, folder: str | Path) -> Path:
    """Write the set and the lm-eval task (YAML, ``utils.py``) into ``folder``."""
    out = write_set(bench, folder)
    for name, text in ((YAML_FILE, task_yaml(bench)), (UTILS_FILE, UTILS)):
        try:
            write_text_atomically(out / name, text)
        except OSError as error:
            why = error.strerror or error
            raise ExplaincheckError(f"cannot write {out / name}: {why}") from None
    return out


def rows(folder: str | Path) -> list[dict[str, str]]:
    """One flat row per question (all text: the set's schemas and answers vary in shape, which
    a columnar dataset would refuse), in the set's order."""
    return [
        {
            "id": q.id,
            "prompt": q.prompt,
            "category": q.category,
            "environment": q.environment,
            "target": json.dumps(q.expected, sort_keys=True),
        }
        for q in _graded(str(Path(folder).resolve()))[0].values()
    ]


def dataset(folder: str | Path) -> Any:
    """The questions as lm-eval's ``custom_dataset`` (a ``datasets.DatasetDict`` with the
    ``test`` split); ``datasets`` comes with lm-eval."""
    datasets = importlib.import_module("datasets")  # lm-eval's, not ours: no stubs here

    return datasets.DatasetDict({SPLIT: datasets.Dataset.from_list(rows(folder))})


def process_results(folder: str | Path, doc: dict[str, Any], results: list[str]) -> dict[str, int]:
    """lm-eval's per-document score: 1 under explaincheck's verdict on the reply, 0 under the
    other two."""
    verdict = grade(folder, str(doc["id"]), results[0] if results else "").verdict
    return {name: int(verdict == name) for name in VERDICTS}


def grade(folder: str | Path, question_id: str, reply: str) -> Any:
    """explaincheck's grade of ``reply`` to the set's question ``question_id``."""
    questions, oracles = _graded(str(Path(folder).resolve()))
    question: Question | None = questions.get(question_id)
    if question is None:
        raise ExplaincheckError(f"{folder}: no question {question_id[:80]!r} in the set")
    return grade_question(question, reply, oracles)


@cache
def _graded(folder: str) -> tuple[dict[str, Question], Oracles]:
    """The questions of the set in ``folder`` by id, in its order (read and hash-checked once),
    and its oracles (computed once)."""
    bench = read_set(folder)
    return bench.by_id(), Oracles(bench)
