"""arXiv's HTML rendering of a paper (LaTeXML, `https://arxiv.org/html/<id>`): its author block cut out of the page.
Pure functions.

Only the `<div class="ltx_authors">` element travels on harvest.raw.v1 (format `arxiv_html_authors`): a whole page
is 0.2-2 MB of text, its author block a few kB, and the normalizer reads nothing else of it. A page that cannot give
one is rejected with a reason the stage counts; the paper itself is never held back by it.
"""

from lxml import etree, html

# A page larger than this is not parsed at all (arXiv's largest renderings are a few MB; the cap keeps a runaway or
# hostile body from taking the harvester's memory).
MAX_PAGE_BYTES = 8 * 1024 * 1024

_DOCUMENT = "//article[contains(concat(' ', normalize-space(@class), ' '), ' ltx_document ')]"
_AUTHORS = ".//div[contains(concat(' ', normalize-space(@class), ' '), ' ltx_authors ')]"


class PageRejected(ValueError):
    """The page gives no author block; `reason` is the outcome the stage counts."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def author_block(page: bytes, *, max_bytes: int = MAX_PAGE_BYTES) -> str:
    """The page's LaTeXML author block as HTML text.

    Rejected: `too_large` (over `max_bytes`, not parsed), `not_html` (nothing lxml can read), `not_arxiv_html` (no
    LaTeXML `article.ltx_document`: another site's page, arXiv's "no HTML for this paper" page), `no_author_block`.
    """
    if len(page) > max_bytes:
        raise PageRejected("too_large", f"{len(page)} bytes > {max_bytes}")
    text = page.decode("utf-8", errors="replace")  # arXiv serves UTF-8; a stray byte is no reason to lose the page
    if not text.strip():
        raise PageRejected("not_html", "empty body")
    try:
        document = html.document_fromstring(text)
    except (etree.ParserError, ValueError) as exc:
        raise PageRejected("not_html", str(exc)) from exc
    articles = document.xpath(_DOCUMENT)
    if not articles:
        raise PageRejected("not_arxiv_html", "no LaTeXML article")
    blocks = articles[0].xpath(_AUTHORS)
    if not blocks:
        raise PageRejected("no_author_block")
    return html.tostring(blocks[0], encoding="unicode", with_tail=False)
