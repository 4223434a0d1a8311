"""PaperTrail's contracts: the canonical paper document and one pydantic model per Kafka topic."""
