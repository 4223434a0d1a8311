"""PaperTrail's five services, each in its own package: harvester, normalizer, summarizer, matcher, query."""
