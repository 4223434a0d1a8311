"""Tests of services/query/recommender/."""
