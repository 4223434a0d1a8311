"""The ccf_deadlines source over a replay server serving ccf-deadlines' repository as GitHub's archive, the real files
as the repository stood at two moments (tests/fixtures/sources/ccf-deadlines, with ccf-deadlines-history's earlier
ICML and NeurIPS files): a new edition's deadline appears in `venue_catalogue`, a broken file is named in the run's
status and its venue keeps what was held, an unchanged archive is not read again (ETag), and an archive that is none
fails the run and changes nothing."""

import io
import json
import tarfile
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from papertrail.domain.venues.catalogue import Venue, current_venues, load
from papertrail.domain.venues.ccfddl import build_venues
from papertrail.domain.venues.deadlines import upcoming_deadlines
from services.harvester.http import PoliteFetcher
from services.harvester.runner import run_source
from services.harvester.settings import HarvesterSettings
from services.harvester.sources.ccf_deadlines import CcfDeadlinesSource
from services.harvester.sources.ccf_deadlines_archive import MalformedArchive, data_files
from services.harvester.store import HarvestStore, VenueCatalogueStore
from tests.support.fakes import Published
from tests.support.paths import SOURCES
from tests.support.replay import Replay, replay_server

pytestmark = pytest.mark.integration
CCFDDL = SOURCES / "ccf-deadlines"
EARLIER = SOURCES / "ccf-deadlines-history"
ARCHIVE_PATH = "/ccfddl/ccf-deadlines/tar.gz/refs/heads/main"  # codeload.github.com's path of the archive
COMMIT = "5f8dce347bc17783bc6cd50509e07cc0196863b4"  # the clone the files were read from (SOURCES.md)
NOW = datetime(2026, 1, 20, tzinfo=UTC)


def archive(replaced: dict[str, bytes]) -> bytes:
    """The data folders as `git archive` lays them out for GitHub (one top folder, the commit in the pax header),
    with some files as they were earlier (or broken)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": COMMIT}) as tar:
        for path in sorted(p for p in CCFDDL.rglob("*") if p.is_file()):
            name = path.relative_to(CCFDDL).as_posix()
            content = replaced.get(name, path.read_bytes())
            member = tarfile.TarInfo(f"ccf-deadlines-main/{name}")
            member.size = len(content)
            tar.addfile(member, io.BytesIO(content))
    return buffer.getvalue()


ICML, NIPS = "conference/AI/icml.yml", "conference/AI/nips.yml"
# the repository in October 2025: ICML 2026's deadlines TBD, no NeurIPS 2026
OCTOBER = {ICML: (EARLIER / "4d5483f3" / ICML).read_bytes(), NIPS: (EARLIER / "e37f671b" / NIPS).read_bytes()}


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replay]:
    """A replay server answering the archive's path with today's repository whose NeurIPS file is cut short, then
    with today's as it is."""
    folder = tmp_path_factory.mktemp("ccf-deadlines-replay")
    nips = (CCFDDL / NIPS).read_bytes()
    cut = nips[: nips.index(b"'2022-05-19") + 5]  # cut short inside a quoted deadline: no YAML
    (folder / "broken.tar.gz").write_bytes(archive({NIPS: cut}))
    (folder / "today.tar.gz").write_bytes(archive({}))
    route = {"path": ARCHIVE_PATH, "files": ["broken.tar.gz", "today.tar.gz"], "content_type": "application/x-gzip"}
    (folder / "replay.json").write_text(json.dumps({"routes": [route]}), encoding="utf-8")
    with replay_server(folder) as replay:
        yield replay


@pytest.fixture
def replay(repository: Replay) -> Replay:
    repository.reset()
    return repository


def october_release() -> list[Venue]:
    """The catalogue a release of October 2025 would have shipped."""
    files = {p.relative_to(CCFDDL).as_posix(): p.read_bytes() for p in CCFDDL.glob("*/*/*.yml")}
    return build_venues(files | OCTOBER).venues


def source(replay: Replay, venues: VenueCatalogueStore, shipped: list[Venue]) -> CcfDeadlinesSource:
    settings = HarvesterSettings(ccf_deadlines_url=f"{replay.url}{ARCHIVE_PATH}")
    fetcher = PoliteFetcher(httpx.AsyncClient(timeout=10), min_interval_s=0, retries=0, retry_after_max_s=1)
    return CcfDeadlinesSource(settings, fetcher, venues, clock=lambda: NOW, shipped=lambda: shipped)


def _icml_deadlines(catalogue: list[Venue]) -> list[tuple[int, str, str]]:
    found = upcoming_deadlines(catalogue, NOW, fields=["AI"])
    return [(d.edition.year, d.kind, d.as_written) for d in found if d.venue.key == "AI/icml"]


async def test_a_new_deadline_appears_and_a_broken_file_is_named_with_nothing_lost(
    replay: Replay, store: HarvestStore, published: Published
) -> None:
    venues = VenueCatalogueStore(store.runs.database)
    shipped = october_release()
    ccfddl = source(replay, venues, shipped)
    assert _icml_deadlines(shipped) == []  # TBD in October

    first = await run_source(ccfddl, store, published.publish_raw, published.publish_status)
    assert first.state == "finished" and published.raw == []
    assert len(first.skipped) == 1 and first.skipped[0].startswith("conference/AI/nips.yml: not readable YAML")
    catalogue = current_venues(shipped, list((await venues.held()).values()))
    assert _icml_deadlines(catalogue) == [
        (2026, "abstract", "2026-01-24 11:59:59 UTC+0"),
        (2026, "paper", "2026-01-29 11:59:59 UTC+0"),
    ]
    # every venue as today's files give it, but NeurIPS, whose file is broken: it keeps what was held
    today = load().venues  # the shipped catalogue is today's files
    october_nips = next(v for v in shipped if v.key == "AI/nips")
    assert catalogue == [october_nips if v.key == "AI/nips" else v for v in today]
    stored = await venues.venues.find_one({"_id": "AI/icml"})
    assert stored is not None and (stored["file"], stored["commit"], stored["read_at"]) == (ICML, COMMIT, NOW)

    # the file mended: NeurIPS 2026 comes
    second = await run_source(ccfddl, store, published.publish_raw, published.publish_status)
    assert second.state == "finished" and second.skipped == []
    held = await venues.held()
    assert current_venues(shipped, list(held.values())) == today
    assert 2026 in {e.year for e in held["AI/nips"].editions}
    checkpoint = await store.load_checkpoint("ccf_deadlines")
    assert checkpoint["commit"] == COMMIT and checkpoint["etag"]

    # the next run asks with the archive's ETag: unchanged, not read again
    third = await run_source(ccfddl, store, published.publish_raw, published.publish_status)
    assert third.state == "finished" and third.skipped == []
    assert [r["status"] for r in replay.requests()] == [200, 200, 304]
    assert await venues.held() == held


async def test_an_answer_that_is_no_archive_fails_the_run_and_changes_nothing(
    replay: Replay, store: HarvestStore, published: Published
) -> None:
    venues = VenueCatalogueStore(store.runs.database)
    replay.fault(path=ARCHIVE_PATH, body="<html>rate limited</html>", content_type="text/html")
    status = await run_source(
        source(replay, venues, load().venues), store, published.publish_raw, published.publish_status
    )
    assert status.state == "failed" and "not a tar.gz archive" in (status.error or "")
    assert ARCHIVE_PATH in (status.error or "") and await venues.held() == {}
    assert await store.load_checkpoint("ccf_deadlines") == {}


def test_an_archive_without_the_data_or_with_an_oversized_file_is_named() -> None:
    empty = io.BytesIO()
    with tarfile.open(fileobj=empty, mode="w:gz") as tar:
        readme = b"# ccf-deadlines"
        member = tarfile.TarInfo("ccf-deadlines-main/README.md")
        member.size = len(readme)
        tar.addfile(member, io.BytesIO(readme))
    with pytest.raises(MalformedArchive, match="no conference/ files"):
        data_files(empty.getvalue())
    huge = archive({"conference/AI/aaai.yml": b"#" * (1024 * 1024 + 1)})
    found = data_files(huge)
    assert found.commit == COMMIT and "conference/AI/icml.yml" in found.files
    assert "conference/AI/aaai.yml" not in found.files
    assert found.too_large == ["conference/AI/aaai.yml: 1048577 bytes, over the 1048576 a file may have"]
