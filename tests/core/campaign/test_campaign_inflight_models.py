"""Two models asked the same prompt at the same moment get their own replies.

The in-flight sharing of the reply cache once keyed requests by prompt, schema and options only,
so a second local model silently received the first one's replies (marked cached).
"""

from __future__ import annotations

import asyncio

from explaincheck.core.backends.base import Reply
from explaincheck.core.backends.llm import RequestIdentity
from explaincheck.core.campaign.cache import ReplyCache
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import Prompt


def test_same_prompt_to_two_models_in_flight_is_two_requests(tmp_path):
    prompt = Prompt("Which state is more promising?", {"type": "object"})
    options = {"temperature": 0.0, "seed": 0}
    asked: list[str] = []

    def asker(model: str):
        async def ask() -> Reply:
            asked.append(model)
            await asyncio.sleep(0.05)  # both requests are in flight together
            return Reply(text=f'{{"state": "{model}"}}', latency=0.05, host="local")

        return ask

    async def main():
        with Store.open(tmp_path / "c.sqlite") as store:
            cache = ReplyCache(store)
            first, second, again = await asyncio.gather(
                cache.fetch(RequestIdentity("local", ("local",), "a", options), prompt, asker("a")),
                cache.fetch(RequestIdentity("local", ("local",), "b", options), prompt, asker("b")),
                cache.fetch(RequestIdentity("local", ("local",), "a", options), prompt, asker("a")),
            )
        return first, second, again

    first, second, again = asyncio.run(main())
    assert sorted(asked) == ["a", "b"]  # the repeated request to a was shared, b was asked
    assert first[0].text == '{"state": "a"}' and not first[0].cached
    assert second[0].text == '{"state": "b"}' and not second[0].cached
    assert again[0].text == '{"state": "a"}' and again[0].cached
