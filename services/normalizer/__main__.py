"""`python -m services.normalizer` runs the normalizer service: its dependencies checked, then its app served."""

from papertrail.service import serve
from services.normalizer.app import NEEDS, SERVICE, app, settings

serve(SERVICE, app, settings, settings.http_port, NEEDS)
