"""The `papertrail` command: run a service, all services, the local stack, exports and tools. It sits above the
services (it imports their operator commands); no service imports it."""

import argparse
import getpass
import os
import runpy
import sys

SERVICES = ("harvester", "normalizer", "summarizer", "matcher", "query")


def run_service(name: str) -> None:
    """`papertrail NAME` is `python -m services.NAME`: the service starts itself."""
    runpy.run_module(f"services.{name}", run_name="__main__", alter_sys=True)


def service_port(name: str) -> int:
    """The service's default HTTP port, which `papertrail run` gives it (HTTP_PORT is per process)."""
    from papertrail_tools.settings_doc import settings_class

    return int(settings_class(name).model_fields["http_port"].default)


def run_all(ready_timeout_s: float = 60, port_offset: int = 0) -> int:
    """Run the five services under the supervisor (papertrail_tools/supervisor.py): one log stream, a service that dies
    restarted with backoff; Ctrl-C or SIGTERM stops them upstream first (the harvester first, the query API last)."""
    from papertrail.logs import resolved_format
    from papertrail.service import load_settings
    from papertrail.settings import InfraSettings
    from papertrail_tools import monitoring
    from papertrail_tools.supervisor import Output, run_supervised, service_child

    settings = load_settings(InfraSettings, "run")  # LOG_FORMAT, and a bad shared setting named once, not five times
    ports = {name: service_port(name) + port_offset for name in SERVICES}
    children = [service_child(name, port, os.environ) for name, port in ports.items()]
    note = f"query API: http://127.0.0.1:{ports['query']}/ (docs at /docs)"
    prometheus = monitoring.follow_run(settings, ports)
    if prometheus:
        note += f"; Prometheus: {prometheus}"
    output = Output(resolved_format(settings.log_format, sys.stdout), sys.stdout)
    return run_supervised(children, output, list(SERVICES), note, ready_timeout_s)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="papertrail", description="PaperTrail (研踪) command line")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in SERVICES:
        commands.add_parser(name, help=f"run the {name} service")
    run = commands.add_parser("run", help="run all five services (one log stream, restarted if one dies, Ctrl-C stops)")
    run.add_argument("--stack", action="store_true", help="start the local stack first")
    run.add_argument("--port-offset", type=int, default=0, help="add this to every service's default HTTP port")
    stack = commands.add_parser("stack", help="the local Kafka / MongoDB / Meilisearch servers")
    stack.add_argument("action", choices=["up", "down", "status", "env"])
    users = commands.add_parser("users", help="create users, delete one and all of theirs")
    users.add_argument("action", choices=["create", "delete", "password"])
    users.add_argument("name", help="create: the user's name; delete, password: the user's name or account address")
    users.add_argument("--email", help="password: also make this the user's account address (to sign in with)")
    corrections = commands.add_parser("corrections", help="readers' error reports (纠错): list them, close one")
    corrections.add_argument("action", choices=["list", "close"])
    corrections.add_argument("id", nargs="?", help="close: the report's id (as listed)")
    corrections.add_argument("--status", choices=["open", "closed"], help="list: only reports with this status")
    settings_cmd = commands.add_parser("settings", help="print every setting (or --write docs/configuration.md)")
    settings_cmd.add_argument("--write", action="store_true")
    commands.add_parser(
        "assets", help="fetch the pages' KaTeX and /docs' Swagger UI from npm (pinned, checked) into the query service"
    )
    demo = commands.add_parser("demo", help="run everything offline on recorded real data (replay + all services)")
    demo.add_argument("--port-offset", type=int, default=0, help="add this to every service's and the replay's port")
    replay = commands.add_parser("replay", help="serve recorded upstream responses (offline harvesting)")
    replay.add_argument("--dir", required=True, help="folder with replay.json and the recorded files")
    replay.add_argument("--host", default="127.0.0.1")
    replay.add_argument("--port", type=int, default=8900)
    from services.harvester.cli import add_commands as add_harvester_commands

    add_harvester_commands(commands)
    schemas = commands.add_parser("schemas", help="export or check the JSON Schema and AsyncAPI files")
    schemas.add_argument("action", choices=["export", "check"])
    dlq = commands.add_parser("dlq", help="show dead letters, or re-publish them to the topic they came from")
    dlq.add_argument("action", choices=["list", "replay"])
    dlq.add_argument("--topic", help="source topic (or its .dlq); default: every dead-letter topic")
    smoke = commands.add_parser(
        "smoke", help="check a running deployment as a new reader sees it (ready, searchable, pages, no dead letter)"
    )
    smoke.add_argument("--base-url", help="the query service's API and pages (default: http://127.0.0.1:8000)")
    smoke.add_argument(
        "--service",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="where a service answers /readyz (default: 127.0.0.1, its default port); repeatable",
    )
    smoke.add_argument("--port-offset", type=int, default=0, help="as given to `papertrail run` or `demo`")
    smoke.add_argument(
        "--expect-papers", type=int, metavar="N", help="papers that must be searchable (default: those stored)"
    )
    smoke.add_argument("--ready-timeout", type=float, default=120, metavar="S", help="seconds to wait for /readyz")
    smoke.add_argument(
        "--searchable-timeout", type=float, default=300, metavar="S", help="seconds to wait for the papers searchable"
    )
    args = parser.parse_args(argv)

    if args.command in SERVICES:
        run_service(args.command)
    elif args.command == "run":
        if args.stack:
            _stack("up")
        sys.exit(run_all(port_offset=args.port_offset))
    elif args.command == "stack":
        _stack(args.action)
    elif args.command == "schemas":
        _schemas(args.action)
    elif args.command == "users":
        from services.query.readers.accounts.cli import create_user, delete_user, set_password

        if args.action == "delete":
            sys.exit(delete_user(args.name))
        if args.action == "password":  # from the terminal unechoed, or one line of standard input
            password = getpass.getpass("new password: ") if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
            sys.exit(set_password(args.name, args.email, password))
        user_id, token = create_user(args.name)
        print(f"user {args.name} ({user_id}) created; API token (shown once):\n{token}")
    elif args.command == "corrections":
        from services.query.readers.accounts.cli import corrections_command

        sys.exit(corrections_command(args.action, args.id, args.status))
    elif args.command == "settings":
        from papertrail_tools.settings_doc import DOC, markdown

        if args.write:
            DOC.write_text(markdown(), encoding="utf-8")
            print(f"wrote {DOC}")
        else:
            print(markdown(), end="")
    elif args.command == "assets":
        from papertrail_tools.katex import AssetError, install_katex
        from papertrail_tools.swagger_ui import install_swagger_ui
        from services.query.web.render import KATEX_DIR, SWAGGER_UI_DIR

        try:
            install_katex(KATEX_DIR)
            install_swagger_ui(SWAGGER_UI_DIR)
        except AssetError as error:
            sys.exit(f"papertrail assets: {error}")
    elif args.command == "demo":
        from papertrail_tools.demo import run_demo

        sys.exit(run_demo(port_offset=args.port_offset))
    elif args.command == "replay":
        _replay(args.dir, args.host, args.port)
    elif args.command == "dlq":
        from papertrail import dlq as dead_letters

        sys.exit(dead_letters.run(args.action, args.topic))
    elif args.command == "smoke":
        sys.exit(_smoke(args, smoke))
    elif args.command in ("harvest", "import"):
        from services.harvester.cli import main as harvester_main

        harvester_main(args)


def _stack(action: str) -> None:
    from papertrail_tools import stack

    settings = stack.StackSettings()
    try:
        if action == "up":
            stack.up(settings)
            os.environ.update(settings.environment())
        elif action == "down":
            stack.down(settings)
        elif action == "env":
            for key, value in settings.environment().items():
                print(f"export {key}={value}")
        else:
            for name, pid, answering in stack.status(settings):
                state = "answering" if answering else "not answering"
                print(f"{name:<12} pid {pid or '-':<8} {state}")
    except stack.StackError as error:
        sys.exit(f"papertrail stack {action}: {error}")


def _smoke(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import asyncio

    from papertrail.service import load_settings
    from papertrail.settings import PaperIndexSettings
    from papertrail_tools.smoke import SmokeOptions, run_smoke

    urls = {name: f"http://127.0.0.1:{service_port(name) + args.port_offset}" for name in SERVICES}
    if args.base_url:
        urls["query"] = args.base_url.rstrip("/")
    for given in args.service:
        name, _, url = given.partition("=")
        if name not in SERVICES or not url.startswith(("http://", "https://")):
            parser.error(f"--service {given!r}: give NAME=URL, NAME one of {', '.join(SERVICES)}")
        urls[name] = url.rstrip("/")
    if args.expect_papers is not None and args.expect_papers < 1:
        parser.error("--expect-papers: give 1 or more")
    options = SmokeOptions(
        base_url=urls["query"],
        service_urls=urls,
        expect_papers=args.expect_papers,
        ready_timeout_s=args.ready_timeout,
        searchable_timeout_s=args.searchable_timeout,
    )
    return asyncio.run(run_smoke(options, load_settings(PaperIndexSettings, "smoke")))


def _replay(folder: str, host: str, port: int) -> None:
    from pathlib import Path

    import uvicorn

    from papertrail_tools.replay import make_replay_app

    print(f"replaying {folder} on http://{host}:{port}", flush=True)
    uvicorn.run(make_replay_app(Path(folder)), host=host, port=port, log_level="warning")


def _schemas(action: str) -> None:
    from schemas import export

    if action == "export":
        for path in export.export():
            print(f"wrote {path}")
    else:
        stale = [
            str(p)
            for p, text in export.expected_files().items()
            if not p.exists() or p.read_text(encoding="utf-8") != text
        ]
        if stale:
            sys.exit("out of date (run `papertrail schemas export`): " + ", ".join(stale))
        print("schemas up to date")


if __name__ == "__main__":
    main()
