"""Follows, pure: keyword expressions, author matching, the topic catalogue (topics.toml) and the compiled rule
engine. The matcher matches papers with them, the query service checks follows and tags papers by topic."""
