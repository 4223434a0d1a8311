"""`python -m services.matcher` runs the matcher service: its dependencies checked, then its app served."""

from papertrail.service import serve
from services.matcher.app import NEEDS, SERVICE, app, settings

serve(SERVICE, lambda _: app, settings, settings.http_port, NEEDS)
