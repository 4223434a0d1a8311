"""Delivery of matches: signed webhook POSTs and daily digests (stored, and mailed by SMTP)."""
