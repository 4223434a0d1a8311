"""The title path against a local OpenAI-compatible server (the tests' fake, answering the hand translations of the
corpus titles) and a real MongoDB-protocol server: with no summary endpoint, a paper is emitted at once without a
Chinese title, the title sweep emits it again with one and its provenance, the paper keeps waiting for a summary,
and every later event of the paper carries the title without asking again. The real local model is measured in
bench/zh_titles.py (docs/benchmarks.md)."""

import asyncio
from collections.abc import AsyncIterator

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.runtime.collections import TITLE_TRANSLATIONS
from schemas.events import PaperNormalized
from schemas.summary import NO_MODEL_CONFIGURED, Summary
from services.normalizer.parsers.daily_arxiv import community_summary
from services.summarizer.policy import enriched_event
from services.summarizer.settings import SummarizerSettings
from services.summarizer.store import TitleStore
from services.summarizer.title_model import TitleModel, Titles, make_titles_client
from services.summarizer.titling import TitleSweep
from tests.support import summarizing
from tests.support.fake_openai import FakeOpenAI, corpus_event, corpus_lines
from tests.support.servers import free_port

pytestmark = pytest.mark.integration

BY_ID = {line["id"]: line for line in corpus_lines()}
CADFIT, LLM_MEDICINE, GAME_THEORY = BY_ID["2605.01171"], BY_ID["2605.01011"], BY_ID["2605.00921"]
CADFIT_ZH = "CADFit：基于混合优化的精确网格到CAD程序生成"  # tests/fixtures/summarizer/additions.json


class Harness(summarizing.Harness):
    """A summarizer with no summary endpoint and the title path on the fake, and what the title sweep emitted."""

    def __init__(self, db: AsyncDatabase, base_url: str) -> None:
        settings = SummarizerSettings(
            titles_base_url=base_url, titles_model="fake-qwen", titles_timeout_s=1.0, openai_attempts=1
        )  # type: ignore[call-arg]
        assert settings.titles_configured and not settings.model_configured
        super().__init__(db, settings)
        self.titles_client = make_titles_client(settings)
        self.titles = Titles(TitleStore(db), TitleModel(self.titles_client, settings))
        self.summarizer.titles = self.titles
        self.sweep = TitleSweep(self.store, self.titles, parallel=2)


@pytest.fixture
async def h(db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI) -> AsyncIterator[Harness]:
    harness = Harness(db, fake[1])
    await harness.store.ensure_indexes()
    yield harness
    await harness.titles_client.close()


async def test_a_paper_is_emitted_at_once_and_titled_by_the_sweep_while_it_waits_for_a_summary(
    h: Harness, openai_fake: FakeOpenAI, db: AsyncDatabase
) -> None:
    event = corpus_event(CADFIT)
    first = await h.handle(event)
    assert (first.status, first.error, first.title_zh) == ("pending", NO_MODEL_CONFIGURED, None)
    assert openai_fake.requests == []  # the handler never waits for the model

    assert await h.sweep.sweep(h.emit, batch=10) == (1, True)
    ((emitted, titled),) = h.emitted
    assert emitted.paper.id == event.paper.id
    assert (titled.status, titled.error) == ("pending", NO_MODEL_CONFIGURED)  # still waiting for a summary
    assert (titled.title_zh, titled.title_model) == (CADFIT_ZH, "fake-qwen")
    assert await h.store.backlog() == 1
    (request,) = openai_fake.requests
    assert request.body["model"] == "fake-qwen" and request.body["messages"][-1]["content"] == CADFIT["title"]
    stored = await db[TITLE_TRANSLATIONS.name].find_one({})
    assert stored is not None and (stored["title"], stored["title_zh"]) == (CADFIT["title"], CADFIT_ZH)

    # nothing left to title: the sweep rests
    assert await h.sweep.sweep(h.emit, batch=10) == (0, False) and len(openai_fake.requests) == 1


async def test_later_events_of_the_paper_carry_the_title_without_asking_again(
    h: Harness, openai_fake: FakeOpenAI
) -> None:
    event = corpus_event(CADFIT)
    await h.handle(event)
    await h.sweep.sweep(h.emit, batch=10)
    ((_, titled),) = h.emitted

    updated = corpus_event(CADFIT, "updated", venue="CVPR 2026")  # a metadata update: handled again
    again = await h.handle(updated)
    assert (again.title_zh, again.title_model, again.status) == (CADFIT_ZH, "fake-qwen", "pending")
    # the vector sweep emits the event it held (from before the title) with the summary as it is now
    waited = enriched_event(event, Summary(status="pending", error=NO_MODEL_CONFIGURED))
    assert await h.summarizer.current_summary(waited) == titled
    # that event went out with its title: the sweep has nothing to do, and the model was asked once
    assert await h.sweep.sweep(h.emit, batch=10) == (0, False)
    assert len(h.emitted) == 1 and len(openai_fake.requests) == 1


async def test_a_community_summary_shown_meanwhile_gets_the_title_too(h: Harness) -> None:
    event = corpus_event(LLM_MEDICINE)
    event = event.model_copy(
        update={
            "paper": event.paper.model_copy(
                update={"community_summary": community_summary(LLM_MEDICINE["AI"], "2026-05-05")}
            )
        }
    )
    shown = await h.handle(event)
    assert shown.publisher == "daily-arXiv-ai-enhanced" and shown.title_zh is None
    assert await h.sweep.sweep(h.emit, batch=10) == (1, True)
    ((_, titled),) = h.emitted
    assert titled.publisher == "daily-arXiv-ai-enhanced" and titled.tldr_zh == shown.tldr_zh
    assert (titled.title_zh, titled.title_model) == (
        "CLEAR：揭示噪声与歧义如何降低医学领域大语言模型的可靠性",
        "fake-qwen",
    )
    assert await h.store.backlog() == 1  # it still waits for our summary


async def test_an_endpoint_down_leaves_papers_untitled_until_it_answers(h: Harness, openai_fake: FakeOpenAI) -> None:
    for line in (CADFIT, GAME_THEORY):
        await h.handle(corpus_event(line))
    openai_fake.down = True
    assert await h.sweep.sweep(h.emit, batch=10) == (0, False) and h.emitted == []
    openai_fake.down = False
    assert await h.sweep.sweep(h.emit, batch=10) == (2, True)
    assert {s.title_zh for _, s in h.emitted} == {CADFIT_ZH, "最少信息下的隐式评价：层次化组件选择中的价格形成"}


async def test_an_endpoint_nobody_listens_on_leaves_papers_waiting(db: AsyncDatabase) -> None:
    h = Harness(db, f"http://127.0.0.1:{free_port()}/v1")
    await h.store.ensure_indexes()
    await h.handle(corpus_event(CADFIT))
    assert await h.sweep.sweep(h.emit, batch=10) == (0, False) and h.emitted == []
    assert await h.store.backlog() == 1
    await h.titles_client.close()


async def test_an_answer_that_is_no_chinese_title_is_kept_as_such_and_not_asked_again(
    h: Harness, openai_fake: FakeOpenAI, db: AsyncDatabase
) -> None:
    await h.handle(corpus_event(CADFIT))
    openai_fake.fail_next("english_title")
    assert await h.sweep.sweep(h.emit, batch=10) == (0, True) and h.emitted == []
    stored = await db[TITLE_TRANSLATIONS.name].find_one({})
    assert stored is not None and stored["title_zh"] is None and "not Chinese" in stored["error"]
    await h.handle(corpus_event(CADFIT, "updated", venue="CVPR 2026"))
    assert await h.sweep.sweep(h.emit, batch=10) == (0, True)
    assert len(openai_fake.requests) == 1 and h.emitted == []


async def test_two_replicas_title_sweeps_title_each_waiting_paper_once(
    h: Harness, openai_fake: FakeOpenAI, db: AsyncDatabase
) -> None:
    lines = corpus_lines()
    for line in lines:
        await h.handle(corpus_event(line))
    other = TitleSweep(h.store, h.titles, parallel=2)  # another replica's title sweep over the same queue
    openai_fake.delay_s = 0.2  # both sweeps have requests in flight at once
    emitted: list[str] = []

    async def drain(sweep: TitleSweep) -> None:
        async def emit(event: PaperNormalized, summary: Summary) -> None:
            emitted.append(event.paper.id)

        while (await sweep.sweep(emit, batch=2))[1]:
            pass

    await asyncio.gather(drain(h.sweep), drain(other))

    assert len(openai_fake.requests) == len(lines)
    assert sorted(emitted) == sorted(f"arxiv:{line['id']}" for line in lines)
