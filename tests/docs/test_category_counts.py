"""The category counts the docs state come from one source, the registry's ``census``.

The README once said eleven, method.md ten plus factors, ``envs`` "10 of 15" and ``run --help``
listed fifteen ids (issue 39): each number below is read from the text and held to the registry.
"""

from __future__ import annotations

import re
from pathlib import Path

from explaincheck.core.taxonomy.registry import CATEGORIES, OWN_CATEGORIES, census

ROOT = Path(__file__).resolve().parents[2]
WORDS = {
    w: n
    for n, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}


def number(word: str) -> int:
    return int(word) if word.isdigit() else WORDS[word.lower()]


def test_the_census_adds_up():
    counts = census()
    assert counts.total == len(OWN_CATEGORIES) and set(OWN_CATEGORIES) <= set(CATEGORIES)
    assert counts.paper + counts.more + counts.explanation + counts.about_a_policy == counts.total
    assert counts.paper == 10  # the paper's Table 1 is fixed


def test_the_readme_states_the_registry_counts():
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    found = re.search(
        r"(\w+) query categories structure the questions \(the paper's (\w+),(?: (\w+) more,)? "
        r"(\w+) why-question categor(?:y|ies) and (\w+) about a policy",
        text,
    )
    assert found, "README's opening no longer says how many categories there are"
    counts = census()
    stated = [number(w or "zero") for w in found.groups()]  # "N more," only when there are
    assert stated == [
        counts.total,
        counts.paper,
        counts.more,
        counts.explanation,
        counts.about_a_policy,
    ]


def test_the_method_page_states_the_registry_counts():
    text = " ".join((ROOT / "docs" / "method.md").read_text(encoding="utf-8").split())
    counts = census()
    heading = re.search(r"## 2\. Test cases: the (\w+) categories", text)
    assert heading and number(heading[1]) == counts.paper
    found = re.search(
        r"(\w+) more ask about a policy the user attaches \(§10\): (\w+) in all", text
    )
    assert found
    assert [number(found[1]), number(found[2])] == [counts.about_a_policy, counts.total]
    assert number(re.search(r"\*\*(\w+) categories\*\* ask about π's decisions", text)[1]) == (
        counts.about_a_policy
    )
