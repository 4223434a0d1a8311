"""`python -m papertrail_tools` is the `papertrail` command."""

from papertrail_tools.cli import main

main()
