"""Where a paper was accepted, as venue follows, the venue feeds and citations read it: its accepted claims and its
published record, each with the evidence and version it rests on. Pure."""

from dataclasses import dataclass
from typing import Any

from papertrail.domain.venues.catalogue import default_index
from papertrail.domain.venues.claims import claims_from_journal_ref
from schemas.events import VenueEvidence
from schemas.paper import ClaimTrack, Paper, Presentation, VenueClaim


@dataclass(frozen=True, slots=True)
class AcceptedVenue:
    """One venue and edition a paper was accepted at."""

    venue: str  # the catalogue's acronym, else the name as written
    venue_key: str | None
    year: int | None
    track: ClaimTrack
    ccf_field: str | None
    ccf_rank: str | None  # of the venue, whatever the track (a workshop at an A venue is still "of" that venue)
    evidence: VenueEvidence
    source_version: str | None  # the version whose comment or journal reference says so
    workshop: str | None = None  # a workshop's name, as written ("Workshop on RegML")
    presentation: Presentation | None = None  # oral, spotlight, poster … as the claim or the decision says

    @property
    def edition_rank(self) -> str | None:
        """The rank a venue line shows beside the edition, as a claim of the same track carries it: the venue's for
        its main and findings tracks and a journal, none for a workshop, a demo or another track."""
        return self.ccf_rank if self.track in ("main", "findings", "journal") else None

    @property
    def label(self) -> str:
        """ "ICML 2026", "ACL 2026 findings": the edition, and the track when it is not the main one."""
        edition = f"{self.venue} {self.year}" if self.year else self.venue
        return edition if self.track == "main" else f"{edition} {self.track.replace('_', ' ')}"


@dataclass(frozen=True, slots=True)
class PaperVenues:
    """What of a paper says where it was accepted: a Paper's fields, or a search document's of the same names."""

    claims: tuple[VenueClaim, ...]
    status: str
    venue: str | None  # the published record's venue, as its source names it
    year: int | None
    current_version: str | None

    @classmethod
    def of(cls, paper: Paper) -> "PaperVenues":
        return cls(tuple(paper.venue_claims), paper.status, paper.venue, paper.year, paper.current_version)

    @classmethod
    def of_document(cls, doc: dict[str, Any]) -> "PaperVenues":
        """From a search document (papertrail/domain/search_document.py), which holds these fields as the paper does."""
        claims = tuple(VenueClaim.model_validate(c) for c in doc.get("venue_claims") or [])
        status = doc.get("status") or "preprint"
        return cls(claims, status, doc.get("venue"), doc.get("year"), doc.get("current_version"))


def accepted_venues(paper: Paper | PaperVenues) -> tuple[AcceptedVenue, ...]:
    """The paper's published record first (a published paper's venue as its source names it), then its accepted
    claims; one per venue, year and track. A submitted claim is never among them."""
    parts = paper if isinstance(paper, PaperVenues) else PaperVenues.of(paper)
    found: dict[tuple[str, int | None, str], AcceptedVenue] = {}
    for claim, evidence in _evidence(parts):
        accepted = _accepted(claim, evidence, parts)
        found.setdefault((accepted.venue_key or accepted.venue.lower(), accepted.year, accepted.track), accepted)
    return tuple(found.values())


def accepted_claims(paper: Paper) -> list[VenueClaim]:
    """The claims the venue filters and facets read: the published record's venue read as a claim (its year the
    paper's when the venue's name gives none), then the accepted claims of its comment, journal reference and DOIs.
    A PMLR paper published at "ICML 2025" with no claim of its own is thus found by venue=ICML and ccf_rank=A."""
    parts = PaperVenues.of(paper)
    return [
        claim.model_copy(update={"year": parts.year}) if evidence == "proceedings" and claim.year is None else claim
        for claim, evidence in _evidence(parts)
    ]


def _evidence(paper: PaperVenues) -> list[tuple[VenueClaim, VenueEvidence]]:
    published: list[tuple[VenueClaim, VenueEvidence]] = []
    if paper.status == "published" and paper.venue:
        published = [(claim, "proceedings") for claim in claims_from_journal_ref(paper.venue)]
    return published + [(claim, claim.source) for claim in paper.claims if claim.status == "accepted"]


def _accepted(claim: VenueClaim, evidence: VenueEvidence, paper: PaperVenues) -> AcceptedVenue:
    venue = default_index().venues.get(claim.venue_key) if claim.venue_key else None
    year = claim.year if claim.year is not None or evidence != "proceedings" else paper.year
    return AcceptedVenue(
        venue=claim.venue,
        venue_key=claim.venue_key,
        year=year,
        track=claim.track,
        ccf_field=venue.field if venue else None,
        ccf_rank=venue.ccf_rank if venue else None,
        evidence=evidence,
        # a comment or journal reference is the newest version's (the normalizer reads claims from the newest)
        source_version=paper.current_version if evidence in ("comment", "journal_ref") else None,
        workshop=claim.workshop,
        presentation=claim.presentation,
    )
