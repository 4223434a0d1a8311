"""The indexer: what the query service consumes. Enriched papers go into the search index, each tagged with the
catalogue topics it hits; withdrawn papers leave it; harvest runs are kept for the sources' freshness; and every
indexed paper is retagged when the topic catalogue changes."""
