# Arbiter: the API on uvicorn; applies migrations to DATABASE_URL before serving.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite:////data/arbiter.db \
    ARBITER_WORKERS=2

WORKDIR /srv/arbiter

# The same pinned, hash-checked dependencies CI installs (requirements.lock).
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes --no-deps -r requirements.lock

COPY alembic.ini pyproject.toml ./
COPY app ./app
COPY migrations ./migrations

RUN useradd --system --uid 10001 arbiter && mkdir -p /data && chown arbiter /data
USER arbiter
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=10s --timeout=3s --retries=5 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz').status != 200)"

CMD ["sh", "-c", "python -m alembic upgrade head && exec python -m uvicorn app.main:create_app --factory --host 0.0.0.0 --port 8000 --workers ${ARBITER_WORKERS} --no-access-log"]
