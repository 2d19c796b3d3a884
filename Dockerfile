# Arbiter: the API on uvicorn, as `scripts/dev.py start` runs it (see that script for the
# environment it reads). Migrations are a separate one-shot job (docker-compose.yml's
# `migrate`); set ARBITER_MIGRATE=1 to have this container apply them before serving instead.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PATH=/opt/venv/bin:$PATH \
    DATABASE_URL=sqlite:////data/arbiter.db \
    ARBITER_HOST=0.0.0.0 \
    ARBITER_PORT=8000 \
    ARBITER_WORKERS=1 \
    NUMBA_CACHE_DIR=/srv/arbiter/var/numba

# The runtime subset of requirements.lock (same versions, hash-checked): no test, lint or type
# tools. A virtual environment, so the base image's own Python packages are left alone.
COPY requirements-runtime.lock /tmp/
RUN python3 -m venv /opt/venv \
 && /opt/venv/bin/pip install --require-hashes --no-deps -r /tmp/requirements-runtime.lock \
 && rm /tmp/requirements-runtime.lock

WORKDIR /srv/arbiter
COPY alembic.ini pyproject.toml ./
COPY app ./app
COPY migrations ./migrations
COPY scripts/dev.py ./scripts/dev.py
COPY clients/foundry ./clients/foundry

RUN useradd --system --no-log-init --uid 10001 arbiter \
 && mkdir -p /data /srv/arbiter/var \
 && chown arbiter /data /srv/arbiter/var
USER 10001
# The bounded odds walk's compiled kernel (app/numeric), built once into the image: the odds
# worker then loads it in about a second instead of compiling it for several.
RUN python3 -c "from app.numeric.arm_wrestling import warm; warm()"
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["python3", "-c", "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2).status != 200)"]

CMD ["python3", "scripts/dev.py", "start"]
