"""`python -m services.query` runs the query service: its dependencies checked, then its app served."""

from papertrail.service import serve
from services.query.app import NEEDS, SERVICE, app, settings

serve(SERVICE, lambda _: app, settings, settings.http_port, NEEDS)
