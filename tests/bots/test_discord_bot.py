"""The Discord bot (bots/discord) against a live Arbiter, with Discord played by a test double.

The double is Discord's HTTP API on a local port (`FakeDiscord`: the bot logs in to it,
registers its commands with it, and answers interactions through it, recording every body the
bot sends). The interactions are Discord's own payloads, handed to discord.py as its gateway
hands them (`INTERACTION_CREATE`), so each command runs through discord.py's `CommandTree`
with real `Interaction` objects. What the bot posts is checked against what Arbiter answers
the same question.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import discord
import httpx
import pytest
from aiohttp import web
from arbiter_bot import ArbiterBot, error_message
from arbiter_client import AsyncArbiter, Problem, ServiceUnavailable

from app.api.answers.formats import markdown
from app.store.database import upgrade_to_head
from tests.store.servers import running_servers

pytestmark = pytest.mark.slow

APPLICATION_ID = "1100000000000000001"
GUILD_ID = "1200000000000000002"
CHANNEL_ID = "1300000000000000003"
BOT_USER = {
    "id": APPLICATION_ID,
    "username": "arbiter",
    "discriminator": "0",
    "global_name": "Arbiter",
    "avatar": None,
    "bot": True,
}
PLAYER = {
    "id": "1400000000000000004",
    "username": "gm",
    "discriminator": "0",
    "global_name": "The GM",
    "avatar": None,
}
#: Discord's option types: a subcommand, a string, an integer.
SUBCOMMAND, STRING, INTEGER = 1, 3, 4
#: Interaction callbacks: a deferred answer ("thinking...").
DEFERRED_CHANNEL_MESSAGE = 5
MARKDOWN = {"accept": "text/markdown"}
ZERO_WIDTH_SPACE = "\u200b"
interaction_ids = itertools.count(1500000000000000000)


def json_answer(body: Any) -> web.Response:
    # Discord's own content type, which discord.py reads JSON by (no charset parameter).
    return web.Response(
        body=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )


@dataclass
class FakeDiscord:
    """Discord's HTTP API as far as the bot uses it; what the bot sent is recorded."""

    commands: list[dict[str, Any]] = field(default_factory=list)
    callbacks: list[dict[str, Any]] = field(default_factory=list)
    messages: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    url: str = ""

    def routes(self) -> list[web.RouteDef]:
        api = "/api/v10"
        return [
            web.get(f"{api}/users/@me", self.me),
            web.get(f"{api}/oauth2/applications/@me", self.application),
            web.put(f"{api}/applications/{{application}}/commands", self.register),
            web.post(f"{api}/interactions/{{interaction}}/{{token}}/callback", self.callback),
            web.post(f"{api}/webhooks/{{application}}/{{token}}", self.followup),
        ]

    async def me(self, _: web.Request) -> web.Response:
        return json_answer(BOT_USER)

    async def application(self, _: web.Request) -> web.Response:
        return json_answer(
            {
                "id": APPLICATION_ID,
                "name": "Arbiter",
                "icon": None,
                "description": "",
                "bot_public": False,
                "bot_require_code_grant": False,
                "owner": PLAYER,
                "verify_key": "0" * 64,
                "flags": 0,
            }
        )

    async def register(self, request: web.Request) -> web.Response:
        commands: list[dict[str, Any]] = await request.json()
        self.commands = commands
        registered = [
            {**command, "id": str(2000 + number), "application_id": APPLICATION_ID, "version": "1"}
            for number, command in enumerate(commands)
        ]
        return json_answer(registered)

    async def callback(self, request: web.Request) -> web.Response:
        self.callbacks.append(await request.json())
        body = await request.json()
        return json_answer(
            {
                "interaction": {
                    "id": request.match_info["interaction"],
                    "type": 2,
                    "response_message_loading": True,
                },
                "resource": {"type": body["type"]},
            }
        )

    async def followup(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        await self.messages.put({**body, "token": request.match_info["token"]})
        return json_answer(
            {
                "id": str(next(interaction_ids)),
                "channel_id": CHANNEL_ID,
                "author": BOT_USER,
                "content": body.get("content", ""),
                "timestamp": "2026-01-01T00:00:00+00:00",
                "edited_timestamp": None,
                "tts": False,
                "mention_everyone": False,
                "mentions": [],
                "mention_roles": [],
                "attachments": [],
                "embeds": [],
                "pinned": False,
                "type": 0,
                "flags": 0,
            }
        )


def option(name: str, value: str | int) -> dict[str, Any]:
    return {"name": name, "type": STRING if isinstance(value, str) else INTEGER, "value": value}


def interaction(command: str, options: dict[str, str | int], sub: str | None = None) -> Any:
    """Discord's INTERACTION_CREATE payload for `/command [sub] options...` in a guild channel."""
    given = [option(name, value) for name, value in options.items()]
    if sub is not None:
        given = [{"name": sub, "type": SUBCOMMAND, "options": given}]
    number = next(interaction_ids)
    return {
        "id": str(number),
        "application_id": APPLICATION_ID,
        "type": 2,
        "token": f"interaction-token-{number}",
        "version": 1,
        "data": {"id": "2000", "name": command, "type": 1, "options": given},
        "guild_id": GUILD_ID,
        "channel_id": CHANNEL_ID,
        "channel": {
            "id": CHANNEL_ID,
            "type": 0,
            "guild_id": GUILD_ID,
            "name": "the-table",
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
        },
        "member": {
            "user": PLAYER,
            "roles": [],
            "joined_at": "2026-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "permissions": "2147483647",
        },
        "locale": "en-US",
        "guild_locale": "en-US",
        "app_permissions": "2147483647",
        "entitlements": [],
        "authorizing_integration_owners": {"0": GUILD_ID},
        "context": 0,
        "attachment_size_limit": 8388608,
    }


@dataclass
class Table:
    """The bot, logged in to the fake Discord, and that Discord."""

    bot: ArbiterBot
    discord: FakeDiscord

    async def command(
        self, command: str, options: dict[str, str | int], sub: str | None = None
    ) -> dict[str, Any]:
        """What the bot posts in answer to the command (after deferring it)."""
        payload = interaction(command, options, sub)
        # As discord.py's gateway hands an INTERACTION_CREATE event to its state.
        self.bot._connection.parse_interaction_create(payload)
        posted = await asyncio.wait_for(self.discord.messages.get(), timeout=30)
        assert posted["token"] == payload["token"]
        assert self.discord.callbacks[-1] == {"type": DEFERRED_CHANNEL_MESSAGE}
        return posted


@asynccontextmanager
async def table(base_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Table]:
    fake = FakeDiscord()
    application = web.Application()
    application.add_routes(fake.routes())
    runner = web.AppRunner(application)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    fake.url = f"http://{host}:{port}"
    monkeypatch.setattr(discord.http.Route, "BASE", f"{fake.url}/api/v10")
    try:
        async with AsyncArbiter(base_url) as arbiter:
            bot = ArbiterBot(arbiter)
            await bot.login("a-bot-token")
            try:
                yield Table(bot, fake)
            finally:
                await bot.close()
    finally:
        await runner.cleanup()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One live Arbiter on a migrated SQLite database."""
    folder = tmp_path_factory.mktemp("bot-server")
    url = f"sqlite:///{folder / 'arbiter.db'}"
    upgrade_to_head(url)
    with running_servers(url, 1, folder) as (server,):
        yield server.base_url


def markdown_answer(base_url: str, path: str, body: dict[str, Any]) -> str:
    return httpx.post(base_url + path, json=body, headers=MARKDOWN).text


def test_the_bot_registers_its_slash_commands(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> list[dict[str, Any]]:
        async with table(base_url, monkeypatch) as played:
            return played.discord.commands

    commands = {command["name"]: command for command in asyncio.run(scenario())}
    assert set(commands) == {"contest", "odds", "session"}
    assert [option["name"] for option in commands["contest"]["options"]] == [
        "a_name",
        "a_skill",
        "b_name",
        "b_skill",
        "seed",
    ]
    skill = commands["contest"]["options"][1]
    assert (skill["type"], skill["min_value"], skill["max_value"]) == (INTEGER, -100, 1000)
    assert [sub["name"] for sub in commands["session"]["options"]] == ["start", "round"]


def test_a_quick_contest_posts_arbiters_message_with_names_made_inert(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = {"a_name": "@everyone", "b_name": "<@1400000000000000004> hi **there**"}
    options: dict[str, str | int] = {**names, "a_skill": 12, "b_skill": 10, "seed": 7}
    body = {
        "a": {"name": names["a_name"], "skill": 12},
        "b": {"name": names["b_name"], "skill": 10},
        "seed": 7,
    }

    async def scenario() -> dict[str, Any]:
        async with table(base_url, monkeypatch) as played:
            return await played.command("contest", options)

    posted = asyncio.run(scenario())
    content = posted["content"]
    assert content == markdown_answer(base_url, "/v1/gurps/quick-contest", body)
    assert posted["allowed_mentions"] == {"parse": []}
    # The outcome is the one Arbiter resolves for these dice.
    answer = httpx.post(base_url + "/v1/gurps/quick-contest", json=body).json()
    summary, ann_dice, bob_dice, end = content.split("\n")
    assert end == ""
    a_values = ", ".join(map(str, answer["rolls"][0]["values"]))
    b_values = ", ".join(map(str, answer["rolls"][1]["values"]))
    assert ann_dice == f"- @{ZERO_WIDTH_SPACE}everyone · success: 3d6 → {a_values}"
    assert bob_dice == (
        f"- <{ZERO_WIDTH_SPACE}@{ZERO_WIDTH_SPACE}1400000000000000004\\> hi \\*\\*there\\*\\* "
        f"· success: 3d6 → {b_values}"
    )
    assert summary.startswith(
        f"@{ZERO_WIDTH_SPACE}everyone \\(skill 12\\) rolled {answer['a']['total']},"
    )
    if answer["tie"]:
        assert summary.endswith("tie.")
    else:
        winner = "@\u200beveryone" if answer["winner"] == names["a_name"] else "hi \\*\\*there"
        assert winner in summary.rsplit(".", 2)[-2]
        assert summary.endswith(f" wins by {answer['margin_of_victory']}.")
    assert "@everyone" not in content
    assert "<@" not in content
    assert "**" not in content.replace("\\*\\*", "")


def test_odds_are_posted_as_arbiter_computes_them(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    options: dict[str, str | int] = {"a_name": "Ann", "a_skill": 12, "b_name": "Bob", "b_skill": 10}

    async def scenario() -> dict[str, Any]:
        async with table(base_url, monkeypatch) as played:
            return await played.command("odds", options)

    posted = asyncio.run(scenario())
    # 3d6 under 12 against 3d6 under 10, exactly: Ann 9905/15552, Bob 4345/15552, tie 217/2592.
    assert (
        posted["content"] == "Ann \\(skill 12\\) wins 63.7%, Bob \\(skill 10\\) 27.9%, tie 8.4%.\n"
    )
    assert posted["allowed_mentions"] == {"parse": []}


def test_a_session_is_started_and_played_round_by_round(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sides: dict[str, str | int] = {
        "a_name": "Giant",
        "a_skill": 14,
        "b_name": "Ogre",
        "b_skill": 13,
    }

    async def scenario() -> tuple[list[str], str, str, int, dict[str, Any]]:
        async with table(base_url, monkeypatch) as played:
            none_yet = await played.command("session", {}, sub="round")
            started = await played.command("session", {**sides, "seed": 11}, sub="start")
            # Two rounds decide it with this seed; a third is refused.
            rounds = [
                (await played.command("session", {}, sub="round"))["content"] for _ in range(3)
            ]
            session = played.bot.sessions[int(CHANNEL_ID)]
            async with AsyncArbiter(base_url) as arbiter:
                page = await arbiter.http.get(
                    f"/v1/regular-contests/{session.id}/rounds",
                    headers={"authorization": f"Bearer {session.gm_token}"},
                )
            return rounds, none_yet["content"], started["content"], session.version, page.json()

    rounds, none_yet, started, version, page = asyncio.run(scenario())
    assert none_yet == "No contest in this channel: start one with `/session start`."
    # The same contest with the same seed, played here directly, answers the same messages.
    body = {"a": {"name": "Giant", "skill": 14}, "b": {"name": "Ogre", "skill": 13}, "seed": 11}
    created = httpx.post(base_url + "/v1/regular-contests", json=body)
    assert created.status_code == 201
    again = created.json()
    gm = {"authorization": f"Bearer {again['tokens']['gm']}"}
    url = f"{base_url}/v1/regular-contests/{again['id']}"
    assert started == httpx.get(url, headers={**gm, **MARKDOWN}).text
    assert started == (
        "Giant \\(effective 14\\) vs Ogre \\(effective 13\\): 0 rounds played, no winner yet.\n"
    )
    expected = []
    for number in (1, 2, 3):
        round_answer = httpx.post(
            f"{url}/rounds",
            json={},
            headers={**gm, **MARKDOWN, "if-match": f'"{number}"', "idempotency-key": str(number)},
        )
        assert round_answer.status_code == (200 if number < 3 else 409)
        expected.append(round_answer.text)
    assert rounds == expected
    assert rounds[1].split("\n")[0].endswith("Giant wins the contest.")
    assert rounds[2].count("\n") == 1
    # The bot played the rounds it posted, each on the version it last saw.
    assert version == 3
    summaries = [played["summary"] for played in page["rounds"]]
    assert [text.split("\n")[0] for text in rounds[:2]] == [markdown(line) for line in summaries]
    assert all("Giant" in summary and "Ogre" in summary for summary in summaries)


def test_arbiters_refusal_is_posted_as_its_one_line(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    options: dict[str, str | int] = {"a_name": "Ann", "a_skill": 12, "b_name": "Ann", "b_skill": 10}

    async def scenario() -> dict[str, Any]:
        async with table(base_url, monkeypatch) as played:
            return await played.command("contest", options)

    posted = asyncio.run(scenario())
    body = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Ann", "skill": 10}}
    refused = httpx.post(base_url + "/v1/gurps/quick-contest", json=body, headers=MARKDOWN)
    assert refused.status_code == 422
    assert posted["content"] == refused.text
    assert posted["content"].count("\n") == 1
    assert "name" in posted["content"]


def test_an_error_not_written_for_chat_is_posted_as_its_status_alone() -> None:
    # A proxy's page in front of Arbiter: its text is nobody's to post.
    problem = Problem(title="Bad Gateway", status=502, detail="<html>@everyone</html>")
    proxied = ServiceUnavailable(problem, httpx.Headers({"content-type": "text/html"}))
    assert error_message(proxied) == "Arbiter answered 502."
    written = ServiceUnavailable(
        Problem(title="Service Unavailable", status=503, detail="the store is busy\n"),
        httpx.Headers({"content-type": "text/markdown; charset=utf-8"}),
    )
    assert error_message(written) == "the store is busy\n"
