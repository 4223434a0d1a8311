"""`python -m papertrail` is the `papertrail` command, whose wiring is the tooling package's. An entry point only:
no module imports it, so the shared package itself still depends on no tooling (tests/test_import_rule.py)."""

from papertrail_tools.cli import main

main()
