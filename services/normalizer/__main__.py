"""`python -m services.normalizer` runs the normalizer service: settings read, dependencies checked, app served."""

from papertrail.runtime.service import load_settings, serve
from services.normalizer.app import NEEDS, SERVICE, create_app
from services.normalizer.settings import NormalizerSettings

settings = load_settings(NormalizerSettings, SERVICE)
serve(SERVICE, create_app, settings, settings.http_port, NEEDS)
