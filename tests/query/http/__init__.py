"""Tests of services/query/http/."""
