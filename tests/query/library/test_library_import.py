"""Library files in over the real query service: real .bib / RIS / CSL-JSON files resolved against papers stored as
the normalizer stores them; the answer's verdicts; nothing stored twice; export → import round trips; a malformed
file refused naming the line; one reader never sees another's imports."""

import re
from pathlib import Path
from typing import Any

import pytest
from lxml import html

from papertrail.runtime.collections import READERS_RECORD
from services.query.library.citations import FORMATS, CitationFormat, export
from tests.support.browsing import ARTIFACTS, CHROMIUM, launch_chromium
from tests.support.library_papers import acl_2024, arxiv_oai, red_fm
from tests.support.paths import FIXTURES
from tests.support.reader_site import Site, browser
from tests.support.services import papertrail_cli
from tests.support.waiting import wait_until

LIBRARY = FIXTURES / "library"
PAPERS = [*acl_2024(), *arxiv_oai(), red_fm()]
MERA = "acl:2024.acl-long.534"  # tests/fixtures/library/mera_anthology.bib is the Anthology's export of it
MAX_ENTRIES = 50  # LIBRARY_IMPORT_MAX_ENTRIES here: more than any file below holds but the one over it
pytestmark = [
    pytest.mark.integration,
    pytest.mark.reader_site(
        readers=("ana", "bo", "cy", "dee", "eve", "fay", "gus"), LIBRARY_IMPORT_MAX_ENTRIES=str(MAX_ENTRIES)
    ),
]


def upload(site: Site, reader: str, name: str, data: bytes, library_format: str | None = None) -> Any:
    form = {"format": library_format} if library_format else {}
    return site.call("POST", "/api/me/library/import", reader=reader, files={"file": (name, data)}, data=form)


def library_ids(site: Site, reader: str) -> list[str]:
    return [
        i["paper_id"] for i in site.call("GET", "/api/me/library", reader=reader, params={"limit": 200}).json()["items"]
    ]


def test_a_real_bib_file_resolves_and_the_same_file_again_stores_nothing_twice(site: Site) -> None:
    data = (LIBRARY / "mera_anthology.bib").read_bytes() + b"\n" + (LIBRARY / "acl-style-files_custom.bib").read_bytes()
    first = upload(site, "ana", "refs.bib", data)
    assert first.status_code == 201, first.text
    job = first.json()
    assert first.headers["location"] == f"/api/me/library/imports/{job['id']}"
    assert job["state"] == "done" and job["total"] == 9 and job["cursor"] == 9
    [mera] = job["resolved"]
    assert mera["paper_id"] == MERA and mera["by"] == "doi" and mera["line"] == 1
    assert job["counts"] == {"resolved": 1, "ambiguous": 0, "unresolved": 8, "added": 1}
    aho = next(v for v in job["unresolved"] if v["label"] == "Aho:72")  # held by no paper here
    assert aho["title"] == "The Theory of Parsing, Translation and Compiling" and aho["line"] > 1
    again = upload(site, "ana", "refs.bib", data).json()
    assert again["counts"] == {"resolved": 1, "ambiguous": 0, "unresolved": 8, "added": 0}
    assert library_ids(site, "ana") == [MERA]
    assert site.call("GET", f"/api/me/library/imports/{job['id']}", reader="ana").json()["counts"]["added"] == 1
    assert site.call("GET", f"/api/me/library/imports/{job['id']}", reader="bo").status_code == 404
    assert [f["label"] for f in site.call("GET", "/api/me/feedback", reader="ana").json()] == ["positive"]


def test_an_import_keeps_the_tags_and_note_of_a_paper_already_saved(site: Site) -> None:
    site.call("PUT", f"/api/me/library/{MERA}", reader="dee", json={"tags": ["benchmarks"], "note": "Russian"})
    assert upload(site, "dee", "mera.bib", (LIBRARY / "mera_anthology.bib").read_bytes()).json()["counts"]["added"] == 0
    entry = site.call("GET", f"/api/me/library/{MERA}", reader="dee").json()
    assert entry["tags"] == ["benchmarks"] and entry["note"] == "Russian"


def test_an_imported_citation_key_is_the_key_every_export_keeps(site: Site) -> None:
    data = (LIBRARY / "mera_anthology.bib").read_bytes()
    assert upload(site, "gus", "mera.bib", data).json()["counts"]["added"] == 1
    site.call("PUT", f"/api/me/library/{MERA}", reader="gus", json={"tags": ["benchmarks"]})
    exported = {f: site.call("GET", "/api/me/library/export", reader="gus", params={"format": f}).text for f in FORMATS}
    assert exported["bibtex"].startswith("@inproceedings{fenogenova-etal-2024-mera,"), exported["bibtex"]
    assert "ID  - fenogenova-etal-2024-mera" in exported["ris"]
    assert '"citation-key": "fenogenova-etal-2024-mera"' in exported["csl-json"]
    # a reader who saved it by hand gets the paper's own key
    site.call("PUT", f"/api/me/library/{MERA}", reader="fay", json={})
    own = site.call("GET", "/api/me/library/export", reader="fay", params={"format": "bibtex"}).text
    assert own.startswith("@inproceedings{fenogenova2024mera,"), own


@pytest.mark.parametrize("citation_format", FORMATS)
def test_an_exported_library_imported_again_resolves_every_entry_to_the_same_papers(
    site: Site, citation_format: CitationFormat
) -> None:
    """Round trip over the service: bo's library exported, imported by cy: the same papers, in every format."""
    if not library_ids(site, "bo"):
        chosen = [*PAPERS[:40:4], *arxiv_oai()[:40:4], red_fm()]  # ACL papers, arXiv preprints, one work from both
        for paper in chosen:
            assert site.call("PUT", f"/api/me/library/{paper.id}", reader="bo", json={}).status_code == 200
    saved = library_ids(site, "bo")
    exported = site.call("GET", "/api/me/library/export", reader="bo", params={"format": citation_format})
    answer = upload(site, "cy", f"bo.{citation_format}", exported.content, citation_format)
    assert answer.status_code == 201, answer.text
    job = answer.json()
    assert job["counts"]["resolved"] == len(saved) and not job["ambiguous"] and not job["unresolved"]
    assert [v["paper_id"] for v in job["resolved"]] == saved
    assert sorted(library_ids(site, "cy")) == sorted(saved)


@pytest.mark.parametrize(
    ("data", "library_format", "line"),
    [
        (b"@misc{a, title={ok}}\n\n@article{b,\n  title = {unclosed,\n}\n@misc{c, title={x}}\n", "bibtex", 3),
        (b"TY  - GEN\nTI  - A\nER  -\nstray words\n", None, 4),
        (b'[\n  {"id": "a", "type": "article"},\n  {"id": "b", "type": }\n]', "csl-json", 3),
        (b"[" * 100_000 + b"]" * 100_000, "csl-json", 1),  # nested too deep for any JSON parser's recursion
    ],
)
def test_a_malformed_file_is_refused_naming_the_line(
    site: Site, data: bytes, library_format: str | None, line: int
) -> None:
    refused = upload(site, "bo", "broken.txt", data, library_format)
    assert refused.status_code == 422 and f"line {line}: " in refused.json()["detail"]
    assert upload(site, "bo", "x.bib", b"", "docx").status_code == 422


def test_a_file_of_more_entries_than_an_import_takes_is_refused_at_the_entry_past_the_cap(site: Site) -> None:
    """Reading stops at the entry past LIBRARY_IMPORT_MAX_ENTRIES (413 naming the cap and that entry's line): the
    rest of the file, here a malformed entry that a whole reading would refuse (422), is never read."""
    real = b"\n".join((LIBRARY / name).read_bytes() for name in ("acl-style-files_custom.bib", "mera_anthology.bib"))
    broken = b"\n@article{b,\n  title = {unclosed,\n}\n"
    assert upload(site, "bo", "whole.bib", real + broken).status_code == 422
    refused = upload(site, "bo", "over.bib", b"\n".join([real] * 6) + broken)  # 54 entries, then the broken one
    assert refused.status_code == 413, refused.text
    detail = refused.json()["detail"]
    assert f"more than {MAX_ENTRIES} entries" in detail and f"at most {MAX_ENTRIES}" in detail, detail
    assert "LIBRARY_IMPORT_MAX_ENTRIES" in detail and re.search(r"line \d+", detail), detail
    assert site.db["library_imports"].count_documents({"filename": "over.bib"}) == 0


def test_imports_need_a_reader(site: Site) -> None:
    data = (LIBRARY / "mera_anthology.bib").read_bytes()
    anonymous = site.call("POST", "/api/me/library/import", reader=None, files={"file": ("m.bib", data)})
    assert anonymous.status_code == 401
    assert site.call("GET", f"/api/me/library/imports/{'0' * 32}", reader=None).status_code == 401


def test_the_library_pages_form_imports_a_real_bib_file_and_shows_the_verdicts(site: Site) -> None:
    data = (LIBRARY / "acl-style-files_zotero.bib").read_bytes() + (LIBRARY / "mera_anthology.bib").read_bytes()
    with browser(site, "bo") as bo:
        form = html.fromstring(bo.get("/me/library").text).xpath('//form[@action="/me/library/import"]')[0]
        assert form.get("enctype") == "multipart/form-data" and form.xpath('input[@name="csrf"]')
        posted = bo.post("/me/library/import", files={"file": ("zotero.bib", data)}, data={"format": ""})
        assert posted.status_code == 303 and posted.headers["location"].startswith("/me/library/imports/")
        [page] = wait_until(
            lambda: (
                [p]
                if (p := html.fromstring(bo.get(posted.headers["location"]).text)).xpath("//*[@data-state='done']")
                else None
            ),
            timeout=30,
            what="the import done",
        )
        assert page.xpath('//section[contains(@class, "verdicts-resolved")]//a/@href') == [f"/papers/{MERA}"]
        assert len(page.xpath('//section[contains(@class, "verdicts-unresolved")]//li')) == 3
        broken = bo.post("/me/library/import", files={"file": ("b.json", b'[\n{"id": 1,}\n]')}, data={"format": ""})
        assert broken.status_code == 422 and "line 2" in broken.text
        assert bo.get(f"/me/library/imports/{'0' * 32}").status_code == 404


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: install Debian's chromium (apt-get install -y chromium)"
)
def test_in_headless_chromium_save_dismiss_cite_import_a_real_bib_file_and_export(site: Site, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    saved, dismissed = arxiv_oai()[3], arxiv_oai()[4]
    shots = ARTIFACTS / "library"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=True)
        try:
            browser.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.base)
            tab = browser.new_page()
            tab.goto(f"{site.base}/login?next=/papers/{saved.id}")
            tab.locator("details.token-login summary").click()  # the API token sign-in, folded away
            tab.locator("input[name=token]").fill(site.tokens["ana"])
            tab.locator("details.token-login").get_by_role("button", name="登录").click()
            tab.wait_for_url(f"**/papers/{saved.id}")
            tab.evaluate("window.stillHere = true")  # gone if the click reloaded the page
            tab.get_by_role("button", name="收藏").click()
            tab.get_by_role("button", name="已收藏").wait_for()
            assert tab.evaluate("window.stillHere") is True
            assert site.call("GET", f"/api/me/library/{saved.id}", reader="ana").status_code == 200
            tab.get_by_text("引用", exact=True).click()
            tab.locator(".cite-formats a[data-format=ris]").click()
            # a locator's assertion, not wait_for_function: polling a string would be eval, which the pages' CSP refuses
            expect(tab.locator(".cite-text")).to_have_value(re.compile(r"^TY  - "))
            tab.get_by_role("button", name="复制").click()
            assert tab.evaluate("navigator.clipboard.readText()") == export([saved], "ris")
            tab.screenshot(path=shots / "01-paper-saved-and-cited.png", full_page=True)

            tab.goto(f"{site.base}/papers/{dismissed.id}")
            tab.get_by_role("button", name="不相关").click()
            tab.get_by_role("button", name="已标记不相关").wait_for()
            [mark] = [
                f for f in site.call("GET", "/api/me/feedback", reader="ana").json() if f["paper_id"] == dismissed.id
            ]
            assert mark["label"] == "negative"
            tab.screenshot(path=shots / "02-paper-dismissed.png", full_page=True)

            tab.goto(f"{site.base}/me/library")
            tab.locator("details.import summary").click()
            tab.locator("input[name=file]").set_input_files(str(LIBRARY / "mera_anthology.bib"))
            tab.get_by_role("button", name="导入", exact=True).click()
            tab.wait_for_url("**/me/library/imports/**")
            tab.locator('#import[data-state="done"]').wait_for(timeout=30_000)
            assert tab.locator(".verdicts-resolved a").get_attribute("href") == f"/papers/{MERA}"
            tab.screenshot(path=shots / "03-import-done.png", full_page=True)

            tab.get_by_role("link", name="← 返回我的收藏").click()
            # the click starts the navigation: counting at once would count the import page's (none)
            tab.wait_for_url(f"{site.base}/me/library")
            tab.locator("article[data-paper-id]").nth(1).wait_for(timeout=30_000)
            assert tab.locator("article[data-paper-id]").count() == 2
            tab.screenshot(path=shots / "04-library.png", full_page=True)
            with tab.expect_download() as download:
                tab.locator("p.export a", has_text="BibTeX").click()
            exported = Path(download.value.path()).read_text(encoding="utf-8")
            assert download.value.suggested_filename == "papertrail-library.bib"
            assert "2024.acl-long.534" in exported and f"eprint = {{{saved.ids.arxiv}}}" in exported
        finally:
            browser.close()
        plain = launch_chromium(playwright, tmp_path / "plain", javascript=False)  # the same without JavaScript
        try:
            tab = plain.new_page()
            tab.goto(f"{site.base}/login?next=/papers/{dismissed.id}")
            tab.locator("details.token-login summary").click()  # the API token sign-in, folded away
            tab.locator("input[name=token]").fill(site.tokens["dee"])  # nothing of dee's is this paper
            tab.locator("details.token-login").get_by_role("button", name="登录").click()
            tab.wait_for_url(f"**/papers/{dismissed.id}")
            tab.get_by_role("button", name="收藏").click()
            tab.wait_for_url(f"**/papers/{dismissed.id}")
            tab.get_by_role("button", name="已收藏").wait_for()
            assert tab.locator("details.cite textarea").input_value() == export([dismissed], "bibtex")
            tab.screenshot(path=shots / "05-saved-without-javascript.png", full_page=True)
        finally:
            plain.close()


def test_every_document_of_the_readers_record_names_its_reader(site: Site) -> None:
    """What `papertrail users delete` removes by `user_id` (papertrail/runtime/collections.py: READERS_RECORD): every
    document the library, feedback, imports and models hold here names a reader that exists."""
    site.call("PUT", f"/api/me/feedback/{MERA}", reader="dee", json={"mark": "read"})
    assert upload(site, "dee", "mera.bib", (LIBRARY / "mera_anthology.bib").read_bytes()).status_code == 201
    readers = {doc["_id"] for doc in site.db["users"].find({}, {"_id": 1})}
    written = 0
    for collection in READERS_RECORD:
        for doc in site.db[collection.name].find({}, {"user_id": 1}):
            assert doc.get("user_id") in readers, (collection.name, doc)
            written += 1
    assert written and {c.owner for c in READERS_RECORD} == {"query"}


def test_users_delete_takes_the_readers_record_with_the_user(site: Site) -> None:
    """`papertrail users delete` removes a reader's library, feedback, imports, model and picks; another's stay."""
    site.call("PUT", f"/api/me/library/{MERA}", reader="eve", json={"tags": ["mine"]})
    site.call("PUT", f"/api/me/feedback/{MERA}", reader="eve", json={"mark": "read"})
    assert upload(site, "eve", "mera.bib", (LIBRARY / "mera_anthology.bib").read_bytes()).status_code == 201
    site.call("PUT", f"/api/me/library/{MERA}", reader="ana", json={"tags": ["kept"]})
    [eve] = [doc["_id"] for doc in site.db["users"].find({"name": "eve"}, {"_id": 1})]
    [ana] = [doc["_id"] for doc in site.db["users"].find({"name": "ana"}, {"_id": 1})]

    def held(user_id: str) -> int:
        return sum(site.db[c.name].count_documents({"user_id": user_id}) for c in READERS_RECORD)

    assert held(eve) >= 3 and held(ana) >= 1
    out = papertrail_cli(site.env, "users", "delete", "eve").stdout
    assert "deleted" in out and "library" in out
    assert held(eve) == 0 and held(ana) >= 1
    assert site.call("GET", "/api/me/library", reader="ana").json()["total"] >= 1
