"""Error reports' rules without servers: what a reader may submit, the messages a refusal carries, the cap."""

import re
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from services.query.accounts.corrections import (
    FIELDS,
    MAX_OPEN_PER_PAPER,
    MAX_OPEN_PER_REPORTER,
    CorrectionDraft,
    TooManyOpenReports,
    file_report,
)

NOW = datetime(2026, 5, 11, 8, 30, tzinfo=UTC)


def refusal(**body: object) -> str:
    with pytest.raises(ValidationError) as caught:
        CorrectionDraft.model_validate(body)
    return "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in caught.value.errors())


def test_a_report_is_stripped_and_keeps_what_the_reader_wrote() -> None:
    draft = CorrectionDraft.model_validate(
        {"field": "institutions", "message": "  天津大学智能与计算学部，不是学院\n", "contact": "  a@b.cn "}
    )
    assert (draft.field, draft.message, draft.contact) == ("institutions", "天津大学智能与计算学部，不是学院", "a@b.cn")
    assert CorrectionDraft.model_validate({"field": "other", "message": "x", "contact": "   "}).contact is None
    assert set(FIELDS) == {"institutions", "title_zh", "summary", "authors", "other"}


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"field": "institutions", "message": " \n\t "}, "message: Value error, message is empty"),
        ({"field": "institutions", "message": "x" * 2001}, "message is 2001 characters long; at most 2000"),
        ({"field": "title", "message": "wrong"}, "field: Value error, field 'title' is not one of institutions, "),
        ({"field": "summary", "message": "ok", "contact": "c" * 201}, "contact is 201 characters long; at most 200"),
        ({"field": "summary", "message": "bad \ud800 text"}, "message is not valid text (character 5)"),
        ({"message": "no field"}, "field: Field required"),
    ],
)
def test_bad_reports_are_refused_naming_the_field(body: dict[str, object], named: str) -> None:
    assert named in refusal(**body)


def test_the_length_limit_counts_characters_after_stripping() -> None:
    draft = CorrectionDraft(field="summary", message="  " + "错" * 2000 + "  ")
    assert len(draft.message) == 2000


@pytest.mark.parametrize(
    "text", ["", "  ", " \n\t ", "x", " x ", "a\nb", "错" * 2000, "  " + "错" * 2000 + "\n", "错" * 2001, "c" * 201]
)
def test_the_schema_states_the_limits_the_validators_check(text: str) -> None:
    """The document's patterns take a message or contact exactly when the validators do, so a client that keeps to
    the schema is not refused, and one that breaks it is."""
    schema = CorrectionDraft.model_json_schema()["properties"]
    for name in ("message", "contact"):
        pattern = re.compile(schema[name]["pattern"])
        try:
            CorrectionDraft.model_validate({"field": "other", "message": "x", name: text})
            taken = True
        except ValidationError:
            taken = False
        assert bool(pattern.search(text)) == taken, (name, text[:5], len(text))


def test_a_filed_report_is_open_with_its_paper_reader_and_time() -> None:
    draft = CorrectionDraft(field="title_zh", message="标题应为《…》")
    report = file_report("arxiv:hep-th/9901001", draft, open_reports=0, yours=0, user_id="u1", now=NOW)
    assert (report.paper_id, report.status, report.user_id, report.created_at) == (
        "arxiv:hep-th/9901001",
        "open",
        "u1",
        NOW,
    )
    other = file_report("p", draft, open_reports=0, yours=0, user_id=None, now=NOW)
    assert len(report.id) == 32 and report.id != other.id


def test_a_paper_holds_at_most_twenty_open_reports() -> None:
    draft = CorrectionDraft(field="other", message="again")
    file_report("acl:2024.acl-long.1", draft, open_reports=MAX_OPEN_PER_PAPER - 1, yours=0, user_id=None, now=NOW)
    with pytest.raises(TooManyOpenReports, match="already has 20 open error reports"):
        file_report("acl:2024.acl-long.1", draft, open_reports=MAX_OPEN_PER_PAPER, yours=0, user_id=None, now=NOW)


def test_one_reporter_holds_at_most_three_open_reports_on_a_paper_so_none_fills_its_cap_alone() -> None:
    draft = CorrectionDraft(field="other", message="again")
    file_report("acl:2024.acl-long.1", draft, open_reports=3, yours=MAX_OPEN_PER_REPORTER - 1, user_id=None, now=NOW)
    with pytest.raises(TooManyOpenReports, match="you have 3 open error reports") as refused:
        file_report("acl:2024.acl-long.1", draft, open_reports=3, yours=MAX_OPEN_PER_REPORTER, user_id=None, now=NOW)
    assert refused.value.yours == 3 and MAX_OPEN_PER_REPORTER < MAX_OPEN_PER_PAPER
