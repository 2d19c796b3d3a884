"""What /openapi.json promises a generated client: readable names and a type for every answer."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def test_every_operation_has_a_readable_unique_id(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    # 94, a skill game's own sealed choice read back, and the webhooks' six for each of the
    # five session kinds and the operator's six.
    assert len(ids) == len(set(ids)) == 94 + 1 + 5 * 6 + 6
    assert all(re.fullmatch(r"[a-z][A-Za-z0-9]*", operation_id) for operation_id in ids), ids
    assert {"createArmWrestle", "playArmWrestleRound", "rollGurpsSuccess", "endChase"} <= set(ids)
    assert {"oddsChaseChoices", "oddsSkillGameChoices", "oddsRaceChoices"} <= set(ids)
    assert "chooseRacePacing" in ids
    assert "readSkillGameOwnChoice" in ids
    assert {
        "subscribeArmWrestleWebhook",
        "replaySkillGameWebhookDelivery",
        "subscribeWebhook",
    } <= set(ids)
    assert {"giveArmWrestleDice", "rollForArmWrestleSeats", "cancelArmWrestlePendingRound"} <= set(
        ids
    )


def test_every_json_answer_has_a_named_schema(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    for method, path, operation in operations(document):
        for status, response in operation["responses"].items():
            if not status.startswith("2") or "application/json" not in response.get("content", {}):
                continue
            schema = response["content"]["application/json"]["schema"]
            assert schema.get("$ref", "").startswith("#/components/schemas/") or schema.get(
                "anyOf"
            ), (method, path, status, schema)


def test_schema_names_are_the_models_own(client: TestClient) -> None:
    """Two models of one name get module-qualified or parametrised names: none here."""
    names = client.get("/openapi.json").json()["components"]["schemas"]
    assert not [name for name in names if "__" in name or re.search(r"_[A-Z]", name)]
    assert "CompetitorResult" not in names


def test_every_event_stream_is_text_with_its_events_and_their_schemas(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    streams = {
        path: operation
        for method, path, operation in operations(document)
        if method == "GET" and path.endswith("/{session_id}/events")
    }
    listed: dict[str, list[tuple[str, str]]] = {}
    for path, operation in streams.items():
        answer = operation["responses"]["200"]
        assert list(answer["content"]) == ["text/event-stream"], path
        assert answer["content"]["text/event-stream"]["schema"] == {"type": "string"}
        assert "Last-Event-ID" in [parameter["name"] for parameter in operation["parameters"]]
        # One line per event: "- `name`: `Schema`, ..." (the session's and deletion's data
        # are shapes around a schema, or none).
        listed[path] = re.findall(r"^- `([\w-]+)`: `([^`]+)`", answer["description"], re.M)
        for _, schema in listed[path]:
            for name in re.findall(r"[A-Z]\w+", schema):
                assert name in document["components"]["schemas"], (path, name)

    assert len(streams) == 5
    assert listed["/v1/arm-wrestles/{session_id}/events"] == [
        ("session", '{"session": ArmWrestleSession}'),
        ("round", "ArmWrestleRoundAnswer"),
        ("round", "ArmWrestleResolved"),
        ("pending", "ArmWrestleWaiting"),
        ("dice-in", "ArmWrestleWaiting"),
        ("round", "ArmWrestleRoundAnswer"),
        ("pending-cancelled", "ArmWrestleChanged"),
        ("seed", "ArmWrestleSeedAdded"),
        ("deleted", '{"id": <session id>}'),
    ]
    assert [name for name, _ in listed["/v1/chases/{session_id}/events"]] == [
        "session", "round", "round", "pending", "dice-in", "round", "pending-cancelled", "ended",
        "seed", "deleted"
    ]  # fmt: skip
    assert listed["/v1/skill-games/{session_id}/events"] == [
        ("session", '{"session": SkillGameSession}'),
        ("skills", "SkillGameSkillsAnswer"),
        ("submitted", "SkillGameSealed"),
        ("revealed", "SkillGameRevealed"),
        ("granted", "SkillGameGranted"),
        ("ended", "SkillGameEnded"),
        ("seed", "SkillGameSeedAdded"),
        ("deleted", '{"id": <session id>}'),
    ]
