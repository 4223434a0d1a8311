"""`python -m papertrail` is the `papertrail` command."""

from papertrail.cli import main

main()
