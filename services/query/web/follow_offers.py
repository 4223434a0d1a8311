"""关注 from where the reader is: the follow a page's button offers (an author, a search's words, papers like one
paper, a venue, an institution), as the form fields /follow posts, and whether the reader already follows the same
thing. No I/O."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from papertrail.domain.follows.checks import FollowRuleError, catalogue_venue
from papertrail.domain.follows.kinds import check_follow
from papertrail.domain.follows.kinds.keyword import MAX_QUERY_CHARS
from papertrail.domain.text import fold
from schemas.events import Follow

Offer = dict[str, str]
NAME_CHARS = 200

# the page's own parameters, which are no part of the search its Atom feed follows
NOT_THE_SEARCH = frozenset({"page", "size", "sort", "lang"})


def author(name: str) -> Offer:
    """An author follow of the name the author page is keyed by (the full name as written)."""
    return {"kind": "author", "author": name, "name": name[:NAME_CHARS]}


def search(query: str) -> Offer | None:
    """A keyword follow of a search's words; None when they are no keyword expression a follow can hold."""
    words = query.strip()
    if len(words) > MAX_QUERY_CHARS:
        return None
    try:
        check_follow("keyword", query=words, author=None, topic_id=None)
    except FollowRuleError:
        return None
    return {"kind": "keyword", "query": words, "name": words[:NAME_CHARS]}


def similar(paper_id: str, title: str) -> Offer:
    """A "papers like this one" follow seeded by the paper."""
    return {"kind": "similar", "seeds": paper_id, "name": ("≈ " + title)[:NAME_CHARS]}


def venue(written: str, year: int | None = None) -> Offer | None:
    """A venue follow of the catalogue's venue so named (of one edition when a year is given); None for a venue the
    catalogue does not know, which a follow cannot hold."""
    try:
        found = catalogue_venue(written)
    except FollowRuleError:
        return None
    edition = {"venue_year": str(year)} if year else {}
    name = f"{found.acronym} {year}" if year else found.acronym
    return {"kind": "venue", "venue": found.key, **edition, "name": name}


def institution(ror: str, name: str) -> Offer:
    """An institution follow of the institution whose page this is."""
    return {"kind": "institution", "institution": ror, "name": name[:NAME_CHARS]}


def search_feed_url(pairs: Iterable[tuple[str, str]]) -> str:
    """The Atom feed of the search a home page address asks for (the feed takes the page's search parameters)."""
    return "/feeds/search.atom?" + urlencode([(k, v) for k, v in pairs if k not in NOT_THE_SEARCH and v.strip()])


def same_thing(follow: Follow, offer: Mapping[str, str]) -> bool:
    """Whether a follow follows what the offer would (one pinned, narrowed or described further is another)."""
    if follow.kind != offer["kind"]:
        return False
    if follow.kind == "author":
        pinned = follow.orcid or follow.source_author_id or follow.affiliation
        return not pinned and fold(follow.author or "") == fold(offer["author"])
    if follow.kind == "keyword":
        plain = follow.fields == "both" and not follow.categories
        return plain and (follow.query or "").strip() == offer["query"]
    if follow.kind == "similar":
        return not follow.description and [seed.paper_id for seed in follow.seeds] == [offer["seeds"]]
    if follow.kind == "venue":
        year = int(offer["venue_year"]) if offer.get("venue_year") else None
        narrowed = follow.venue_track or follow.venue_rank
        return not narrowed and (follow.venue_key, follow.venue_year) == (offer["venue"], year)
    if follow.kind == "institution":
        return not follow.categories and follow.institution == offer["institution"]
    return False


@dataclass(frozen=True)
class FollowsHere:
    """The signed-in reader's follows, for a page's 关注 buttons: which follow (its id), if any, is the offer's."""

    follows: tuple[Follow, ...] = ()

    def of(self, offer: Mapping[str, str] | None) -> str | None:
        if offer is None:
            return None
        return next((follow.id for follow in self.follows if same_thing(follow, offer)), None)
