"""`python -m services.summarizer` runs the summarizer service: settings read, dependencies checked, app served."""

from papertrail.runtime.service import load_settings, serve
from services.summarizer.app import NEEDS, SERVICE, create_app
from services.summarizer.settings import SummarizerSettings

settings = load_settings(SummarizerSettings, SERVICE)
serve(SERVICE, create_app, settings, settings.http_port, NEEDS)
