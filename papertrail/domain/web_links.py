"""Which URLs a page may make a link of: http and https only. A source's own link fields (Hugging Face's
`githubRepo`, a PDF or code URL) come from upstream as written, and a `javascript:` or `data:` URL in an `href`
runs in the reader's session. Pure; the normalizer keeps only these when it reads a record, and the pages check
again (a paper stored by an earlier release holds what it was given)."""

import re
from collections.abc import Mapping

# the scheme, then a host's first character: no space, no scheme-relative or empty host
_WEB_LINK = re.compile(r"https?://[^\s/?#]", re.IGNORECASE)


def is_web_link(value: object) -> bool:
    """An http(s) URL with a host, exactly as written (a leading space or a control character makes it none)."""
    return isinstance(value, str) and _WEB_LINK.match(value) is not None


def web_links(links: Mapping[str, str]) -> dict[str, str]:
    """The named links that are web links, in their order."""
    return {kind: url for kind, url in links.items() if is_web_link(url)}
