"""Error reports (纠错) over real servers: papers with old-style ids ('/' inside) imported through the normalizer,
the query service as a real process; the API's 201 / 404 / 422 / 429 / 401, the form page round trip, and the
operators' `papertrail corrections list|close`."""

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from lxml import html

from tests.support.paths import FIXTURES
from tests.support.servers import Servers
from tests.support.services import create_user, papertrail_cli, running_services
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
OLD_STYLE = FIXTURES / "query/old_style_ids.jsonl"
REPORTED = "arxiv:astro-ph/0601001"  # reports in most tests
FLOODED = "arxiv:quant-ph/0201082"  # the open-report cap is tried on this one only
ADDRESSES = (f"203.0.113.{n}" for n in itertools.count(1))  # a client each (TEST-NET-3, never contacted)


@dataclass
class Site:
    env: dict[str, str]
    base: str
    token: str

    def post(
        self, paper_id: str, body: dict[str, Any], token: str | None = None, address: str | None = None
    ) -> httpx.Response:
        """Report as a client of its own (a fresh address) unless an address is given: one client holds at most three
        open reports on a paper."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers["X-Forwarded-For"] = address or next(ADDRESSES)
        return httpx.post(f"{self.base}/api/papers/{paper_id}/corrections", json=body, headers=headers, timeout=10)


@pytest.fixture(scope="module")
def site(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    env = servers.environment() | {
        "TOPIC_PARTITIONS": "3",
        "LIMIT_CORRECTIONS": "1000/1d",  # these tests flood one paper; the limit is tried apart
        "TRUSTED_PROXIES": "127.0.0.1",  # reports "from" other addresses by X-Forwarded-For
    }
    with running_services(["normalizer", "query"], env, tmp_path_factory.mktemp("corrections")) as ports:
        base = f"http://127.0.0.1:{ports['query']}"
        papertrail_cli(env, "import", str(OLD_STYLE))

        def held(paper_id: str) -> bool:
            return httpx.get(f"{base}/api/papers/{paper_id}", timeout=5).status_code == 200

        wait_until(lambda: held(REPORTED) and held(FLOODED), timeout=60, what="both papers normalized")
        token = create_user(env, "ana")
        yield Site(env, base, token)


def listed(site: Site, *args: str) -> dict[str, str]:
    """`papertrail corrections list`: report id → its header line."""
    out = papertrail_cli(site.env, "corrections", "list", *args).stdout
    return {line.split()[0]: line for line in out.splitlines() if re.match(r"^[0-9a-f]{32} ", line)}


def test_a_report_on_an_id_with_a_slash_is_stored_open(site: Site) -> None:
    anonymous = site.post(REPORTED, {"field": "institutions", "message": " 应为俄亥俄州立大学 ", "contact": "r@x.org"})
    assert anonymous.status_code == 201, anonymous.text
    assert anonymous.json()["status"] == "open" and re.fullmatch(r"[0-9a-f]{32}", anonymous.json()["id"])
    signed = site.post(REPORTED, {"field": "title_zh", "message": "标题译错了"}, token=site.token)
    assert signed.status_code == 201, signed.text
    me = httpx.get(f"{site.base}/api/me", headers={"Authorization": f"Bearer {site.token}"}, timeout=5).json()
    reports = listed(site)
    first, second = reports[anonymous.json()["id"]], reports[signed.json()["id"]]
    assert REPORTED in first and "[institutions]" in first and "contact=r@x.org" in first and "user=" not in first
    assert "[title_zh]" in second and f"user={me['id']}" in second
    # the paper's own route is not shadowed by the report route
    assert httpx.get(f"{site.base}/api/papers/{REPORTED}", timeout=5).json()["paper"]["id"] == REPORTED


def test_bad_reports_get_a_4xx_that_says_why(site: Site) -> None:
    unknown = site.post("arxiv:hep-th/9901001", {"field": "institutions", "message": "x"})
    assert unknown.status_code == 404 and "arxiv:hep-th/9901001" in unknown.text
    bad_field = site.post(REPORTED, {"field": "venue", "message": "x"})
    assert bad_field.status_code == 422
    assert [e["location"] for e in bad_field.json()["errors"]] == [["body", "field"]]
    assert "'venue' is not one of institutions" in bad_field.text
    empty = site.post(REPORTED, {"field": "summary", "message": "   "})
    assert empty.status_code == 422 and "message is empty" in empty.text
    long = site.post(REPORTED, {"field": "summary", "message": "长" * 2001})
    assert long.status_code == 422 and "at most 2000" in long.text
    forged = site.post(REPORTED, {"field": "summary", "message": "x"}, token="pt_forged")
    assert forged.status_code == 401
    # reports carry contact addresses: there is no public way to read them back
    read_back = httpx.get(f"{site.base}/api/papers/{REPORTED}/corrections", timeout=5)
    assert read_back.status_code == 405 and read_back.headers["allow"] == "POST"


def test_a_paper_takes_twenty_open_reports_then_429_until_one_is_closed(site: Site) -> None:
    accepted = [
        site.post(FLOODED, {"field": "other", "message": f"report {n}"}, address=f"192.0.2.{n // 2}") for n in range(20)
    ]
    assert [r.status_code for r in accepted] == [201] * 20
    refused = site.post(FLOODED, {"field": "other", "message": "one more"}, address="192.0.2.100")
    assert refused.status_code == 429 and "already has 20 open error reports" in refused.text
    assert site.post(REPORTED, {"field": "other", "message": "another paper is not capped"}).status_code == 201
    closed = papertrail_cli(site.env, "corrections", "close", accepted[0].json()["id"])
    assert f"report {accepted[0].json()['id']} on {FLOODED} is closed" in closed.stdout
    assert site.post(FLOODED, {"field": "other", "message": "room again"}, address="192.0.2.100").status_code == 201


def test_one_anonymous_client_cannot_fill_a_papers_open_reports_and_keep_others_out(site: Site) -> None:
    """The paper's cap is shared by everyone: one client (an address, or a user) holds at most three open reports on
    one paper, so nobody alone keeps everyone else's reports out."""
    flooder = "198.51.100.77"
    sent = [site.post(REPORTED, {"field": "other", "message": f"copy {n}"}, address=flooder) for n in range(4)]
    assert [r.status_code for r in sent] == [201, 201, 201, 429]
    assert "you have 3 open error reports" in sent[3].json()["detail"]
    assert site.post(REPORTED, {"field": "other", "message": "mine"}, address="198.51.100.78").status_code == 201
    token = create_user(site.env, "flooder")
    signed = [site.post(REPORTED, {"field": "other", "message": f"u{n}"}, token=token) for n in range(4)]
    assert [r.status_code for r in signed] == [201, 201, 201, 429]  # a user, from any address, is one reporter
    closed = papertrail_cli(site.env, "corrections", "close", sent[0].json()["id"])
    assert closed.returncode == 0
    assert site.post(REPORTED, {"field": "other", "message": "room again"}, address=flooder).status_code == 201


def test_operators_list_by_status_and_close(site: Site) -> None:
    report = site.post(REPORTED, {"field": "authors", "message": "作者顺序不对\n第二行"}).json()["id"]
    assert report in listed(site, "--status", "open") and report not in listed(site, "--status", "closed")
    listing = papertrail_cli(site.env, "corrections", "list").stdout
    assert "    第二行" in listing  # the message, indented under its report
    assert papertrail_cli(site.env, "corrections", "close", report).returncode == 0
    assert report in listed(site, "--status", "closed") and report not in listed(site, "--status", "open")
    again = papertrail_cli(site.env, "corrections", "close", report)  # closing twice changes nothing
    assert again.returncode == 0 and "is closed" in again.stdout
    missing = papertrail_cli(site.env, "corrections", "close", "0" * 32, check=False)
    assert missing.returncode == 1 and "no report" in missing.stdout
    malformed = papertrail_cli(site.env, "corrections", "close", "abc", check=False)
    assert malformed.returncode == 2 and "not a report id" in malformed.stdout
    bad_status = papertrail_cli(site.env, "corrections", "list", "--status", "done", check=False)
    assert bad_status.returncode == 2 and "invalid choice" in bad_status.stderr


def test_the_form_page_round_trip_without_javascript(site: Site) -> None:
    with httpx.Client(base_url=site.base, timeout=10) as client:
        paper = html.fromstring(client.get(f"/papers/{REPORTED}").text)
        link = paper.xpath('//a[@class="correct-link"]')[0].get("href")
        assert link.startswith(f"/papers/{REPORTED}/correct")
        form_page = client.get(f"/papers/{REPORTED}/correct", params={"field": "institutions"})
        assert form_page.status_code == 200
        form = html.fromstring(form_page.text).xpath("//form[contains(@class, 'correct-form')]")[0]
        assert form.get("action") == f"/papers/{REPORTED}/correct"
        assert form.xpath(".//select[@name='field']/option[@selected]")[0].get("value") == "institutions"
        csrf = form.xpath(".//input[@name='csrf']/@value")[0]
        forged = client.post(form.get("action"), data={"field": "summary", "message": "x", "csrf": "forged"})
        assert forged.status_code == 403  # not from this site's form: nothing stored
        refused = client.post(form.get("action"), data={"field": "institutions", "message": "  ", "csrf": csrf})
        assert refused.status_code == 422 and "问题与建议:必填" in refused.text  # in the page's language
        kept = html.fromstring(refused.text).xpath("//select[@name='field']/option[@selected]")[0].get("value")
        assert kept == "institutions"  # the form comes back as it was sent
        sent = client.post(
            form.get("action"), data={"field": "summary", "message": "TL;DR 与摘要不符", "contact": "", "csrf": csrf}
        )
        assert sent.status_code == 303 and sent.headers["location"].startswith(f"/papers/{REPORTED}?reported=1")
        thanked = html.fromstring(client.get(sent.headers["location"]).text)
        assert "感谢纠错" in thanked.get_element_by_id("reported").text_content()
        assert client.get("/papers/arxiv:hep-th/9901001/correct").status_code == 404
        english = client.get(f"/papers/{REPORTED}/correct", params={"lang": "en"})
        assert "Report an error" in english.text and "Send report" in english.text
    listing = papertrail_cli(site.env, "corrections", "list").stdout
    assert any("TL;DR 与摘要不符" in line for line in listing.splitlines())


def test_a_long_chinese_message_arrives_whole_and_an_oversized_form_is_refused(site: Site) -> None:
    """2,000 Chinese characters are ~18 kB once percent-encoded: stored whole, with the contact after them."""
    message = "机构名称译错" * 333 + "止"
    with httpx.Client(base_url=site.base, timeout=10) as client:
        form = html.fromstring(client.get(f"/papers/{REPORTED}/correct").text)
        csrf = form.xpath("//input[@name='csrf']/@value")[0]
        fields = {"csrf": csrf, "field": "other", "message": message, "contact": "z@y.cn"}
        sent = client.post(f"/papers/{REPORTED}/correct", data=fields)
        assert sent.status_code == 303
        too_big = client.post(f"/papers/{REPORTED}/correct", data={**fields, "message": "长" * 4000})
        assert too_big.status_code == 413 and "KB" in too_big.text
    out = papertrail_cli(site.env, "corrections", "list").stdout
    assert "contact=z@y.cn" in out and f"    {message}" in out
