"""PaperTrail's shared plumbing: settings, broker, database, search index, observability, CLI."""
