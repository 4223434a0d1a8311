"""Tests of services/query/library/."""
