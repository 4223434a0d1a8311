"""LaTeX in source text: accents become letters, formulas and every other command stay as the source wrote them."""

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from papertrail.domain.text import has_cjk, latex_accents_to_unicode, readable
from services.harvester.sources.dblp_xml import EntityStream
from tests.support.paths import FIXTURES
from tests.support.text import FORMULA

# Command names the function turns into letters on purpose (outside formulas): `\ss` → ß, `\aa` → å ...
LETTER_COMMANDS = {"ss", "ae", "AE", "aa", "AA", "o", "O", "l", "L", "i"}
ACCENTS = set("\"'`^~=.uvHckr")
COMMAND = re.compile(r"\\([A-Za-z]{2,})")
TEXT_ELEMENTS = ("title", "abstract", "summary", "description")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"$\varepsilon$-DP", r"$\varepsilon$-DP"),
        (r"a tilt of 14.3$^\circ$ at most", r"a tilt of 14.3$^\circ$ at most"),
        (r"$A \cup B$", r"$A \cup B$"),
        (r"as in \cite{x}, we", r"as in \cite{x}, we"),
        (r"rotated by $91^{\circ}$ and", r"rotated by $91^{\circ}$ and"),
        (r"rotated by 91^{\circ} and", r"rotated by 91^{\circ} and"),  # outside a formula too: braces stay
        (r"\(\hat{y} = \ker f\)", r"\(\hat{y} = \ker f\)"),
        (r"$$\log \omega \infty$$ and \[\ssim \rm\]", r"$$\log \omega \infty$$ and \[\ssim \rm\]"),
        (r"$\"o \c c$ stays, \"o does not", r"$\"o \c c$ stays, ö does not"),
        (r"weighted \k{appa}", r"weighted \k{appa}"),  # not one letter: not an ogonek
        (r"costs \$5 and \"o", r"costs \$5 and ö"),
    ],
)
def test_commands_and_formulas_stay_as_written(source: str, expected: str) -> None:
    assert latex_accents_to_unicode(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"M\"uller", "Müller"),
        (r"G{\"o}del", "Gödel"),
        (r"Andr\'{e}", "André"),
        (r"Fran\c{c}ois", "François"),
        (r"Fran\c cois", "François"),
        (r"Fran{\c c}ois", "François"),
        (r"Ko\v{s}ice", "Košice"),
        (r"Erd\H{o}s", "Erdős"),
        (r"Mart\'{\i}nez", "Martínez"),
        (r"Ha\"{\i}k", "Haïk"),
        (r"Augustin--Csisz{\' a}r", "Augustin--Csiszár"),
        (r"Gro\ss{}e", "Große"),
        (r"{\O}stergaard, Pawe\l{} and \AA ngstr\"om", "Østergaard, Paweł and Å ngström"),  # spaces kept, as before
    ],
)
def test_accents_and_letter_commands_become_letters(source: str, expected: str) -> None:
    assert latex_accents_to_unicode(source) == expected


# Text with no accent command: words, punctuation (braces, ^, _, $ included) and commands that are not accents.
_plain = st.text(st.characters(codec="utf-8", exclude_characters="\\"), max_size=12)
_command_name = st.from_regex(r"[A-Za-z]{2,10}", fullmatch=True).filter(lambda name: name not in LETTER_COMMANDS)
_command = st.one_of(
    st.builds(lambda name: "\\" + name, _command_name),
    # one letter: not an accent, not a letter command, nor the start of one (\ss \ae \AA)
    st.sampled_from([f"\\{c}" for c in "BCDEFGIJKMNPQRSTUVWXYZbdefghjmnpqtwxyz"]),
    st.sampled_from([r"\%", r"\&", r"\_", r"\#", r"\$", r"\{", r"\}", r"\,", r"\;", r"\!", r"\ ", r"\\", r"\|"]),
)
_no_accent_text = st.lists(st.one_of(_plain, _command), max_size=30).map("".join)


@given(_no_accent_text)
def test_text_with_no_accent_command_comes_out_unchanged(text: str) -> None:
    assert latex_accents_to_unicode(text) == text


# Formulas hold anything, accent commands included; text between them holds no accent command and no `$`.
_formula_body = st.lists(
    st.sampled_from([*"abcxyz019 +-=^_{}()[]'\"`~.,\\", "\\c ", "\\v", "\\cup", '\\"o', "\\'{e}", "\\ss"]),
    min_size=1,
    max_size=12,
).map("".join)
_formula_body = _formula_body.filter(lambda body: not body.endswith("\\") and "\\)" not in body and "\\]" not in body)
_formula = st.one_of(
    st.builds(lambda b: f"${b}$", _formula_body),
    st.builds(lambda b: f"$${b}$$", _formula_body),
    st.builds(lambda b: f"\\({b}\\)", _formula_body),
    st.builds(lambda b: f"\\[{b}\\]", _formula_body),
)
_between = st.lists(st.one_of(_plain.map(lambda s: s.replace("$", "")), _command), max_size=4).map("".join)


@given(st.lists(st.tuples(_between, _formula), max_size=6), _between)
def test_formulas_come_out_exactly_as_written(pieces: list[tuple[str, str]], tail: str) -> None:
    text = "".join(between + (" " if between.endswith("\\") else "") + formula for between, formula in pieces) + tail
    assert latex_accents_to_unicode(text) == text


def _texts_in_json(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("title", "summary", "abstract") and isinstance(item, str):
                yield item
            else:
                yield from _texts_in_json(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts_in_json(item)


def _real_titles_and_abstracts() -> Iterator[tuple[str, str]]:
    """(where, text) for every title and abstract in the recorded sources and the corpus under tests/fixtures."""
    for path in sorted(FIXTURES.rglob("*")):
        where = str(path.relative_to(FIXTURES))
        if path.suffix == ".xml":
            with path.open("rb") as raw:  # DBLP's dump names its entities (&uuml;): read as the harvester reads it
                root = etree.parse(EntityStream(raw)).getroot()
            for element in root.iter():
                if isinstance(element.tag, str) and etree.QName(element).localname in TEXT_ELEMENTS:
                    yield where, "".join(element.itertext())
        elif path.name.endswith((".json", ".jsonl", ".jsonl.gz")):
            opened = gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8")
            with opened as handle:
                content = handle.read()
            try:
                documents = [json.loads(content)]
            except json.JSONDecodeError:  # JSON lines
                documents = [json.loads(line) for line in content.splitlines() if line.strip()]
            for document in documents:
                for text in _texts_in_json(document):
                    yield where, text


def test_every_real_title_and_abstract_keeps_its_commands_and_formulas() -> None:
    seen = 0
    for where, text in _real_titles_and_abstracts():
        seen += 1
        cleaned = readable(text)
        kept = Counter(name for name in COMMAND.findall(cleaned))
        wanted = Counter(name for name in COMMAND.findall(text) if name not in LETTER_COMMANDS)
        assert not wanted - kept, f"{where}: lost {wanted - kept} in {text[:200]!r}"
        for formula in FORMULA.findall(text):
            assert " ".join(formula.split()) in cleaned, f"{where}: formula {formula!r} changed"
    assert seen > 14_000  # the corpus alone holds 7,184 titles and as many abstracts


@pytest.mark.parametrize(
    ("text", "cjk"),
    [
        ("3D高斯泼溅压缩", True),
        ("大模型推理的奖励设计", True),
        ("拡散モデルの蒸留", True),  # Japanese: kanji and kana
        ("ひらがなだけ", True),
        ("확산 모델", True),  # Korean
        ("diffusion model distillation", False),
        ("Schrödinger bridges, naïve Bayes — “quoted”", False),
        ("", False),
    ],
)
def test_a_text_holding_cjk_characters_is_told_apart(text: str, cjk: bool) -> None:
    """What sends a search to the multilingual search vectors."""
    assert has_cjk(text) is cjk
