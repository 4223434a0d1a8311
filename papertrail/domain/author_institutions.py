"""What a paper shows, indexes and is followed by of its authors' institutions: the ROR-matched institutions of its
authors first, deduplicated in author order; an unmatched affiliation as written; the summary's model-written
institutions only for a paper none of whose authors has any. No I/O: papers and search documents in, plain values
out.

Why the authors' institutions come first: each is read from the paper (or its source) and matched to a ROR record
with its evidence, names one institution by a stable id (its page, the filter, a follow) and carries ROR's own
Chinese label; the summary's names are a model's reading of the same affiliations, with Chinese names it wrote and
no id. A paper whose authors carry none (no affiliation found yet, or read before matching existed) still shows
the model's names, as it did before, rather than nothing.
"""

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from papertrail.domain.names import display_name_key
from papertrail.domain.text import fold
from schemas.paper import Author, AuthorInstitution

# A ROR id as its record's URL ends: a leading 0, six characters of Crockford's base 32 (no i, l, o, u), and two
# check digits (https://ror.readme.io/docs/identifier).
ROR_ID_PATTERN = r"^0[a-hj-km-np-tv-z0-9]{6}[0-9]{2}$"
ROR_ID = re.compile(ROR_ID_PATTERN)
# ROR names a company by its country when several share a name ("Baidu (China)"); a reader reads the name alone.
_QUALIFIER = re.compile(r"\s*\([^()]*\)$")
# the separator of an institution's facet value: id, English name, Chinese name, country (names never hold it)
_SEP = "|"


def is_ror_id(value: str) -> bool:
    return bool(ROR_ID.match(value))


def display_name(ror_name: str) -> str:
    """A ROR record's name as a reader reads it: without the trailing qualifier ROR adds to tell namesakes apart."""
    shorter = _QUALIFIER.sub("", ror_name)
    return shorter or ror_name


def author_institutions(author: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One author's institutions as shown: `name` (ROR's, or the affiliation as written when unmatched), `name_zh`
    (ROR's Chinese label, if any), `ror` (none when unmatched), `affiliation` (as written)."""
    shown = []
    for inst in author.get("institutions") or []:
        ror = inst.get("ror")
        name = display_name(inst["name"]) if ror and inst.get("name") else inst["affiliation"]
        shown.append({"name": name, "name_zh": inst.get("name_zh") if ror else None, "ror": ror,
                      "affiliation": inst["affiliation"]})  # fmt: skip
    return shown


def paper_institutions(
    authors: Sequence[Mapping[str, Any]], summary_institutions: Iterable[Mapping[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The paper's institutions as a card shows them, each once, in author order (an institution is one by its ROR
    id, an unmatched affiliation by its folded words); the summary's (`name`, `name_zh`, no id) when no author has
    any."""
    seen: dict[str, dict[str, Any]] = {}
    for author in authors:
        for inst in author_institutions(author):
            seen.setdefault(inst["ror"] or f"as written:{fold(inst['affiliation'])}", inst)
    if seen:
        return list(seen.values())
    return [{"name": i["name"], "name_zh": i.get("name_zh"), "ror": None} for i in summary_institutions]


def institution_ids(authors: Sequence[Mapping[str, Any]]) -> list[str]:
    """The ROR ids of the paper's authors' institutions, each once, in author order: what the filter and the
    follows read."""
    ids = (inst.get("ror") for author in authors for inst in author.get("institutions") or [])
    return list(dict.fromkeys(i for i in ids if i))


def _clean(name: str | None) -> str:
    return (name or "").replace(_SEP, "/").strip()


def institution_entries(authors: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each matched institution as one facet value, `id|English name|Chinese name|country`: counting them over the
    index gives every institution with its names and number of papers in one request."""
    entries: dict[str, str] = {}
    for author in authors:
        for inst in author.get("institutions") or []:
            if inst.get("ror") and inst["ror"] not in entries:
                names = (_clean(inst.get(field)) for field in ("name", "name_zh", "country"))
                entries[inst["ror"]] = _SEP.join((inst["ror"], *names))
    return list(entries.values())


def read_entry(entry: str) -> dict[str, Any] | None:
    """A facet value back as {ror, name, name_zh, country}; None for one that is not of this form."""
    parts = entry.split(_SEP)
    if len(parts) != 4 or not is_ror_id(parts[0]):
        return None
    ror, name, name_zh, country = parts
    return {"ror": ror, "name": name or ror, "name_zh": name_zh or None, "country": country or None}


def institution_counts(entries: Mapping[str, int]) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
    """A facet count of entries as counts per ROR id and each id's names (the most counted entry's, should a
    record's name have changed between papers)."""
    counts: dict[str, int] = {}
    names: dict[str, tuple[int, dict[str, Any]]] = {}
    for entry, count in entries.items():
        read = read_entry(entry)
        if read is None:
            continue
        ror = read["ror"]
        counts[ror] = counts.get(ror, 0) + count
        if ror not in names or count > names[ror][0]:
            names[ror] = (count, {"name": read["name"], "name_zh": read["name_zh"], "country": read["country"]})
    return counts, {ror: named for ror, (_, named) in names.items()}


def matches_words(institution: Mapping[str, Any], words: str) -> bool:
    """Whether a reader's words name the institution: its id, every folded word in its English name, or the words
    within its Chinese name."""
    wanted = words.strip()
    if not wanted:
        return True
    if wanted.lower() == institution["ror"] or (institution.get("name_zh") and wanted in institution["name_zh"]):
        return True
    name = f" {fold(institution['name'])} "
    folded = fold(wanted).split()
    return bool(folded) and all(f" {word}" in name for word in folded)


def searchable_names(
    authors: Sequence[Mapping[str, Any]], summary_institutions: Iterable[Mapping[str, Any]] = ()
) -> list[str]:
    """Every name the paper's institutions go by, for words to find: ROR's English and Chinese names, the
    affiliations as written, and the summary's names."""
    names: list[str] = []
    for author in authors:
        for inst in author.get("institutions") or []:
            names += [inst.get("name_zh") or "", inst.get("name") or "", inst["affiliation"]]
    for inst in summary_institutions:
        names += [inst.get("name_zh") or "", inst.get("name") or ""]
    return list(dict.fromkeys(n for n in names if n))


CORRECTION = "correction"  # an institution an operator set from a reader's report: evidence and source


def corrected(institution: AuthorInstitution) -> AuthorInstitution:
    """An institution as an operator's correction sets it: its evidence and source say so, and merges keep it."""
    return institution.model_copy(update={"evidence": CORRECTION, "source": CORRECTION})


def is_corrected(author: Author) -> bool:
    return any(inst.evidence == CORRECTION for inst in author.institutions)


def keep_corrections(authors: Sequence[Author], held: Sequence[Author]) -> list[Author]:
    """The authors, each whose held twin carries an operator's correction keeping that correction's institutions:
    a later record of the paper, or matching again, never undoes one. A twin is the held author of the same full
    name as written, in turn; else, when one author on each side has it, the held author of the same family name and
    initial (`Y. Li` then; but `li y` is Yangning and Yinghui Li alike: a key two authors share names neither)."""
    by_name: dict[str, list[Author]] = {}
    by_key: dict[str, list[Author]] = {}
    for author in held:
        by_name.setdefault(display_name_key(author.name), []).append(author)
        by_key.setdefault(author.key, []).append(author)
    keys = Counter(author.key for author in authors)
    kept = []
    for author in authors:
        same = by_name.get(display_name_key(author.name))
        twin = same.pop(0) if same else None
        if twin is None and keys[author.key] == 1 and len(by_key.get(author.key, [])) == 1:
            twin = by_key[author.key][0]
        if twin is not None and is_corrected(twin):
            author = author.model_copy(update={"institutions": twin.institutions})
        kept.append(author)
    return kept
