"""`papertrail harvest <source>` and `papertrail import FILE`: arguments and dispatch (the work is in manual.py)."""

import argparse
import asyncio
import datetime as dt
import sys
from pathlib import Path
from typing import Any

from papertrail.domain.paper_ids import ARXIV_VERSION, is_arxiv_id
from services.harvester.settings import KNOWN_SOURCES


def add_commands(commands: Any) -> None:
    """Register `harvest` and `import` on the papertrail command's subparsers."""
    harvest_cmd = commands.add_parser("harvest", help="harvest one source now (manual run or backfill)")
    harvest_cmd.add_argument("source", choices=KNOWN_SOURCES)
    harvest_cmd.add_argument("--from", dest="from_date", metavar="DATE", help="backfill from YYYY-MM-DD")
    harvest_cmd.add_argument("--until", dest="until_date", metavar="DATE", help="up to YYYY-MM-DD")
    harvest_cmd.add_argument(
        "--ids", nargs="+", metavar="ID", help="arxiv only: fetch these papers now (a gap the announcement left)"
    )
    harvest_cmd.add_argument(
        "--held",
        action="store_true",
        help="arxiv_html only: first queue the first page of every arXiv paper the store holds (the back catalogue)",
    )
    import_cmd = commands.add_parser(
        "import", help="bulk-import a Kaggle arXiv snapshot, a corpus file or DBLP's dblp.xml.gz dump"
    )
    import_cmd.add_argument("file", type=Path)
    import_cmd.add_argument(
        "--format", choices=["kaggle", "corpus", "dblp"], help="default: recognised from the start of the file"
    )
    import_cmd.add_argument("--restart", action="store_true", help="from the first line, ignoring the checkpoint")


def main(args: argparse.Namespace) -> None:
    """Dispatch `harvest` / `import` (called by papertrail_tools.cli)."""
    from services.harvester.manual import harvest, harvest_ids, import_file

    if args.command == "harvest":
        for value in (args.from_date, args.until_date):
            if value is not None and not _is_date(value):
                sys.exit(f"papertrail harvest: {value!r} is not a date YYYY-MM-DD")
        if args.ids:
            sys.exit(asyncio.run(harvest_ids(_arxiv_ids(args))))
        if args.held and args.source != "arxiv_html":
            sys.exit("papertrail harvest: --held goes with the source arxiv_html")
        sys.exit(asyncio.run(harvest(args.source, args.from_date, args.until_date, held=args.held)))
    if not args.file.is_file():
        sys.exit(f"papertrail import: {args.file} is not a file")
    sys.exit(asyncio.run(import_file(args.file, args.format, args.restart)))


def _is_date(value: str) -> bool:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def _arxiv_ids(args: argparse.Namespace) -> list[str]:
    """The ids as GetRecord takes them (no version, no `arXiv:`), each once; exits naming a bad one."""
    if args.source != "arxiv" or args.from_date or args.until_date:
        sys.exit("papertrail harvest: --ids goes with the source arxiv and without --from/--until")
    ids: list[str] = []
    for given in args.ids:
        arxiv_id = ARXIV_VERSION.sub("", given.removeprefix("arXiv:").removeprefix("arxiv:"))
        if not is_arxiv_id(arxiv_id):
            sys.exit(f"papertrail harvest: {given!r} is not an arXiv id (2401.12345 or hep-th/9901001)")
        if arxiv_id not in ids:
            ids.append(arxiv_id)
    return ids
