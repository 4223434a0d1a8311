"""Matching: every match of a paper and a follow recorded once and announced, for live papers and for the backfill
of a new follow (papers already held, found through the search index). The rules are the shared rule engine's
(papertrail/domain/follows/)."""
