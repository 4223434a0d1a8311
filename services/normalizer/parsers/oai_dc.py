"""Parser for arXiv OAI-PMH records in Dublin Core (`oai_dc`): a poorer view than arXivRaw. Pure function.

Dublin Core names subjects in words ("Computer Science - Computation and Language") and gives dates without
version labels, so categories are mapped back to arXiv codes where the name is known (unknown names are
kept as written), and the dates become v1 and "updated".
"""

import re
from datetime import UTC, datetime

from lxml import etree

from papertrail.domain.names import make_author
from papertrail.domain.text import readable, squash
from schemas.paper import PaperIds, SourceVersion
from services.normalizer.parsers.arxiv_oai import (
    _PARSER,
    OAI,
    arxiv_id,
    arxiv_links,
    publication_status,
)
from services.normalizer.records import ParsedRecord, UnparseableRecord

DC = "{http://purl.org/dc/elements/1.1/}"
OAI_DC = "{http://www.openarchives.org/OAI/2.0/oai_dc/}"
_ABS_URL = re.compile(r"arxiv\.org/abs/(\S+?)(v\d+)?$")

# arXiv's subject names as its oai_dc export writes them → category codes (old names included).
SUBJECT_CODES = {
    "Computer Science - Artificial Intelligence": "cs.AI",
    "Computer Science - Hardware Architecture": "cs.AR",
    "Computer Science - Computational Complexity": "cs.CC",
    "Computer Science - Computational Engineering, Finance, and Science": "cs.CE",
    "Computer Science - Computational Geometry": "cs.CG",
    "Computer Science - Computation and Language": "cs.CL",
    "Computer Science - Cryptography and Security": "cs.CR",
    "Computer Science - Computer Vision and Pattern Recognition": "cs.CV",
    "Computer Science - Computers and Society": "cs.CY",
    "Computer Science - Databases": "cs.DB",
    "Computer Science - Distributed, Parallel, and Cluster Computing": "cs.DC",
    "Computer Science - Digital Libraries": "cs.DL",
    "Computer Science - Discrete Mathematics": "cs.DM",
    "Computer Science - Data Structures and Algorithms": "cs.DS",
    "Computer Science - Emerging Technologies": "cs.ET",
    "Computer Science - Formal Languages and Automata Theory": "cs.FL",
    "Computer Science - General Literature": "cs.GL",
    "Computer Science - Graphics": "cs.GR",
    "Computer Science - Computer Science and Game Theory": "cs.GT",
    "Computer Science - Human-Computer Interaction": "cs.HC",
    "Computer Science - Information Retrieval": "cs.IR",
    "Computer Science - Information Theory": "cs.IT",
    "Computer Science - Machine Learning": "cs.LG",
    "Computer Science - Learning": "cs.LG",
    "Computer Science - Logic in Computer Science": "cs.LO",
    "Computer Science - Multiagent Systems": "cs.MA",
    "Computer Science - Multimedia": "cs.MM",
    "Computer Science - Mathematical Software": "cs.MS",
    "Computer Science - Numerical Analysis": "cs.NA",
    "Computer Science - Neural and Evolutionary Computing": "cs.NE",
    "Computer Science - Networking and Internet Architecture": "cs.NI",
    "Computer Science - Other Computer Science": "cs.OH",
    "Computer Science - Operating Systems": "cs.OS",
    "Computer Science - Performance": "cs.PF",
    "Computer Science - Programming Languages": "cs.PL",
    "Computer Science - Robotics": "cs.RO",
    "Computer Science - Symbolic Computation": "cs.SC",
    "Computer Science - Sound": "cs.SD",
    "Computer Science - Software Engineering": "cs.SE",
    "Computer Science - Social and Information Networks": "cs.SI",
    "Computer Science - Systems and Control": "cs.SY",
    "Statistics - Machine Learning": "stat.ML",
    "Statistics - Methodology": "stat.ME",
    "Statistics - Applications": "stat.AP",
    "Statistics - Computation": "stat.CO",
    "Statistics - Statistics Theory": "math.ST",
    "Mathematics - Numerical Analysis": "math.NA",
    "Mathematics - Optimization and Control": "math.OC",
    "Mathematics - Information Theory": "math.IT",
    "Mathematics - Probability": "math.PR",
    "Mathematics - Combinatorics": "math.CO",
    "Mathematics - Logic": "math.LO",
    "Electrical Engineering and Systems Science - Image and Video Processing": "eess.IV",
    "Electrical Engineering and Systems Science - Audio and Speech Processing": "eess.AS",
    "Electrical Engineering and Systems Science - Signal Processing": "eess.SP",
    "Electrical Engineering and Systems Science - Systems and Control": "eess.SY",
    "Quantitative Biology - Neurons and Cognition": "q-bio.NC",
    "Physics - Physics and Society": "physics.soc-ph",
    "Astrophysics - Astrophysics of Galaxies": "astro-ph.GA",
    "Quantum Physics": "quant-ph",
}


def _day(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.strip()).replace(tzinfo=UTC)
    except ValueError:
        return None


def parse_oai_dc(content: str) -> ParsedRecord:
    """`<record>` with `oai_dc:dc` metadata → parsed record."""
    try:
        root = etree.fromstring(content.encode("utf-8"), _PARSER)
    except etree.XMLSyntaxError as exc:
        raise UnparseableRecord(f"not XML: {exc}") from exc
    dc = root if root.tag == f"{OAI_DC}dc" else root.find(f".//{OAI_DC}dc")
    if dc is None:
        raise UnparseableRecord("no <oai_dc:dc> metadata in the record")
    identifiers = [squash(i.text) for i in dc.iterfind(f"{DC}identifier")]
    urls = [m.group(1) for i in identifiers if (m := _ABS_URL.search(i))]
    header_id = squash(root.findtext(f"{OAI}header/{OAI}identifier")).removeprefix("oai:arXiv.org:")
    identifier = arxiv_id(urls[0] if urls else header_id)
    title_raw = dc.findtext(f"{DC}title") or ""
    title = readable(title_raw)
    if not title:
        raise UnparseableRecord(f"arXiv {identifier}: empty title")
    descriptions = [d.text or "" for d in dc.iterfind(f"{DC}description")]
    comments = [squash(d).removeprefix("Comment:").strip() for d in descriptions if squash(d).startswith("Comment:")]
    abstract_raw = next((d for d in descriptions if not squash(d).startswith("Comment:")), "")
    dois = [i.removeprefix("doi:").lower() for i in identifiers if i.startswith("doi:10.")]
    references = [i.removeprefix("Journal reference:").strip() for i in identifiers if i.startswith("Journal")]
    journal_ref = references[0] if references else None
    subjects = [squash(s.text) for s in dc.iterfind(f"{DC}subject") if squash(s.text)]
    dates = [d for d in (_day(e.text or "") for e in dc.iterfind(f"{DC}date")) if d]
    versions = [SourceVersion(source="arxiv", label="v1", date=dates[0])] if dates else []
    if len(dates) > 1 and dates[-1] != dates[0]:
        versions.append(SourceVersion(source="arxiv", label="updated", date=dates[-1]))
    return ParsedRecord(
        source="arxiv",
        record_id=identifier,
        ids=PaperIds(arxiv=identifier, dois=dois),
        title=title,
        abstract=readable(abstract_raw),
        authors=[make_author(squash(c.text)) for c in dc.iterfind(f"{DC}creator") if squash(c.text)],
        categories=list(dict.fromkeys(SUBJECT_CODES.get(s, s) for s in subjects)),
        comments="; ".join(comments) or None,
        journal_ref=journal_ref,
        license=squash(dc.findtext(f"{DC}rights")) or None,
        links=arxiv_links(identifier) | ({"doi": f"https://doi.org/{dois[0]}"} if dois else {}),
        versions=versions,
        year=dates[0].year if dates else None,
        status=publication_status(journal_ref, dois),
        original={"title": title_raw, "abstract": abstract_raw},
    )
