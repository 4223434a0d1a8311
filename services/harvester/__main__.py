"""`python -m services.harvester` runs the harvester service: its dependencies checked, then its app served."""

from papertrail.service import serve
from services.harvester.app import NEEDS, SERVICE, app, settings

serve(SERVICE, lambda _: app, settings, settings.http_port, NEEDS)
