"""Code, data, model, demo and project links found in real abstracts and comments, and what the normalizer
makes of them: a link found in the text where no source gave one, a source's own field winning, the text kept."""

import dataclasses
import json
from datetime import UTC, datetime

import pytest

from services.normalizer.identity import merge
from services.normalizer.links import clean_url, found_links, link_kind
from services.normalizer.parsers.arxiv_oai import arxiv_links
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import ParsedRecord
from tests.support.paths import SOURCES
from tests.support.sources import HF_FILES, acl_records, corpus_records, hf_records, oai_records, raw_record

NOW = datetime(2026, 11, 30, tzinfo=UTC)
AI = frozenset({"cs.CL", "cs.LG", "cs.CV"})
ACL_2023 = SOURCES / "acl/2023.acl-long-2-3-5.xml"

# (arXiv id of the May 2026 corpus line the text is quoted from, the text, the links expected)
REAL_TEXTS = [
    (  # line wrap and a full stop after the URL
        "2605.15736",
        "under prompt perturbations.\n  Our code is available at: https://github.com/tongdiedie/BiomedAP.\n  Keywords:",
        {"code": "https://github.com/tongdiedie/BiomedAP"},
    ),
    (  # LaTeX \url{…} and the full stop after it
        "2605.17672",
        r"Our code is available at \url{https://github.com/giovanni-vaccarino/PUMA}.",
        {"code": "https://github.com/giovanni-vaccarino/PUMA"},
    ),
    (  # LaTeX \href{…}{…}
        "2604.27691",
        r"The code is available on \href{https://github.com/cf3i/SocialSystemArena}{GitHub}.",
        {"code": "https://github.com/cf3i/SocialSystemArena"},
    ),
    (  # a space after "github."
        "2605.03148",
        "Code is available at https://github. com/jonasvilhofunk/WildfireUQ-FCER",
        {"code": "https://github.com/jonasvilhofunk/WildfireUQ-FCER"},
    ),
    (  # a space in the scheme
        "2605.13794",
        "Our code is available at https: //github.com/AkierRaee/BlitzGS.",
        {"code": "https://github.com/AkierRaee/BlitzGS"},
    ),
    (  # one slash in the scheme
        "2605.30093",
        "Code and model can be found at https:/github.com/GenIntel/3D-SC.",
        {"code": "https://github.com/GenIntel/3D-SC"},
    ),
    (  # the clone address: the repository's page is linked
        "2604.27968",
        "Code available at https://github.com/KathPra/ClimateVID.git.",
        {"code": "https://github.com/KathPra/ClimateVID"},
    ),
    (  # no scheme at all
        "2605.03315",
        "Code is available: github.com/tavisshore/TACO.",
        {"code": "https://github.com/tavisshore/TACO"},
    ),
    (  # a LaTeX command glued to the URL
        "2605.30000",
        r"on interactive web generation. \noindenthttps://anonymous.4open.science/r/Cookie-3CE/",
        {"code": "https://anonymous.4open.science/r/Cookie-3CE/"},
    ),
    (  # a Hugging Face dataset (hf.co) then a semicolon; the tool's own site is no kind
        "2605.14164",
        "Data: https://hf.co/datasets/matybohacek/benchmarking-cultures-25; tool: https://bench-cultures.net.",
        {"dataset": "https://hf.co/datasets/matybohacek/benchmarking-cultures-25"},
    ),
    (  # a Hugging Face model beside the code
        "2605.11061",
        "Source codes and models are available at Github: https://github.com/HiDream-ai/HiDream-O1-Image and "
        "Huggingface: https://huggingface.co/HiDream-ai/HiDream-O1-Image",
        {
            "code": "https://github.com/HiDream-ai/HiDream-O1-Image",
            "model": "https://huggingface.co/HiDream-ai/HiDream-O1-Image",
        },
    ),
    (  # a Space (demo) on hf.space, then the code
        "2605.22564",
        "A demo of SynAE is available at https://synae-2026-synae-demo.static.hf.space/index.html, with code at "
        "https://github.com/wsqwsq/SynAE.",
        {
            "demo": "https://synae-2026-synae-demo.static.hf.space/index.html",
            "code": "https://github.com/wsqwsq/SynAE",
        },
    ),
    (  # a project page on its own host, said so before it
        "2604.27871",
        "relightable avatar baselines. Project page is https://vcai.mpi-inf.mpg.de/projects/DRex/",
        {"project": "https://vcai.mpi-inf.mpg.de/projects/DRex/"},
    ),
    (  # a project page inside LaTeX math and \href
        "2604.27422",
        r"Our project page is available at $\href{https://robotic-vision-lab.github.io/SaveWildGS/}{here}$",
        {"project": "https://robotic-vision-lab.github.io/SaveWildGS/"},
    ),
    (  # comments: the code, then "Project:"
        "2605.01030",
        "15 pages. Companion proofs: https://github.com/mashin-live/governance-proofs. Project: https://mashin.live",
        {"code": "https://github.com/mashin-live/governance-proofs", "project": "https://mashin.live"},
    ),
    (  # a DOI and a blog are none of the kinds
        "2605.02392",
        "Accepted to SIGIR 2026 https://doi.org/10.1145/3805712.3809576",
        {},
    ),
    ("2604.27470", "Data link in paper; Blog: https://openai.com/index/making-chatgpt-better-for-clinicians/", {}),
]


@pytest.mark.parametrize(("arxiv_id", "text", "expected"), REAL_TEXTS, ids=[case[0] for case in REAL_TEXTS])
def test_links_in_real_abstracts_and_comments(arxiv_id: str, text: str, expected: dict[str, str]) -> None:
    assert found_links(text) == expected


def test_the_quoted_texts_are_in_the_corpus() -> None:
    """The cases above are quoted from the corpus lines they name (summary or comment, white space squashed)."""
    lines = {r.record_id: json.loads(r.content) for r in corpus_records() if r.record_id in {c[0] for c in REAL_TEXTS}}
    for arxiv_id, text, _ in REAL_TEXTS:
        line = lines[arxiv_id]
        assert " ".join(text.split()) in " ".join(f"{line['summary']} {line['comment'] or ''}".split()), arxiv_id


def test_first_link_of_a_kind_wins_and_the_abstract_comes_before_the_comments() -> None:
    abstract = "Code: https://github.com/a/first and https://github.com/a/second."
    assert found_links(abstract, "Code: https://github.com/a/third")["code"] == "https://github.com/a/first"
    assert found_links(None, "", "Code: https://github.com/a/third") == {"code": "https://github.com/a/third"}


def test_kinds_by_host_and_path() -> None:
    assert link_kind("https://github.com/mianzhang/SafeConv") == "code"
    assert link_kind("https://gitlab.com/group/sub/project") == "code"
    assert link_kind("https://github.com/features/copilot") is None  # the site's own page
    assert link_kind("https://github.com") is None
    assert link_kind("https://huggingface.co/datasets/squad") == "dataset"
    assert link_kind("https://huggingface.co/spaces/willchow66/robustbench-tc-leaderboard") == "demo"
    assert link_kind("https://huggingface.co/Zyphra/ZAYA1-VL") == "model"
    assert link_kind("https://huggingface.co/CARD-Data") is None  # an organization: which kind is unknown
    assert link_kind("https://huggingface.co/papers/2401.14038") is None  # the paper page is the `hf` link
    assert link_kind("https://la-pose.github.io/") == "project"
    assert link_kind("https://anonymous.4open.science/r/ARMOR-E13F") == "code"


def test_url_cleaning_keeps_balanced_parentheses() -> None:
    assert clean_url("https://github.com/YuweiYin/IntentGrasp),") == "https://github.com/YuweiYin/IntentGrasp"
    assert clean_url("https://en.wikipedia.org/wiki/Graph_(abstract_data_type)).") == (
        "https://en.wikipedia.org/wiki/Graph_(abstract_data_type)"
    )
    assert clean_url("github.com/tavisshore/TACO") == "https://github.com/tavisshore/TACO"


def test_text_without_links_and_e_mail_addresses_give_none() -> None:
    assert found_links("We study things (e.g. graphs) at scale.") == {}
    assert found_links("Correspondence: someone@github.com") == {}


def _paper_links(*records: ParsedRecord) -> dict[str, str]:
    """The links of the paper the records make, merged in this order."""
    paper = None
    for seq, record in enumerate(records, start=1):
        change = merge(paper, record, content_hash=f"h{seq}", now=NOW, ai_categories=AI, next_seq=seq)
        assert change is not None
        paper = change.paper
    assert paper is not None
    return paper.links


def test_an_oai_pmh_record_with_a_github_url_in_its_abstract_gets_a_code_link() -> None:
    """arXiv 2401.14038 (oai_dc, no code field): "Source code is available at https://github.com/Regan-Zhang/HaDis."."""
    raw = next(
        r
        for r in oai_records("oai_dc/atomiklabs_test_arxiv_data_listrecords_cs.xml", "oai_dc")
        if "14038" in r.record_id
    )
    record = parse_raw(raw)
    assert "code" not in record.links
    change = merge(None, record, content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert change is not None
    assert change.paper.links["code"] == "https://github.com/Regan-Zhang/HaDis"
    assert change.paper.abstract.endswith("Source code is available at https://github.com/Regan-Zhang/HaDis.")
    assert "links" in change.version.changed_fields


def test_acl_papers_whose_abstract_holds_the_repository_get_a_code_link() -> None:
    records = {r.record_id: parse_raw(r) for r in acl_records(ACL_2023)}
    safeconv = _paper_links(records["2023.acl-long.2"])
    assert safeconv["code"] == "https://github.com/mianzhang/SafeConv"
    assert safeconv["doi"] == "https://doi.org/10.18653/v1/2023.acl-long.2"  # the source's links are all kept
    assert _paper_links(records["2023.acl-long.5"])["code"] == (
        "https://github.com/facebookresearch/Ternary_Binary_Transformer"
    )
    assert "code" not in _paper_links(records["2023.acl-long.3"])  # "We release the code" names no place


def test_a_source_field_wins_over_a_found_link_of_its_kind_in_either_order() -> None:
    """Hugging Face's projectPage for 2509.10884 ends in "/", the abstract's link does not. The arXiv record
    of the paper is made from the same item: the same abstract, arXiv's links, no project field."""
    hf = next(parse_raw(r) for r in hf_records(HF_FILES[1]) if r.record_id == "2509.10884")
    arxiv = dataclasses.replace(hf, source="arxiv", links=arxiv_links("2509.10884"), community=None)
    assert found_links(hf.abstract)["project"] == "https://aigeeksgroup.github.io/Nav-R1"
    for order in ((hf, arxiv), (arxiv, hf)):
        links = _paper_links(*order)
        assert links["project"] == "https://aigeeksgroup.github.io/Nav-R1/"
        assert links["code"] == "https://github.com/AIGeeksGroup/Nav-R1"
    assert _paper_links(arxiv)["project"] == "https://aigeeksgroup.github.io/Nav-R1"  # alone, the found one


def test_the_listing_corpus_code_url_gives_way_to_the_link_in_the_text() -> None:
    """The listing's code_url was cut by a character ("…/vkspla") for 2605.00219, and is a project page for
    2605.29661: the abstract's own links are kept, under their kinds."""
    lines = {r.record_id: parse_raw(r) for r in corpus_records() if r.record_id in {"2605.00219", "2605.29661"}}
    assert _paper_links(lines["2605.00219"])["code"] == "https://github.com/harry7557558/vksplat"
    homepage = _paper_links(lines["2605.29661"])
    assert "code" not in homepage and homepage["project"] == "https://GODeform.github.io/"


def test_the_corpus_code_url_counts_where_the_text_gives_no_link_of_its_kind() -> None:
    """2605.15736's line with the sentence naming the repository taken out of its abstract."""
    line = json.loads(next(r for r in corpus_records() if r.record_id == "2605.15736").content)
    assert line["code_url"] == "https://github.com/tongdiedie/BiomedAP"
    line["summary"] = line["summary"].replace("Our code is available at: https://github.com/tongdiedie/BiomedAP.", "")
    record = parse_raw(raw_record("corpus", "2605.15736", "corpus_json", json.dumps(line)))
    assert _paper_links(record)["code"] == "https://github.com/tongdiedie/BiomedAP"


def test_chinese_labels_and_punctuation() -> None:
    text = "项目主页：https://example.org/p。代码：https://github.com/x/y，数据见 https://huggingface.co/datasets/x/y）"
    assert found_links(text) == {
        "project": "https://example.org/p",
        "code": "https://github.com/x/y",
        "dataset": "https://huggingface.co/datasets/x/y",
    }


def test_a_source_link_that_is_no_web_link_is_dropped_when_the_record_is_read() -> None:
    """Hugging Face's item for 2509.12201 with its `githubRepo` a `javascript:` URL (as a hostile or broken upstream
    could send it): the record is read without that link, which is named for the log and the count; the item's other
    links and the rest of the record are kept. Every parser's links pass the same check (`parse_raw`)."""
    item = next(i for i in json.loads(HF_FILES[1].read_text()) if i["paper"]["id"] == "2509.12201")
    item["paper"]["githubRepo"] = "javascript:alert(document.cookie)"
    record = parse_raw(raw_record("hf", "2509.12201", "hf_daily_json", json.dumps(item), datestamp="2025-09-16"))
    assert "code" not in record.links
    assert record.links["project"] == "https://yangzhou24.github.io/OmniWorld/"
    assert record.links["hf"] == "https://huggingface.co/papers/2509.12201" and "abs" in record.links
    assert record.dropped_links == {"code": "javascript:alert(document.cookie)"}
    assert record.title.startswith("OmniWorld") and record.community is not None
    clean = parse_raw(next(r for r in hf_records(HF_FILES[1]) if r.record_id == "2509.12201"))
    assert clean.dropped_links == {} and clean.links["code"] == "https://github.com/yangzhou24/OmniWorld"
