"""A paper's PDF (arXiv's, for a paper it renders no HTML for): the text of its first page down to the abstract.
Pure functions.

Only that head travels on harvest.raw.v1 (format `arxiv_pdf_first_page`): the title, the authors, their
affiliations and emails are there; the normalizer reads them (services/normalizer/parsers/arxiv_pdf.py). A PDF that
gives none is rejected with a reason the stage counts, as an HTML page is.
"""

import io
import logging
import re

from pypdf import PdfReader
from pypdf.errors import PyPdfError

from services.harvester.sources.arxiv_html_page import PageRejected

MAX_PDF_BYTES = 20 * 1024 * 1024  # arXiv's own limit on a submission is 50 MB; a first page needs far less
HEAD_LINES = 40  # without an abstract heading, the first lines of the page hold the front matter if any do
HEAD_CHARS = 4000  # a head longer than this is body text: the front matter is within it
_ABSTRACT = re.compile(r"^\s*(abstract|a b s t r a c t)\b", re.IGNORECASE | re.MULTILINE)

# pypdf warns (a font it cannot fully read) through logging; the text comes out all the same
logging.getLogger("pypdf").setLevel(logging.ERROR)


def first_page_head(pdf: bytes, *, max_bytes: int = MAX_PDF_BYTES) -> str:
    """The first page's text above its abstract (or its first HEAD_LINES lines).

    Rejected: `too_large` (over `max_bytes`, not parsed), `not_pdf` (pypdf cannot read it: not a PDF, cut short,
    encrypted), `no_text` (a first page without text: a scan).
    """
    if len(pdf) > max_bytes:
        raise PageRejected("too_large", f"{len(pdf)} bytes > {max_bytes}")
    try:
        reader = PdfReader(io.BytesIO(pdf))
        if reader.is_encrypted or not reader.pages:
            raise PageRejected("not_pdf", "encrypted or without pages")
        text = reader.pages[0].extract_text() or ""
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        # pypdf reports a broken file in more ways than its own errors
        raise PageRejected("not_pdf", f"{type(exc).__name__}: {exc}") from exc
    if not text.strip():
        raise PageRejected("no_text")
    abstract = _ABSTRACT.search(text)
    head = text[: abstract.start()] if abstract else "\n".join(text.splitlines()[:HEAD_LINES])
    return head.strip()[:HEAD_CHARS]
