"""Draw the affiliation strings of bench/ror_sample.jsonl from genuine records (run once; the labels were then
added by reading each string).

- every distinct affiliation of the arXiv OAI `arXiv`-format responses in /work/shared/fixtures/sources/arxiv_oai/arXiv/
  (as arXiv's authors wrote them: terse, abbreviated, often astronomy);
- every distinct `arxiv:affiliation` of the recorded arXiv API answers in tests/fixtures/sources/arxiv_api/;
- 170 of the 942 distinct affiliations of the ACL Anthology's 2024.acl.xml (/work/shared/fixtures/sources/acl/),
  drawn with random.Random(40).sample from their sorted list.

The held-out sample (bench/ror_heldout.jsonl), drawn after the matcher's rules were written and labelled before it
was run on them: every distinct affiliation of the other ACL files in tests/fixtures/sources/acl/ not in the first
sample, then 45 of 2024.acl.xml's remaining distinct affiliations, random.Random(41).sample from their sorted list.
Its strings were tuned on after (both samples' misses); so a second held-out sample (bench/ror_heldout2.jsonl) was
drawn after those rules were committed, and labelled before the matcher was run on it: every distinct affiliation of
the other recorded sources not in the earlier samples (the ACL XML of tests/fixtures/normalizer/; the pairs and
unattributed affiliations of the first-page labels, tests/fixtures/first_page/labels.json and
tests/fixtures/first_page/pdf/labels.json, as each page writes them), then of 2024.acl.xml's distinct affiliations in
neither earlier sample, random.Random(42).sample of their sorted list, as many as make 120.

Usage: .venv/bin/python bench/ror_sample_draw.py [--heldout | --heldout2] > /tmp/drawn.jsonl"""

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


def acl_file(path: Path) -> list[str]:
    found: dict[str, None] = {}
    for element in ElementTree.parse(path).iter("affiliation"):
        if squash(element.text):
            found[squash(element.text)] = None
    return list(found)


def acl(count: int = 170) -> list[str]:
    return random.Random(40).sample(sorted(acl_file(SHARED / "acl" / "2024.acl.xml")), count)


def drawn() -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for source, strings in (("arxiv_oai", arxiv_oai()), ("arxiv_api", arxiv_api()), ("acl", acl())):
        for affiliation in strings:
            seen.setdefault(affiliation, source)
    return list(seen.items())


def heldout() -> list[tuple[str, str]]:
    seen = {affiliation for affiliation, _ in drawn()}
    found: dict[str, str] = {}
    for path in sorted((REPO / "tests" / "fixtures" / "sources" / "acl").glob("*.xml")):
        if path.name != "2024.acl.xml":
            for affiliation in acl_file(path):
                if affiliation not in seen and affiliation not in found:
                    found[affiliation] = f"acl {path.name}"
    rest = sorted(set(acl_file(SHARED / "acl" / "2024.acl.xml")) - seen - set(found))
    for affiliation in random.Random(41).sample(rest, 45):
        found[affiliation] = "acl 2024.acl.xml"
    return list(found.items())


def first_page_labels(path: Path) -> list[str]:
    found: dict[str, None] = {}
    for page in json.loads(path.read_text(encoding="utf-8"))["pages"].values():
        for affiliation in [pair[1] for pair in page["pairs"]] + [
            entry if isinstance(entry, str) else entry[1] for entry in page.get("unattributed", [])
        ]:
            if squash(affiliation):
                found[squash(affiliation)] = None
    return list(found)


def heldout2(count: int = 120) -> list[tuple[str, str]]:
    seen = {affiliation for affiliation, _ in drawn()} | {affiliation for affiliation, _ in heldout()}
    found: dict[str, str] = {}
    others = [
        *(
            (affiliation, f"acl {path.name}")
            for path in sorted((REPO / "tests" / "fixtures" / "normalizer").glob("*.xml"))
            for affiliation in acl_file(path)
        ),
        *(
            (affiliation, "arXiv HTML first page")
            for affiliation in first_page_labels(REPO / "tests" / "fixtures" / "first_page" / "labels.json")
        ),
        *(
            (affiliation, "arXiv PDF first page")
            for affiliation in first_page_labels(REPO / "tests" / "fixtures" / "first_page" / "pdf" / "labels.json")
        ),
    ]
    for affiliation, source in others:
        if affiliation not in seen and affiliation not in found:
            found[affiliation] = source
    rest = sorted(set(acl_file(SHARED / "acl" / "2024.acl.xml")) - seen - set(found))
    for affiliation in random.Random(42).sample(rest, count - len(found)):
        found[affiliation] = "acl 2024.acl.xml"
    return list(found.items())


def main() -> None:
    rows = heldout2() if "--heldout2" in sys.argv else heldout() if "--heldout" in sys.argv else drawn()
    for affiliation, source in rows:
        sys.stdout.write(json.dumps({"affiliation": affiliation, "source": source}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
