"""A Discord bot answering slash commands with Arbiter's chat messages (docs/api.md#answer-formats).

Every answer it posts is the one Arbiter writes for chat, asked for with
`Accept: text/markdown`: the summary line and the dice, names and other text the players chose
made inert (no mentions, no markdown of theirs, one line each) and within Discord's 2000
characters. The bot adds nothing of its own to those messages, and posts each with no mention
allowed besides.

- `/contest`: a GURPS quick contest (docs/rules.md#quick-contest);
- `/odds`: the odds of the same contest;
- `/session start`: a GURPS regular contest (docs/rules.md#regular-contest) in this channel,
  the bot keeping its GM token;
- `/session round`: its next round, with server dice.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import discord
from arbiter_client import ArbiterError, AsyncArbiter, Call, NotFound, models
from arbiter_client import operations as ops
from discord import app_commands

T = TypeVar("T")

MARKDOWN: Final = "text/markdown"
#: Nothing the bot posts may notify anyone, whatever its text holds.
NO_MENTIONS: Final = discord.AllowedMentions.none()
#: What Discord takes as an integer option (a seed is any of these).
Seed = app_commands.Range[int, 0, 2**53]
#: A GURPS effective skill, as Arbiter takes it.
Skill = app_commands.Range[int, -100, 1000]
Name = app_commands.Range[str, 1, 64]


def as_markdown(call: Call[Any]) -> Call[str]:
    """`call` answered as Arbiter's markdown chat message (each of its success statuses)."""
    return dataclasses.replace(
        call,
        answers=dict.fromkeys(call.answers, _text),
        headers={**call.headers, "accept": MARKDOWN},
    )


def _text(content: bytes) -> str:
    return content.decode("utf-8")


def error_message(error: ArbiterError) -> str:
    """What to post for an error: Arbiter's own one-line markdown of it, or (an answer of
    something in front of Arbiter, not written for chat) its status alone."""
    if error.headers.get("content-type", "").startswith(MARKDOWN) and error.problem.detail:
        return error.problem.detail
    return f"Arbiter answered {error.status_code}."


@dataclass(slots=True)
class Session:
    """A regular contest played in one channel: its id, its GM token and its version."""

    id: str
    gm_token: str
    version: int


class ArbiterBot(discord.Client):
    """The bot: a Discord client whose command tree asks Arbiter through `arbiter`."""

    def __init__(self, arbiter: AsyncArbiter, *, sync_commands: bool = True) -> None:
        # Slash commands come with their interaction: no privileged intent is needed.
        super().__init__(intents=discord.Intents.none(), allowed_mentions=NO_MENTIONS)
        self.arbiter = arbiter
        self.sync_commands = sync_commands
        #: The regular contest being played in each channel (by channel id); kept in memory,
        #: so a restarted bot starts again.
        self.sessions: dict[int, Session] = {}
        self.tree: app_commands.CommandTree[ArbiterBot] = app_commands.CommandTree(self)
        self.tree.add_command(contest)
        self.tree.add_command(odds)
        self.tree.add_command(session)

    async def setup_hook(self) -> None:
        if self.sync_commands:
            # Registers the commands with Discord as global commands (a server may take a few
            # minutes to list them).
            await self.tree.sync()

    async def ask(self, call: Call[T], *, token: str | None = None) -> T:
        """Arbiter's answer to `call`."""
        return (await self.arbiter.send(call, token=token)).body


async def post(interaction: discord.Interaction[ArbiterBot], message: str) -> None:
    await interaction.followup.send(message, allowed_mentions=NO_MENTIONS)


async def answer(interaction: discord.Interaction[ArbiterBot], call: Call[Any]) -> None:
    """Defer the reply, ask Arbiter `call` for its markdown, and post it (or its error)."""
    await interaction.response.defer(thinking=True)
    try:
        message = await interaction.client.ask(as_markdown(call))
    except ArbiterError as error:
        message = error_message(error)
    await post(interaction, message)


def quick_contest_body(
    a_name: str, a_skill: int, b_name: str, b_skill: int, seed: int | None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "a": {"name": a_name, "skill": a_skill},
        "b": {"name": b_name, "skill": b_skill},
    }
    if seed is not None:
        body["seed"] = seed
    return body


@app_commands.command(description="A GURPS quick contest: both roll 3d6 against their skill.")
@app_commands.describe(
    a_name="the first competitor",
    a_skill="their effective skill",
    b_name="the second competitor",
    b_skill="their effective skill",
    seed="the same seed rolls the same dice",
)
async def contest(
    interaction: discord.Interaction[ArbiterBot],
    a_name: Name,
    a_skill: Skill,
    b_name: Name,
    b_skill: Skill,
    seed: Seed | None = None,
) -> None:
    body = quick_contest_body(a_name, a_skill, b_name, b_skill, seed)
    await answer(interaction, ops.gurps_quick_contest(body))


@app_commands.command(description="The odds of a GURPS quick contest.")
@app_commands.describe(
    a_name="the first competitor",
    a_skill="their effective skill",
    b_name="the second competitor",
    b_skill="their effective skill",
)
async def odds(
    interaction: discord.Interaction[ArbiterBot],
    a_name: Name,
    a_skill: Skill,
    b_name: Name,
    b_skill: Skill,
) -> None:
    body = quick_contest_body(a_name, a_skill, b_name, b_skill, None)
    await answer(interaction, ops.odds_gurps_quick_contest(body))


session = app_commands.Group(
    name="session", description="A GURPS regular contest played round by round in this channel."
)


@session.command(description="Start a regular contest in this channel (it replaces any other).")
@app_commands.describe(
    a_name="the first side",
    a_skill="its effective skill",
    b_name="the second side",
    b_skill="its effective skill",
    seed="the same seed rolls the same dice, round after round",
)
async def start(
    interaction: discord.Interaction[ArbiterBot],
    a_name: Name,
    a_skill: Skill,
    b_name: Name,
    b_skill: Skill,
    seed: Seed | None = None,
) -> None:
    await interaction.response.defer(thinking=True)
    bot = interaction.client
    body = quick_contest_body(a_name, a_skill, b_name, b_skill, seed)
    try:
        # A creation answers JSON whatever is asked: its tokens are shown only there.
        created = await bot.arbiter.send(ops.regular_contests.create(body))
        started: models.RegularContestCreated = created.body
        if started.tokens is None:
            raise RuntimeError("Arbiter created a session without its tokens")
        gm_token = started.tokens.gm
        bot.sessions[interaction.channel_id or 0] = Session(started.id, gm_token, started.version)
        message = await bot.ask(as_markdown(ops.regular_contests.get(started.id)), token=gm_token)
    except ArbiterError as error:
        message = error_message(error)
    await post(interaction, message)


@session.command(name="round", description="Play the next round of this channel's contest.")
async def play_round(interaction: discord.Interaction[ArbiterBot]) -> None:
    await interaction.response.defer(thinking=True)
    bot = interaction.client
    channel = interaction.channel_id or 0
    played = bot.sessions.get(channel)
    if played is None:
        await post(interaction, "No contest in this channel: start one with `/session start`.")
        return
    call = ops.regular_contests.play(
        played.id,
        if_match=played.version,
        # Discord's id for this command: a retry of it plays the round once.
        idempotency_key=f"discord-{interaction.id}",
    )
    try:
        reply = await bot.arbiter.send(as_markdown(call), token=played.gm_token)
    except NotFound as error:
        # Deleted, or expired: the channel has no contest any more.
        del bot.sessions[channel]
        message = error_message(error)
    except ArbiterError as error:
        message = error_message(error)
    else:
        played.version = reply.version or played.version + 1
        message = reply.body
    await post(interaction, message)
