"""A large import over the real query service shows its progress and survives a restart of the service in the
middle: every entry recorded once, every paper saved once.

Two copies of the papers' export (2,260 entries, 23 chunks of 100): enough to be stopped after the first 300 with most
of the file left, and to need two pages of entries. The 5,650 entries of issue 22's file resolved against the local
stack are a measurement (bench/import_resolve.py)."""

import pytest

from services.query.library.citations import export
from tests.support.library_papers import acl_2024, arxiv_oai, red_fm
from tests.support.reader_site import Site, query_service, reader_database
from tests.support.servers import Servers
from tests.support.services import create_user
from tests.support.waiting import wait_until

# two service starts and 2,260 entries resolved against the local stack's Python MongoDB, on a loaded machine
pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]
PAPERS = [*acl_2024(), *arxiv_oai(), red_fm()]
COPIES = 2  # the file names each paper twice: 2,260 entries
PAGE = 1500  # entries a page: two pages


def progress(site: Site, job_id: str) -> dict:
    return site.call("GET", f"/api/me/library/imports/{job_id}").json()


def test_a_large_import_shows_progress_and_survives_a_restart(
    servers: Servers, tmp_path_factory: pytest.TempPathFactory
) -> None:
    data = export(PAPERS, "ris").encode() * COPIES
    with reader_database(servers, PAPERS, LIBRARY_IMPORT_CHUNK="100") as (env, db):
        tokens = {"ana": create_user(env, "ana")}
        with query_service(env, db, tmp_path_factory.mktemp("first"), tokens) as site:
            started = site.call("POST", "/api/me/library/import", files={"file": ("all.ris", data)})
            assert started.status_code == 202, started.text
            job_id = started.json()["id"]
            assert started.headers["location"] == f"/api/me/library/imports/{job_id}"
            seen = wait_until(
                lambda: (p := progress(site, job_id))["cursor"] >= 300 and p, timeout=120, what="300 entries done"
            )
            assert seen["state"] == "running" and seen["total"] == len(PAPERS) * COPIES
            busy = site.call("POST", "/api/me/library/import", files={"file": ("again.ris", data)})
            assert busy.status_code == 409
        stopped_at = db["library_imports"].find_one({"_id": job_id})["cursor"]
        assert 300 <= stopped_at < len(PAPERS) * COPIES  # stopped in the middle
        with query_service(env, db, tmp_path_factory.mktemp("second"), tokens) as site:
            done = wait_until(
                lambda: (p := progress(site, job_id))["state"] == "done" and p, timeout=300, what="the import done"
            )
            pages = [  # every entry's verdict, recorded once: two pages of them
                site.call("GET", f"/api/me/library/imports/{job_id}/entries", params={"limit": PAGE, **after}).json()
                for after in ({}, {"cursor": str(PAGE - 1)})
            ]
        total = len(PAPERS) * COPIES
        assert done["cursor"] == total and done["counts"] == {
            "resolved": total,
            "ambiguous": 0,
            "unresolved": 0,
            "added": len(PAPERS),
        }
        assert pages[0]["next_cursor"] == str(PAGE - 1) and pages[1]["next_cursor"] is None
        assert [item["status"] for page in pages for item in page["items"]] == ["resolved"] * total
        assert db["library_import_entries"].count_documents({"job_id": job_id, "status": "resolved"}) == total
        assert sorted(db["library"].distinct("paper_id")) == sorted(p.id for p in PAPERS)
        assert db["library"].count_documents({}) == len(PAPERS)
