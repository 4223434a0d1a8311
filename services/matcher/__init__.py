"""Matcher: matches every enriched paper against the topics, authors and keywords people follow."""
