"""PaperTrail's shared package: runtime plumbing (settings, broker, database, search index, observability) and the
domain code more than one service needs, pure (text folding and name keys, follows and their rule engine)."""
