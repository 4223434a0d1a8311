"""PaperTrail's shared package: the runtime plumbing every service stands on (settings, the service skeleton, broker,
database, search index, observability) and the domain code more than one service needs, pure (text folding and
name keys, follows and their rule engine, the search document). It imports no service (docs/architecture.md)."""
