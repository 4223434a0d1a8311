"""`python -m services.summarizer` runs the summarizer service: its dependencies checked, then its app served."""

from papertrail.service import serve
from services.summarizer.app import NEEDS, SERVICE, app, settings

serve(SERVICE, lambda _: app, settings, settings.http_port, NEEDS)
