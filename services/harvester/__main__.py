"""`python -m services.harvester` runs the harvester service: settings read, dependencies checked, app served."""

from papertrail.runtime.service import load_settings, serve
from services.harvester.app import NEEDS, SERVICE, create_app
from services.harvester.settings import HarvesterSettings

settings = load_settings(HarvesterSettings, SERVICE)
serve(SERVICE, create_app, settings, settings.http_port, NEEDS)
