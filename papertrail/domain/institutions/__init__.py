"""Institutions: the ROR registry's catalogue shipped with the package (catalogue.py, built by
`papertrail institutions refresh`) and affiliation strings matched to it (matching.py)."""
