"""The search document's filter builder: every value quoted, never pasted raw; the time range on the chosen time."""

from papertrail.domain.search_document import PaperFilter, quote


def test_quote_escapes_quotes_and_backslashes() -> None:
    assert quote('cs.CL" OR user = "x') == '"cs.CL\\" OR user = \\"x"'
    assert quote("a\\b") == '"a\\\\b"'


def test_filters_combine_any_of_lists_and_single_values() -> None:
    wanted = PaperFilter(
        categories=["cs.CL", "cs.LG"], status="published", ai_related=True, since_ts=100, dated_by="published"
    )
    assert wanted.clauses() == [
        ['categories = "cs.CL"', 'categories = "cs.LG"'],
        'status = "published"',
        "ai_related = true",
        "published_ts >= 100",
    ]


def test_no_filters_by_default() -> None:
    assert PaperFilter().clauses() == []


def test_has_code_is_one_of_two_fixed_clauses_on_the_code_link() -> None:
    assert PaperFilter(has_code=True).clauses() == ["links.code EXISTS"]
    assert PaperFilter(has_code=False).clauses() == ["NOT links.code EXISTS"]


def test_paper_ids_and_author_keys_are_quoted() -> None:
    wanted = PaperFilter(paper_ids=['arxiv:1" OR "x', "doi:10.1/a\\b"], author_key='zhang w" OR status = "x')
    assert wanted.clauses() == [
        ['paper_id = "arxiv:1\\" OR \\"x"', 'paper_id = "doi:10.1/a\\\\b"'],
        'author_keys = "zhang w\\" OR status = \\"x"',
    ]
