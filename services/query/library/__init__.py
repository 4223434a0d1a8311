"""The library: a reader's shelf, notes and files, citations out (BibTeX, RIS, CSL-JSON) and library files in
(imports by file or URL, parsed off the event loop). It reaches papers only through
services/query/catalogue/interface.py."""
