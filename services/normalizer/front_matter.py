"""ACL volumes' front matter is not a paper: records of it are set aside, and papers earlier releases made of it
are withdrawn. No I/O.

An anthology volume file lists its front matter (title page, preface, committees; "Proceedings of the 62nd Annual
Meeting …", paper 0) beside its papers. The harvester publishes it like the rest, since harvest.raw.v1 carries
what the source holds; what is a paper is the normalizer's decision. The volume's metadata a paper needs (venue,
year) comes with each paper's own record, so nothing is lost by leaving the front matter out.
"""

from datetime import datetime

from schemas.events import PaperWithdrawn
from schemas.paper import Paper
from services.normalizer.records import Incoming

REASON = "front_matter"


def set_aside_front_matter(items: list[Incoming]) -> tuple[list[Incoming], list[Incoming]]:
    """(the items that describe papers, the front-matter items)."""
    papers = [item for item in items if not item.record.is_front_matter]
    front_matter = [item for item in items if item.record.is_front_matter]
    return papers, front_matter


def withdrawal(paper: Paper, now: datetime) -> PaperWithdrawn:
    """The announcement that a front-matter paper is withdrawn."""
    return PaperWithdrawn(paper_id=paper.id, ids=paper.ids, title=paper.title, reason=REASON, withdrawn_at=now)
