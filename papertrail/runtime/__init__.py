"""Runtime plumbing every service stands on: settings, the service skeleton, Kafka, MongoDB, Meilisearch, leases,
migrations, logs, metrics, mail, outbound requests and push channels."""
