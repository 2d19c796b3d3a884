"""Webhook payloads in the subscriber's language (docs/webhooks.md#languages): each delivery
received and verified with the `standardwebhooks` package, as a receiver would, and its
summaries read against the reviewed translations of tests/test_i18n.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient

from app.api import i18n
from app.api.sessions.webhooks import Language
from app.main import create_app
from app.settings import Settings
from tests.conformance import Conforming
from tests.helpers import Session, assert_problem, bearer
from tests.store.receiver import Receiver
from tests.test_i18n import ARM_WRESTLE, ROUND_ONE, SESSION_AFTER_ROUND_ONE

OPERATOR_KEY = "operator-key-for-the-language-tests"
#: Lydia's 17 + 2 against the Ogre's 8 + 6 (tests/test_i18n.py's first round).
ROUND = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
FAST: dict[str, Any] = {
    "webhook_allow_private": True,
    "webhook_retry_first_seconds": 0.05,
    "webhook_retry_max_seconds": 0.2,
    "webhook_poll_seconds": 0.05,
    "operator_key": OPERATOR_KEY,
}


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=database_url, **FAST))
    with TestClient(Conforming(app)) as made:
        yield made


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver().start()
    yield made
    made.stop()


def subscribed(answer: Any) -> dict[str, Any]:
    assert answer.status_code == 201, answer.text
    made: dict[str, Any] = answer.json()
    return made


def received_by(receiver: Receiver, secret: str) -> list[dict[str, Any]]:
    """The payloads signed with `secret`, verified by `standardwebhooks`."""
    checker = Receiver()
    checker.secrets.append(secret)
    return [
        json.loads(each.body)
        for each in receiver.requests
        if checker.verify(each.body, each.headers) is not None
    ]


def test_the_languages_a_subscription_takes_are_the_services() -> None:
    assert get_args(Language) == i18n.LANGUAGES


def test_each_subscription_gets_its_rounds_summaries_in_its_language(
    client: TestClient, receiver: Receiver
) -> None:
    """Asked in the body, or taken from the subscribing request's `Accept-Language` or
    `?lang=`, or English; the round played in English (and one played in German) reaches each
    subscription in its language, the rest of the payload as the English one's."""
    session = Session(client, "arm-wrestles", ARM_WRESTLE)
    made = {
        "de": subscribed(session.post("webhooks", {"url": receiver.url, "language": "de"})),
        "fr": subscribed(
            session.post("webhooks", {"url": receiver.url}, headers={"accept-language": "fr"})
        ),
        "es": subscribed(
            client.post(
                f"{session.url}/webhooks?lang=es",
                json={"url": receiver.url},
                headers=session.headers,
            )
        ),
        "en": subscribed(session.post("webhooks", {"url": receiver.url})),
        # The body wins over the request's language.
        "pt-BR": subscribed(
            session.post(
                "webhooks",
                {"url": receiver.url, "language": "pt-BR"},
                headers={"accept-language": "de"},
            )
        ),
    }
    assert {language: each["language"] for language, each in made.items()} == {
        language: language for language in made
    }
    receiver.secrets += [each["secret"] for each in made.values()]
    listed = session.get("webhooks").json()["webhooks"]
    assert {each["id"]: each["language"] for each in listed} == {
        each["id"]: language for language, each in made.items()
    }
    # The round played in German: the English subscription still reads English.
    played = session.play_round(ROUND, headers={"accept-language": "de"})
    assert played.json()["summary"] == ROUND_ONE["de"]
    receiver.wait_for(lambda got: len(got) == len(made))
    english = received_by(receiver, made["en"]["secret"])
    for language, subscription in made.items():
        [got] = received_by(receiver, subscription["secret"])
        data = got["data"]
        assert got["type"] == "round"
        assert data["summary"] == data["round"]["summary"] == ROUND_ONE[language]
        assert data["session"]["summary"] == SESSION_AFTER_ROUND_ONE[language]
        # Only the summaries (and the cards' lines, each language's own) differ.
        unsaid = {"summary": None, "round": None, "session": None, "cards": None}
        assert {**got, "data": {**data, **unsaid}} == {
            **english[0],
            "data": {**english[0]["data"], **unsaid},
        }
        # The round's card is worded in each language too (docs/table.md#cards).
        assert {**data["round"], "summary": None, "cards": None} == {
            **english[0]["data"]["round"],
            "summary": None,
            "cards": None,
        }
        assert [card["number"] for card in data["round"]["cards"]] == [
            card["number"] for card in english[0]["data"]["round"]["cards"]
        ]
        # Worded in the subscription's language, whatever the round was played in.
        if language == "de":
            assert data["round"]["cards"] == played.json()["round"]["cards"]
        else:
            assert data["round"]["cards"] != played.json()["round"]["cards"]
    # The deletion's payload has no summary: the same in every language.
    assert client.delete(session.url, headers=session.headers).status_code == 204
    receiver.wait_for(lambda got: len(got) == 2 * len(made))
    for subscription in made.values():
        assert received_by(receiver, subscription["secret"])[-1]["data"] == {"id": session.id}


def test_the_operators_subscription_in_a_language(client: TestClient, receiver: Receiver) -> None:
    made = subscribed(
        client.post(
            "/v1/webhooks?lang=pt-BR",
            json={"url": receiver.url, "events": ["round"]},
            headers=bearer(OPERATOR_KEY),
        )
    )
    try:
        assert made["language"] == "pt-BR"
        receiver.secrets.append(made["secret"])
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        session.play_round(ROUND)
        receiver.wait_for(lambda got: len(got) == 1)
        [got] = received_by(receiver, made["secret"])
        assert got["data"]["round"]["summary"] == ROUND_ONE["pt-BR"]
        listed = client.get("/v1/webhooks", headers=bearer(OPERATOR_KEY)).json()["webhooks"]
        assert [each["language"] for each in listed if each["id"] == made["id"]] == ["pt-BR"]
    finally:
        # The database is every test's: an operator's subscription would hear their sessions.
        removed = client.delete(f"/v1/webhooks/{made['id']}", headers=bearer(OPERATOR_KEY))
        assert removed.status_code == 204, removed.text


@pytest.mark.parametrize("language", ["xx", "pt_BR", "DE", "", 7])
def test_a_language_not_served_is_refused(client: TestClient, language: Any) -> None:
    session = Session(client, "arm-wrestles", ARM_WRESTLE)
    refused = session.post("webhooks", {"url": "http://127.0.0.1:9/hook", "language": language})
    problem = assert_problem(refused, 422)
    assert any(error["loc"][-1] == "language" for error in problem["errors"])
    assert session.get("webhooks").json() == {"webhooks": []}
