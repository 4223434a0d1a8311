"""Which of a source's links a page may show (pure): http and https only, so a `javascript:` or `data:` URL an
upstream record carries never becomes a link a reader can click."""

import pytest

from papertrail.domain.web_links import is_web_link


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("https://github.com/yangzhou24/OmniWorld", True),
        ("http://proceedings.mlr.press/v202/a23.html", True),
        ("HTTPS://GitHub.com/x/y", True),  # a scheme is read without regard to case, as browsers read it
        ("javascript:alert(document.cookie)", False),
        ("JavaScript:alert(1)", False),
        (" javascript:alert(1)", False),  # browsers drop the leading space: so does no check here
        ("java\tscript:alert(1)", False),
        ("data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", False),
        ("vbscript:msgbox(1)", False),
        ("//evil.example/x", False),  # scheme-relative: whatever the page's scheme is
        ("/relative/path.pdf", False),
        ("https://", False),
        ("https:// github.com/x", False),
        ("ftp://example.org/paper.pdf", False),
        ("", False),
        (None, False),
        (42, False),
    ],
)
def test_only_http_and_https_urls_with_a_host_are_web_links(value: object, shown: bool) -> None:
    assert is_web_link(value) is shown
