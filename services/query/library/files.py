"""The reader's library as a citation file (BibTeX, RIS, CSL-JSON), what the API and the library page hand out."""

from dataclasses import dataclass

from services.query.library.citations import FILE_EXTENSIONS, MEDIA_TYPES, CitationFormat, export
from services.query.library.store import LibraryStore


@dataclass(frozen=True, slots=True)
class CitationFile:
    text: str
    media_type: str
    filename: str  # ASCII, safe in a Content-Disposition header


def citation_file(text: str, citation_format: CitationFormat, name: str) -> CitationFile:
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in name)
    media_type = f"{MEDIA_TYPES[citation_format]}; charset=utf-8"
    return CitationFile(text, media_type, f"{safe}.{FILE_EXTENSIONS[citation_format]}")


async def library_file(
    library: LibraryStore, user_id: str, citation_format: CitationFormat, tag: str | None
) -> CitationFile:
    """The reader's whole library (or one tag), newest saved first."""
    papers = await library.citable_papers(await library.saved_paper_ids(user_id, tag))
    marks = await library.shelf_marks(user_id, [paper.id for paper in papers])
    name = f"papertrail-library-{tag}" if tag else "papertrail-library"
    text = export(papers, citation_format, [marks.get(paper.id) for paper in papers])
    return citation_file(text, citation_format, name)
