"""The demo's settings for the services: the harvester reads the replay server, and the local embedding models take
two threads for the demo's one large first embedding, unless the user set EMBEDDING_THREADS."""

import pytest

from papertrail.embedding.embedder import EmbeddingSettings
from papertrail_tools.demo import demo_environment


def test_the_demo_reads_the_replay_server_and_embeds_on_two_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EMBEDDING_THREADS", raising=False)
    environment = demo_environment("http://127.0.0.1:8900")
    assert environment["ARXIV_OAI_URL"] == "http://127.0.0.1:8900/oai"
    assert environment["EMBEDDING_THREADS"] == "2"
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert EmbeddingSettings().embedding_threads == 2  # a value the services' settings take


def test_a_user_setting_of_the_threads_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_THREADS", "1")
    assert demo_environment("http://127.0.0.1:8900")["EMBEDDING_THREADS"] == "1"
