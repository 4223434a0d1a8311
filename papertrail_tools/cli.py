"""The `papertrail` command, the developers': the operators' command (papertrail_ops/cli.py: a service, users,
dead letters, harvests …) plus the tools: all services at once, the local stack, the demo, exports, the smoke
check. It sits above the services and the operators' command; nothing imports it."""

import argparse
import os
import sys

from papertrail_ops import cli as operators
from papertrail_ops.roster import SERVICES, service_port

__all__ = ["SERVICES", "main", "service_port"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="papertrail", description="PaperTrail (研踪) command line")
    commands = parser.add_subparsers(dest="command", required=True)
    operators.add_commands(commands)
    run = commands.add_parser("run", help="run all five services (one log stream, restarted if one dies, Ctrl-C stops)")
    run.add_argument("--stack", action="store_true", help="start the local stack first")
    run.add_argument("--port-offset", type=int, default=0, help="add this to every service's default HTTP port")
    stack = commands.add_parser("stack", help="the local Kafka / MongoDB / Meilisearch servers")
    stack.add_argument("action", choices=["up", "down", "status", "env"])
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
    schemas = commands.add_parser("schemas", help="export or check the JSON Schema and AsyncAPI files")
    schemas.add_argument("action", choices=["export", "check"])
    venues = commands.add_parser(
        "venues",
        help="rebuild the venue catalogue: `refresh` its conferences (catalogue.json) from a ccfddl/ccf-deadlines "
        "checkout, `journals` the CCF list's journals (ccf_journals.json) from CCFrank4dblp's data/dataGen.js",
    )
    venues.add_argument("action", choices=["refresh", "journals"])
    venues.add_argument(
        "--from", dest="source", required=True, metavar="PATH", help="a checkout of ccf-deadlines / dataGen.js"
    )
    venues.add_argument("--out", metavar="FILE", help="write here instead of the file under papertrail/domain/venues/")
    institutions = commands.add_parser(
        "institutions",
        help="rebuild the ROR catalogue (papertrail/domain/institutions/ror-catalogue.json.gz) from ROR's records",
    )
    institutions.add_argument("action", choices=["refresh"])
    institutions.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="PATH",
        help="a checkout (or bare copy, or zip) of ror-community/ror-records, or a ROR data dump (zip or JSON)",
    )
    institutions.add_argument("--out", metavar="FILE", help="write here instead of the shipped catalogue")
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
    llm = commands.add_parser(
        "llm", help="serve a packaged local model for summaries (llama.cpp's OpenAI-compatible server; built once)"
    )
    llm.add_argument("--model", default=None, help="a packaged model (default: qwen2.5-coder-1.5b-instruct)")
    llm.add_argument("--host", default="127.0.0.1")
    llm.add_argument("--port", type=int, default=None, help="default 8090 (8091 with --titles)")
    llm.add_argument("--install-only", action="store_true", help="build and install, do not serve")
    llm.add_argument(
        "--titles",
        action="store_true",
        help="serve it for Chinese titles alone (TITLES_BASE_URL): prebuilt llama.cpp, no build, at nice 19",
    )
    llm.add_argument("--threads", type=int, default=None, help="--titles: the server's threads (default: all cores)")
    args = parser.parse_args(argv)

    if operators.run(args):
        return
    if args.command == "run":
        from papertrail_tools.run import run_all

        if args.stack:
            _stack("up")
        sys.exit(run_all(port_offset=args.port_offset))
    elif args.command == "stack":
        _stack(args.action)
    elif args.command == "schemas":
        _schemas(args.action)
    elif args.command == "venues":
        from pathlib import Path

        from papertrail.domain.venues.catalogue import CATALOGUE_PATH, JOURNALS_PATH
        from papertrail_tools.venue_catalogue import refresh, refresh_journals

        if args.action == "journals":
            sys.exit(refresh_journals(Path(args.source), Path(args.out) if args.out else JOURNALS_PATH))
        sys.exit(refresh(Path(args.source), Path(args.out) if args.out else CATALOGUE_PATH))
    elif args.command == "institutions":
        from pathlib import Path

        from papertrail.domain.institutions.catalogue import CATALOGUE_PATH as ROR_CATALOGUE_PATH
        from papertrail_tools.ror_catalogue import refresh as refresh_institutions

        sys.exit(refresh_institutions(Path(args.source), Path(args.out) if args.out else ROR_CATALOGUE_PATH))
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
    elif args.command == "smoke":
        sys.exit(_smoke(args, smoke))
    elif args.command == "llm":
        from papertrail_tools.llm import DEFAULT_MODEL, DEFAULT_PORT, TITLES_PORT, LlmError, run_llm

        port = args.port or (TITLES_PORT if args.titles else DEFAULT_PORT)
        threads = {"threads": args.threads} if args.threads else {}
        try:
            sys.exit(
                run_llm(args.model or DEFAULT_MODEL, args.host, port, args.install_only, titles=args.titles, **threads)
            )
        except LlmError as error:
            sys.exit(f"papertrail llm: {error}")


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

    from papertrail.runtime.service import load_settings
    from papertrail.runtime.settings import PaperIndexSettings
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
