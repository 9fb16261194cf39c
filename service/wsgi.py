"""The WSGI entry point for gunicorn: `service.wsgi:app` (the app's own logs as JSON lines on stderr)."""

from service.app import create_app
from service.logs import configure_logging

configure_logging()
app = create_app()
