"""Draw the affiliation strings of bench/ror_sample.jsonl from genuine records (run once; the labels were then
added by reading each string).

- every distinct affiliation of the arXiv OAI `arXiv`-format responses in /work/shared/fixtures/sources/arxiv_oai/arXiv/
  (as arXiv's authors wrote them: terse, abbreviated, often astronomy);
- every distinct `arxiv:affiliation` of the recorded arXiv API answers in tests/fixtures/sources/arxiv_api/;
- 170 of the 942 distinct affiliations of the ACL Anthology's 2024.acl.xml (/work/shared/fixtures/sources/acl/),
  drawn with random.Random(40).sample from their sorted list.

Usage: .venv/bin/python bench/ror_sample_draw.py > /tmp/drawn.jsonl"""

import json
import random
import re
import sys
from pathlib import Path
from xml.etree import ElementTree

SHARED = Path("/work/shared/fixtures/sources")
REPO = Path(__file__).resolve().parent.parent
ARXIV_NS = "{http://arxiv.org/OAI/arXiv/}"


def squash(text: str | None) -> str:
    return " ".join((text or "").split())


def arxiv_oai() -> list[str]:
    found: dict[str, None] = {}
    for path in sorted((SHARED / "arxiv_oai" / "arXiv").glob("*.xml")):
        for element in ElementTree.parse(path).iter(f"{ARXIV_NS}affiliation"):
            if squash(element.text):
                found[squash(element.text)] = None
    return list(found)


def arxiv_api() -> list[str]:
    found: dict[str, None] = {}
    for path in sorted((REPO / "tests" / "fixtures" / "sources" / "arxiv_api").rglob("*")):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            for value in re.findall(r"<arxiv:affiliation[^>]*>([^<]*)</arxiv:affiliation>", text):
                if squash(value):
                    found[squash(value)] = None
    return list(found)


def acl(count: int = 170) -> list[str]:
    found: set[str] = set()
    for element in ElementTree.parse(SHARED / "acl" / "2024.acl.xml").iter("affiliation"):
        if squash(element.text):
            found.add(squash(element.text))
    return random.Random(40).sample(sorted(found), count)


def main() -> None:
    seen: set[str] = set()
    for source, strings in (("arxiv_oai", arxiv_oai()), ("arxiv_api", arxiv_api()), ("acl", acl())):
        for affiliation in strings:
            if affiliation not in seen:
                seen.add(affiliation)
                sys.stdout.write(json.dumps({"affiliation": affiliation, "source": source}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
