"""The paper domain: pure code more than one service needs (no I/O; tests/test_import_rule.py checks)."""
