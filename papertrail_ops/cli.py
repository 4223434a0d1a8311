"""The operators' command, `papertrail-ops` (the image's entry point): run a service, the stored data's
migrations, users, readers' error reports, dead letters, manual harvests and imports. It sits above the services
(it imports their operator commands); no service imports it, and it imports none of the developer tooling: the
developers' `papertrail` command (papertrail_tools/cli.py) is this one plus the tools (local stack, run, demo,
replay, smoke, settings, schemas)."""

import argparse
import getpass
import runpy
import sys
from typing import Any

from papertrail_ops.roster import SERVICES


def run_service(name: str) -> None:
    """`papertrail NAME` is `python -m services.NAME`: the service starts itself."""
    runpy.run_module(f"services.{name}", run_name="__main__", alter_sys=True)


def add_commands(commands: Any) -> None:
    """Register the operators' commands on a command's subparsers (this one's, or the developers' `papertrail`)."""
    for name in SERVICES:
        commands.add_parser(name, help=f"run the {name} service")
    users = commands.add_parser("users", help="create users, delete one and all of theirs")
    users.add_argument("action", choices=["create", "delete", "password", "confirm"])
    users.add_argument(
        "name", help="create: the user's name; delete, password, confirm: the user's name or account address"
    )
    users.add_argument("--email", help="password: also make this the user's account address (to sign in with)")
    corrections = commands.add_parser(
        "corrections", help="readers' error reports (纠错): list them, close one, apply one on institutions"
    )
    corrections.add_argument("action", choices=["list", "close", "apply"])
    corrections.add_argument("id", nargs="?", help="close, apply: the report's id (as listed)")
    corrections.add_argument(
        "--status", choices=["open", "closed", "applied"], help="list: only reports with this status"
    )
    corrections.add_argument("--author", type=int, help="apply: the author's position (1 for the first)")
    corrections.add_argument("--ror", help="apply: the ROR id of the author's institution (e.g. 03cve4549)")
    corrections.add_argument("--name", help="apply, with --ror: the record's name (default: the ROR catalogue's)")
    corrections.add_argument("--name-zh", help="apply, with --ror: its Chinese label (default: the catalogue's)")
    corrections.add_argument("--country", help="apply, with --ror: its country code, CN (default: the catalogue's)")
    corrections.add_argument("--affiliation", help="apply: the affiliation as written (alone: matched to no record)")
    from services.harvester.cli import add_commands as add_harvester_commands

    add_harvester_commands(commands)
    dlq = commands.add_parser("dlq", help="show dead letters, or re-publish them to the topic they came from")
    dlq.add_argument("action", choices=["list", "replay"])
    dlq.add_argument("--topic", help="source topic (or its .dlq); default: every dead-letter topic")
    migrate = commands.add_parser("migrate", help="run the stored data's pending numbered migrations (once each)")
    migrate.add_argument("--list", action="store_true", help="show every migration and when it was applied")
    migrate.add_argument("--again", type=int, metavar="N", help="run migration N again, though it was applied")


def run(args: argparse.Namespace) -> bool:
    """Carry out an operators' command; False when `args.command` is not one of them."""
    if args.command in SERVICES:
        run_service(args.command)
    elif args.command == "users":
        from services.query.readers.accounts.cli import confirm_user, create_user, delete_user, set_password

        if args.action == "delete":
            sys.exit(delete_user(args.name))
        if args.action == "confirm":
            sys.exit(confirm_user(args.name))
        if args.action == "password":  # from the terminal unechoed, or one line of standard input
            password = getpass.getpass("new password: ") if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
            sys.exit(set_password(args.name, args.email, password))
        user_id, token = create_user(args.name)
        print(f"user {args.name} ({user_id}) created; API token (shown once):\n{token}")
    elif args.command == "corrections" and args.action == "apply":
        from papertrail_ops.corrections import apply_command

        named = {k: getattr(args, k) for k in ("affiliation", "ror", "name", "name_zh", "country")}
        sys.exit(apply_command(args.id, args.author, **named))
    elif args.command == "corrections":
        from services.query.readers.accounts.cli import corrections_command

        sys.exit(corrections_command(args.action, args.id, args.status))
    elif args.command == "dlq":
        from papertrail.runtime import dlq as dead_letters

        sys.exit(dead_letters.run(args.action, args.topic))
    elif args.command == "migrate":
        from papertrail_ops import migrate

        sys.exit(migrate.run(args.again, args.list))
    elif args.command in ("harvest", "import"):
        from services.harvester.cli import main as harvester_main

        harvester_main(args)
    else:
        return False
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="papertrail-ops", description="PaperTrail (研踪): the operators' command")
    add_commands(parser.add_subparsers(dest="command", required=True))
    run(parser.parse_args(argv))


if __name__ == "__main__":
    main()
