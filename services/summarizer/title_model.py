"""The title path's endpoint: a local OpenAI-compatible model asked for Chinese titles alone (titles.py), each
translation kept in `title_translations` so a title is asked once."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openai import AsyncOpenAI

from papertrail.runtime.endpoint import error_kind, is_unavailable, unavailable_reason, with_retries
from schemas.paper import Paper
from schemas.summary import Summary
from services.summarizer.metrics import TITLE_SECONDS, TITLES
from services.summarizer.settings import SummarizerSettings
from services.summarizer.store import TitleStore
from services.summarizer.titles import (
    TITLE_MAX_TOKENS,
    InvalidTitle,
    KnownTitle,
    gets_a_title,
    parse_title,
    title_key,
    title_messages,
    with_title,
)


class TitlesUnavailable(Exception):
    """The title endpoint cannot answer now (down, overloaded): the papers wait for the next sweep."""


class TitleModel:
    """The endpoint with its concurrency limit; transient errors are retried as the summary model's are."""

    def __init__(self, client: AsyncOpenAI, settings: SummarizerSettings) -> None:
        assert settings.titles_model is not None
        self.client = client
        self.settings = settings
        self.model = settings.titles_model
        self.slots = asyncio.Semaphore(settings.titles_concurrency)

    async def translate(self, title: str) -> KnownTitle:
        """The title's translation, or the reason there is none (final); TitlesUnavailable when the endpoint is
        down."""
        import openai

        try:
            answer = await with_retries(
                lambda: self._request(title),
                attempts=self.settings.openai_attempts,
                wait_initial_s=self.settings.openai_retry_initial_s,
                wait_max_s=self.settings.openai_retry_max_s,
            )
        except openai.APIError as exc:
            if is_unavailable(exc):
                TITLES.labels("unavailable").inc()
                raise TitlesUnavailable(unavailable_reason(exc)) from exc
            TITLES.labels("rejected").inc()
            return KnownTitle(None, self.model, f"endpoint rejected the request ({error_kind(exc)}): {exc}"[:500])
        try:
            translated = KnownTitle(parse_title(answer, title), self.model)
        except InvalidTitle as invalid:
            TITLES.labels("invalid").inc()
            return KnownTitle(None, self.model, str(invalid)[:500])
        TITLES.labels("written").inc()
        return translated

    async def _request(self, title: str) -> str | None:
        async with self.slots:
            started = time.perf_counter()
            try:
                response = await self.client.chat.completions.create(
                    model=self.model,
                    messages=title_messages(title),  # type: ignore[arg-type]
                    temperature=0,
                    max_tokens=TITLE_MAX_TOKENS,
                )
            finally:
                TITLE_SECONDS.observe(time.perf_counter() - started)
        return response.choices[0].message.content if response.choices else None


class Titles:
    """Chinese titles by title text: from the cache, else from the model (and then cached)."""

    def __init__(self, store: TitleStore, model: TitleModel) -> None:
        self.store = store
        self.model = model

    async def known(self, title: str) -> KnownTitle:
        key = title_key(title, self.model.model)
        if (cached := await self.store.find(key)) is not None:
            TITLES.labels("cached").inc()
            return cached
        known = await self.model.translate(title)
        await self.store.save(key, title, known)
        return known

    async def attach(self, paper: Paper, summary: Summary) -> Summary:
        """A waiting paper's summary with the Chinese title already translated for its title, if any; never asks
        the model (the title sweep does, in the background)."""
        if not gets_a_title(summary):
            return summary
        cached = await self.store.find(title_key(paper.title, self.model.model))
        return with_title(summary, cached.title_zh, cached.model) if cached and cached.title_zh else summary


def make_titles_client(settings: SummarizerSettings) -> AsyncOpenAI:
    """The title endpoint's client; its built-in retries are off because TitleModel retries."""
    from openai import AsyncOpenAI

    # a local server on this machine: no key to send
    return AsyncOpenAI(
        base_url=settings.titles_base_url, api_key="not-needed", timeout=settings.titles_timeout_s, max_retries=0
    )
