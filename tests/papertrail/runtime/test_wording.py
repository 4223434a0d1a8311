"""The message catalogs stay in step with the code: every message the code and templates use (found by Babel's own
extractors, as `make messages` finds them) is in the Chinese catalog and translated, the catalog holds no message
nothing uses, and no message id is built at run time (the extractors could not see it, so nothing would check it)."""

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Message
from babel.messages.checkers import python_format
from babel.messages.extract import extract_from_dir
from jinja2 import Environment, nodes

from papertrail.runtime.wording import LOCALE_DIR, Translator, catalog_path
from tests.support.catalogs import zh_catalog

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ("papertrail", "services")
GETTEXT = {"_", "gettext", "ngettext", "pgettext", "npgettext", "N_", "NP_"}
# how many leading arguments of each are message ids or contexts (the rest are values)
LITERAL_ARGS = {"_": 1, "gettext": 1, "N_": 1, "NP_": 2, "ngettext": 2, "pgettext": 2, "npgettext": 3}
# they pass the callers' messages on, by name (the messages marked N_ in a table are literals there)
IMPLEMENTATION = {ROOT / "papertrail" / "runtime" / "wording.py", ROOT / "papertrail" / "domain" / "wording.py"}


def extracted() -> set[tuple[str | None, str | tuple[str, ...]]]:
    """(context, id) of every message in the runtime code and templates, by the mapping `make messages` uses."""
    method_map, options_map = _mapping()
    found: set[tuple[str | None, str | tuple[str, ...]]] = set()
    for _file, _line, message, _comments, context in extract_from_dir(
        ROOT, method_map, options_map, strip_comment_tags=True
    ):
        found.add((context, message))
    return found


def _mapping() -> tuple[list[tuple[str, str]], dict[str, dict[str, str]]]:
    from babel.messages.frontend import parse_mapping_cfg

    with (LOCALE_DIR / "babel.cfg").open() as cfg:
        return parse_mapping_cfg(cfg)


Key = tuple[str | None, str | tuple[str, ...]]


def catalog_problems(catalog: list[Message], used: set[Key]) -> dict[str, list[str]]:
    """What is wrong between a catalog and the messages the code uses: missing, untranslated (or fuzzy), unused."""
    held = {(m.context, m.id): m for m in catalog}

    def untranslated(m: Message) -> bool:
        return m.fuzzy or not all(m.string if isinstance(m.string, tuple) else (m.string,))

    return {
        "missing": sorted(str(key) for key in used if key not in held),
        "untranslated": sorted(str(key) for key in used if key in held and untranslated(held[key])),
        "unused": sorted(str(key) for key in held if key not in used),
    }


def test_every_message_used_is_in_the_chinese_catalog_and_translated() -> None:
    used = extracted()
    assert len(used) > 500  # the extractors saw the pages, not an empty tree
    problems = catalog_problems(zh_catalog(), used)
    assert problems == {"missing": [], "untranslated": [], "unused": []}, (
        f"{catalog_path('zh')} is not in step with the code: run `make messages` and translate what it added"
    )


def test_a_missing_untranslated_or_fuzzy_message_is_found() -> None:
    catalog = [
        Message("Papers", "论文库"),
        Message("Sign in", ""),
        Message("%(count)s paper", ("%(count)s 篇",), context="x"),
        Message("Topics", "专题", flags=["fuzzy"]),
        Message("Gone", "没了"),
    ]
    used: set[Key] = {(None, "Papers"), (None, "Sign in"), (None, "Topics"), (None, "New"), ("x", "%(count)s paper")}
    assert catalog_problems(catalog, used) == {
        "missing": ["(None, 'New')"],
        "untranslated": ["(None, 'Sign in')", "(None, 'Topics')"],
        "unused": ["(None, 'Gone')"],
    }
    assert Translator("zh").gettext("A message nobody translated") == "A message nobody translated"


def test_the_translations_fill_the_same_placeholders() -> None:
    for message in zh_catalog():
        if message.python_format and message.id != "and %(hidden)s more":  # '等 14 位作者' names the total
            python_format(None, message)


def test_plurals_follow_the_count() -> None:
    zh, en = Translator("zh"), Translator("en")
    one, many = (en.ngettext("%(total)s paper", "%(total)s papers", n, total=n) for n in (1, 3))
    assert (one, many) == ("1 paper", "3 papers")
    assert zh.ngettext("%(total)s paper", "%(total)s papers", 1, total=1) == "1 篇论文"
    assert zh.ngettext("%(total)s paper", "%(total)s papers", 3, total=3) == "3 篇论文"


def runtime_ids(source: str, filename: str) -> Iterator[str]:
    """Where Python code passes gettext a message id that is no literal (a name, a concatenation, an f-string)."""
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name not in GETTEXT:
            continue
        for arg in node.args[: LITERAL_ARGS[name]]:
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                yield f"{filename}:{node.lineno}: {ast.unparse(node)[:100]}"


def template_runtime_ids(source: str, filename: str) -> Iterator[str]:
    """The same in a Jinja2 template: `_(name)`, `_("key_" ~ kind)`."""
    env = Environment(extensions=["jinja2.ext.i18n"])
    for call in env.parse(source).find_all(nodes.Call):
        name = getattr(call.node, "name", None) or getattr(call.node, "attr", None)
        if name not in GETTEXT:
            continue
        for arg in call.args[: LITERAL_ARGS[name]]:
            if not isinstance(arg, nodes.Const) or not isinstance(arg.value, str):
                yield f"{filename}:{call.lineno}: {name}(…)"


def test_no_message_id_is_built_at_run_time() -> None:
    found = [
        problem
        for top in RUNTIME
        for path in sorted((ROOT / top).rglob("*.py"))
        if path not in IMPLEMENTATION
        for problem in runtime_ids(path.read_text(), str(path.relative_to(ROOT)))
    ]
    found += [
        problem
        for path in sorted((ROOT / "services").rglob("templates/*.*"))
        for problem in template_runtime_ids(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert not found, found


@pytest.mark.parametrize(
    "source",
    ['t.gettext("source_" + name)', "t.gettext(key)", 't.gettext(f"kind_{kind}")', 'ngettext("one", plural, n)'],
)
def test_the_scan_finds_an_id_built_at_run_time(source: str) -> None:
    assert list(runtime_ids(source, "x.py"))
    assert not list(runtime_ids('t.gettext("Papers", n=name)', "x.py"))


@pytest.mark.parametrize("source", ['{{ _("track_" ~ kind) }}', "{{ _(label) }}", '{{ pgettext(ctx, "Save") }}'])
def test_the_template_scan_finds_an_id_built_at_run_time(source: str) -> None:
    assert list(template_runtime_ids(source, "x.html"))
    assert not list(template_runtime_ids('{{ _("Papers") }}{% trans %}Hello{% endtrans %}', "x.html"))


HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # the CJK ideographs Chinese is written in
# A string's words for the API's own documentation (OpenAPI's field descriptions and examples): English that names
# the pages' Chinese words (收藏, 为你推荐) or shows a Chinese value, read by a program's author, not a reader.
DOCUMENTATION_ARGS = {"description", "examples", "example"}
# Where Chinese in runtime code is data the code reads or shows as it is, not wording a reader sees: file → what.
CHINESE_DATA = {
    "papertrail/runtime/wording.py": "the site's name in both scripts (研踪 PaperTrail)",
    "papertrail/domain/institutions/matching.py": "the words of a Chinese affiliation it reads (学院, 实验室)",
    "services/normalizer/links.py": "the word a Chinese comment names a project page with (主页)",
    "services/summarizer/titles.py": "a model's examples of Chinese titles and the labels its answers begin with",
    "services/query/catalogue/reads/institutions.py": "an institution's Chinese name in the OpenAPI examples",
    "services/query/accounts/follows.py": "a Chinese keyword expression the API's English warning shows as example",
}


def chinese_literals(source: str, filename: str) -> Iterator[str]:
    """String literals holding Chinese in Python code, but docstrings and the API's documentation."""
    tree = ast.parse(source, filename)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and body:
            if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                skipped.add(id(body[0].value))
        if isinstance(node, ast.keyword) and node.arg in DOCUMENTATION_ARGS:
            skipped.update(id(inner) for inner in ast.walk(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            if HAN.search(node.value):
                yield f"{filename}:{node.lineno}: {node.value[:60]!r}"


def test_no_chinese_wording_is_written_in_the_code() -> None:
    """Chinese a reader sees is in the catalog, as the translation of an English message: a Chinese literal in the
    code is wording no catalog holds (and no English reader can read)."""
    found = [
        problem
        for top in RUNTIME
        for path in sorted((ROOT / top).rglob("*.py"))
        if str(path.relative_to(ROOT)) not in CHINESE_DATA
        for problem in chinese_literals(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert not found, found
    assert all((ROOT / path).is_file() and HAN.search((ROOT / path).read_text()) for path in CHINESE_DATA)


@pytest.mark.parametrize(
    "source",
    [
        'heading = f"【研踪】「{follow}」有新论文"',
        'return "已被 " + term + " 录用"',
        'EVIDENCE = {"comment": "作者注明"}',
        'x = "作者来自 %s" % name',
    ],
)
def test_the_scan_finds_chinese_wording(source: str) -> None:
    assert list(chinese_literals(source, "x.py"))


def test_the_scan_passes_docstrings_and_the_apis_documentation() -> None:
    source = '''"""收藏 / 不相关: the marks."""
class Mark(BaseModel):
    """为你推荐."""
    saved: bool = Field(description="in the library (收藏)", examples=["实验室飞书群"])
def f() -> str:
    """已读."""
    return "read"
'''
    assert not list(chinese_literals(source, "x.py"))
