"""Benchmarks (not tests): `python3 scripts/dev.py bench`."""
