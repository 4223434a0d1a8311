"""PMLR volume BibTeX files (the mlresearch/v<N> repositories' `<conf>.bib`) → one raw record per paper. No I/O.

Content convention (the normalizer parses exactly this): the volume's `@Proceedings` entry as written, a blank line,
then the paper's `@InProceedings` entry as written. Record id = `v<volume>/<entry key>` (`v267/aamand25a`), the
paper page's path under proceedings.mlr.press. An entry bibtexparser cannot read (broken braces) is still published,
as written, under its key (or its line): the normalizer refuses it with the reason and parks it on the dead-letter
topic, and every entry after it is read as usual.
"""

import re

import bibtexparser
from bibtexparser.model import Block, Entry, ParsingFailedBlock

from services.harvester.sources import SourceRecord

ENTRY_KEY = re.compile(r"@\s*\w+\s*\{\s*([^,\s{}]+)\s*,")


class MalformedVolumeBib(Exception):
    """The body is not a PMLR volume file: no `@Proceedings` entry with its volume."""


def _line(block: Block) -> int:
    return (block.start_line or 0) + 1


def _failed_key(block: Block) -> str:
    found = ENTRY_KEY.match((block.raw or "").lstrip())
    return found.group(1) if found else f"line-{_line(block)}"


def split_volume(body: str) -> tuple[list[SourceRecord], list[str]]:
    """Every paper entry of one volume file, in file order, and a note for each entry that could not be read."""
    library = bibtexparser.parse_string(body)
    proceedings = next((e for e in library.entries if e.entry_type == "proceedings"), None)
    volume = proceedings.fields_dict.get("volume") if proceedings else None
    if proceedings is None or volume is None:
        raise MalformedVolumeBib("no @Proceedings entry with a volume: not a PMLR volume file")
    head = (proceedings.raw or "").strip()
    published = proceedings.fields_dict.get("published")
    datestamp = str(published.value).strip() if published else None
    records: list[SourceRecord] = []
    notes: list[str] = []
    for block in library.blocks:
        if isinstance(block, Entry) and block.entry_type == "inproceedings":
            key = block.key
        elif isinstance(block, ParsingFailedBlock):
            key = _failed_key(block)
            notes.append(f"v{volume.value}/{key} (line {_line(block)}): {block.error}; published as written")
        else:
            continue
        content = f"{head}\n\n{(block.raw or '').strip()}"
        records.append(SourceRecord.of(f"v{volume.value}/{key}", "pmlr_bibtex", content, datestamp))
    return records, notes
