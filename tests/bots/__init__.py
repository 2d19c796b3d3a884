"""Tests of the bots under `bots/`: each against a live Arbiter, its chat platform a test double."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The bot and the client it runs on are their own packages, not part of the service:
# importable here as a user running the bot imports them, without installing them.
for folder in (ROOT / "clients" / "python", ROOT / "bots" / "discord"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
