"""Links to a paper's code, data, models, demo and project page, found in its abstract and comments. No I/O.

Papers with Code's API is gone and most sources have no code field, but authors write "Code is available at
https://github.com/…" in the abstract or the arXiv comments. Each kind keeps the first link found (abstract
before comments); `identity.merge` lets a source's own field of the same kind win over a link found here.
The text is only read: the abstract keeps the URL as the source wrote it.
"""

import re
from functools import lru_cache
from urllib.parse import urlsplit

# Paper.links keys of the kinds found here (the same keys the sources' own fields use)
CODE, DATASET, MODEL, DEMO, PROJECT = "code", "dataset", "model", "demo", "project"

CODE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "gitee.com"})
# First path segments of the code hosts that are the site's own pages, not an account or a repository.
_CODE_SITE_PAGES = frozenset(
    {"about", "collections", "enterprise", "explore", "features", "login", "marketplace", "pricing", "search"}
    | {"security", "settings", "site", "sponsors", "topics", "trending", "join", "apps", "help", "users"}
)
HF_HOSTS = frozenset({"huggingface.co", "hf.co"})
# Hugging Face pages that are neither a model nor a dataset nor a space (a paper page is the `hf` link).
_HF_SITE_PAGES = frozenset(
    {"papers", "docs", "blog", "collections", "models", "organizations", "settings", "login", "join", "pricing"}
    | {"learn", "tasks", "posts", "chat", "api", "new", "spaces", "datasets", "enterprise", "welcome"}
)
PAGE_HOST_SUFFIXES = (".github.io", ".gitlab.io")
SPACE_HOST_SUFFIX = ".hf.space"
ANONYMOUS_CODE_HOST = "anonymous.4open.science"  # anonymized GitHub repositories for double-blind review

# Hosts whose links count even when written without a scheme ("github.com/x/y"); any other URL needs one.
_KNOWN_HOSTS = r"github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|gitee\.com|huggingface\.co|hf\.co"
_KNOWN_HOSTS += r"|anonymous\.4open\.science|github\.io|gitlab\.io|hf\.space"
# A URL runs to white space or a character URLs do not hold in running text: braces of LaTeX's \url{…} and
# \href{…}{…}, brackets of Markdown links, angle brackets, quotes, CJK and full-width punctuation
# ("代码：https://github.com/x/y。"). No look-behind on the scheme: "athttps://".
_URL = re.compile(
    r"(?:https?://|(?<![\w@./:-])(?=(?:www\.)?(?:[\w-]+\.)*(?:" + _KNOWN_HOSTS + r")(?![\w.-]*\w)))"
    r"[^\s<>\"{}|\\^`\[\]\u3000-\u303f\uff00-\uffef]+",
    re.IGNORECASE,
)
# Most abstracts hold no link at all: this test on the lower-cased text skips them (the same test with
# re.IGNORECASE took ten times as long on the corpus).
_HINT = re.compile(r"://|git(?:hub|lab|ee)|bitbucket|codeberg|huggingface|hf\.(?:co|space)|4open")
_SCHEME = re.compile(r"https?://", re.IGNORECASE)

# Only for finding links (the stored text is not changed): "https://github. com/x", "https: //github.com/x" and
# "https:/github.com/x" as some authors write them, "github.com/ x", and LaTeX escapes inside a URL ("\_",
# "\%") of abstracts written in LaTeX.
_BROKEN_SCHEME = re.compile(r"\b(https?):\s*/\s*/?\s*(?=\w)", re.IGNORECASE)
_SPACED_DOT = re.compile(r"\b(github|gitlab|huggingface)\s*\.\s+(com|io|co)\b", re.IGNORECASE)
_SPACED_SLASH = re.compile(r"\b((?:github|gitlab)\.com|huggingface\.co)/\s+(?=\w)", re.IGNORECASE)
_LATEX_ESCAPE = re.compile(r"\\([_%#&~])")
# What running text puts right after a URL: sentence punctuation, quotes, "$" of LaTeX math, "*" of Markdown.
_TRAILING = ".,;:!?'\"”’*$#"
# A URL on any other host is a project page only when the text says so just before it: "Project page:",
# "project website is available at", "Our website:", "项目主页：" (LaTeX `\href{` allowed in between).
_PAGE_LABEL = re.compile(
    r"(?:project(?:\s+(?:page|website|site|homepage))?|home\s*page|web\s*(?:page|site)|主页)\W*"
    r"(?:(?:is|are|can|be|found|available|accessible|hosted|publicly|online|at|on|in|here|see|visit)\W+)*"
    r"(?:\\(?:href|url)\W*)?$",
    re.IGNORECASE,
)
_LABEL_REACH = 80  # characters before a URL that the label must sit in


def link_kind(url: str) -> str | None:
    """The kind of link a URL is by its host and path alone, or None (a URL that is none of them)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    path = [segment for segment in parts.path.split("/") if segment]
    if host in CODE_HOSTS:
        return CODE if path and path[0].lower() not in _CODE_SITE_PAGES else None
    if host == "gist.github.com":
        return CODE if path else None
    if host == ANONYMOUS_CODE_HOST:
        return CODE if len(path) >= 2 and path[0] == "r" else None
    if host in HF_HOSTS:
        if len(path) >= 2 and path[0] == "datasets":
            return DATASET
        if len(path) >= 3 and path[0] == "spaces":
            return DEMO
        return MODEL if len(path) >= 2 and path[0] not in _HF_SITE_PAGES else None  # owner/name
    if host.endswith(SPACE_HOST_SUFFIX):
        return DEMO
    if host.endswith(PAGE_HOST_SUFFIXES):
        return PROJECT
    return None


def _findable(text: str) -> str:
    text = _BROKEN_SCHEME.sub(r"\1://", text)
    text = _SPACED_DOT.sub(r"\1.\2", text)
    text = _SPACED_SLASH.sub(r"\1/", text)
    return _LATEX_ESCAPE.sub(r"\1", text)


def clean_url(raw: str) -> str:
    """A URL as running text wrote it → the link: trailing punctuation and unmatched closing parentheses
    dropped ("(see https://x.org/a_(b))." keeps "a_(b)"), a scheme when it had none."""
    url = raw
    while url:
        if url[-1] in _TRAILING or (url[-1] == ")" and url.count(")") > url.count("(")):
            url = url[:-1]
        else:
            break
    return url if _SCHEME.match(url) else f"https://{url}"


def found_links(*texts: str | None) -> dict[str, str]:
    """Kind → the first link of that kind in the texts (code, dataset, model, demo, project)."""
    return dict(_found_links(texts))


# The parser and the merge read the same abstract and comments of a record, one batch apart at most.
@lru_cache(maxsize=2048)
def _found_links(texts: tuple[str | None, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    for text in texts:
        if not text or not _HINT.search(text.lower()):
            continue
        text = _findable(text)
        for match in _URL.finditer(text):
            url = clean_url(match.group(0))
            kind = link_kind(url)
            if kind is None and _SCHEME.match(match.group(0)):
                start = match.start()
                if _PAGE_LABEL.search(text, max(0, start - _LABEL_REACH), start):
                    kind = PROJECT
            if kind == CODE:
                url = url.removesuffix(".git")  # the clone address; the repository's page is without it
            if kind is not None:
                found.setdefault(kind, url)
    return found
