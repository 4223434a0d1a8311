"""The catalogue: the public record of papers as the query service serves it. The search index and its consumers
(indexer/), the reads the API and the pages show (reads/), its repositories, and the narrow interface through which
the readers' side asks for papers (interface.py)."""
