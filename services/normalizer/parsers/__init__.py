"""One parser per raw format, each a module of its own; `registry.py` picks one by the record's format."""
