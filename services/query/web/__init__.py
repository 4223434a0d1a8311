"""The web pages: server-rendered (Jinja2), readable without JavaScript, Chinese by default with English; `mount.py`
adds them to the query service's app."""
