"""Venue claims read from a paper's own words: its comment ("Accepted to ICML 2026 (Spotlight)"), journal
reference and DOI. Pure.

Precision first (a wrong "accepted at ICML" is worse than none), so a venue is claimed only when
- the comment says so: an acceptance word (accepted, to appear, published, camera-ready, presented, oral …) or a
  submission word (submitted, under review …) in the same sentence as the venue, or
- the sentence is the venue alone ("ECCV 2026", "CVPR 2026 Highlight", "ACL 2026 Findings"): how authors mark
  where a paper was accepted;
and never from a sentence about another work or event (an extension of an earlier paper, a challenge's winning
entry), nor from a template footer ("40th Conference on Neural Information Processing Systems (NeurIPS 2026)")
without acceptance words. A catalogue acronym counts only with its year beside it or an acceptance/submission
phrase right before it (CHI, KR, LOG, ALT are also words or common letters). A workshop at a venue is that
venue's claim with track `workshop`; submitted is never reported as accepted."""

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

from papertrail.domain.venues.catalogue import Venue, VenueIndex, default_index, fold
from schemas.paper import ClaimSource, ClaimStatus, ClaimTrack, Presentation, VenueClaim

ACCEPTED = re.compile(
    r"\b(?:accepted|acceptance|to appear|will appear|appear(?:s|ing|ed)? (?:in|at)|published|publish|publication in|"
    r"forthcoming|in press|camera[- ]ready|presented|presentation at|in proceedings?|proceedings? of|proc\.\s*of|"
    r"oral|spotlight|highlight|poster|"
    r"best (?:student )?paper|main (?:conference|track)|accept|selected (?:as|for)|(?:workshop|conference) paper)\b",
    re.IGNORECASE,
)
SUBMITTED = re.compile(
    r"\b(?:submitted|(?<!accepted\s)submission|submit to|under review|in review|"
    r"under consideration(?: for publication (?:in|at|by))?|review(?:ed)? (?:at|for|by)|"
    r"conditionally accepted|preprint under review|manuscript under|(?:major|minor)\s+revision)\b",
    re.IGNORECASE,
)
# Sentences about other work: the claim is not this paper's.
ELSEWHERE = re.compile(
    # "Full working version of …", "an extended, non-peer-reviewed version of the paper presented at …"
    r"\b(?:extension|(?:extended|full)(?:,?\s+[\w\-]+){0,2},?\s+version|extends|journal version|"
    r"conference version|previous(?:ly)?|prior|earlier|"
    r"preliminary|based on (?:our|the)|builds? on|companion|tutorial|keynote|invited talk|superseded|rejected|"
    r"withdrawn|(?:yet|not)\s+(?:yet\s+)?(?:to\s+be\s+)?submitted|"
    # a plan is no submission: "to be submitted to … of CVPR 2026", "to be submitted for EAMT 2026"
    r"to\s+be\s+submitted|plan(?:s|ning)?\s+to\s+submit|will\s+submit)\b",
    re.IGNORECASE,
)
# "A preliminary version of this work appeared at EC 2024", "Preliminary versions to appear at …": a version of
# this very paper, so its venue is claimed (an award's candidate is still accepted: PRESENTATIONS leaves the award)
THIS_PAPERS_VERSION = re.compile(
    r"\bpreliminary\s+(?:versions?|work|results?)\s+(?:of\s+this\s+(?:paper|work|article)\s+)?(?:(?:is|was|has\s+been|have\s+been|"
    r"will)\s+)?(?:accepted|to\s+appear|appeared|appears|published|presented)\b",
    re.IGNORECASE,
)
# A challenge entry or shared-task ranking is no acceptance, unless the sentence says the paper was accepted at
# (or presented at) the workshop that holds it: then it is that workshop's paper.
COMPETITION = re.compile(
    r"\b(?:challenge|competition|shared tasks?|winner|winning|place|rank(?:ed)?|leaderboard|track \d)\b", re.I
)
ACCEPTED_HERE = re.compile(r"\b(?:accepted|published|presented|to appear|appears? (?:in|at))\b", re.IGNORECASE)
# Misspelt cue words ("Accepected", "accpeted", "Submmited"): read as meant.
# each cue's misspellings and the shortest word read as one (shorter words are other words)
TYPO_CUES: dict[str, tuple[re.Pattern[str], int]] = {
    "accepted": (re.compile(r"^ac+[ecp]{1,4}e?c?p?te{0,2}d$", re.I), 7),  # "Accepteed by AAMAS 2026"
    "submitted": (re.compile(r"^subm+it+e+d$", re.I), 7),
    "appear": (re.compile(r"^ap+(?:e|ae|ea|a)r$", re.I), 5),  # "To apper in SIAM Journal of Optimization"
}
WORD = re.compile(r"[A-Za-z]+")
FOOTER = re.compile(r"\b\d+(?:st|nd|rd|th)\s+(?:annual\s+)?(?:international\s+)?conference\b", re.IGNORECASE)
# words a journal's abbreviated name ends with a dot ("IEEE Trans. Pattern Anal. Mach. Intell."): no sentence end
ABBREVIATED = (
    "Proc Vol Conf Int Symp No pp J Trans Anal Mach Intell Comput Commun Sel Netw Syst Lett Technol Inf Sci Eng "
    "Appl Process Res Rev Stat Math Softw Multim Mob Secur Knowl Learn Artif Vis Graph Imag Robot Autom Biomed"
).split()
SENTENCES = re.compile(
    r"[;|\n]+|(?<=[A-Za-z0-9)\]]{2})" + "".join(rf"(?<!\b{w})" for w in ABBREVIATED) + r"\.\s+(?=[A-Z])"
)
# "Findings", and as misspelt ("Fingdings", "Fidnings"): one or two letters out of place
FINDINGS = re.compile(r"\bf[a-z]{0,2}n[a-z]{0,2}dings?\b", re.IGNORECASE)
YEAR_AFTER = re.compile(
    r"^(?P<joint>[-/][A-Z][A-Za-z]{1,9}(?=[\s\-_']*(?:19|20)?\d{2}\b))?"
    r"(?:\s+(?i:findings?|workshops?|SRW|main(?:\s+(?:conference|track))?|industry\s+track|demo\s+track|"
    r"journal\s+track|conference(?:\s+papers?)?|datasets?\s+(?:and|&)\s+benchmarks?(?:\s+track)?))?"
    r"[\s\-_')\],]*(?:'|’)?(?P<year>(?:19|20)\d{2}|\d{2})(?![0-9])"
)
# not a workshop's own name: "the 17th International EuroVis Workshop on Visual Analytics"
WORKSHOPS_AFTER = re.compile(r"\s+(?i:workshops?)\b(?!\s+(?i:on|for)\b)")
# a track names the venue without its year: "CVPR findings", "9 Pages, EACL main"
FINDINGS_AFTER = re.compile(r"\s+(?:" + FINDINGS.pattern + r"|main)(?:\s+track)?\s*$", re.IGNORECASE)
# a joint edition's partner the catalogue does not hold: "IJCNLP-AACL 2025" is IJCNLP's
JOINT_PARTNERS = frozenset({"AACL"})
YEAR_ANY = re.compile(r"(?<![0-9])(20[0-3]\d)(?![0-9])")
CUE_BEFORE = re.compile(
    r"(?:accepted|appear|published|presented|submitted|submission|review|consideration|camera[- ]ready)\w*"
    r"(?:\s+(?:as|at|to|by|in|for|into|on|with|an?|the|main|conference|paper|publication|track|oral|poster|"
    r"spotlight|long|short|full|of|special|issue|publication))*\s*[(\[]?$|@\s*$",
    re.IGNORECASE,
)
# a journal is cited without a year, its status after it: "TPAMI under review", "TPAMI submission"
CUE_AFTER = re.compile(
    r"[\s,:(\[]*(?:under\s+review|under\s+consideration|in\s+review|submission|submitted|accepted|to\s+appear|"
    r"in\s+press)\b",
    re.IGNORECASE,
)
UNKNOWN_VENUE = re.compile(
    r"\b(?i:(?:(?:accepted|accept|published|to appear|appear(?:s|ing|ed)?|presented|submitted|submission|under review|"
    r"camera[- ]ready(?: version)?)\s+"
    r"(?:(?:for|to) (?:publication|presentation)\s+)?(?:to\s+(?:be\s+)?publish(?:ed)?\s+(?:it\s+)?(?:as\s+part\s+)?)?"
    r"(?:as\s+(?:an?\s+)?(?:\w+\s+){0,2}(?:paper|poster|oral|spotlight|presentation)\s+)?"
    r"(?:at|to|by|in|into|for|of)\s+(?:the\s+)?|(?=proc(?:eedings|\.)\s+of\b)|in\s+proceedings\s+(?=[A-Z])|under\s+review\s*-\s*(?=[A-Z]))"
    # "published in the proceedings of 2025 13th The International Conference on …", "In proceedings of …"
    r"(?:proc(?:eedings|\.)\s+of\s+(?:the\s+)?)?"
    r"(?:(?:IEEE|ACM)\s+(?=(?:19|20)\d{2}))?(?:(?P<year>(?:19|20)\d{2})\s+)?)(?:\d+(?:st|nd|rd|th)\s+)?"
    r"(?i:edition\s+of\s+(?:the\s+)?)?[\"“]?"
    r"(?P<name>[A-Z][\w&\-+/.']*(?:\s+(?:[A-Z0-9][\w&\-+/.']*"
    r"|of|on|and|for|in|the|with|&))*)",
)
WORKSHOP = re.compile(r"\b(?i:workshops?|co-?located\s+with)\b|\b[A-Z]{2,}-W\b|\bSRW\b|\S\s*@\s*[A-Z]")
WORKSHOP_NAME = re.compile(r"(?P<name>(?i:workshop)\s+(?:on|for)\s+[^,;()]+?)(?=\s*(?:[,;()]|\.\s|\bat\b|$|\(|\d{4}))")
WORKSHOP_BEFORE = re.compile(r"\b(?P<name>[A-Z0-9][\w\-&'’]*(?:\s+[A-Z0-9][\w\-&'’]*)*\s+[Ww]orkshop)\b")
# an event with its own edition's number held at a venue: that venue's workshop
EDITION_AT = re.compile(r"\b\d+(?:st|nd|rd|th)\s+(?P<name>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,3})\s+at\s+(?:the\s+)?$")
# an event with its own acronym held at a venue, the word workshop left out: "the Rebellion and Disobedience in AI
# (RaD-AI) at AAMAS 2026"
ACRONYM_HOSTED = re.compile(r"\([A-Z][\w\-]{1,15}\)\s+at\s")  # "(AIDA2J) at Jurix 2025": a host not catalogued
ACRONYM_AT = re.compile(r"\((?P<name>[A-Z][\w\-]{1,15})\)\s+at\s+(?:the\s+)?$")
# an event's acronym between its host's and the year: "Accepted at CVPR AIMS 2026"
EVENT_AFTER = re.compile(r"\s+(?P<name>[A-Z][A-Z0-9][A-Za-z0-9\-]{1,12})\s*['’]?(?:19|20)\d{2}\b")
# or after the year, ending the sentence: "Accepted by EACL 2026 SIGTURK"
EVENT_LAST = re.compile(r"\s*[\-–]?\s+(?P<name>[A-Z][A-Z0-9][A-Za-z0-9\-]{1,12})\s*$")
CUE_AT = re.compile(r"\b(?i:accepted|accept|presented|published|appear(?:s|ing)?)\s*@")
WORKSHOP_AT = re.compile(r"(?P<name>[A-Za-z0-9][\w\-]*(?:\s+[Ww]orkshop)?)\s*@\s*$")
TRACKS: list[tuple[ClaimTrack, re.Pattern[str]]] = [
    ("findings", FINDINGS),
    # "AAAI-26 Bridge Program: …", "AAAI 2026 Bridge (Logical and Symbolic Reasoning …)"
    ("workshop", re.compile(r"\bbridge\s+(?:program\b|\()", re.IGNORECASE)),
    # "Accepted as a Journal paper at Siggraph Asia 2025"
    # SIGGRAPH's papers in ACM TOG
    ("journal", re.compile(r"\bjournal\s+track\b|\bas\s+an?\s+journal\s+paper\b", re.IGNORECASE)),
    # the host's companion volume holds its workshops: "Final version will appear in WSDM 2026 Companion Proceedings"
    ("workshop", re.compile(r"\bcompanion\s+proceedings\b", re.IGNORECASE)),
    (
        "datasets_benchmarks",
        re.compile(
            r"\bdatasets?\s*(?:and|&)\s*benchmarks?\b|\bevaluations?\s*(?:and|&)\s*datasets?\b|\bD&B\b|"
            r"\bdatasets?\s+track\b",  # "Submitted to ACM Multimedia 2026 Dataset Track"
            re.I,
        ),
    ),
    ("position", re.compile(r"\bposition(?:\s+paper)?\s+track\b", re.IGNORECASE)),
    ("demo", re.compile(r"\bdemo(?:s|nstrations?)?\b", re.IGNORECASE)),
    ("industry", re.compile(r"\bindustry\s+track\b|(?<=\d\d)\s+industry\b", re.IGNORECASE)),  # "EACL 2026 Industry"
    ("short", re.compile(r"\bshort\s+papers?\b|\bextended\s+abstract\b", re.IGNORECASE)),
    ("doctoral", re.compile(r"\bph\.?d\.?\s+symposium\b|\bdoctoral\s+(?:consortium|symposium)\b", re.I)),
]
PRESENTATIONS: list[tuple[Presentation, re.Pattern[str]]] = [
    ("best_paper", re.compile(r"\bbest (?:student )?paper(?: award)?\b(?!\s+(?:candidate|nominee|finalist))", re.I)),
    ("oral", re.compile(r"\boral\b", re.IGNORECASE)),
    ("spotlight", re.compile(r"\bspotlight\b", re.IGNORECASE)),
    ("highlight", re.compile(r"\bhighlights?\b", re.IGNORECASE)),
    ("poster", re.compile(r"\bposter\b", re.IGNORECASE)),
]
# ("ACL Rolling Review" reviews for conferences)
JOURNAL_WORDS = re.compile(r"\b(?i:transactions?|journal|letters|magazine|(?<!rolling\s)review)\b")
# a journal's acronym by its shape ("TASLP", "JMLR"), unless the paper was presented there ("presented in TRBAM 2026")
JOURNAL_ACRONYM = re.compile(r"(?:^|[\s/])T[A-Z]{2,5}$|\bJ[A-Z]{2,4}$")
MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"  # a month's name or its short form
# What may stand beside the venue in a sentence that is the venue alone ("CVPR 2026 (Highlight), 8 pages").
FILLER = re.compile(
    r"\b(?:main\s*conference|main|conference|track|paper|long|short|full|findings?|oral|spotlight|highlight|posters?|presentation|"
    r"proceedings?|early|accept(?:ance)?|edition|industry|demos?|system\s+demonstrations?|" + MONTH + r"|"
    r"workshops?|the|of|at|in|version|final|camera[- ]ready|\d+\s*(?:pages?|figures?|tables?)|pages?|figures?|"
    r"tables?|appendix|added|supplementary|material|code|project|page|and|with|plus|including|student|research|"
    r"non-archival|archival|website|github|included|journal(?=\s+track))\b|https?://\S+|(?i:workshop\s+on\s+[^,;()]+)|"
    r"[\s\d,.:;()\[\]{}'’\"+\-–—/&*]",
    re.IGNORECASE,
)
# a publisher or a kind of venue is no venue: "submitted to IEEE for possible publication", "an IEEE journal"
UNNAMED = frozenset(
    {
        "Lecture",
        "Notes",
        "LNCS",
        "LNAI",
        "CCIS",
        "Xplore",
        "Series",
        "in",
        "Computer",
        "Science",
        "IEEE",
        "ACM",
        "IFAC",
        "Springer",
        "Elsevier",
        "Wiley",
        "MDPI",
        "Nature",
        "arXiv",
        "Journal",
        "Conference",
        "Special",
        "Issue",
        "Publication",
        "Possible",
        "Review",
        "Peer",
        "Workshop",
        "Proceedings",
        "Track",
    }
)
NAME_GOES_ON = re.compile(r"\s+(?:and|for|in|of|on|&)\s+[A-Z]|[A-Za-z]")
# ACL Rolling Review by its short forms ("submitted to ARR Jan 2026", "ACL ARR 2026 January", "the ARR October 2025
# cycle"), its year kept; "Submitted to ACL (ARR 2026 January submission)" is ACL's
ROLLING_REVIEW = re.compile(
    rf"(?<!ACL\s\()\b(?:ACL\s+)?ARR\b(?:\s+(?i:{MONTH}\.?)(?!\w))?(?:\s+(?P<year>20[0-3]\d))?(?:\s+(?i:{MONTH}\.?)(?!\w))?"
)
ACL_DOI = re.compile(r"^10\.18653/v1/(?P<year>\d{4})\.(?P<volume>[a-z0-9\-]+)\.\d+$")


@dataclass(frozen=True, slots=True)
class Mention:
    start: int
    end: int
    venue: Venue | None
    name: str  # as written
    year: int | None
    workshop_suffix: bool  # CVPRW, ICCVW


@cache
def _mention_pattern(index: VenueIndex) -> re.Pattern[str]:
    acronyms: set[str] = set()
    for venue in index.venues.values():
        for name in (venue.acronym, *venue.aliases):
            short = re.sub(r"^(?:IEEE|ACM)\s+", "", name)
            if venue.type == "journal" and (len(re.findall("[A-Z]", short)) < 3 or " " in short):
                continue  # a journal's short name is read only when its capitals say so: "AI", "PR" are words
            if not name.startswith(("Proc", "Advances", "The ")) and len(name) <= 25:
                acronyms.add(name)
    names = sorted(acronyms, key=len, reverse=True)
    alternatives = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in names)
    full = sorted(
        {re.sub(r"^the\s+", "", v.name, flags=re.I) for v in index.venues.values() if len(v.name.split()) >= 3},
        key=len,
        reverse=True,
    )
    full_names = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in full)
    return re.compile(
        rf"(?<![A-Za-z0-9])(?:(?P<acronym>{alternatives})(?P<w>W)?(?![A-Za-z])|(?i:(?P<full>{full_names})))"
    )


def _names(sentence: str, index: VenueIndex) -> Iterator[re.Match[str]]:
    """The catalogue names written in the sentence. A journal's full name inside another venue's is none, and the
    search goes on inside it: "Proceedings of the IEEE/CVF Conference on Computer Vision …" is CVPR's."""
    pattern = _mention_pattern(index)
    position = 0
    while match := pattern.search(sentence, position):
        name = match.group("acronym") or match.group("full")
        if (
            _is_journal(name, index)
            and (
                re.match(
                    r"\s+[A-Z]|/|\s*\((?!\s*\d)[^)]*\)\s*(?:\d{4}\s*)?(?i:conference|workshop|symposium)",
                    sentence[match.end() :],
                )
                # "… Conference on Legal Knowledge and Information Systems (JURIX 2025)" is not KAIS
                or re.search(
                    r"(?i:conference|workshop|symposium)\s+on\s+(?:[A-Z][\w\-]*\s+){0,3}$", sentence[: match.start()]
                )
            )
        ):
            # "Proceedings of the IEEE Intelligent Vehicles Symposium", "… in Medicine (AIME) 2026 Conference",
            # "Conference on Artificial Intelligence in Medicine": other venues
            position = match.start() + 1
            continue
        if match.group("full") and _inside_a_longer_name(match, sentence):
            position = match.end()
            continue
        yield match
        position = match.end()


def _inside_a_longer_name(match: re.Match[str], sentence: str) -> bool:
    """A catalogue name of two words written as the end of a longer one: "European Semantic Web Conference" is ESWC,
    not the Web Conference (a capitalised word before it other than "The"; "ACM Web Conference" is the venue's)."""
    before = re.search(r"([A-Z][a-z]+)\s+$", sentence[: match.start()])
    return len(match.group("full").split()) <= 2 and before is not None and before.group(1) != "The"


def _mentions(sentence: str, index: VenueIndex) -> Iterator[Mention]:
    taken = 0  # the end of the last mention: a joint edition's partner ("IJCAI-ECAI 2026") is no venue of its own
    for match in _names(sentence, index):
        if match.start() < taken:
            continue
        name = match.group("acronym") or match.group("full")
        if match.group("full") and NAME_GOES_ON.match(sentence[match.end() :]):
            continue  # "… Conference on Pattern Recognition and Artificial Intelligence" is another venue
        if re.match(r"\s+Rolling\s+Review", sentence[match.end() :]):
            continue  # ACL Rolling Review reviews for several venues: not ACL
        after = YEAR_AFTER.match(sentence[match.end() :])
        year = None
        end = match.end()
        joint = after.group("joint") if after else None
        if joint and match.group("acronym") and index.resolve(joint[1:]) is None and joint[1:] not in JOINT_PARTNERS:
            continue  # "ITC-CSCC 2025" is no International Test Conference: one name, not a joint edition
        if after:
            digits = after.group("year")
            year = int(digits) if len(digits) == 4 else 2000 + int(digits)
            end += after.end()
        if (
            match.group("acronym")
            and year is None
            and not CUE_BEFORE.search(sentence[: match.start()])
            and not re.search(r"(?<![\d.,])20[0-3]\d\s+$", sentence[: match.start()])  # "2026 CVPR SAD Workshop"
            and not (_is_journal(name, index) and CUE_AFTER.match(sentence[match.end() :]))
            and not FINDINGS_AFTER.match(sentence[match.end() :])  # "CVPR findings": a track names the venue
            and not WORKSHOPS_AFTER.match(sentence[match.end() :])  # "(in WACV Workshops)", "AAAI workshop RAI"
        ):
            continue  # a bare acronym: maybe a word, maybe a mention of the venue in passing
        if year is None:  # "CVPR Findings 2026", "the 2026 International Joint Conference on Neural Networks"
            found = (
                YEAR_ANY.search(sentence[match.end() : match.end() + 14])
                or YEAR_ANY.search(sentence[max(0, match.start() - 14) : match.start()])
                # "… Secure and Trustworthy Machine Learning (IEEE SaTML 2026)"
                or (
                    re.match(r"\s*\([^()]{0,20}?(20[0-3]\d)\)", sentence[match.end() :])
                    if match.group("full")
                    else None
                )
            )
            year = int(found.group(1)) if found else None
        venue = index.resolve(name)
        if year is None and venue is not None and venue.type == "journal":  # "…, vol. 35, pp. 1-12, 2026"
            found = YEAR_ANY.search(sentence[match.end() :])
            year = int(found.group(1)) if found else None
        if year is not None and not 2000 <= year <= 2035:
            continue
        taken = end
        yield Mention(match.start(), end, venue, name, year, bool(match.group("w")))
    yield from _misspelt(sentence, index)


MISSPELT = re.compile(r"(?<![A-Za-z0-9])(?P<name>[A-Za-z]{3,8})[\s'’_-]{0,3}(?P<year>20[0-3]\d)(?![0-9])")


def _is_journal(name: str, index: VenueIndex) -> bool:
    venue = index.resolve(name)
    return venue is not None and venue.type == "journal"


def _misspelt(sentence: str, index: VenueIndex) -> Iterator[Mention]:
    """A catalogue conference's acronym written in lower case or with two letters swapped, its year right after
    ("miccai 2026", "iclm2026", "acl - 2026"): the year makes it a venue."""
    for match in MISSPELT.finditer(sentence):
        written = match.group("name")
        if _mention_pattern(index).fullmatch(written):
            continue  # spelt right: _mention_pattern's
        venue = next(
            (
                index.resolve(name)
                for name in _spellings(written)
                # a swap makes another venue's acronym of three letters (ASC, SAC) or four in capitals (ICSA, ISCA)
                if (name == written or len(written) >= (5 if written.isupper() else 4))
                and (
                    name.upper() in index.acronyms_upper
                    or (name.isupper() and name != written)
                    or (name == written and name[0].isupper() and index.known(name.upper()))  # Siggraph
                )
                and index.resolve(name) is not None
            ),
            None,
        )
        if venue is not None and venue.type != "journal":
            yield Mention(match.start(), match.end(), venue, venue.acronym, int(match.group("year")), False)


def _spellings(written: str) -> Iterator[str]:
    yield written
    for n in range(len(written) - 1):  # two neighbouring letters swapped
        yield written[:n] + written[n + 1] + written[n] + written[n + 2 :]


def claims_from_comment(comment: str | None, index: VenueIndex | None = None) -> list[VenueClaim]:
    """The venue claims of one arXiv comment (none when it claims nothing)."""
    if not comment:
        return []
    index = index or default_index()
    claims: list[VenueClaim] = []
    # "[CVPR 2026 Findings] Title …": a leading bracket is a statement of its own
    comment = re.sub(r"^\s*\[([^\]]{3,80})\]\s*", r"\1; ", comment)
    comment = ROLLING_REVIEW.sub(
        lambda m: "ACL Rolling Review" + (f" {m.group('year')}" if m.group("year") else ""), comment
    )
    for sentence in _statements(_spelt_right(comment)):
        if not sentence or ELSEWHERE.search(THIS_PAPERS_VERSION.sub("", sentence)):
            continue
        competition = bool(COMPETITION.search(sentence))
        if competition and not ACCEPTED_HERE.search(sentence):
            continue
        mentions = sorted(_mentions(sentence, index), key=lambda m: m.start)
        if not mentions:
            claims.extend(_unknown_venue(sentence, index))
            continue
        statuses: list[ClaimStatus | None] = []
        for n, mention in enumerate(mentions):
            status = _status(sentence, mention, mentions[n + 1].start if n + 1 < len(mentions) else len(sentence))
            if status is None and n and mention.venue is not None and mention.venue == mentions[n - 1].venue:
                # "… at the 43rd International Conference on Machine Learning (ICML26)": the name's status
                if re.fullmatch(r"[\s(\[,]*", sentence[mentions[n - 1].end : mention.start]):
                    status = statuses[n - 1]
            statuses.append(status)
            if status is None:
                continue
            claim = _claim(sentence, mention, status, "comment", index)
            if competition and claim.track not in ("workshop", "journal"):  # a shared task's paper: its workshop's
                claim = claim.model_copy(update={"track": "workshop", "ccf_rank": None, "presentation": None})
            claims.append(claim)
    return _distinct(claims or _bare_unknown(comment, index))


def _statements(comment: str) -> Iterator[str]:
    """The comment's sentences, and a sentence's clauses that each say where on their own ("published at IASEAI
    2026, preliminary work presented at … NeurIPS 2025"); a challenge's sentence stays whole (its acceptance is its
    workshop's), and so does what follows another work ("This work extends S2ST-Omni, accepted to …": S2ST-Omni's)."""
    for sentence in SENTENCES.split(comment):
        parts = [sentence] if COMPETITION.search(sentence) else CLAUSES.split(sentence)
        clauses: list[str] = []
        for part in parts:
            if clauses and ELSEWHERE.search(THIS_PAPERS_VERSION.sub("", clauses[-1])):
                clauses[-1] += ", " + part
            else:
                clauses.append(part)
        yield from (clause.strip() for clause in clauses)


# a comma before a clause with a status of its own
CLAUSES = re.compile(
    r",\s+(?=(?:[\w\-]+\s+){0,3}?(?i:accepted|published|presented|submitted|to\s+appear|under\s+review)\b)"
    # or a clause of its own about the paper: "… at the MURE workshop, AAAI 2026, which builds on … FAccT 2025"
    r"|,\s+(?=which\s)"
)


def _spelt_right(text: str) -> str:
    """The comment with its misspelt cue words ("Accepected by CVPR 2026") and "NeurlPS" written as meant."""

    def word(match: re.Match[str]) -> str:
        found = match.group(0)
        cue = next(
            (cue for cue, (typo, shortest) in TYPO_CUES.items() if len(found) >= shortest and typo.match(found)), None
        )
        if cue is None or cue == found.lower():
            return found
        return cue.capitalize() if found[0].isupper() else cue  # its capital kept: it may start a sentence

    return WORD.sub(word, re.sub(r"\bNeurlPS\b", "NeurIPS", text))  # a lower-case L for the I


# six or more words of a name (capitalised, years, its small words) ending in the bracket before an acronym
LONG_NAME = re.compile(r"(?:(?:\b[A-Z][\w\-]*|\b(?:19|20)\d{2}|\b(?:of|the|for|on|and|in)|&),?\s+){6,}(?:\(|(?<=,\s))$")


def _status(sentence: str, mention: Mention, next_start: int) -> ClaimStatus | None:
    before = sentence[: mention.start]
    after = sentence[mention.end : next_start]
    # a workshop's long name may stand between the cue and its host: "Accepted by the 21st Workshop on … , ACL 2026"
    # and a venue's long full name before its acronym: "Accepted at the 2025 Conference of the Nations of the
    # Americas Chapter of the Association for Computational Linguistics (NAACL 2025)"
    full_name = LONG_NAME.search(before)
    hosted = WORKSHOP.search(sentence) or ACRONYM_HOSTED.search(sentence)
    window = before if hosted else before[-80 - (len(full_name.group(0)) if full_name else 0) :]
    # the cue nearest the venue: "submitted and accepted to IJES 2026" is an acceptance
    cues = [(m.end(), 1, "submitted") for m in SUBMITTED.finditer(window)]
    cues += [(m.end(), 0, "accepted") for m in ACCEPTED.finditer(window)]
    if cues:
        return max(cues)[2]  # type: ignore[return-value]
    cues = [(m.start(), 0, "submitted") for m in SUBMITTED.finditer(after[:60])]
    cues += [(m.start(), 1, "accepted") for m in ACCEPTED.finditer(after[:60])]
    if cues:
        return min(cues)[2]  # type: ignore[return-value]
    if FOOTER.search(sentence):
        return None  # the conference's template footer: printed on every submission
    rest = sentence[: mention.start] + " " + sentence[mention.end :]
    if mention.venue is not None:  # "CVPR 2026 - Computer Vision and Pattern Recognition": its own name beside it
        for name in sorted((mention.venue.name, *mention.venue.aliases), key=len, reverse=True):
            rest = re.sub(r"(?:\d+(?:st|nd|rd|th)\s+)?" + re.escape(name), " ", rest, flags=re.IGNORECASE)
        words = {w for w in fold(mention.venue.name).split() if len(w) > 3}
        rest = " ".join(w for w in rest.split() if fold(w) not in words)
    if WORKSHOP.search(sentence) or mention.workshop_suffix:
        if re.match(r"\s+(?i:workshop)\b", sentence[mention.end :]):
            rest = sentence[: mention.start]  # "NeurIPS 2025 Workshop Evaluating the Evolving LLM Lifecycle: …"
        # "GEM Workshop at ACL 2026", "CVPRW2026 CV4Animals", "Workshop on … (CompLearn), ICML 2026": the workshop's
        # own name may stand beside its host
        rest = WORKSHOP_BEFORE.sub(" ", WORKSHOP_NAME.sub(" ", rest))
        # the workshop's own long name in brackets: "NeusymBridge @AAAI 2026 (Bridging Neurons and Symbols for …)"
        rest = re.sub(r"\S+\s*@|\([^()]*\)|\bco-?located\s+with\b", " ", rest, flags=re.IGNORECASE)
        rest = re.sub(r"^\s*[a-z][\w\-]*(?=\s+workshop\b)", " ", rest)  # "malgai workshop at iclr 2026"
        leftover = FILLER.sub(" ", rest).split()
        if mention.year is not None and len(leftover) <= 2 and all(re.search(r"[A-Z0-9]", w) for w in leftover):
            return "accepted"
    if mention.year is None and not FINDINGS_AFTER.match(sentence[mention.end :]):
        return None
    if mention.venue is not None:  # and the small words of its name: "Association for Computational Linguistics (ACL)"
        small = {w for w in fold(mention.venue.name).split() if len(w) <= 3}
        rest = " ".join(w for w in rest.split() if fold(w) not in small)
    if not FILLER.sub("", SPECIAL_TRACK.sub(" ", rest)).strip():
        return "accepted"  # the venue alone
    # the venue alone in its part of a list: "8 pages, 7 figures, supplementary material included, CVPR 2026"
    start = sentence.rfind(",", 0, mention.start) + 1
    end = sentence.find(",", mention.end) % (len(sentence) + 1)
    part = sentence[start : mention.start] + " " + sentence[mention.end : end]
    if mention.venue is not None:  # "2025 International Joint Conference on Neural Networks (IJCNN), Rome, …"
        own = "|".join(re.escape(n) for n in (mention.venue.acronym, *mention.venue.aliases))
        part = re.sub(rf"\(\s*(?:(?:IEEE|ACM)\s+)?(?:{own})\b[^()]*\)", " ", part)
    part = re.sub(r"\b(?:IEEE|ACM|CVF)(?:/(?:IEEE|ACM|CVF))*(?![\w/])", " ", part)  # its organisers: "2026 IEEE/CVF …"
    if not FILLER.sub("", SPECIAL_TRACK.sub(" ", part)).strip() and not TEMPLATE.search(sentence):
        return "accepted"
    return None


# a special track's own name beside the venue: "IJCAI 2026 Human-Centred AI track"
SPECIAL_TRACK = re.compile(r"(?:\b[A-Z][\w\-]*\s+){1,4}(?i:track)\b")
# a venue named for its format, not as where the paper was accepted
TEMPLATE = re.compile(r"\b(?:format|template|style|guidelines?|latex|page limit)\b", re.IGNORECASE)


BARE_UNKNOWN = re.compile(
    r"^(?:(?:ACM|IEEE)\s+)?(?P<name>[A-Z][A-Za-z]{1,11}|[A-Z][A-Za-z]{0,5}/[A-Z]{2,8})(?:\s+[Ww]orkshop)?[\s'’-]*(?P<year>20[0-3]\d)"
    r"(?:\s+(?i:accepted|conference))?"  # "LREC 2026 Accepted", "VISAPP 2026 Conference"
    r"(?:\s*\((?i:workshop|conference|symposium)\s+on\s[^()]*\))?$"  # "WITS 2025 (Workshop on … Systems 2025)"
)
# a meeting's name of words without an acronym, and its year: "Metadata and Semantics Research Conference 2025"
BARE_MEETING = re.compile(
    r"(?P<name>(?:[A-Z][\w\-]*\s+(?:(?:and|of|on|for|in|&)\s+)?){1,8}(?:Conference|Symposium|Congress))[\s,']*"
    r"(?P<year>20[0-3]\d)"
)


# a journal's full name by its shape: "IEEE Transactions on Dependable and Secure Computing"
JOURNAL_NAMED = re.compile(
    r"(?:(?:IEEE|ACM)\s+)?(?:International\s+)?(?:Journal|Transactions)\s+(?:of|on)\s+(?:the\s+)?[A-Z][\w\-]*"
    r"(?:\s+(?:[A-Z][\w\-]*|of|on|and|for|in|the|&))*"
)


def _bare_unknown(comment: str, index: VenueIndex) -> list[VenueClaim]:
    """A comment that is, beside its page and figure counts and links, an acronym and a year the catalogue does not
    hold ("KDD 2026", "38 pages, 13 figures, ACM FAccT 2026", "BEA Workshop 2026"): accepted there."""
    parts = [part.strip() for part in re.split(r"[,;\n]|\.\s", comment.strip())]
    parts = [part for part in parts if FILLER.sub("", part).strip()]
    named = len(parts) == 1 and JOURNAL_NAMED.fullmatch(parts[0])
    journal = index.resolve(parts[0]) if len(parts) == 1 and (re.fullmatch(r"[A-Z]{3,8}", parts[0]) or named) else None
    if journal is not None and journal.type == "journal":  # "IJCV": a journal's acronym alone, where it appeared
        mention = Mention(0, len(parts[0]), journal, journal.acronym, None, False)
        return [_claim(parts[0], mention, "accepted", "comment", index)]
    if named:  # "Journal of Applied Remote Sensing": a journal's name alone
        mention = Mention(0, len(parts[0]), None, parts[0], None, False)
        return [_claim(parts[0], mention, "accepted", "comment", index).model_copy(update={"track": "journal"})]
    match = BARE_UNKNOWN.match(parts[0]) if len(parts) == 1 else None
    named_meeting = BARE_MEETING.fullmatch(parts[0]) if len(parts) == 1 else None
    if named_meeting:  # "Metadata and Semantics Research Conference 2025, 14 pages, 7 figures"
        mention = Mention(0, len(parts[0]), None, named_meeting.group("name"), int(named_meeting.group("year")), False)
        return [_claim(parts[0], mention, "accepted", "comment", index)]
    if not match:
        return []
    if parts[0] != comment.strip() and len(re.findall("[A-Z]", match.group("name"))) < 2:
        return []  # beside other words, only an acronym's capitals say it is a venue ("Preprint 2026" is none)
    mention = Mention(0, len(parts[0]), None, match.group("name"), int(match.group("year")), False)
    return [_claim(parts[0], mention, "accepted", "comment", index)]


def _event_after(sentence: str, mention: Mention, index: VenueIndex) -> re.Match[str] | None:
    """An event named between a catalogue conference and the year ("CVPR AIMS 2026") or after the year, ending the
    sentence ("EACL 2026 SIGTURK"): no venue of the catalogue, no track's or presentation's word."""
    if mention.venue is None or mention.venue.type == "journal":
        return None
    event = EVENT_AFTER.match(sentence, mention.end)
    if event is None and mention.year is not None:
        event = EVENT_LAST.match(sentence, mention.end)
    if event is None:
        return None
    name = event.group("name")
    if (
        index.resolve(name) is not None
        or FILLER.fullmatch(name)
        or name in UNNAMED
        or re.fullmatch(r"SRW|D&B|\d+", name)
    ):
        return None
    return event


def _claim(sentence: str, mention: Mention, status: ClaimStatus, source: ClaimSource, index: VenueIndex) -> VenueClaim:
    venue = mention.venue
    track: ClaimTrack = "main"
    workshop = None
    # "Accepted @ CVPR 2026": an "@" right after the cue is "at", no workshop's (replaced by a sign no name holds,
    # so the positions hold)
    read = CUE_AT.sub(lambda cue: cue.group(0)[:-1] + "~", sentence)
    # "KnowFM@ACL 2026", "BioNLP @ ACL 2026", "3rd MetaFood at CVPR 2026"
    at = (
        WORKSHOP_AT.search(read[: mention.start])
        or EDITION_AT.search(read[: mention.start])
        or ACRONYM_AT.search(read[: mention.start])
        or _event_after(read, mention, index)
    )
    if mention.workshop_suffix or at or WORKSHOP.search(read):
        track = "workshop"
        named = at or WORKSHOP_NAME.search(read) or WORKSHOP_BEFORE.search(read)
        if named:
            workshop = named.group("name").strip()
    else:
        track = next((t for t, pattern in TRACKS if pattern.search(read)), "main")
    if (
        venue is None
        and (
            JOURNAL_WORDS.search(mention.name)
            or (JOURNAL_ACRONYM.search(mention.name) and not re.search(r"\bpresent", sentence, re.I))
        )
    ) or (venue is not None and venue.type == "journal"):
        track, workshop = "journal", None
    presentation = None
    if status == "accepted":
        presentation = next((p for p, pattern in PRESENTATIONS if pattern.search(sentence)), None)
    return VenueClaim(
        venue=venue.acronym if venue else mention.name,
        venue_key=venue.key if venue else None,
        year=mention.year,
        status=status,
        track=track,
        workshop=workshop,
        presentation=presentation,
        # a conference's rank is its main track's; a journal's is its own
        ccf_rank=venue.ccf_rank if venue and (track in ("main", "findings") or venue.type == "journal") else None,
        source=source,
        text=sentence[:300],
    )


# the host a workshop is held at, when the catalogue does not hold it: "… Workshop … at LREC 2026", "co-located with"
HOSTED = re.compile(
    r"(?:\bat|\bco-?located\s+with|\bin\s+conjunction\s+with|@)\s*(?:the\s+)?(?:(?:IEEE|ACM)\s+)?"
    r"(?P<name>[A-Z][A-Za-z]{1,15})(?:-[A-Z][A-Za-z]{1,15})?[\s'’-]*(?P<year>(?:19|20)\d{2}|\d{2}(?=['’]|\b))(?![\d.])"
    # "Accepted to NSLP@LREC": an "@" names its host without the year too
    r"|(?<=[A-Za-z0-9])@(?P<bare>[A-Z]{2,15})(?![\w@.])"
)


# "Fifteenth", "Forty-Third": an edition's number written out
WORD_ORDINAL = (
    r"(?:[a-z]+-)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"[a-z]+teenth|[a-z]+tieth)"
)
# a journal's volume after its name: ", Vol. 13, 2025", ", 61 (2025), 101920"
# ", Volume 310" after a bracket ("Solar Energy (Elsevier), Volume 310, 2026")
JOURNAL_CITATION = re.compile(
    r"(?:\s*\([^()]{1,30}\))?(?:,\s*an?\s+(?i:international\s+)?(?i:journal))?,\s*"
    r"(?:(?i:vol(?:ume)?)\.?\s*\d+|\d+\s*\((?:19|20)\d{2}\))"
)
JOURNAL_SUBTITLE = re.compile(
    r":\s+(?:An?\s+)?(?:International\s+)?Journal\s+(?:of|on|for)\s+[A-Z][\w\-]*(?:\s+(?:[A-Z][\w\-]*|of|on|and|for|in|&))*"
)
# a volume inside what was read as the name: "published in ACM SIGMIS Database Vol. 56, Iss. 2"
VOLUME_IN_NAME = re.compile(r"\s+(?i:vol(?:ume)?|iss(?:ue)?)\.?\s*\d")
# what only a meeting has: a journal is never presented at, nor called any of these
MEETING = re.compile(
    r"\b(?:conferences?|workshops?|symposium|congress|meeting|forum|summit|colloquium|proceedings?|presented|"
    r"presentation|talk|poster|oral|track|session|challenge|competition|school|tutorial|"
    r"rolling\s+review)\b",  # ACL Rolling Review reviews for conferences
    re.IGNORECASE,
)
PUBLISHERS = "MDPI|Elsevier|Springer|Wiley|Taylor\\s*&\\s*Francis|SAGE|Frontiers|PLOS|Hindawi"
NOT_A_VENUE = re.compile(r"\b(?:Lab|Laboratory|University|Institute|Center|Centre)$")
# a journal's name in words: two or more words, one of them a plain capitalised word ("Scientific Data",
# "Mechanics & Industry", "Machine Intelligence Research"); an acronym alone may be a conference ("IEEE RFID")
JOURNAL_SHAPE = re.compile(r"^(?!(?:IEEE|ACM)\s+\S+$)(?=.*\b[A-Z][a-z]{2,}\b)\S+(?:\s+\S+)+$")
# a journal and a conference of one submission, the journal first with no year of its own: "IEEE L-CSS and CDC
# 2026", "IJCARS: IPCAI 2026"
JOURNAL_BESIDE = re.compile(
    r"^(?P<journal>(?:(?:IEEE|ACM)\s+)?[A-Z][A-Z\-]{2,15})(?:\s+(?:and|&)\s+|:\s*)(?P<conference>[A-Z][A-Za-z\-]{1,15})$"
)


def _unknown_venue(sentence: str, index: VenueIndex) -> list[VenueClaim]:
    """A venue the catalogue does not hold, named after an acceptance phrase, or a workshop's host: kept as
    written, unranked."""
    hosts = [
        h
        for h in (HOSTED.finditer(sentence) if WORKSHOP.search(sentence) or ACRONYM_HOSTED.search(sentence) else ())
        if (h.group("name") or h.group("bare")) not in UNNAMED
        and not re.match(r"\s*(?i:workshop)", sentence[h.end() :])
    ]  # "at the SIGUL2026 Workshop co-located with LREC2026": the last named, and no workshop's own name
    host = hosts[-1] if hosts else None
    if host:
        digits = host.group("year")
        year = None if digits is None else int(digits) if len(digits) == 4 else 2000 + int(digits)
        part = "name" if host.group("name") else "bare"
        mention = Mention(host.start(part), host.end(), None, host.group(part), year, False)
        status = _status(sentence, mention, len(sentence))
        if status is not None:
            return [_claim(sentence, mention, status, "comment", index)]
    match = UNKNOWN_VENUE.search(sentence) if not re.search(r"\bbook\b|\(eds?\.?\)", sentence, re.I) else None
    if not match:
        return []
    name, name_start, name_end = match.group("name"), match.start("name"), match.end("name")
    subtitle = JOURNAL_SUBTITLE.match(sentence, name_end)
    if subtitle:  # "Forestry: An International Journal of Forest Research"
        name, name_end = name + subtitle.group(0), subtitle.end()
    volume = VOLUME_IN_NAME.search(name)
    if volume:  # "ACM SIGMIS Database Vol. 56": the name ends before its volume
        name, name_end = name[: volume.start()], match.start("name") + volume.start()
    beside = re.match(r":\s*[A-Z][\w\-]{1,15}(?=[\s'’\-]*(?:19|20)\d{2}\b)", sentence[name_end:])
    if beside and re.fullmatch(r"(?:(?:IEEE|ACM)\s+)?[A-Z][A-Z\-]{2,15}", name):  # "IJCARS: IPCAI 2026"
        name += beside.group(0)
    name = re.split(r"[\s\-](?:19|20)\d{2}\b", name)[0]  # "Under Review-MIDL-2026"
    if index.resolve(name) is None:  # "IEEE Trans. Pattern Anal. Mach. Intell." has dots inside; others end there
        name = re.split(r"\.\s", name)[0]  # "EAMT Conference 2026 in Tilburg"
    name = re.sub(
        r"^(?:proc+e+dings? of\s+)?(?:the\s+)?(?:(?:19|20)\d{2}\s+)?(?:(?:\d+(?:st|nd|rd|th)|"
        + WORD_ORDINAL
        + r")\s+)?",
        "",
        name,
        flags=re.I,
    )
    name = re.sub(r"^(?=\S*[A-Z]\S*[A-Z])(\S+)\s+Conference$", r"\1", name)  # "the EAMT Conference 2026"
    name = re.sub(r"(?:[\s.,]+|\s+(?:on|of|and|for|in|the|with|&))+$", "", name).strip()
    name = re.sub(r"\bTransaction(?=\s+on\s)", "Transactions", name)  # "IEEE Transaction on Affective Computing"
    if re.match(r"(?:(?:poster|oral|spotlight)\s+)?session\b", name, re.IGNORECASE):
        return []  # "Presented at Poster Session 1": a slot of the conference, named in another sentence
    full_name = name
    acronym = _acronym_after(sentence[match.end("name") :]) if len(name.split()) >= 3 else None
    if acronym:  # "… Hybrid Human-Artificial Intelligence (HHAI 2026)"
        name = acronym[0]
    # "the 2025 IEEE International Conference on Imaging Systems and Techniques (IST)": not the journal IST
    conference_acronym = bool(acronym and _is_journal(name, index) and MEETING.search(full_name))
    if pair := JOURNAL_BESIDE.match(name):
        return _journal_beside(sentence, match, pair, index)
    words = name.split()
    if (
        len(name) < (2 if name.isupper() else 3)
        or set(words) <= UNNAMED
        or words[0].lower() in {"a", "an", "this", "our", "my", "arxiv"}
        or NOT_A_VENUE.search(name)
        or (name == "Machine Learning Research" and re.search(r"(?i:proceedings\s+of\s+)$", sentence[:name_start]))
    ):
        return []  # an institution ("presented … at the Applied Social Media Lab"), a series (PMLR)
    # its year before the name ("the 2026 International Conference on …"), after it, or as "UNLP'26"
    written = match.group("year") or next(iter(YEAR_ANY.findall(sentence[match.start("name") :])), None)
    if not written and acronym and acronym[1]:  # "…, IASEAI26"
        written = acronym[1] if len(acronym[1]) == 4 else "20" + acronym[1]
    short_year = re.search(r"['’](\d{2})$", name)
    if short_year:
        name = name[: short_year.start()]
        written = written or f"20{short_year.group(1)}"
    venue = index.resolve(name)
    if venue is not None and (venue.type != "journal" or conference_acronym):
        venue = None  # a conference's names are _mention_pattern's; this one is another venue of the same words
    glued = index.resolve(re.sub(r"\s+", "", re.sub(r"^(?:IEEE|ACM)\s+", "", name))) if 1 < len(words) <= 3 else None
    if venue is None and glued is not None and glued.type != "journal":
        venue = glued  # "IEEE Big Data 2025" is BigData's
    venue = venue or index.conference_by_subject(name)  # its words in another order
    mention = Mention(
        match.start("name"),
        match.end("name"),
        venue,
        venue.acronym if venue else name,
        int(written) if written else None,
        False,
    )
    status = _status(sentence, mention, len(sentence)) or "accepted"
    claim = _claim(sentence, mention, status, "comment", index)
    if acronym and venue is None and JOURNAL_WORDS.search(full_name):  # "International Journal of … (IJISAE)"
        claim = claim.model_copy(update={"track": "journal", "workshop": None})
    if re.match(r"ACM\s+on\s+[A-Z]", full_name) and re.search(
        r"(?i:proceedings\s+of\s+the)\s+$", sentence[:name_start]
    ):
        # "Proceedings of the ACM on Computer Graphics and Interactive Techniques": a journal (ACM's PACM series)
        update = {"venue": "Proceedings of the " + full_name, "venue_key": None, "ccf_rank": None, "workshop": None}
        return [claim.model_copy(update=update | {"track": "journal"})]
    if (
        not MEETING.search(sentence)
        and (  # "Proceedings of … (ICAART 2026), Volume 5" is a conference's
            volume
            or JOURNAL_CITATION.match(sentence[name_end:])  # "Published in IEEE Access, Vol. 13, 2025"
            # a name of words with no year: "Submitted to Scientific Data" ("IEEE Globecom" is one word)
            or (venue is None and written is None and JOURNAL_SHAPE.match(name))
            or re.match(rf"\s*\((?:{PUBLISHERS})\)", sentence[name_end:])  # "Submitted to Sci (MDPI) for peer review"
        )
    ):
        claim = claim.model_copy(update={"track": "journal", "workshop": None})
    return [claim]


# a venue's acronym in brackets ("(IEEE SMC)", "(EvoApplications 2026)"), or after a comma with its year glued on
# (", IASEAI26")
BRACKET_ACRONYM = re.compile(
    r"\((?:(?:IEEE|ACM)\s+)?(?P<acronym>[A-Z][\w\-&*+]{1,15}?)(?:[\s\-']*(?P<year>(?:19|20)?\d{2}))?\)"
    r"|,\s*(?P<glued>[A-Z][A-Za-z\-]*[A-Z][A-Za-z\-]*?)['’\-]?(?P<glued_year>(?:19|20)?\d{2})(?![\w])"
)
# what may stand between a name as read and its acronym: the rest of a name cut at a comma or a small word ("…
# on Systems, Man and Cybernetics (IEEE SMC)", "… Connecting to Digital and Library Science (IRCDL 2026)", "… as
# part of the Australasian Computer Science Week (ACSW)"), a bracket and a date ("(Part of EvoStar), April 2026")
NAME_REST = re.compile(r"[,\s](?:[^;().]|\([^()]{1,30}\))*")


def _acronym_after(text: str) -> tuple[str, str | None] | None:
    """The acronym a venue's full name is followed by within 80 characters, and its year when written with it:
    right after it or after the rest of a name cut at a comma (any acronym, as "(HHAI 2026)"), or after more of
    its name (an acronym of two capitals: "(Elsevier)" is a publisher)."""
    for found in BRACKET_ACRONYM.finditer(text, 0, 80):
        gap = text[: found.start()]
        acronym = found.group("acronym") or found.group("glued")
        near = re.fullmatch(r"(?:,[^,;()]{1,60})?\s*", gap)
        if near or (NAME_REST.fullmatch(gap) and len(re.findall("[A-Z]", acronym)) >= 2):
            return acronym, found.group("year") or found.group("glued_year")
    return None


def _journal_beside(sentence: str, match: re.Match[str], pair: re.Match[str], index: VenueIndex) -> list[VenueClaim]:
    """A journal and a conference named as one submission ("Preprint submitted to IEEE L-CSS and CDC 2026",
    "Accepted at IJCARS: IPCAI 2026"): the journal without a year, the conference with the sentence's."""
    written = next(iter(YEAR_ANY.findall(sentence[match.start("name") :])), None)
    claims = []
    for part, year in (("journal", None), ("conference", int(written) if written else None)):
        name = pair.group(part)
        venue = index.resolve(name)
        mention = Mention(match.start("name"), match.end("name"), venue, venue.acronym if venue else name, year, False)
        claim = _claim(sentence, mention, _status(sentence, mention, len(sentence)) or "accepted", "comment", index)
        claims.append(claim.model_copy(update={"track": "journal", "workshop": None}) if part == "journal" else claim)
    return claims


def claims_from_journal_ref(journal_ref: str | None, index: VenueIndex | None = None) -> list[VenueClaim]:
    """A journal reference says where the paper was published: accepted, at the venue it names."""
    if not journal_ref or not journal_ref.strip():
        return []
    index = index or default_index()
    text = " ".join(journal_ref.split())
    mentions = [m for m in _mentions(text, index) if m.venue is not None] or list(_mentions(text, index))
    if mentions:
        return [_claim(text, mentions[0], "accepted", "journal_ref", index)]
    name = re.split(r"\s*(?:,|\(|\b(?:vol|volume|no|pp|pages)\b\.?|\b\d)", text, maxsplit=1)[0].strip()
    if len(name) < 3:
        return []
    year = YEAR_ANY.search(text)
    venue = index.resolve(name)  # "IEEE Trans. Pattern Anal. Mach. Intell. 46(3)"
    venue = venue if venue is not None and venue.type == "journal" else None
    mention = Mention(
        0, len(name), venue, venue.acronym if venue else name, int(year.group(1)) if year else None, False
    )
    claim = _claim(text, mention, "accepted", "journal_ref", index)
    journal = JOURNAL_WORDS.search(name) or JOURNAL_ACRONYM.search(name)
    return [claim.model_copy(update={"track": "journal"})] if journal else [claim]


ACL_VOLUMES: dict[str, ClaimTrack] = {
    "long": "main",
    "short": "main",
    "main": "main",
    "demos": "demo",
    "demo": "demo",
    "industry": "industry",
    "srw": "workshop",
}


def claims_from_dois(dois: Iterable[str], index: VenueIndex | None = None) -> list[VenueClaim]:
    """An ACL Anthology DOI names its event and volume: 10.18653/v1/2024.acl-long.1, …/2024.findings-emnlp.3."""
    index = index or default_index()
    claims = []
    for doi in dois:
        match = ACL_DOI.match(doi.strip().lower())
        if not match:
            continue
        volume = match.group("volume")
        if volume.startswith("findings-"):
            event, track = volume.removeprefix("findings-"), "findings"
        else:
            event, _, part = volume.partition("-")
            track = ACL_VOLUMES.get(part, "workshop" if index.resolve(event) is None else "main")
        venue = index.resolve(event)
        if venue is None and track != "workshop":
            continue
        claims.append(
            VenueClaim(
                venue=venue.acronym if venue else event.upper(),
                venue_key=venue.key if venue else None,
                year=int(match.group("year")),
                status="accepted",
                track=track,  # type: ignore[arg-type]
                workshop=event.upper() if track == "workshop" and venue is None else None,
                ccf_rank=venue.ccf_rank if venue and track in ("main", "findings") else None,
                source="doi",
                text=doi,
            )
        )
    return claims


def venue_claims(
    comments: str | None, journal_ref: str | None, dois: Iterable[str], index: VenueIndex | None = None
) -> list[VenueClaim]:
    """Every claim of a paper: its journal reference's and DOIs' first (published records), then its comment's."""
    if index is None:
        return list(_shipped_catalogue_claims(comments, journal_ref, tuple(dois)))
    return _distinct(
        [
            *claims_from_journal_ref(journal_ref, index),
            *claims_from_dois(dois, index),
            *claims_from_comment(comments, index),
        ]
    )


# A paper is merged again with the same comment whenever another of its records comes (a cross-listing, a new
# listing day): its claims by the shipped catalogue are read once. Claims are never changed in place.
@lru_cache(maxsize=4096)
def _shipped_catalogue_claims(
    comments: str | None, journal_ref: str | None, dois: tuple[str, ...]
) -> tuple[VenueClaim, ...]:
    return tuple(venue_claims(comments, journal_ref, dois, default_index()))


def _distinct(claims: list[VenueClaim]) -> list[VenueClaim]:
    """One claim per venue, year and track; an acceptance beats a submission to the same."""
    kept: dict[tuple[str, int | None, str], VenueClaim] = {}
    for claim in claims:
        key = (claim.venue_key or claim.venue.lower(), claim.year, claim.track)
        if key not in kept or (kept[key].status == "submitted" and claim.status == "accepted"):
            kept[key] = claim
    dated = {(key[0], key[2]) for key in kept if key[1] is not None}
    return [claim for key, claim in kept.items() if key[1] is not None or (key[0], key[2]) not in dated]
