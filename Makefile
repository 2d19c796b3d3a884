# One entry point for commands; each target is a thin wrapper over scripts/dev.py,
# which needs only Python 3.11+ (it creates .venv and installs requirements.lock).
PYTHON ?= python3

.PHONY: run test check lint bench migrate lock

run:
	$(PYTHON) scripts/dev.py serve

test:
	$(PYTHON) scripts/dev.py test

check:
	$(PYTHON) scripts/dev.py check

lint:
	$(PYTHON) scripts/dev.py lint

bench:
	$(PYTHON) scripts/dev.py bench

migrate:
	$(PYTHON) scripts/dev.py migrate

# Re-pin every dependency (needs uv: pip install uv): the whole set for development and CI,
# and the runtime subset (the same versions) that the image installs.
lock:
	uv pip compile pyproject.toml --extra dev --generate-hashes --python-version 3.11 -o requirements.lock
	uv pip compile pyproject.toml --generate-hashes --python-version 3.11 -o requirements-runtime.lock
