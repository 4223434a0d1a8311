"""Tests of services/query/accounts/."""
