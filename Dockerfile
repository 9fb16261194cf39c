# Cardroom: one image for the web server (default command) and the RQ worker (`python -m worker`).
#   docker build -t cardroom .
#   docker run -e REDIS_URL=redis://redis:6379/0 -p 8000:8000 cardroom
#   docker run -e REDIS_URL=redis://redis:6379/0 --no-healthcheck cardroom python -m worker
# Pinned to Python 3.11 on Debian bookworm; pin a digest (python:3.11-slim-bookworm@sha256:...) for builds that
# must be byte-for-byte repeatable. BASE may name any image with Python 3.11+ as `python` and its venv module,
# e.g. one made from Debian's packages where no registry is reachable (README "Docker": air-gapped builds);
# PIP_NO_INDEX and PIP_FIND_LINKS (build arguments) install from a local wheelhouse instead of PyPI.
ARG BASE=python:3.11-slim-bookworm

FROM ${BASE} AS build
ARG PIP_NO_INDEX
ARG PIP_FIND_LINKS
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# Dependencies and code from the project's own files: pyproject.toml names them, pip resolves them.
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY service ./service
COPY worker ./worker
RUN pip install --no-cache-dir . \
    && python -m compileall -q /opt/venv

FROM ${BASE} AS runtime
LABEL org.opencontainers.image.title="cardroom" \
      org.opencontainers.image.description="HTTP game server for turn-based card games (web + RQ worker)"
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    CARDROOM_BIND=0.0.0.0:8000 \
    WEB_CONCURRENCY=2
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
# Numeric, so Kubernetes' runAsNonRoot can verify it without looking the name up.
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ.get('CARDROOM_BIND', ':8000').rsplit(':', 1)[1]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4)"]
# gunicorn reads its settings from the environment (service/gunicorn_conf.py): CARDROOM_BIND, WEB_CONCURRENCY,
# MAX_WAITERS, GUNICORN_ACCESSLOG, PROMETHEUS_MULTIPROC_DIR; the app reads REDIS_URL, KEY_PREFIX, RQ_QUEUE.
CMD ["gunicorn", "-c", "python:service.gunicorn_conf", "service.wsgi:app"]
