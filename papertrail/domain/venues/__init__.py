"""Venues of all of computer science: the catalogue (catalogue.py, built from ccfddl/ccf-deadlines by ccfddl.py)
and the venue claims papers make about themselves (claims.py)."""
