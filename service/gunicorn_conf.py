"""gunicorn settings, from the environment (`gunicorn -c python:service.gunicorn_conf service.wsgi:app`)."""

import os

bind = os.environ.get("CARDROOM_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# Long-polls hold a request up to 30 s: threads keep other requests flowing, and gthread is not killed at
# `timeout` while a request waits (a sync worker would be, mid-request).
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
timeout = 60
graceful_timeout = 10
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-")
