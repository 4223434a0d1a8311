"""PaperTrail's shared package, in three rooms: `domain/` the paper domain more than one service needs, pure (text and
TeX, names and ids, follows and their rule engine, venues, institutions, the search document); `runtime/` the
plumbing every service stands on (settings, the service skeleton, broker, database, search index, leases,
migrations, logs, metrics, mail, outbound requests, push channels); `embedding/` a paper's vectors (the models, their
settings, "papers like these" scoring). It imports no service (docs/architecture.md)."""
