"""Accounts: users and their tokens, follows (checked, stored and announced on follows.changed.v1) with the papers
they matched, and readers' error reports. The API's routes and the web pages both act through these functions."""
