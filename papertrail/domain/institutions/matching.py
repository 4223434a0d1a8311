"""Affiliation strings matched to ROR records, pure: an email domain against the records' domains; a record's
name, alias or label (any language, Chinese included) found in the string; an acronym only when it is the whole of
a part of the string, or leads a unit's name in it ("ZHAW School of Engineering"), and only one record has it. A
unit of an institution (a lab, a department) keeps its words and links the institution (evidence "parent"). A
university in another country than the one the affiliation ends with is not the one named. A string nothing
matches, or that matches only ambiguously, is kept as written with no ROR id: precision first, never a guess."""

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from babel import Locale

from papertrail.domain.institutions.catalogue import Institution, catalogue_records
from papertrail.domain.text import fold
from schemas.paper import Author, AuthorInstitution, EvidenceKind

# Abbreviations written in affiliations, folded to the words ROR's names use (on both sides).
_ABBREVIATIONS = {
    "univ": "university",
    "uni": "university",
    "dept": "department",
    "inst": "institute",
    "lab": "laboratory",
    "labs": "laboratories",
    "sciences": "science",  # "Chinese Academy of Science" is written for "… of Sciences"
    # British and American spellings ("National University of Defence Technology" is ROR's "… Defense …")
    "centre": "center",
    "defence": "defense",
    "organisation": "organization",
}
# Words names are written with and without ("University of Illinois at Urbana-Champaign", "Washington University
# in St. Louis" written "Washington University, St. Louis"): left out on both sides.
_DROPPED = frozenset({"at", "in"})
_REWRITTEN = re.compile(r"\b(?:" + "|".join(sorted(_ABBREVIATIONS.keys() | _DROPPED)) + r")\b")
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"  # kana, hanzi, hangul
_CJK = re.compile(f"([{_CJK_CHARS}])")
_CJK_GAP = re.compile(f"(?<=[{_CJK_CHARS}]) (?=[{_CJK_CHARS}])")
# Words that name a unit inside an institution: the institution is linked, the unit's words are kept.
_UNIT = re.compile(
    r"\b(department|school|college|faculty|laborator(y|ies)|centre|center|institute|division|group|"
    r"program(me)?|graduate|academy|team|unit|chair|section|observatory)\b|学院|实验室|研究所|研究院|系|中心"
)
# An affiliation's parts: institutions are listed between these ("DIFA - University of Bologna", "SSL/UCB").
_PARTS = re.compile(r"\s*(?:[,;/()（）、，；]|\s[-–]\s)\s*")
# A name ending so and followed by "of"/"for" is the start of a longer name ("Zayed University" in "Mohamed bin
# Zayed University of Artificial Intelligence"), not that institution.
_NAME_ENDS = frozenset({"university", "institute", "college", "school", "academy"})
_NAME_GOES_ON = frozenset({"of", "for"})
_STOP = frozenset("of the and for de du des la le in at on di del della der für und y e".split())
# A name all of whose words are common in names ("Institute of Science and Technology", "Engineering") is only
# taken where it stands alone: a whole part of the affiliation, not inside a longer name the catalogue lacks.
_COMMON = 100  # names a word appears in, of the catalogue's
_BRACKETED = re.compile(r"\([^)]*\)|（[^）]*）")
_ACRONYM = re.compile(r"^[A-Z][A-Za-z&.-]*[A-Z][A-Za-z&.()-]*$")
# An acronym leading a unit's name ("ZHAW School of Engineering"): the unit of the institution the acronym is.
_ACRONYM_UNIT = re.compile(
    r"^([A-Z][A-Z&-]+[A-Z])\s+(?i:department|school|college|faculty|lab|laboratory|centre|center|institute|division|"
    r"group|graduate)\b"
)
# A name's country written before it ("United States Naval Research Laboratory"): the name is written without it too.
_COUNTRY_LEAD = re.compile(r"^(?:United States|U\.S\.|US)\s+(?=\S)")
# A name or alias of two parts between a dash ("University of Tromsø - The Arctic University of Norway").
_DASH = re.compile(r"\s[-–—]\s")
# The replacement character where a source decoded a letter wrongly ("Universit\ufffd Paris-Saclay").
_LOST = "\ufffd"
_LOST_WORD = re.compile(rf"\w*{_LOST}[\w{_LOST}]*")
_WORD = re.compile(r"\w+")
# Countries as affiliations end with them, besides their English names ("…, 75005 Paris, France").
_COUNTRY_ALIASES = {
    "usa": "US",
    "u s a": "US",
    "us": "US",
    "uk": "GB",
    "hong kong": "HK",
    "czech republic": "CZ",
    "korea": "KR",
    "republic of korea": "KR",
    "pr china": "CN",
    "p r china": "CN",
    "netherlands": "NL",
}
# Hosts that mail anyone: an address there says nothing of an institution.
_WEBMAIL = frozenset(
    "gmail.com googlemail.com outlook.com hotmail.com live.com yahoo.com icloud.com me.com qq.com foxmail.com "
    "163.com 126.com yeah.net sina.com sohu.com aliyun.com protonmail.com proton.me mail.ru yandex.ru naver.com".split()
)
# How a record's name was found, best first; "b" is a display name without its "(Country)" tail.
_KIND_OF = {"n": "name", "l": "label", "a": "alias", "b": "name"}
_KIND_ORDER = "nlab"


def folded(text: str) -> str:
    """The form names are compared in: `text.fold` with "&" read as "and", abbreviations spelled out, each CJK
    character a word."""
    text = fold(text.replace("&", " and ") if text.isascii() else _CJK.sub(r" \1 ", text.replace("&", " and ")))
    if not _REWRITTEN.search(text):  # most names: nothing to spell out or leave out
        return text
    return " ".join(_ABBREVIATIONS.get(word, word) for word in text.split() if word not in _DROPPED)


def _phrases(record: Institution) -> Iterable[tuple[str, str]]:
    yield record.name, "n"
    for alias in record.aliases:
        yield alias, "a"
    for _, label in record.labels:
        yield label, "l"


def _usable(phrase: str) -> bool:
    """Long enough not to be found by chance: two words, or one of 4+ letters, or two CJK characters."""
    words = phrase.split()
    if not phrase.isascii() and all(_CJK.fullmatch(word) for word in words):
        return len(words) >= 2
    return len(words) >= 2 or len(phrase) >= 4


@cache
def _countries() -> dict[str, str]:
    """Country names, folded, to their ISO codes."""
    names = {folded(name): code for code, name in Locale.parse("en").territories.items() if len(code) == 2}
    return names | _COUNTRY_ALIASES


def written_country(affiliation: str) -> str | None:
    """The country an affiliation ends with, if what follows its last comma is one's name ("…, Nice Cedex 4,
    France")."""
    _, comma, last = affiliation.rpartition(",")
    if not comma or last.count(" ") > 4:
        return None
    return _countries().get(folded(last).removeprefix("the "))


@dataclass(frozen=True, slots=True)
class _Record:
    """What a match shows of a record, and its links for the rules."""

    name: str
    name_zh: str | None
    country: str | None
    parents: tuple[str, ...]
    active: bool
    education: bool  # a university is where its affiliation says; a company's group or an observatory's owner
    # may be elsewhere ("Google, Zurich, Switzerland"; "Carnegie Observatories, …, La Serena, Chile")


@dataclass(frozen=True, slots=True)
class _Hit:
    start: int  # in words
    end: int
    candidates: str | tuple[str, ...]  # "<ror id><kind letter>", one or more


@dataclass(frozen=True, slots=True)
class _Affiliation:
    """An affiliation's folded words and where its parts start and end (hard: between punctuation; soft: "and")."""

    words: list[str]
    hard: set[tuple[int, int]]  # (start, end) of each part between punctuation
    starts: set[int]
    ends: set[int]
    joins: list[int]  # the words after each "and": the ACL Anthology joins an author's affiliations so
    part_of: list[int]  # each word's part

    @classmethod
    def read(cls, text: str) -> "_Affiliation":
        words: list[str] = []
        hard: set[tuple[int, int]] = set()
        starts: set[int] = set()
        ends: set[int] = set()
        joins: list[int] = []
        part_of: list[int] = []
        for part in _PARTS.split(text):
            part_words = folded(part).split()
            if part_words[:1] == ["the"]:  # "The University of Tokyo": names are indexed without it
                part_words = part_words[1:]
            if not part_words:
                continue
            begin = len(words)
            part_of += [len(hard)] * len(part_words)
            words += part_words
            hard.add((begin, len(words)))
            starts.add(begin)
            ends.add(len(words))
            for i, word in enumerate(part_words):
                if word == "and":
                    joins.append(begin + i + 1)
                    ends.add(begin + i)
                    starts.add(begin + i + 1 + (part_words[i + 1 : i + 2] == ["the"]))
        return cls(words, hard, starts, ends, joins, part_of)

    def unit_words(self, spans: dict[str, tuple[int, int]], ror: str) -> list[str]:
        """The words that go with one institution's name: those of its part and of the parts before it back to the
        previous institution's, less the institutions' names ("TJUNLP Lab, College of …, Tianjin University"; in
        "Department of …, University A, University B" the department is A's alone)."""
        if ror not in spans:
            return []
        part = self.part_of[spans[ror][0]]
        earlier = [self.part_of[start] for other, (start, _) in spans.items() if other != ror]
        first = max([p + 1 for p in earlier if p < part], default=0)
        named = {i for start, end in spans.values() for i in range(start, end)}
        return [word for i, word in enumerate(self.words) if first <= self.part_of[i] <= part and i not in named]

    def joined(self, a: tuple[int, int], b: tuple[int, int]) -> bool:
        """Whether two names stand in affiliations joined by "and" (not one written with the other's name)."""
        return sum(join <= a[0] for join in self.joins) != sum(join <= b[0] for join in self.joins)


class InstitutionMatcher:
    """The catalogue's names, acronyms and domains indexed once; `match` reads one affiliation at a time.

    Names are found by looking each run of an affiliation's words up in a dict of the folded names: an affiliation
    is a few dozen words, so that is a few hundred look-ups, and the dict is quicker to build and smaller than an
    automaton over the same 120,000 names."""

    def __init__(self, institutions: Iterable[Institution]) -> None:
        """`institutions`: each record once, in any order; an iterator is read once and not kept (the shipped
        catalogue's records are let go one by one as they are indexed)."""
        self.records: dict[str, _Record] = {}
        self.names: dict[str, str | tuple[str, ...]] = {}
        acronyms: dict[str, set[str]] = defaultdict(set)
        domains: dict[str, set[str]] = defaultdict(set)
        bare_names: list[tuple[str, str]] = []
        dashed: list[tuple[str, str]] = []
        accented = Counter[str]()
        for record in institutions:
            self.records[record.id] = _Record(
                record.name, record.name_zh, record.country, record.parents, record.active, "education" in record.types
            )
            for phrase, kind in _phrases(record):
                self._add(phrase, record.id, kind)
                if not phrase.isascii():
                    accented.update(word for word in _WORD.findall(phrase.lower()) if not word.isascii())
            bare = re.sub(r"\s*\([^)]*\)\s*$", "", record.name)  # "Google (United States)" is written "Google"
            if bare != record.name:
                bare_names.append((record.id, bare))
            if _COUNTRY_LEAD.match(record.name):
                bare_names.append((record.id, _COUNTRY_LEAD.sub("", record.name)))
            if not record.parents:  # a unit's dashed name leads with its parent's ("National Park Service - …")
                for phrase in (record.name, *record.aliases):
                    parts = _DASH.split(phrase)
                    if len(parts) > 1:  # a part of two words or more: not a place ("… - Ghana")
                        dashed += [(record.id, part) for part in parts if " " in part.strip()]
            for acronym in record.acronyms:
                acronyms[acronym.replace(" ", "")].add(record.id)
            for domain in record.domains:
                domains[domain].add(record.id)
        for ror, bare in bare_names:
            # a subsidiary's bare name is its group's ("Google (Australia)"), and so is one whose group is not in
            # the catalogue ("Honda (Germany)")
            parents = self.records[ror].parents
            if all(parent in self.records and not self.records[parent].name.startswith(bare) for parent in parents):
                self._add(bare, ror, "b")
        for ror, part in dashed:
            # each part of "University of Tromsø - The Arctic University of Norway" names the record, unless it is
            # another record's name ("AIRI - Artificial Intelligence Research Institute": Spain's IIIA is named so)
            if folded(part).removeprefix("the ") not in self.names:
                self._add(part, ror, "a")
        names = self.names
        self.longest = max((key.count(" ") + 1 for key in names), default=0)
        in_names = Counter(word for key in names for word in set(key.split()))
        self.common = frozenset(word for word, count in in_names.items() if count >= _COMMON)
        # the names' words with a letter beyond ASCII, the commonest first, one a line: a word whose letter was lost
        # is read as the first it fits
        self.accented = "\n".join(word for word, _ in accented.most_common())
        # an acronym as written ("CfA", not "CFA"), when one record has it
        self.acronyms = {acronym: next(iter(ids)) for acronym, ids in acronyms.items() if len(ids) == 1}
        # one written in other capitals than its record's ("LAHC" for "LaHC"), when no record has it as written and
        # one record has it in any capitals
        any_case: dict[str, set[str]] = defaultdict(set)
        for acronym, ids in acronyms.items():
            any_case[acronym.upper()] |= ids
        self.written = frozenset(acronyms)
        self.acronyms_any_case = {acronym: next(iter(ids)) for acronym, ids in any_case.items() if len(ids) == 1}
        self.domains = {domain: next(iter(ids)) for domain, ids in domains.items() if len(ids) == 1}

    def _add(self, phrase: str, ror: str, kind: str) -> None:
        key = folded(phrase).removeprefix("the ")
        if not _usable(key):
            return
        earlier = self.names.get(key)
        entries = () if earlier is None else (earlier,) if isinstance(earlier, str) else earlier
        mine = next((entry for entry in entries if entry[:-1] == ror), None)
        if mine is not None:  # the record's name already there: the better kind of the two stays
            if _KIND_ORDER.index(kind) < _KIND_ORDER.index(mine[-1]):
                entries = tuple(ror + kind if entry == mine else entry for entry in entries)
        else:
            entries = (*entries, ror + kind)
        # most names are one record's: a str, not a tuple, keeps the index small
        self.names[key] = entries[0] if len(entries) == 1 else entries

    def _ancestors(self, ror: str) -> set[str]:
        seen: set[str] = set()
        todo = list(self.records[ror].parents)
        while todo:
            parent = todo.pop()
            if parent not in seen and parent in self.records:
                seen.add(parent)
                todo += self.records[parent].parents
        return seen

    def _settle(self, candidates: str | tuple[str, ...], found: Iterable[str] = ()) -> tuple[str, str] | None:
        """One name, several records: a real name before a display name without its country; then the one every
        other record descends from (Amazon and its subsidiaries); then the one active record; then the one whose
        parent the affiliation names too. Else none."""
        if isinstance(candidates, str):
            return candidates[:-1], candidates[-1]
        kinds = {entry[:-1]: entry[-1] for entry in candidates}
        if any(kind != "b" for kind in kinds.values()):
            kinds = {ror: kind for ror, kind in kinds.items() if kind != "b"}
        if len(kinds) == 1:
            return next(iter(kinds.items()))
        for rule in (
            lambda ror: all(ror in self._ancestors(other) for other in kinds if other != ror),
            lambda ror: self.records[ror].active,
            lambda ror: bool(self._ancestors(ror) & set(found)),
        ):
            chosen = [ror for ror in kinds if rule(ror)]
            if len(chosen) == 1:
                return chosen[0], kinds[chosen[0]]
        return None

    def _standing(self, hit: _Hit, affiliation: _Affiliation) -> bool:
        """Whether a name found is the institution named, not a piece of a longer name (the rules above)."""
        words = affiliation.words
        following = words[hit.end] if hit.end < len(words) else None
        if words[hit.end - 1] in _NAME_ENDS and following in _NAME_GOES_ON:
            return False
        if hit.end - hit.start == 1 and following in _NAME_ENDS:
            # "NOVA School of …" is not the Nova Institute; "Swinburne Uni" is Swinburne University of Technology
            lead = f"{words[hit.start]} {following}"
            entries = (hit.candidates,) if isinstance(hit.candidates, str) else hit.candidates
            if not any(folded(self.records[entry[:-1]].name).startswith(lead) for entry in entries):
                return False
        content = [word for word in words[hit.start : hit.end] if word not in _STOP]
        if content and all(word in self.common for word in content):
            if len(content) == 1:
                return (hit.start, hit.end) in affiliation.hard
            return hit.start in affiliation.starts and hit.end in affiliation.ends
        return True

    def _name_hits(self, affiliation: _Affiliation) -> list[_Hit]:
        words = affiliation.words
        hits = []
        for start in range(len(words)):
            for end in range(start + 1, min(start + self.longest, len(words)) + 1):
                candidates = self.names.get(" ".join(words[start:end]))
                if candidates is not None:
                    hits.append(_Hit(start, end, candidates))
        hits = [hit for hit in hits if self._standing(hit, affiliation)]
        # a name inside a longer name found ("Chinese Academy of Sciences" in "University of Chinese Academy of
        # Sciences") is not a second institution
        return [
            hit
            for hit in hits
            if not any(
                other.start <= hit.start and hit.end <= other.end and other.end - other.start > hit.end - hit.start
                for other in hits
            )
        ]

    def match(self, affiliation: str, emails: Iterable[str] = ()) -> list[AuthorInstitution]:
        """The institutions one affiliation string names, most specific first; the string alone (no ROR id) when
        none is matched without doubt."""
        read = _Affiliation.read(self._restored(affiliation) if _LOST in affiliation else affiliation)
        found: dict[str, str] = {}
        spans: dict[str, tuple[int, int]] = {}
        unsettled: list[_Hit] = []
        for hit in self._name_hits(read):
            settled = self._settle(hit.candidates)
            if settled is None:
                unsettled.append(hit)
            elif settled[0] not in found:
                found[settled[0]] = settled[1]
                spans[settled[0]] = (hit.start, hit.end)
        for hit in unsettled:  # "Institute of Automation" of two countries, beside "Chinese Academy of Sciences"
            settled = self._settle(hit.candidates, found)
            if settled is not None and settled[0] not in found:
                found[settled[0]] = settled[1]
                spans[settled[0]] = (hit.start, hit.end)
        # an acronym in brackets after a name found is that name's, or its unit's ("Meta (FAIR)")
        parts = _PARTS.split(_BRACKETED.sub(" ", affiliation) if found else affiliation)
        for part in [affiliation, *parts]:
            part = part.strip(" .")
            ror = self._acronym(part.replace(" ", "")) if _ACRONYM.match(part) else None
            if ror is not None and ror not in found:
                found[ror] = "acronym"
            leading = _ACRONYM_UNIT.match(part)
            ror = self.acronyms.get(leading.group(1)) if leading else None
            if ror is not None and ror not in found:
                found[ror] = "parent"
        country = written_country(affiliation) if found and not read.joins else None
        if country is not None:  # "École Normale Supérieure, …, Paris, France" is not Bujumbura's, of that name
            for ror in list(found):
                record = self.records[ror]
                if record.education and record.country not in (None, country):
                    del found[ror]
                    spans.pop(ror, None)
        if not found:
            for ror in self._email_matches(emails):
                found.setdefault(ror, "domain")
        # an institution and its own unit named together ("Institute of Computing Technology, Chinese Academy of
        # Sciences"): the unit is the more specific; named as two affiliations ("… and University of Potsdam"): both
        for ror in list(found):
            units = [other for other in found if other != ror and ror in self._ancestors(other)]
            if any(not (ror in spans and unit in spans and read.joined(spans[ror], spans[unit])) for unit in units):
                del found[ror]
        if not found:
            return [AuthorInstitution(affiliation=affiliation)]
        return [self._institution(affiliation, read.unit_words(spans, ror), ror, found[ror]) for ror in found]

    def _acronym(self, written: str) -> str | None:
        if written in self.written or len(written) < 4:  # three capitals are too many records' in other cases
            return self.acronyms.get(written)
        return self.acronyms_any_case.get(written.upper())

    def _restored(self, affiliation: str) -> str:
        """Each word with a lost letter (U+FFFD) as the commonest word of the catalogue's names it fits, a letter
        beyond ASCII for each lost one ("Universit\ufffdt" is "universität"); left as it is where none fits."""

        def restore(lost: re.Match[str]) -> str:
            pattern = "[^\\x00-\\x7f]".join(re.escape(piece.lower()) for piece in lost.group().split(_LOST))
            fits = re.search(f"^{pattern}$", self.accented, re.MULTILINE)
            return fits.group() if fits else lost.group()

        return _LOST_WORD.sub(restore, affiliation)

    def _institution(self, affiliation: str, unit: list[str], ror: str, kind: str) -> AuthorInstitution:
        """`unit`: the words written with the institution's name; naming a lab or a department there makes the
        match a parent's."""
        record = self.records[ror]
        evidence: EvidenceKind = _KIND_OF[kind] if kind in _KIND_OF else kind  # type: ignore[assignment]
        if _UNIT.search(_CJK_GAP.sub("", " ".join(unit))):
            evidence = "parent"
        return AuthorInstitution(
            affiliation=affiliation,
            ror=ror,
            name=record.name,
            name_zh=record.name_zh,
            country=record.country,
            evidence=evidence,
        )

    def _email_matches(self, emails: Iterable[str]) -> list[str]:
        found: list[str] = []
        for email in emails:
            host = email.rsplit("@", 1)[-1].strip().lower().rstrip(".")
            if host in _WEBMAIL:
                continue
            labels = host.split(".")
            for start in range(len(labels) - 1):  # cs.stanford.edu, then stanford.edu
                ror = self.domains.get(".".join(labels[start:]))
                if ror is not None:
                    if ror not in found:
                        found.append(ror)
                    break
        return found


@cache
def shipped_matcher() -> InstitutionMatcher:
    """The matcher over the shipped catalogue, built at its first use and kept for the process (the catalogue
    itself is let go once indexed)."""
    return InstitutionMatcher(catalogue_records())


def match_author(
    affiliations: Iterable[str],
    emails: Iterable[str] = (),
    *,
    source: str | None = None,
    matcher: InstitutionMatcher | None = None,
) -> list[AuthorInstitution]:
    """An author's affiliations, in their order, each matched; one institution named twice is kept once."""
    matcher = matcher or shipped_matcher()
    emails = list(emails)
    institutions: list[AuthorInstitution] = []
    seen: set[tuple[str, str | None]] = set()
    for affiliation in affiliations:
        for institution in matcher.match(affiliation, emails):
            if (institution.affiliation, institution.ror) not in seen:
                seen.add((institution.affiliation, institution.ror))
                institutions.append(institution.model_copy(update={"source": source}))
    return institutions


def with_institutions(
    authors: list[Author],
    *,
    source: str,
    emails: Mapping[str, Iterable[str]] | None = None,
    matcher: InstitutionMatcher | None = None,
) -> list[Author]:
    """Authors whose affiliations are not matched yet, matched (`source`: where the affiliations were read; `emails`:
    an author's addresses by author key, where the source gives them); the catalogue is only loaded when an author
    has affiliations to match."""
    if not any(author.affiliations and not author.institutions for author in authors):
        return authors
    emails = emails or {}
    return [
        author.model_copy(
            update={
                "institutions": match_author(
                    author.affiliations, emails.get(author.key, ()), source=source, matcher=matcher
                )
            }
        )
        if author.affiliations and not author.institutions
        else author
        for author in authors
    ]
