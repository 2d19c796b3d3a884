"""Alembic's environment (env.py), the revisions (versions/) and what they share (guard.py)."""
