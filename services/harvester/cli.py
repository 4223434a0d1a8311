"""`papertrail harvest <source>` and `papertrail import FILE`: arguments and dispatch (the work is in manual.py)."""

import argparse
import asyncio
import datetime as dt
import sys
from pathlib import Path
from typing import Any

from services.harvester.settings import KNOWN_SOURCES


def add_commands(commands: Any) -> None:
    """Register `harvest` and `import` on the papertrail command's subparsers."""
    harvest_cmd = commands.add_parser("harvest", help="harvest one source now (manual run or backfill)")
    harvest_cmd.add_argument("source", choices=KNOWN_SOURCES)
    harvest_cmd.add_argument("--from", dest="from_date", metavar="DATE", help="backfill from YYYY-MM-DD")
    harvest_cmd.add_argument("--until", dest="until_date", metavar="DATE", help="up to YYYY-MM-DD")
    import_cmd = commands.add_parser("import", help="bulk-import a Kaggle arXiv snapshot or a corpus file")
    import_cmd.add_argument("file", type=Path)
    import_cmd.add_argument("--format", choices=["kaggle", "corpus"], help="default: recognised from the first line")
    import_cmd.add_argument("--restart", action="store_true", help="from the first line, ignoring the checkpoint")


def main(args: argparse.Namespace) -> None:
    """Dispatch `harvest` / `import` (called by papertrail_tools.cli)."""
    from services.harvester.manual import harvest, import_file

    if args.command == "harvest":
        for value in (args.from_date, args.until_date):
            if value is not None and not _is_date(value):
                sys.exit(f"papertrail harvest: {value!r} is not a date YYYY-MM-DD")
        sys.exit(asyncio.run(harvest(args.source, args.from_date, args.until_date)))
    if not args.file.is_file():
        sys.exit(f"papertrail import: {args.file} is not a file")
    sys.exit(asyncio.run(import_file(args.file, args.format, args.restart)))


def _is_date(value: str) -> bool:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10
