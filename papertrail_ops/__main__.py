"""`python -m papertrail_ops` is the operators' command."""

from papertrail_ops.cli import main

main()
