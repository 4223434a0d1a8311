"""A paper is found by every id it holds, over real servers: records go through the normalizer (a preprint merged
into its ACL paper, in each order) into MongoDB, and the query service as a real process answers the API, the page,
the error report and its form under the canonical id, whichever id was asked; text that is no id is a 422.

The recorded ACL volume holds no arXiv record of its papers, so the arXiv side of each merge is **derived**: a
corpus-format line written from the ACL record's title, authors and abstract under the work's real arXiv id
(2024.acl-long.1 is arXiv 2401.07159, 2024.acl-long.5 is arXiv 2402.06894); the ACL records get the DOI the
Anthology assigned them (10.18653/v1/<anthology id>), which the recorded volume predates. The DOIs of the recorded
arXiv OAI page are real and used as they are.
"""

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from lxml import html
from pymongo import MongoClient
from pymongo.database import Database

from schemas import topics
from schemas.events import RawRecord
from services.normalizer.parsers.registry import parse_raw
from tests.support.kafka import publish_raw, skip_to_end
from tests.support.servers import Servers
from tests.support.services import running_services
from tests.support.sources import acl_records, arxiv_line, oai_records, with_anthology_doi
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
PREPRINT_FIRST = "arxiv:2401.07159"  # Quantized Side Tuning: arXiv 2401.07159, then ACL 2024.acl-long.1
PUBLISHED_FIRST = "acl:2024.acl-long.5"  # GenTranslate: ACL 2024.acl-long.5, then arXiv 2402.06894
UNDATED_DOI = "2024.acl-long.10"  # an ACL paper held from a volume recorded before the Anthology's DOIs
CS_PAGE = "arXiv/invenio_sample_arxiv_response_listrecords_cs.xml"  # real arXiv records, some with DOIs
# Every id each paper holds, written as readers write them (versions, cases, prefixes, URLs, arXiv's own DOI).
ALIASES = {
    PREPRINT_FIRST: [
        "2401.07159",
        "2401.07159v2",
        "arXiv:2401.07159v1",
        "https://arxiv.org/abs/2401.07159v3",
        "10.48550/arXiv.2401.07159",
        "acl:2024.acl-long.1",
        "2024.acl-long.1",
        "https://aclanthology.org/2024.acl-long.1/",
        "10.18653/v1/2024.acl-long.1",
        "10.18653/V1/2024.ACL-LONG.1",
        "doi:10.18653/v1/2024.acl-long.1",
        "https://doi.org/10.18653/v1/2024.acl-long.1",
    ],
    PUBLISHED_FIRST: [
        "2024.acl-long.5",
        "ACL:2024.acl-long.5",
        "arxiv:2402.06894",
        "2402.06894v2",
        "https://arxiv.org/pdf/2402.06894v1.pdf",
        "doi:10.48550/ARXIV.2402.06894",
        "10.18653/v1/2024.acl-long.5",
        "DOI:10.18653/V1/2024.acl-long.5",
        "https://dx.doi.org/10.18653/v1/2024.acl-long.5",
    ],
}


@dataclass
class Site:
    base: str
    db: Database[dict[str, Any]]

    def get(self, path: str, **params: str) -> httpx.Response:
        return httpx.get(f"{self.base}{path}", params=params or None, timeout=10)


def _preprint_of(acl_id: str, arxiv_id: str, categories: list[str]) -> RawRecord:
    published = parse_raw(next(r for r in acl_records() if r.record_id == acl_id))
    return arxiv_line(arxiv_id, published.title, [a.name for a in published.authors], published.abstract, categories)


@pytest.fixture(scope="module")
def site(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """Normalizer and query on a fresh database; one merge preprint first, the other published first."""
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_ids_{run}",
        "INDEX_NAME": f"papers_ids_{run}",
        "TOPIC_PARTITIONS": "3",
    }
    bootstrap = servers.kafka_bootstrap_servers
    acl = {
        r.record_id: with_anthology_doi(r)
        for r in acl_records()
        if r.record_id in ("2024.acl-long.1", "2024.acl-long.5")
    }
    asyncio.run(
        skip_to_end(bootstrap, servers.topic(topics.HARVEST_RAW), servers.group("papertrail-normalizer"))
    )  # other tests' records
    mongo: MongoClient[dict[str, Any]] = MongoClient(servers.mongodb_url, tz_aware=True)
    with mongo, running_services(["normalizer", "query"], env, tmp_path_factory.mktemp("ids")) as ports:
        db = mongo[env["MONGODB_DATABASE"]]
        first = [
            _preprint_of("2024.acl-long.1", "2401.07159", ["cs.CL", "cs.LG"]),
            acl["2024.acl-long.5"],
            *oai_records(CS_PAGE, "arXiv"),
            next(r for r in acl_records() if r.record_id == UNDATED_DOI),  # as recorded: without its DOI
        ]
        asyncio.run(publish_raw(bootstrap, servers.topic(topics.HARVEST_RAW), first))
        wait_until(lambda: db.papers.count_documents({"_id": {"$in": [*ALIASES, f"acl:{UNDATED_DOI}"]}}) == 3,
                   what="the first records")  # fmt: skip
        then = [acl["2024.acl-long.1"], _preprint_of("2024.acl-long.5", "2402.06894", ["cs.CL", "cs.AI", "cs.LG"])]
        asyncio.run(publish_raw(bootstrap, servers.topic(topics.HARVEST_RAW), then))
        # each merge keeps the canonical id of the work's first record, and leaves no second paper
        merged = [
            {"_id": PREPRINT_FIRST, "ids.acl": "2024.acl-long.1", "ids.dois": "10.18653/v1/2024.acl-long.1"},
            {"_id": PUBLISHED_FIRST, "ids.arxiv": "2402.06894", "ids.dois": "10.18653/v1/2024.acl-long.5"},
        ]
        wait_until(lambda: all(db.papers.count_documents(m) for m in merged), what="both merges")
        assert db.papers.count_documents({"_id": {"$in": ["acl:2024.acl-long.1", "arxiv:2402.06894"]}}) == 0
        yield Site(f"http://127.0.0.1:{ports['query']}", db)


@pytest.mark.parametrize("canonical", list(ALIASES))
def test_the_api_answers_the_canonical_paper_under_every_id_it_holds(site: Site, canonical: str) -> None:
    for written in [canonical, *ALIASES[canonical]]:
        response = site.get(f"/api/papers/{written}")
        assert response.status_code == 200, (written, response.text)
        detail = response.json()
        assert detail["paper_id"] == detail["paper"]["id"] == canonical, written
        assert response.headers["content-location"] == f"/api/papers/{canonical}", written
        assert {h["source"] for h in detail["history"]} == {"acl", "arxiv"}, written


def test_a_real_arxiv_doi_finds_its_paper_in_any_case_and_form(site: Site) -> None:
    with_dois = [r for r in map(parse_raw, oai_records(CS_PAGE, "arXiv")) if r.ids.dois]
    assert with_dois
    for record in with_dois:
        doi = record.ids.dois[0]
        for written in (doi, doi.upper(), f"doi:{doi}", f"https://doi.org/{doi.upper()}"):
            response = site.get(f"/api/papers/{written}")
            assert response.status_code == 200, (written, response.text)
            assert response.json()["paper"]["id"] == f"arxiv:{record.record_id}", written


def test_an_acl_paper_recorded_without_its_doi_is_found_by_the_anthologys_doi(site: Site) -> None:
    held = site.db.papers.find_one({"_id": f"acl:{UNDATED_DOI}"}, {"ids.dois": 1})
    assert held is not None and held["ids"]["dois"] == []
    for written in (f"10.18653/v1/{UNDATED_DOI}", f"https://doi.org/10.18653/V1/{UNDATED_DOI}"):
        response = site.get(f"/api/papers/{written}")
        assert response.status_code == 200, (written, response.text)
        assert response.json()["paper"]["id"] == f"acl:{UNDATED_DOI}"
    page = httpx.get(f"{site.base}/papers/10.18653/v1/{UNDATED_DOI}", timeout=10, follow_redirects=True)
    assert page.status_code == 200 and str(page.url).endswith(f"/papers/acl:{UNDATED_DOI}")
    assert site.get("/api/papers/10.18653/v1/2024.acl-long.9999").status_code == 404  # an id no paper holds


@pytest.mark.parametrize("canonical", list(ALIASES))
def test_the_page_under_another_id_moves_permanently_to_the_canonical_page(site: Site, canonical: str) -> None:
    for written in ALIASES[canonical]:
        moved = site.get(f"/papers/{written}", lang="en")
        assert moved.status_code == 301, (written, moved.text[:300])
        assert moved.headers["location"] == f"/papers/{canonical}?lang=en", written
        form = site.get(f"/papers/{written}/correct", field="summary")
        assert form.status_code == 301 and form.headers["location"] == f"/papers/{canonical}/correct?field=summary"
    page = site.get(f"/papers/{canonical}")
    assert page.status_code == 200 and site.db.papers.find_one({"_id": canonical})["title"] in page.text  # type: ignore[index]


@pytest.mark.parametrize("canonical", list(ALIASES))
def test_error_reports_under_any_id_are_filed_on_the_canonical_paper(site: Site, canonical: str) -> None:
    written = ALIASES[canonical][-1]
    report = httpx.post(
        f"{site.base}/api/papers/{written}/corrections", json={"field": "title_zh", "message": "译名不对"}, timeout=10
    )
    assert report.status_code == 201, report.text
    assert report.json()["paper_id"] == canonical
    with httpx.Client(base_url=site.base, timeout=10) as browser:  # the form's page first: it sets the CSRF token
        form = html.fromstring(browser.get(f"/papers/{canonical}/correct").text)
        csrf = form.xpath("//input[@name='csrf']/@value")[0]
        sent = browser.post(
            f"/papers/{written}/correct", data={"field": "summary", "message": "摘要有误", "csrf": csrf}
        )
    assert sent.status_code == 303 and sent.headers["location"] == f"/papers/{canonical}?reported=1#reported"
    stored = {doc["message"]: doc["paper_id"] for doc in site.db.corrections.find({"paper_id": canonical})}
    assert stored == {"译名不对": canonical, "摘要有误": canonical}


NOT_IDS = {
    "hello": "'hello' is not a paper id",
    "arxiv:12.34": "'12.34' is not an arXiv id such as 2401.12345",
    "doi:11.1/x": "'11.1/x' is not a DOI",
    '{"$ne": null}': "is not a paper id",
    "acl:a b": "is not an ACL Anthology id",
}


def test_text_that_is_no_paper_id_is_a_422_naming_the_problem_and_an_id_no_paper_holds_a_404(site: Site) -> None:
    for written, problem in NOT_IDS.items():
        api = site.get(f"/api/papers/{written}")
        assert api.status_code == 422 and problem in api.json()["detail"], api.text
        report = httpx.post(f"{site.base}/api/papers/{written}/corrections", json={"field": "other", "message": "x"})
        assert report.status_code == 422 and problem in report.text
        page = site.get(f"/papers/{written}", lang="en")
        assert page.status_code == 422 and "Not a paper id" in page.text
        assert site.get(f"/papers/{written}/correct").status_code == 422
    for written in ("arxiv:2401.99999", "10.18653/v1/2024.acl-long.9999", "2024.acl-long.9999"):
        assert site.get(f"/api/papers/{written}").status_code == 404
        assert site.get(f"/papers/{written}").status_code == 404
