"""Normalizer: raw source records → one canonical paper per work, with its version history."""
