# One entry point for commands; each target is a thin wrapper over scripts/dev.py,
# which needs only Python 3.11+ (it creates .venv and installs requirements.lock).
PYTHON ?= python3

.PHONY: run test check lint bench migrate lock bench-sweep bench-sweep-plan bench-ids bench-scale \
	bench-replicas bench-fanout-limits bench-cards bench-webhooks

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

# Capacity benches (docs/capacity.md): rounds beside a retention sweep, the sweep's read at
# 100 k and 1 M expired sessions, the id migration's lock times; the capacity model's figures
# at 0 and 100 k stored sessions (about 5 minutes; `SCALE_VOLUMES=0,100000,1000000` adds 1 M, 8 more),
# two app processes with a streaming read replica, and the limits of NOTIFY and Redis.
SCALE_VOLUMES ?= 0,100000

bench-sweep:
	.venv/bin/python bench/sweep.py

bench-sweep-plan:
	.venv/bin/python bench/sweep_plan.py

bench-ids:
	.venv/bin/python bench/migrate_ids.py

bench-scale:
	.venv/bin/python bench/scale.py --volumes $(SCALE_VOLUMES)

bench-replicas:
	.venv/bin/python bench/replicas.py

bench-fanout-limits:
	.venv/bin/python bench/fanout_limits.py

# What a round's cards cost (docs/performance.md#round-cards): per kind and language, and a
# round answer with and without them against the bare app.
bench-cards:
	.venv/bin/python -m bench.cards

# What a webhook subscription costs a round (docs/webhooks.md, docs/performance.md#webhooks):
# rounds per second with one subscription per session against none, on SQLite (about 40 s).
bench-webhooks:
	.venv/bin/python bench/webhooks.py
