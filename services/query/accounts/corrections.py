"""Readers' error reports ("纠错") on a paper's model-written fields: what a report is and how it is checked (no I/O),
and filing one with whatever keeps them (readers/repositories.py: Corrections).

The Chinese institution names, Chinese titles and summaries are written by a model and are sometimes wrong;
a reader says what is wrong and what it should be, and an operator reads the open reports and closes them, or applies
one on `institutions` (papertrail_ops/corrections.py: the normalizer stores it, and no later record undoes it).
"""

import uuid
from datetime import UTC, datetime
from typing import Literal, Protocol, get_args

from pydantic import BaseModel, Field, field_validator

CorrectionField = Literal["institutions", "title_zh", "summary", "authors", "other"]
CorrectionStatus = Literal["open", "closed", "applied"]
FIELDS: tuple[str, ...] = get_args(CorrectionField)
STATUSES: tuple[str, ...] = get_args(CorrectionStatus)
MAX_MESSAGE = 2000
MAX_CONTACT = 200
# Open reports one paper may hold: enough for every field several times over, few enough that one person
# cannot bury the operators' list under copies.
MAX_OPEN_PER_PAPER = 20
# Open reports one reporter (a user, or an anonymous client's address) may hold on one paper: nobody alone fills the
# paper's cap and keeps everyone else's reports out.
MAX_OPEN_PER_REPORTER = 3


def _text(value: str, what: str) -> str:
    """The value stripped; refused when it cannot be stored as UTF-8 (a lone surrogate from a JSON escape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{what} is not valid text (character {error.start + 1})") from None
    return value.strip()


def clean_message(value: str) -> str:
    """The reader's suggestion, stripped: 1 to 2,000 characters."""
    message = _text(value, "message")
    if not message:
        raise ValueError("message is empty: say what is wrong and what it should be")
    if len(message) > MAX_MESSAGE:
        raise ValueError(f"message is {len(message)} characters long; at most {MAX_MESSAGE}")
    return message


def clean_contact(value: str | None) -> str | None:
    """An optional way to reach the reader (an e-mail address, say), stripped; blank means none."""
    if value is None:
        return None
    contact = _text(value, "contact")
    if len(contact) > MAX_CONTACT:
        raise ValueError(f"contact is {len(contact)} characters long; at most {MAX_CONTACT}")
    return contact or None


def stripped_text_pattern(most: int, *, may_be_blank: bool) -> str:
    """The JSON Schema pattern of text of at most `most` characters once stripped of blanks at either end (and not
    all blank unless it may be): what clean_message and clean_contact take, as the API's document states it."""
    text = rf"\S|\S[\s\S]{{0,{most - 2}}}\S"  # starts and ends with a non-blank
    return rf"^\s*(?:{text}){'?' if may_be_blank else ''}\s*$"


def check_field(value: str) -> CorrectionField:
    """Which part of the paper the report is about; anything else is refused with the choices."""
    if value not in FIELDS:
        raise ValueError(f"field {value!r} is not one of {', '.join(FIELDS)}")
    return value  # type: ignore[return-value]


class CorrectionDraft(BaseModel):
    """What a reader submits (the API's body and the form's fields): checked, stripped."""

    field: CorrectionField = Field(description="what is wrong", examples=["institutions"])
    # the limits the validators check, stated in the schema as patterns (their messages say more than pydantic's)
    message: str = Field(
        json_schema_extra={"pattern": stripped_text_pattern(MAX_MESSAGE, may_be_blank=False)},
        description=f"what is wrong and what it should be (1..{MAX_MESSAGE} characters after stripping)",
        examples=["天津大学 should be 天津大学智能与计算学部"],
    )
    contact: str | None = Field(
        None,
        json_schema_extra={"pattern": stripped_text_pattern(MAX_CONTACT, may_be_blank=True)},
        description=f"how to reach you about it, e.g. an e-mail address (≤{MAX_CONTACT} characters)",
    )

    @field_validator("field", mode="before")
    @classmethod
    def _field(cls, value: object) -> object:
        return check_field(value) if isinstance(value, str) else value

    @field_validator("message")
    @classmethod
    def _message(cls, value: str) -> str:
        return clean_message(value)

    @field_validator("contact")
    @classmethod
    def _contact(cls, value: str | None) -> str | None:
        return clean_contact(value)


class CorrectionReport(CorrectionDraft):
    """A stored report: the draft plus who filed it about which paper, when, and whether it is handled."""

    id: str = Field(description="report id")
    paper_id: str = Field(description="canonical paper id", examples=["arxiv:hep-th/9901001"])
    user_id: str | None = Field(None, description="the signed-in reader who filed it, if any")
    created_at: datetime
    status: CorrectionStatus = "open"
    closed_at: datetime | None = None
    applied: str | None = Field(None, description="what an operator applied, as the operators' list shows it")


class TooManyOpenReports(Exception):
    """The paper, or this reporter on it, already holds the most open reports it may (`yours`: the reporter's cap,
    with their count)."""

    def __init__(self, message: str, yours: int | None = None) -> None:
        super().__init__(message)
        self.yours = yours


def file_report(
    paper_id: str, draft: CorrectionDraft, *, open_reports: int, yours: int, user_id: str | None, now: datetime
) -> CorrectionReport:
    """A new open report on a paper, unless this reporter already has MAX_OPEN_PER_REPORTER open ones on it (`yours`)
    or the paper MAX_OPEN_PER_PAPER."""
    if yours >= MAX_OPEN_PER_REPORTER:
        raise TooManyOpenReports(
            f"you have {yours} open error reports on paper {paper_id} (at most {MAX_OPEN_PER_REPORTER} each); "
            "please wait until operators have handled them",
            yours,
        )
    if open_reports >= MAX_OPEN_PER_PAPER:
        raise TooManyOpenReports(
            f"paper {paper_id} already has {open_reports} open error reports (at most {MAX_OPEN_PER_PAPER}); "
            "please wait until operators have handled them"
        )
    return CorrectionReport(
        **draft.model_dump(), id=uuid.uuid4().hex, paper_id=paper_id, user_id=user_id, created_at=now
    )


class ReportsKept(Protocol):
    """Where reports are kept (the `Corrections` repository), as filing one needs it: this module knows no store."""

    async def count_open_corrections(self, paper_id: str, reporter: str | None = None) -> int: ...

    async def add_correction(self, report: CorrectionReport, reporter: str) -> None: ...


async def report_error(
    reports: ReportsKept, paper_id: str, draft: CorrectionDraft, user_id: str | None, reporter: str
) -> CorrectionReport:
    """Store a report on a held paper (by its canonical id) from this reporter (write_limits.reporter);
    TooManyOpenReports when they, or the paper, hold too many open ones."""
    report = file_report(
        paper_id,
        draft,
        open_reports=await reports.count_open_corrections(paper_id),
        yours=await reports.count_open_corrections(paper_id, reporter),
        user_id=user_id,
        now=datetime.now(UTC),
    )
    await reports.add_correction(report, reporter)
    return report
