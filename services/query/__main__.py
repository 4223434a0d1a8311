"""`python -m services.query` runs the query service: settings read, dependencies checked, app served."""

from papertrail.runtime.service import load_settings, serve
from services.query.app import NEEDS, SERVICE, create_app
from services.query.settings import QuerySettings

settings = load_settings(QuerySettings, SERVICE)
serve(SERVICE, create_app, settings, settings.http_port, NEEDS)
