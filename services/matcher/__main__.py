"""`python -m services.matcher` runs the matcher service: settings read, dependencies checked, app served."""

from papertrail.runtime.service import load_settings, serve
from services.matcher.app import NEEDS, SERVICE, create_app
from services.matcher.settings import MatcherSettings

settings = load_settings(MatcherSettings, SERVICE)
serve(SERVICE, create_app, settings, settings.http_port, NEEDS)
