"""A reference Discord bot on Arbiter's Python client: slash commands answered with Arbiter's
markdown chat messages."""

from arbiter_bot.bot import ArbiterBot, Session, as_markdown, error_message

__all__ = ["ArbiterBot", "Session", "as_markdown", "error_message"]
