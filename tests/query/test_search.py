"""Search parameters become Meilisearch filters with every value quoted, never pasted raw."""

from services.query.search import PaperQuery, quote


def test_quote_escapes_quotes_and_backslashes() -> None:
    assert quote('cs.CL" OR user = "x') == '"cs.CL\\" OR user = \\"x"'
    assert quote("a\\b") == '"a\\\\b"'


def test_filters_combine_any_of_lists_and_single_values() -> None:
    query = PaperQuery(
        categories=["cs.CL", "cs.LG"], status="published", ai_related=True, since_ts=100, sort="published"
    )
    assert query.filters() == [
        ['categories = "cs.CL"', 'categories = "cs.LG"'],
        'status = "published"',
        "ai_related = true",
        "published_ts >= 100",
    ]
    assert query.sort_by() == ["published_ts:desc"]


def test_no_filters_by_default() -> None:
    assert PaperQuery().filters() == []
