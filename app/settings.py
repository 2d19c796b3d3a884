"""Service settings, read once from the environment (pydantic-settings)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite:///./var/arbiter.db"


class Settings(BaseSettings):
    """Configuration; every field can be set by an `ARBITER_`-prefixed environment variable."""

    model_config = SettingsConfigDict(env_prefix="ARBITER_", extra="ignore")

    database_url: str = Field(
        default=DEFAULT_DATABASE_URL,
        validation_alias=AliasChoices("DATABASE_URL", "ARBITER_DATABASE_URL"),
        description="SQLAlchemy URL: sqlite:///path or postgresql+psycopg://user@host/db",
    )
    #: A streaming replica (a PostgreSQL standby) for the reads that may lag behind the
    #: primary: the rounds of a finished or deleted session's proof, read once the primary
    #: says the session is over and the replica has its last version (docs/capacity.md,
    #: "Replicas and a read replica"). Never a live session, its rounds or its events, and
    #: never /readyz. Unset: every read goes to `database_url`.
    read_database_url: str | None = None
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    #: Requests per minute per client (its address, or the `X-Client-Key` a trusted proxy
    #: passes on or that is one of `rate_limit_client_keys`); 0: off.
    rate_limit_per_minute: int = Field(default=0, ge=0)
    #: Client keys the operator handed out (comma-separated): a request sending one of them as
    #: `X-Client-Key` is limited as that key, from whatever address. Any other key counts only
    #: when a trusted proxy (`forwarded_allow_ips`) passes it on; otherwise the address does.
    rate_limit_client_keys: str | None = None
    #: Where the rate limit's windows live so that every worker and replica shares them
    #: (`redis://host:6379/0`); unset: each process keeps its own (so N workers let N times
    #: the limit through).
    redis_url: str | None = None
    #: The prefix of the rate limit's keys in Redis.
    rate_limit_redis_prefix: str = "arbiter:rate-limit:"
    #: How long a request may wait for the shared rate limit's answer from Redis, in
    #: milliseconds, before it is limited by its process alone (Redis's health is checked
    #: off the request path; while it is unhealthy requests do not wait for it at all).
    rate_limit_redis_budget_ms: float = Field(default=5.0, gt=0)
    #: Live event streams (`GET …/events`) in all, of one session, and opened with one token,
    #: at most, in each server process; past any, 429 with Retry-After (docs/performance.md,
    #: "Live-event fan-out": what a stream costs).
    events_max_streams: int = Field(default=10_000, ge=1)
    events_max_streams_per_session: int = Field(default=2000, ge=1)
    events_max_streams_per_token: int = Field(default=500, ge=1)
    #: Proxy addresses whose X-Forwarded-For is trusted (comma-separated, `*` for any);
    #: unset: none, the peer's address is the client's.
    forwarded_allow_ips: str | None = None
    #: Origins whose browser scripts may call the API (comma-separated, `*` for any);
    #: unset: none (no CORS headers at all).
    cors_origins: str | None = None
    #: Connections kept by the PostgreSQL pool, per worker process.
    db_pool_size: int = Field(default=10, ge=1)
    #: How long a SQLite writer waits for the write lock, in milliseconds.
    sqlite_busy_timeout_ms: int = Field(default=30_000, ge=0)
    #: A request's head (request line and headers) at most this large, with at most this many
    #: headers (then 431), arriving within this many seconds (then 408); app/serving.py.
    max_header_bytes: int = Field(default=32 * 1024, ge=1024)
    max_headers: int = Field(default=100, ge=10)
    header_timeout_seconds: float = Field(default=10.0, gt=0)
    #: How long a request's body may take to arrive, in seconds (then 408).
    body_read_timeout_seconds: float = Field(default=10.0, gt=0)
    #: How long idempotency keys are remembered, in seconds.
    idempotency_ttl_seconds: int = Field(default=24 * 3600, ge=60)
    #: Finished sessions (and their rounds) are deleted this many days after they finished.
    retention_finished_days: int = Field(default=30, ge=1)
    #: Active sessions are deleted after this many days without a change.
    retention_abandoned_days: int = Field(default=7, ge=1)
    #: The retention purge's pace (app/main.py, `Pacing`): each batch sized to take about this
    #: long (0: always the largest batch), then a rest this many times as long as the batch
    #: took (0: one pass of the event loop), so that requests beside a sweep keep their
    #: latency (docs/performance.md#the-retention-sweep).
    purge_batch_ms: float = Field(default=10.0, ge=0, le=10_000)
    purge_rest_ratio: float = Field(default=2.0, ge=0, le=100)
    #: PostgreSQL: the write-ahead log the purge may write, on average, in MB a second (0: no
    #: bound); it rests longer after a batch that wrote more. Deleting cold rows writes each
    #: page whole into the log, and every commit's flush waits behind that log
    #: (docs/capacity.md#the-retention-sweep).
    purge_wal_mb_per_s: float = Field(default=8.0, ge=0, le=10_000)
    #: Structured JSON logs, one line per request (off: the plain text of the standard library).
    json_logs: bool = True
    #: The request log: one line per request (id, method, route template, status, duration).
    log_requests: bool = True
    #: Start the odds worker process with the app, so that a first heavy odds question does
    #: not wait for it (about 0.7 s); off: it starts at that question.
    odds_prestart: bool = True
    #: Odds questions waiting for the odds worker (beside the one it computes); one more is
    #: a 503 with `Retry-After`.
    odds_queue_limit: int = Field(default=64, ge=0)
    #: How long an odds question may wait and compute, in seconds; past it, a 503 with
    #: `Retry-After` (a question not started by then is never computed).
    odds_deadline_seconds: float = Field(default=10.0, gt=0)
    #: How often each server process looks for rounds waiting for the seats' dice past their
    #: deadline and plays them (app/api/sessions/deadlines.py), in seconds; and how many it plays at
    #: most per look (then it looks again at once).
    deadline_sweep_seconds: float = Field(default=1.0, gt=0, le=3600)
    deadline_sweep_batch: int = Field(default=100, ge=1, le=10_000)
    #: The odds answers a process keeps (identical questions), in bytes of their encoded
    #: answers and questions; 0: none kept.
    odds_cache_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    #: The key sealing verifiable sessions' server seeds at rest (AES-256-GCM under a key
    #: derived from it by HKDF-SHA256; at least 32 characters, e.g. `openssl rand -hex 32`;
    #: docs/verifiable-dice.md#where-the-server-seed-lives). Unset: seeds are stored as they
    #: are, readable by whoever reads the database. Every process of a deployment needs the
    #: same key, and it must be kept: a seed sealed under another key cannot be revealed.
    dice_key: SecretStr | None = Field(default=None, min_length=32)
    #: SQLite without `dice_key`: the file holding the dice key the service made at its first
    #: start (and reads at every later one). Unset: `$XDG_STATE_HOME/arbiter/dice-key` (else
    #: `~/.local/state/arbiter/dice-key`). Never in the database's folder: a copy of the folder
    #: must not carry the key with the seeds it seals.
    dice_key_file: Path | None = None
    #: Sessions with verifiable dice offered (`"dice": "verifiable"`). On PostgreSQL they need
    #: `dice_key`, shared by every replica: without one the service refuses to start.
    verifiable_dice: bool = True
    #: Signed outbound webhooks (docs/webhooks.md). The key sealing their signing secrets at
    #: rest (AES-256-GCM under a key derived from it by HKDF-SHA256; at least 32 characters);
    #: unset: secrets are stored as they are. Every process needs the same key, kept.
    webhook_key: SecretStr | None = Field(default=None, min_length=32)
    #: The operator's bearer key for subscriptions to every session (`/v1/webhooks`); unset:
    #: there are none.
    operator_key: SecretStr | None = Field(default=None, min_length=32)
    #: Deliver to private, loopback and link-local addresses too (a receiver on the same
    #: host or network); off: refused at subscription and at each delivery (SSRF).
    webhook_allow_private: bool = False
    #: A delivery's deadlines: to connect, and for the whole request and its answer, in
    #: seconds; and the most of an answer read (the rest is not waited for).
    webhook_connect_timeout_seconds: float = Field(default=5.0, gt=0, le=60)
    webhook_timeout_seconds: float = Field(default=15.0, gt=0, le=120)
    webhook_answer_bytes: int = Field(default=64 * 1024, ge=0)
    #: Retries: the first wait and the longest (exponential, with jitter), and how long after
    #: it was first due a delivery is given up and its subscription marked failing.
    webhook_retry_first_seconds: float = Field(default=5.0, gt=0)
    webhook_retry_max_seconds: float = Field(default=3600.0, gt=0)
    webhook_retry_window_seconds: float = Field(default=24 * 3600.0, gt=0)
    #: How long a worker's claim on a delivery lasts (longer than a delivery can take: a
    #: worker that dies leaves its deliveries to others once it has run out).
    webhook_lease_seconds: float = Field(default=60.0, gt=0)
    #: How often each process's delivery worker looks for deliveries due (it looks at once
    #: after a change of its own), and how many it sends at once.
    webhook_poll_seconds: float = Field(default=1.0, gt=0, le=3600)
    webhook_concurrency: int = Field(default=16, ge=1, le=1000)
    #: Under a steady flow of changes, the least time between the starts of two of a
    #: worker's passes: a pass sends together what that time's changes wrote, its claim and
    #: its record shared by them all. A change after a quiet spell is sent at once.
    webhook_batch_seconds: float = Field(default=0.1, ge=0, le=5)
    #: Deliveries sent or given up are listed (`…/deliveries`) and replayable this many days.
    webhook_delivery_retention_days: int = Field(default=7, ge=1)
    #: After a secret's rotation, how long the one before it still signs beside the new one.
    webhook_rotation_overlap_seconds: float = Field(default=24 * 3600.0, ge=0)

    @model_validator(mode="after")
    def _lease_outlasts_a_delivery(self) -> Settings:
        if self.webhook_lease_seconds <= self.webhook_timeout_seconds + 1:
            raise ValueError(
                "webhook_lease_seconds must be more than webhook_timeout_seconds + 1: a "
                "delivery is sent only while its claim outlasts it"
            )
        return self


class StartupRefused(SystemExit):
    """A configuration the service does not start with: its message, one line, is all that
    is printed (the process exits with status 1)."""


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
