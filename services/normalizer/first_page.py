"""A paper's authors completed with the affiliations their first page writes beside their names. Pure functions.

A page author is paired with a paper author by name key (family name and initial, `papertrail/domain/names.py`), one
to one in order, never by position alone: a page whose authors differ from the metadata's (arXiv pages often name fewer
creators than the metadata lists) pairs only those it names. An author whose source gave affiliations keeps them
(a source's own word is never overwritten by the page's). A page "affiliation" that names one of the paper's
authors is a list of co-authors LaTeXML put in the wrong place, and is dropped.
"""

from papertrail.domain.names import make_author
from papertrail.domain.text import fold
from schemas.paper import Author
from services.normalizer.records import PageAuthor


def with_page_affiliations(authors: list[Author], page: list[PageAuthor]) -> list[Author]:
    """The authors in their order, each without affiliations given those the page pairs with them."""
    by_key: dict[str, list[PageAuthor]] = {}
    for page_author in page:
        by_key.setdefault(make_author(page_author.name).key, []).append(page_author)
    names = [folded for author in authors if len(folded := fold(author.name)) > 3]
    completed = []
    for author in authors:
        twins = by_key.get(author.key)
        twin = twins.pop(0) if twins else None
        if twin is None or author.affiliations:
            completed.append(author)
            continue
        kept = [a for a in twin.affiliations if not any(name in fold(a) for name in names)]
        completed.append(author.model_copy(update={"affiliations": kept}) if kept else author)
    return completed
