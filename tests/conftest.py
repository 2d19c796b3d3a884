"""Shared fixtures: an app on a throwaway store, and an HTTP client for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings


@pytest.fixture
def client() -> Iterator[TestClient]:
    """A client for an app without a database (one-shot endpoints)."""
    with TestClient(create_app(Settings())) as test_client:
        yield test_client
