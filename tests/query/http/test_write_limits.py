"""The one write limit over two real query service processes sharing MongoDB: the 21st write in a window is refused
with 429, Retry-After and problem details on whichever replica it lands; another client address or token is not;
X-Forwarded-For counts only from a TRUSTED_PROXIES peer."""

import re
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from lxml import html

from tests.support.paths import FIXTURES
from tests.support.servers import Servers
from tests.support.services import create_user, papertrail_cli, running_service
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
PAPERS = ("arxiv:astro-ph/0601001", "arxiv:quant-ph/0201082")
DAY = 86_400  # the tests' windows are a day long, so none ends while a test runs


@dataclass
class Replicas:
    env: dict[str, str]
    bases: list[str]  # [trusting 127.0.0.1 as a proxy, trusting 127.0.0.1 as a proxy, trusting no proxy]


@pytest.fixture(scope="module")
def replicas(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_limits_{run}",
        "INDEX_NAME": f"papers_limits_{run}",
        "TOPIC_PARTITIONS": "3",
        "LIMIT_CORRECTIONS": "20/1d",
        "LIMIT_FOLLOW_WRITES": "20/1d",
    }
    logs = tmp_path_factory.mktemp("limits")
    for folder in "nabc":
        (logs / folder).mkdir()
    with ExitStack() as stack:
        stack.enter_context(running_service("normalizer", env, logs / "n"))
        ports = [
            stack.enter_context(running_service("query", env | {"TRUSTED_PROXIES": "127.0.0.1"}, logs / "a")),
            stack.enter_context(running_service("query", env | {"TRUSTED_PROXIES": "127.0.0.1"}, logs / "b")),
            stack.enter_context(running_service("query", env, logs / "c")),
        ]
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        papertrail_cli(env, "import", str(FIXTURES / "query/old_style_ids.jsonl"))

        def held(paper_id: str) -> bool:
            return httpx.get(f"{bases[0]}/api/papers/{paper_id}", timeout=5).status_code == 200

        wait_until(lambda: all(held(p) for p in PAPERS), timeout=60, what="both papers normalized")
        yield Replicas(env, bases)


def report(
    base: str, paper_id: str, headers: dict[str, str] | None = None, message: str = "标题有误"
) -> httpx.Response:
    body: dict[str, Any] = {"field": "other", "message": message}
    return httpx.post(f"{base}/api/papers/{paper_id}/corrections", json=body, headers=headers, timeout=10)


def assert_limited(response: httpx.Response) -> None:
    assert response.status_code == 429, response.text
    assert 0 < int(response.headers["Retry-After"]) <= DAY
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["status"] == 429 and "corrections" in response.json()["detail"]


def test_the_21st_anonymous_report_from_one_address_is_refused_on_either_replica(replicas: Replicas) -> None:
    a, b, _ = replicas.bases
    one = {"X-Forwarded-For": "203.0.113.7"}
    # three open reports per paper is all one client may hold: the rest of the 20 writes are refused blank reports,
    # which count as writes all the same
    stored = [report(a if n % 2 else b, PAPERS[n % 2], one) for n in range(6)]
    blank = [report(a if n % 2 else b, PAPERS[n % 2], one, message=" ") for n in range(14)]
    assert [r.status_code for r in stored + blank] == [201] * 6 + [422] * 14
    assert_limited(report(a, PAPERS[0], one))
    assert_limited(report(b, PAPERS[1], one))
    # another address, and a signed-in reader behind the same address (counted as a user), are unaffected
    assert report(b, PAPERS[0], {"X-Forwarded-For": "203.0.113.8"}).status_code == 201
    token = create_user(replicas.env, "ana")
    assert report(a, PAPERS[0], one | {"Authorization": f"Bearer {token}"}).status_code == 201


def test_x_forwarded_for_counts_only_from_a_trusted_proxy(replicas: Replicas) -> None:
    _, _, untrusting = replicas.bases
    # Without TRUSTED_PROXIES each claimed address is ignored: all count as the peer, 127.0.0.1. (Follow writes
    # without a token count per address too, and are refused 401 until the limit is reached.)
    answers = [
        httpx.post(f"{untrusting}/api/follows", json={}, headers={"X-Forwarded-For": f"198.51.100.{n}"}, timeout=10)
        for n in range(21)
    ]
    assert [r.status_code for r in answers[:20]] == [401] * 20
    assert answers[20].status_code == 429 and "follow_writes" in answers[20].json()["detail"]


def test_follow_writes_are_limited_per_token_and_another_token_is_unaffected(replicas: Replicas) -> None:
    a, b, _ = replicas.bases
    bo, cy = (create_user(replicas.env, name) for name in ("bo", "cy"))

    def follow(base: str, token: str, n: int) -> httpx.Response:
        body = {"kind": "keyword", "name": f"f{n}", "query": f"graph{n}"}
        return httpx.post(f"{base}/api/follows", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10)

    created = [follow(a if n % 2 else b, bo, n) for n in range(20)]
    assert [r.status_code for r in created] == [201] * 20
    refused = follow(a, bo, 20)
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= DAY
    assert refused.headers["content-type"] == "application/problem+json"
    deleted = httpx.delete(
        f"{b}/api/follows/{created[0].json()['id']}", headers={"Authorization": f"Bearer {bo}"}, timeout=10
    )
    assert deleted.status_code == 429  # removing is a write too
    assert follow(b, cy, 0).status_code == 201


def test_the_correction_form_past_its_limit_keeps_the_readers_text_and_says_why_in_words(replicas: Replicas) -> None:
    """The form counts its limit once it has read the form: the refusal comes back as the form, with what the reader
    wrote and the wait in the reader's language (not the API's "too many requests (corrections): try again in 924
    s")."""
    a, _, _ = replicas.bases
    form_url = f"/papers/{PAPERS[1]}/correct"
    with httpx.Client(base_url=a, headers={"X-Forwarded-For": "203.0.113.21"}, timeout=10) as reader:
        csrf = html.fromstring(reader.get(form_url).text).xpath('//input[@name="csrf"]/@value')[0]
        blank = {"csrf": csrf, "field": "other", "message": " "}
        assert [reader.post(form_url, data=blank).status_code for _ in range(20)] == [422] * 20  # counted, stored none
        typed = {"csrf": csrf, "field": "title_zh", "message": "中文标题应为「热木星的频率」", "contact": "r@x.org"}
        refused = reader.post(form_url, data=typed)
        assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= DAY
        tree = html.fromstring(refused.text)
        said = " ".join(tree.find_class("banner-error")[0].text_content().split())
        assert re.fullmatch(r"无法提交:提交纠错太频繁了,请 \d+ (分钟|小时|秒)后再试。", said), said
        assert tree.xpath('//textarea[@name="message"]')[0].text == typed["message"]
        assert tree.xpath('//input[@name="contact"]/@value') == ["r@x.org"]
        assert tree.xpath('//select[@name="field"]/option[@selected]/@value') == ["title_zh"]
        english = reader.post(form_url, data=typed, params={"lang": "en"})
        assert "Too many error reports for now: try again in" in english.text and typed["message"] in english.text


def test_without_site_secret_the_replicas_share_the_one_made_for_the_database(replicas: Replicas) -> None:
    """A local run without SITE_SECRET: the first replica makes a secret and keeps it in MongoDB, the others read it,
    so a form one replica served is taken by another (a secret of each replica's own would refuse it with 403)."""
    a, b, _ = replicas.bases
    with httpx.Client(timeout=10) as visitor:
        csrf = html.fromstring(visitor.get(f"{a}/login").text).xpath('//input[@name="csrf"]/@value')[0]
        answer = visitor.post(f"{b}/login", data={"csrf": csrf, "email": "nobody@example.org", "password": "x" * 12})
        assert answer.status_code == 401, answer.text  # the form was taken, the password checked (and wrong)
