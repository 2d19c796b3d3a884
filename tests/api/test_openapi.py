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
    # 94, a skill game's own sealed choice read back, and the webhooks' nine (a change, a
    # delivery shown and a ping among them) for each of the five session kinds and the
    # operator's nine.
    assert len(ids) == len(set(ids)) == 94 + 1 + 5 * 9 + 9
    assert all(re.fullmatch(r"[a-z][A-Za-z0-9]*", operation_id) for operation_id in ids), ids
    assert {"createArmWrestle", "playArmWrestleRound", "rollGurpsSuccess", "endChase"} <= set(ids)
    assert {"oddsChaseChoices", "oddsSkillGameChoices", "oddsRaceChoices"} <= set(ids)
    assert "chooseRacePacing" in ids
    assert "readSkillGameOwnChoice" in ids
    assert {
        "subscribeArmWrestleWebhook",
        "replaySkillGameWebhookDelivery",
        "subscribeWebhook",
        "pingChaseWebhook",
        "pingWebhook",
        "updateRaceWebhook",
        "updateWebhook",
        "showSkillGameWebhookDelivery",
        "showWebhookDelivery",
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


def test_lang_is_declared_where_it_is_honoured(client: TestClient) -> None:
    """`?lang=` (docs/languages.md) on every `/v1` operation, optional, any string (a value not
    served is ignored, never refused); on no other operation. A 422 is documented for a typed
    path parameter (a delivery's number)."""
    document = client.get("/openapi.json").json()
    declared = {
        (method, path): [p for p in operation.get("parameters", []) if p["name"] == "lang"]
        for method, path, operation in operations(document)
    }
    for (method, path), found in declared.items():
        if path.startswith("/v1/"):
            assert len(found) == 1, (method, path)
            assert found[0]["in"] == "query"
            assert found[0]["required"] is False
            assert found[0]["schema"] == {"type": "string"}
        else:
            assert found == [], (method, path)
    assert sum(1 for method, path in declared if path.startswith("/v1/")) > 100
    replay = document["paths"]["/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay"]
    assert "422" in replay["post"]["responses"]
    # Honoured as declared: a call's problem detail in the language it names.
    refused = client.get("/v1/roll", params={"expr": "1d6+", "lang": "de"})
    assert refused.status_code == 422
    assert refused.json()["detail"] == "keine gültige Würfelnotation: der Ausdruck endet zu früh"
    ignored = client.get("/v1/roll", params={"expr": "1d6+", "lang": "xx"})
    assert ignored.json()["detail"] == "not valid dice notation: the expression ends too early"
