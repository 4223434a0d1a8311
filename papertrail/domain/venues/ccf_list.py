"""The CCF recommended list's journals (中国计算机学会推荐国际学术会议和期刊目录) → venue records. Pure.

Read from WenyanLiu/CCFrank4dblp (MIT), whose data/dataGen.js holds the list as tab-separated lines
`rank, abbreviation, full name, DBLP stream, DBLP page`, field after field in the list's own order (each field:
its journals A, B, C, then its conferences A, B, C). The file names no field, so a field's block takes the CCF
field of the catalogue conferences it holds (matched by DBLP key): the DBLP keys tie the two sources together."""

import re
from collections import Counter
from collections.abc import Iterable

from papertrail.domain.venues.catalogue import CcfField, Venue, fold

LINE = re.compile(r'^\s*"(?P<row>[^"\n]*?)(?:\\n)?"\s*[+;]?\s*$')
RANKS = {"A": "A", "B": "B", "C": "C"}
PUBLISHERS = ("IEEE/ACM", "ACM/IEEE", "IEEE", "ACM")


class RankListError(ValueError):
    """The file holds no rank list of the expected layout; the message says what is wrong."""


def rank_rows(text: str) -> list[list[str]]:
    """The list's rows, each [rank, abbreviation, full name, DBLP stream, DBLP page], in the file's order."""
    rows = []
    for line in text.splitlines():
        match = LINE.match(line)
        if match and match.group("row").count("\t") >= 2:
            cells = [cell.strip() for cell in match.group("row").split("\t")]
            rows.append([*cells, "", ""][:5])
    if not rows:
        raise RankListError("no tab-separated rank rows (rank, abbreviation, name, DBLP stream, DBLP page)")
    return rows


def journals_from_rank_list(text: str, conferences: Iterable[Venue]) -> list[Venue]:
    """The journals of the list, each with its CCF rank, field (from its block's conferences) and DBLP key; the
    conferences are the catalogue's. A journal whose block holds no catalogue conference gets no field."""
    field_of = {v.dblp.lower(): v.field for v in conferences if v.dblp and v.field and v.type == "conference"}
    blocks: list[list[list[str]]] = []
    previous = ("", "")  # the last row's kind and rank
    for row in rank_rows(text):
        kind = row[3].split("/")[1] if row[3].count("/") >= 2 else ""
        # a field's block starts with its journals after the last field's conferences (rank C back to A); a
        # conference listed among journals (PARCO, rank B among the B journals) does not end the block
        if kind == "journals" and (not blocks or (previous[0] == "conf" and row[0] < previous[1])):
            blocks.append([])
        if blocks and kind in ("journals", "conf"):
            blocks[-1].append(row)
        previous = (kind, row[0]) if kind else previous
    venues: list[Venue] = []
    seen: set[str] = set()
    for block in blocks:
        fields = Counter(
            field_of[r[3].split("/")[2].lower()]
            for r in block
            if r[3].startswith("/conf/") and r[3].split("/")[2].lower() in field_of
        )
        field: CcfField | None = fields.most_common(1)[0][0] if fields else None
        for rank, abbreviation, name, stream, _ in block:
            if not stream.startswith("/journals/") or rank not in RANKS or not name:
                continue
            dblp = stream.split("/")[2]
            if dblp.lower() in seen:  # listed twice (a journal of two fields): its first field's
                continue
            seen.add(dblp.lower())
            venues.append(_journal(rank, abbreviation, name, dblp, field))
    return venues


def _journal(rank: str, abbreviation: str, name: str, dblp: str, field: CcfField | None) -> Venue:
    name = " ".join(name.split())
    acronym = abbreviation or name
    aliases: list[str] = []
    publisher = next((p for p in PUBLISHERS if name.upper().startswith(p + " ")), None)
    if abbreviation:
        if publisher:
            aliases.append(f"{publisher.split('/')[0]} {abbreviation}")  # "IEEE TPAMI"
        if re.fullmatch(r"T[A-Z]{3,6}", abbreviation):
            aliases += [f"T-{abbreviation[1:]}"] + (
                [f"{publisher.split('/')[0]} T-{abbreviation[1:]}"] if publisher else []
            )
    return Venue(
        key=f"{field or 'journal'}/j-{dblp.lower()}",
        acronym=acronym,
        name=name,
        aliases=[a for a in aliases if fold(a) != fold(acronym)],
        type="journal",
        field=field,
        ccf_rank=RANKS[rank],  # type: ignore[arg-type]
        dblp=dblp,
    )
