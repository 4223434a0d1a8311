"""The readers' record: accounts, sessions and tokens, follows, error reports (accounts/), the library, feedback,
reader models and imports (library/), the write limits, and the repositories of what it owns. It reaches papers only
through services/query/catalogue/interface.py."""
