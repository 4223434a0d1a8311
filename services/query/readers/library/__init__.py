"""The reader's research record: citations out, library files in, and a ranked feed learnt from feedback. Pure."""
