"""Venue claims read from comments: precision and recall on a labelled sample, and how many papers gain a venue.

Each sample (tests/fixtures/venues/claims_*.json: comments of the May 2026 corpus, of April 2026 for claims_april.json,
of March 2026 for claims_march.json, of February 2026 for claims_february.json, of January 2026 for claims_january.json
and of December 2025 for claims_december.json; how drawn and how labelled is written in each file) is read by
`claims_from_comment` and compared with its labels, by status (accepted, submitted), by venue (the venues with most
labels) and, for the acceptances found, by track and year; and how many of the journals found are read as journals. A
predicted claim is right when its venue and status are the label's (venue names compared folded, a year written into the
name ignored, an unknown venue's name right when one name holds the other, two names of one catalogue venue alike: "TIP"
and "IEEE Transactions on Image Processing"). Then every paper of the corpus (tests/fixtures/corpus: each arXiv id's
last listing) is read: how many gain a venue.

    uv run python bench/venue_claims.py      (its output is the section of docs/benchmarks.md)
"""

import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papertrail.domain.venues.catalogue import default_index, fold  # noqa: E402
from papertrail.domain.venues.claims import claims_from_comment  # noqa: E402
from tests.support.sources import corpus_comments  # noqa: E402

SAMPLES = {
    "labelled while the rules were written (210 comments)": ROOT / "tests/fixtures/venues/claims_sample.json",
    "held out, labelled blind (80 comments)": ROOT / "tests/fixtures/venues/claims_heldout.json",
    "sealed before issue 41's rules, drawn and labelled blind after them (130 comments)": ROOT
    / "tests/fixtures/venues/claims_blind.json",
    "of April 2026, drawn and labelled blind after issue 41's final rules, now tuning data (300 comments)": ROOT
    / "tests/fixtures/venues/claims_april.json",
    "of March 2026, drawn and labelled blind after the rules tuned on April (300 comments)": ROOT
    / "tests/fixtures/venues/claims_march.json",
    "of February 2026, drawn and labelled blind after the rules tuned on April and March (300 comments)": ROOT
    / "tests/fixtures/venues/claims_february.json",
    "of January 2026, drawn and labelled blind after the rules tuned on April and March (300 comments)": ROOT
    / "tests/fixtures/venues/claims_january.json",
    "of December 2025, drawn and labelled blind after the rules tuned on April, March and February (200 comments)": ROOT
    / "tests/fixtures/venues/claims_december.json",
}
HEADING = "## Venue claims from comments, journals (issue 41)"


def same_venue(a: str, b: str, comment: str = "") -> bool:
    """Folded names alike (their spaces too: "IEEE Big Data" is BigData), a year written into one ignored, and its
    organisers before it ("IEEE/EMBS NER" is NER); full names alike when one holds the other ("World Conference" as
    the parser cut it, "World Conference on eXplainable Artificial Intelligence" labelled); a full name and the
    acronym its initials spell ("ACM/IEEE International Conference on Human-Robot Interaction" is HRI, the comment
    writing no acronym), or the acronym the comment writes in brackets after the full name ("ACM Conference on
    Fairness, Accountability, and Transparency (FAccT '26)")."""
    x, y = (re.sub(r"\s*\d+$", "", fold(re.sub(r"^(?:IEEE|ACM)(?:/[A-Za-z]+)*\s+", "", n))) for n in (a, b))
    if x.replace(" ", "") == y.replace(" ", "") or (" " in x and " " in y and (x in y or y in x)):  # "Big Data"
        return True
    if (
        initials_spell(a, b)
        or initials_spell(b, a)
        or written_together(comment, a, b)
        or written_together(comment, b, a)
    ):
        return True
    # one venue by two of its catalogue names: "TIP" found, "IEEE Transactions on Image Processing" labelled
    known = [default_index().resolve(re.sub(r"\s*\d{4}$", "", n)) for n in (a, b)]
    return known[0] is not None and known[0] == known[1]


# words of a venue's full name its acronym may leave out
GENERIC = {"IEEE", "ACM", "CVF", "International", "Conference", "Symposium", "Workshop", "Annual", "Proceedings"}


def initials_spell(name: str, acronym: str) -> bool:
    """The capitalised words of a full name of three words or more, split at hyphens and slashes, spell the
    acronym by their initials, each generic word ("International", "Conference", "IEEE" …) in it or not."""
    words = [w for w in re.split(r"[\s\-/]+", name) if w[:1].isupper()]
    if len(name.split()) < 3 or not re.fullmatch(r"[A-Z][A-Za-z\-]{1,11}", acronym):
        return False
    pattern = "".join(f"(?:{w[0]})?" if w in GENERIC else w[0] for w in words)
    return re.fullmatch(pattern, acronym.replace("-", "").upper()) is not None


def written_together(comment: str, name: str, acronym: str) -> bool:
    """The comment writes the name and right after it the acronym in brackets (a name cut inside itself is none)."""
    if len(name.split()) < 3 or not comment:
        return False
    pattern = re.escape(name) + r"\s*\(\s*(?:(?:IEEE|ACM)\s+)?" + re.escape(acronym) + r"\b"
    return re.search(pattern, comment, re.IGNORECASE) is not None


def ratio(n: int, d: int) -> str:
    return f"{n / d:.3f} ({n}/{d})" if d else "n/a (0/0)"


def main() -> None:
    print(HEADING, "\n")
    for title, path in SAMPLES.items():
        print(f"### Sample {title}\n")
        measure(json.loads(path.read_text(encoding="utf-8"))["rows"])
    corpus()


def measure(rows: list[dict]) -> None:
    index = default_index()
    found = Counter[str]()  # predicted claims per status
    right = Counter[str]()  # predicted claims that match a label, per status
    labelled = Counter[str]()
    recalled = Counter[str]()
    per_venue: dict[str, Counter[str]] = defaultdict(Counter)
    track_right = track_seen = year_right = 0
    journals = Counter[str]()  # journal labels found, and read as journals; journals read that are labelled not
    per_track: dict[str, Counter[str]] = defaultdict(Counter)  # acceptances: claims of a track, labels of it
    wrong: list[str] = []
    for row in rows:
        predicted = claims_from_comment(row["comment"], index)
        expected = row["expected"]
        for claim in predicted:
            found[claim.status] += 1
            match = next(
                (
                    e
                    for e in expected
                    if same_venue(e["venue"], claim.venue, row["comment"]) and e["status"] == claim.status
                ),
                None,
            )
            if match is None:
                wrong.append(f"{row['id']}: predicted {claim.status} {claim.venue} {claim.year} ({claim.track})")
                per_venue[claim.venue]["fp"] += 1
                continue
            right[claim.status] += 1
            per_venue[match["venue"]]["tp"] += 1
            if claim.status == "accepted":
                per_track[claim.track]["claimed"] += 1
                per_track[claim.track]["right"] += claim.track == match["track"]
                track_seen += 1
                track_right += claim.track == match["track"]
                year_right += claim.year == match["year"]
                if claim.track != match["track"]:
                    wrong.append(f"{row['id']}: track {claim.track}, labelled {match['track']}")
                if claim.year != match["year"]:
                    wrong.append(f"{row['id']}: year {claim.year}, labelled {match['year']}")
            if match["track"] == "journal":
                journals["found"] += 1
                journals["read"] += claim.track == "journal"
            elif claim.track == "journal":
                journals["not"] += 1
        for label in expected:
            labelled[label["status"]] += 1
            if label["status"] == "accepted":
                per_track[label["track"]]["labelled"] += 1
                per_track[label["track"]]["found"] += any(
                    same_venue(label["venue"], c.venue, row["comment"])
                    and c.status == "accepted"
                    and c.track == label["track"]
                    for c in predicted
                )
            if any(
                same_venue(label["venue"], c.venue, row["comment"]) and label["status"] == c.status for c in predicted
            ):
                recalled[label["status"]] += 1
            else:
                per_venue[label["venue"]]["fn"] += 1
                wrong.append(f"{row['id']}: missed {label['status']} {label['venue']} {label['year']}")

    print(f"Labelled sample: {len(rows)} comments, {sum(labelled.values())} labelled claims.\n")
    print("| status | precision | recall |\n|---|---|---|")
    for status in ("accepted", "submitted"):
        print(f"| {status} | {ratio(right[status], found[status])} | {ratio(recalled[status], labelled[status])} |")
    print(f"\nTrack right among the acceptances found: {ratio(track_right, track_seen)}; year right: ", end="")
    print(f"{ratio(year_right, track_seen)}")
    print(
        f"\nJournals (accepted or submitted) found and read as journals: {ratio(journals['read'], journals['found'])};"
        f" claims read as a journal that the label says is none: {journals['not']}\n"
    )
    print("| accepted, track | precision | recall |\n|---|---|---|")
    for track, c in sorted(per_track.items(), key=lambda item: -item[1]["labelled"]):
        print(f"| {track} | {ratio(c['right'], c['claimed'])} | {ratio(c['found'], c['labelled'])} |")
    print()
    print("| venue | right | wrong | missed |\n|---|---|---|---|")
    top = sorted(per_venue, key=lambda v: -(per_venue[v]["tp"] + per_venue[v]["fn"]))[:10]
    for venue in top:
        c = per_venue[venue]
        print(f"| {venue} | {c['tp']} | {c['fp']} | {c['fn']} |")
    print("\nDisagreements:\n")
    for line in wrong:
        print(f"- {line}")
    print()


def corpus() -> None:
    index = default_index()
    papers = corpus_comments()
    started = time.perf_counter()
    claims = {pid: claims_from_comment(comment, index) for pid, comment in papers.items()}
    elapsed = time.perf_counter() - started
    accepted = {p for p, cs in claims.items() if any(c.status == "accepted" for c in cs)}
    catalogued = {p for p, cs in claims.items() if any(c.status == "accepted" and c.venue_key for c in cs)}
    main_track = {
        p for p, cs in claims.items() if any(c.status == "accepted" and c.venue_key and c.track == "main" for c in cs)
    }
    ranked = Counter(
        next(c.ccf_rank for c in cs if c.status == "accepted" and c.ccf_rank)
        for cs in claims.values()
        if any(c.status == "accepted" and c.ccf_rank for c in cs)
    )
    submitted = {p for p, cs in claims.items() if cs and all(c.status == "submitted" for c in cs)}
    n = len(papers)
    print(f"### The corpus\n\n{n} papers ({sum(1 for c in papers.values() if c)} with a comment).\n")
    print(f"- accepted somewhere: {len(accepted)} ({len(accepted) / n:.1%})")
    print(f"- accepted at a catalogue venue: {len(catalogued)}; in its main track: {len(main_track)}")
    ranks = ", ".join(f"CCF-{r} {k}" for r, k in sorted(ranked.items()))
    print(f"- with a CCF rank (main, findings or a journal): {ranks}")
    print(f"- only submitted / under review: {len(submitted)}")
    print(f"- reading every comment: {elapsed * 1000:.0f} ms ({elapsed / n * 1e6:.0f} µs a paper)")


if __name__ == "__main__":
    main()
