"""Run the bot: `python -m arbiter_bot`, with `DISCORD_TOKEN` (the bot's token) and
`ARBITER_URL` (where Arbiter serves; default http://127.0.0.1:8000) in the environment."""

from __future__ import annotations

import asyncio
import os
import sys

import discord
from arbiter_client import AsyncArbiter

from arbiter_bot.bot import ArbiterBot

DEFAULT_ARBITER_URL = "http://127.0.0.1:8000"


async def main() -> None:
    token = os.environ.get("DISCORD_TOKEN")
    if not token:
        sys.exit("set DISCORD_TOKEN to the bot's token (Discord's developer portal, Bot tab)")
    url = os.environ.get("ARBITER_URL", DEFAULT_ARBITER_URL)
    discord.utils.setup_logging()
    async with AsyncArbiter(url) as arbiter, ArbiterBot(arbiter) as bot:
        await bot.start(token)


if __name__ == "__main__":
    asyncio.run(main())
