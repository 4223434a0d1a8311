"""Query service: the search index, the HTTP API, the web pages and per-user follows."""
