"""docker-compose.yml's images, overridable for a machine without Docker Hub (deploy/offline/),
and what running the profile `replicas` under podman showed the file needs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML ships no types; only safe_load is used

PROJECT_ROOT = Path(__file__).resolve().parents[1]
OFFLINE = PROJECT_ROOT / "deploy" / "offline"
#: Each variable, the official image it stands for, and the folder of its stand-in.
IMAGES = {
    "ARBITER_POSTGRES_IMAGE": ("postgres:16", "postgres"),
    "ARBITER_REDIS_IMAGE": ("redis:7-alpine", "redis"),
    "ARBITER_CADDY_IMAGE": ("caddy:2.8-alpine", "caddy"),
    "ARBITER_PYTHON_IMAGE": ("python:3.11-slim", "python"),
}


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((PROJECT_ROOT / "docker-compose.yml").read_text())
    return loaded


def test_every_pulled_image_defaults_to_the_official_one() -> None:
    services = compose()["services"]
    names = {
        services["db"]["image"],
        services["db-replica"]["image"],
        services["redis"]["image"],
        services["proxy"]["image"],
        services["app"]["build"]["args"]["PYTHON_IMAGE"],
    }
    assert names == {f"${{{name}:-{official}}}" for name, (official, _) in IMAGES.items()}
    dockerfile = (PROJECT_ROOT / "Dockerfile").read_text()
    assert "ARG PYTHON_IMAGE=python:3.11-slim\n" in dockerfile


def test_images_env_names_a_stand_in_built_for_each() -> None:
    settings = dict(
        line.split("=", 1)
        for line in (OFFLINE / "images.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert set(settings) == set(IMAGES)
    build = (OFFLINE / "build.sh").read_text()
    for name, (_, folder) in IMAGES.items():
        assert settings[name].startswith("localhost/arbiter-offline-"), name
        assert f"${name}" in build, name
        dockerfile = (OFFLINE / folder / "Dockerfile").read_text()
        assert re.search(r"^FROM \$\{BASE_IMAGE\}$", dockerfile, re.MULTILINE), folder


def test_what_running_it_under_podman_needed() -> None:
    services = compose()["services"]
    # TCP: the entry point's temporary server for initdb.d listens on the socket only.
    assert "-h 127.0.0.1" in services["db"]["healthcheck"]["test"][1]
    # The migration job waits for db itself, then runs the command as before.
    assert services["migrate"]["entrypoint"][:2] == ["sh", "-c"]
    assert 'exec "$$@"' in services["migrate"]["entrypoint"][2]
    assert services["app"]["deploy"]["mode"] == "replicated"
    assert "uid=" not in services["app"]["tmpfs"][0]
