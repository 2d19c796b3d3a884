"""Service settings, read once from the environment (pydantic-settings)."""

from __future__ import annotations

from functools import lru_cache

from pydantic import AliasChoices, Field
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
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    #: Requests per minute per client address; 0 turns rate limiting off.
    rate_limit_per_minute: int = Field(default=0, ge=0)
    #: Connections kept by the PostgreSQL pool.
    db_pool_size: int = Field(default=20, ge=1)
    #: How long a SQLite writer waits for the write lock, in milliseconds.
    sqlite_busy_timeout_ms: int = Field(default=30_000, ge=0)
    #: How long idempotency keys are remembered, in seconds.
    idempotency_ttl_seconds: int = Field(default=24 * 3600, ge=60)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
