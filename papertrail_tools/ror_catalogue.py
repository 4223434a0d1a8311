"""`papertrail institutions refresh`: rebuild papertrail/domain/institutions/ror-catalogue.json.gz from ROR's records.

A maintainer's command, like `papertrail venues refresh`: its output is committed with the code. It reads
ror-community/ror-records (a checkout, a bare git copy or a zip of it: one folder per release, each holding the
records that release added or changed, so the latest release of a record wins) or a ROR data dump (a zip or a
JSON file with all records in one array). Both of ROR's record schemas are read (v1: `name`, `aliases`, `labels`;
v2: `names` with their types)."""

import re
import subprocess
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import orjson

from papertrail.domain.institutions.catalogue import CATALOGUE_PATH, Institution, RorCatalogue

LICENSE = "CC0 1.0 (public domain dedication): https://ror.org/about/faqs/#is-ror-data-free-to-use"
RELEASE = re.compile(r"^v(\d+(?:\.\d+)*)$")
ROR_ID = re.compile(r"^https://ror\.org/(0[a-z0-9]{6}[0-9]{2})$")
# Withdrawn records (duplicates, errors) are left out; inactive ones are kept: older papers name organisations that
# have since closed or merged.
KEPT_STATUSES = ("active", "inactive")


_SITE_PREFIXES = ("www.", "english.", "en.")


class RecordError(ValueError):
    pass


@dataclass
class Built:
    catalogue: RorCatalogue
    dropped: dict[str, int] = field(default_factory=dict)  # status → records left out
    errors: list[str] = field(default_factory=list)  # "where: what is wrong"


def _release_key(name: str) -> tuple[int, ...] | None:
    match = RELEASE.match(name)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def _host(url: str) -> str | None:
    try:
        host = urlsplit(url if "//" in url else f"//{url}").hostname
    except ValueError:
        return None
    if not host or "." not in host:
        return None
    host = host.lower()
    for prefix in _SITE_PREFIXES:  # a website's language or www host: the domain is what follows
        host = host.removeprefix(prefix)
    return host


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.strip() for v in values if v and v.strip()))


def institution(record: dict) -> tuple[Institution, str]:  # type: ignore[type-arg]
    """One ROR record of either schema → (the catalogue's record, its status)."""
    match = ROR_ID.match(str(record.get("id", "")))
    if not match:
        raise RecordError(f"no ROR id: {record.get('id')!r}")
    ror = match.group(1)
    status = str(record.get("status", "active")).lower()
    links: list[str] = []
    if "names" in record:  # schema v2
        names = record["names"]
        name = next((n["value"] for n in names if "ror_display" in n["types"]), None)
        if name is None:
            raise RecordError(f"{ror}: no ror_display name")
        aliases = [n["value"] for n in names if "alias" in n["types"]]
        acronyms = [n["value"] for n in names if "acronym" in n["types"]]
        labels = [(n.get("lang") or "", n["value"]) for n in names if "label" in n["types"] and n["value"] != name]
        countries = [loc["geonames_details"].get("country_code") for loc in record.get("locations") or []]
        domains = list(record.get("domains") or [])
        links = [link["value"] for link in record.get("links") or [] if link.get("type") == "website"]
        relation = {"parent": "parents", "child": "children"}
        relations = [(relation.get(r["type"].lower()), r["id"]) for r in record.get("relationships") or []]
    else:  # schema v1
        name = record.get("name")
        if not name:
            raise RecordError(f"{ror}: no name")
        aliases = list(record.get("aliases") or [])
        acronyms = list(record.get("acronyms") or [])
        labels = [(label.get("iso639") or "", label["label"]) for label in record.get("labels") or []]
        countries = [(record.get("country") or {}).get("country_code")]
        domains = []
        links = list(record.get("links") or [])
        if record.get("email_address") and "@" in record["email_address"]:
            domains.append(record["email_address"].rsplit("@", 1)[1])
        relation = {"parent": "parents", "child": "children"}
        relations = [(relation.get(r["type"].lower()), r["id"]) for r in record.get("relationships") or []]
    hosts = [_host(domain) for domain in domains + links]
    linked: dict[str, list[str]] = {"parents": [], "children": []}
    for kind, other in relations:
        other_id = ROR_ID.match(str(other))
        if kind and other_id:
            linked[kind].append(other_id.group(1))
    return (
        Institution(
            id=ror,
            name=name.strip(),
            aliases=_unique(aliases),
            acronyms=_unique(acronyms),
            labels=tuple(dict.fromkeys((lang.lower(), value.strip()) for lang, value in labels if value.strip())),
            types=_unique([str(t).lower() for t in record.get("types") or []]),
            country=next((c.upper() for c in countries if c), None),
            domains=_unique([h for h in hosts if h]),
            parents=_unique(linked["parents"]),
            children=_unique(linked["children"]),
            active=status == "active",
        ),
        status,
    )


# A source yields (release key, path, the file's bytes): records of later releases replace earlier ones.
Files = Iterator[tuple[tuple[int, ...], str, bytes]]


def _release_of(path: str) -> tuple[int, ...] | None:
    parts = PurePosixPath(path).parts
    return _release_key(parts[0]) if len(parts) >= 2 and parts[-1].endswith(".json") else None


def _from_git(root: Path) -> Files:
    listing = subprocess.run(
        ["git", "-C", str(root), "ls-tree", "-r", "HEAD"], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    entries = [(line.split()[2], line.split("\t", 1)[1]) for line in listing.splitlines() if "\t" in line]
    entries = [(blob, path) for blob, path in entries if _release_of(path) is not None]
    batch = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch"],
        input="".join(f"{blob}\n" for blob, _ in entries).encode(),
        capture_output=True,
        check=True,
        timeout=600,
    ).stdout
    offset = 0
    for _, path in entries:
        header_end = batch.index(b"\n", offset)
        size = int(batch[offset:header_end].split()[2])
        yield _release_of(path) or (), path, batch[header_end + 1 : header_end + 1 + size]
        offset = header_end + 1 + size + 1


def _from_zip(path: Path) -> Files:
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            inner = member.split("/", 1)[1] if member.count("/") and not _release_of(member) else member
            release = _release_of(inner)
            if release is not None:
                yield release, member, archive.read(member)
            elif member.endswith(".json"):  # a data dump: every record in one array
                yield (), member, archive.read(member)


def _from_folder(root: Path) -> Files:
    for path in sorted(root.rglob("*.json")):
        relative = path.relative_to(root).as_posix()
        yield _release_of(relative) or (), relative, path.read_bytes()


def _files(source: Path) -> Files:
    if source.is_file() and source.suffix == ".zip":
        return _from_zip(source)
    if source.is_file():
        return iter([((), source.name, source.read_bytes())])
    if not any(_release_key(child.name) for child in source.iterdir()) and (source / "HEAD").is_file():
        return _from_git(source)  # a bare copy: no work tree
    return _from_folder(source)


def build(source: Path) -> Built:
    """Every record in `source`, the latest release of each; one that cannot be read is named and left out."""
    latest: dict[str, tuple[tuple[int, ...], bool, Institution, str]] = {}
    errors: list[str] = []
    releases: set[tuple[int, ...]] = set()
    for release, path, data in _files(source):
        try:
            document = orjson.loads(data)
        except orjson.JSONDecodeError as error:
            errors.append(f"{path}: not JSON: {error}")
            continue
        records = document if isinstance(document, list) else [document]
        v2_schema = "/v1/" not in f"/{path}"  # a release with both schemas: its v2 copy wins
        for record in records:
            if not isinstance(record, dict):
                errors.append(f"{path}: not a record")
                continue
            try:
                parsed, status = institution(record)
            except (RecordError, KeyError, TypeError, AttributeError) as error:
                errors.append(f"{path}: {error}")
                continue
            releases.add(release)
            previous = latest.get(parsed.id)
            if previous is None or (release, v2_schema) >= previous[:2]:
                latest[parsed.id] = (release, v2_schema, parsed, status)
    dropped: dict[str, int] = {}
    kept: dict[str, Institution] = {}
    for _, _, record, status in sorted(latest.values(), key=lambda entry: entry[2].id):
        if status in KEPT_STATUSES:
            kept[record.id] = record
        else:
            dropped[status] = dropped.get(status, 0) + 1
    newest: tuple[int, ...] = sorted(releases)[-1] if releases else ()
    up_to = f"v{'.'.join(map(str, newest))}" if newest else "a data dump"
    origin = f"{_origin(source)}; records of releases up to {up_to}, the latest release of each"
    return Built(RorCatalogue(origin, LICENSE, kept), dropped, errors)


def _origin(source: Path) -> str:
    commit = ""
    if source.is_dir():
        try:
            commit = subprocess.run(
                ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True, check=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            commit = ""
        top = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "--show-toplevel"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
        if top and Path(top).resolve() != source.resolve():  # a copy inside another repository: not its commit
            commit = ""
    where = f"commit {commit}" if commit else source.name
    return f"ROR, https://ror.org (ror-community/ror-records, https://github.com/ror-community/ror-records, {where})"


def refresh(source: Path, out: Path = CATALOGUE_PATH) -> int:
    """Write the catalogue; 1 when a record was bad (named; the rest is still written), else 0."""
    import gzip

    built = build(source)
    out.write_bytes(gzip.compress(built.catalogue.to_json(), compresslevel=9, mtime=0))
    institutions = built.catalogue.institutions.values()
    chinese = sum(record.name_zh is not None for record in institutions)
    inactive = sum(not record.active for record in institutions)
    print(
        f"wrote {out} ({out.stat().st_size:,} bytes): {len(built.catalogue.institutions)} institutions, "
        f"{inactive} inactive, {chinese} with a Chinese label; left out: "
        + (", ".join(f"{n} {status}" for status, n in sorted(built.dropped.items())) or "none")
    )
    for error in built.errors:
        print(f"skipped {error}")
    return 1 if built.errors else 0
