"""Rounds read back in the reader's language, on SQLite and PostgreSQL (docs/languages.md).

A round's summary is stored in English beside its message in no language (`rounds.message`);
`GET …/rounds` renders it in the request's language: the line the round's own answer said
when it was played in that language, for a round played alone and for a resolve's rounds
(written packed, in one statement on PostgreSQL). A round stored without a message (before
revision 0016), or with one no longer read, is read in its stored English. Each kind's
worked round in each language is in tests/test_i18n.py; here what the store adds.
"""

from __future__ import annotations

import orjson
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.store.database import null_pool_engine
from tests.helpers import Session

REGULAR_CONTEST = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}
#: Ann's 6, 6, 6 against skill 12 and Bob's 5, 5, 5 against 10: both fail, Ann critically.
BOTH_MISS = {"rolls": {"Ann": {"success": [6, 6, 6]}, "Bob": {"success": [5, 5, 5]}}}
BOTH_MISS_SAID = {
    "en": "Round {n}: Ann (skill 12) rolled 18, missed by 6 (critical failure); Bob (skill 10) "
    "rolled 15, missed by 5. No winner yet.",
    "de": "Runde {n}: Ann (Fertigkeit 12) würfelt 18, verfehlt um 6 (kritischer Fehlschlag); "
    "Bob (Fertigkeit 10) würfelt 15, verfehlt um 5. Noch kein Sieger.",
    "fr": "Round {n} : Ann (compétence 12) obtient 18, raté de 6 (échec critique) ; Bob "
    "(compétence 10) obtient 15, raté de 5. Pas encore de vainqueur.",
    "es": "Asalto {n}: Ann (habilidad 12) saca 18, fallada por 6 (fallo crítico); Bob "
    "(habilidad 10) saca 15, fallada por 5. Aún no hay ganador.",
    "pt-BR": "Rodada {n}: Ann (NH 12) rolou 18, falha por 6 (falha crítica); Bob (NH 10) rolou "
    "15, falha por 5. Ainda sem vencedor.",
}


def test_a_regular_contests_rounds_read_back_in_each_language(store_client: TestClient) -> None:
    """Five rounds, each played in another language; read back in each, every round reads
    as that language's line, the one its answer said for the round played in it."""
    contest = Session(store_client, "regular-contests", REGULAR_CONTEST)
    answered = {}
    for number, language in enumerate(BOTH_MISS_SAID, start=1):
        played = contest.post("rounds", BOTH_MISS, headers={"accept-language": language})
        assert played.status_code == 200, played.text
        answered[language] = played.json()["summary"]
        assert answered[language] == BOTH_MISS_SAID[language].format(n=number)
    for number, language in enumerate(BOTH_MISS_SAID, start=1):
        read_back = contest.get("rounds", headers={"accept-language": language})
        assert read_back.headers["content-language"] == language
        summaries = [record["summary"] for record in read_back.json()["rounds"]]
        assert summaries == [BOTH_MISS_SAID[language].format(n=n) for n in range(1, 6)]
        assert summaries[number - 1] == answered[language]


def test_a_round_read_back_as_a_chat_line_in_german(store_client: TestClient) -> None:
    contest = Session(store_client, "regular-contests", REGULAR_CONTEST)
    assert contest.post("rounds", BOTH_MISS).status_code == 200
    markdown = contest.get("rounds", headers={"accept": "text/markdown", "accept-language": "de"})
    assert markdown.status_code == 200
    first = markdown.text.splitlines()[0]
    # (Markdown escapes its parentheses.)
    assert first == BOTH_MISS_SAID["de"].format(n=1).replace("(", "\\(").replace(")", "\\)")


ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
    "seed": 36,
}


@pytest.mark.parametrize("language", ["de", "pt-BR"])
def test_a_resolves_rounds_read_back_in_its_language(
    store_client: TestClient, language: str
) -> None:
    """A resolve writes its rounds packed (one statement on PostgreSQL): read back in the
    resolve's language, its last rounds are those its answer showed, and none is English."""
    wrestle = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    resolved = wrestle.post("resolve", headers={"accept-language": language})
    assert resolved.status_code == 200, resolved.text
    answer = resolved.json()
    assert answer["played"] > 1
    read_back = wrestle.get("rounds", headers={"accept-language": language}).json()["rounds"]
    english = wrestle.get("rounds").json()["rounds"]
    assert len(read_back) == len(english) == answer["played"]
    shown = [record["summary"] for record in answer["rounds"]]
    assert [record["summary"] for record in read_back[-len(shown) :]] == shown
    opening = {"de": "Runde {n}: ", "pt-BR": "Rodada {n}: "}[language]
    for number, (said, stored) in enumerate(zip(read_back, english, strict=True), start=1):
        assert said["summary"].startswith(opening.format(n=number))
        assert stored["summary"].startswith(f"Round {number}: ")
        assert said["summary"] != stored["summary"]
        # Nothing but the summary changes with the language (its card's words aside).
        assert {**said, "summary": None, "cards": None} == {
            **stored,
            "summary": None,
            "cards": None,
        }


@pytest.mark.parametrize(
    "message", [None, {"x": 1}, {"t": "Round {number}: {line}", "a": {"number": []}}]
)
def test_a_round_stored_without_its_message_reads_in_english(
    store_client: TestClient, database_url: str, message: object
) -> None:
    """A round stored before revision 0016 (no message) or with one that is no message's
    document is read back in its stored English, whatever the language; the others of the
    session still in the language."""
    contest = Session(store_client, "regular-contests", REGULAR_CONTEST)
    for _ in range(2):
        assert contest.post("rounds", BOTH_MISS).status_code == 200
    engine = null_pool_engine(database_url)
    try:
        with engine.begin() as connection:
            stored = None if message is None else orjson.dumps(message).decode()
            value = (
                "CAST(:message AS JSONB)" if connection.dialect.name == "postgresql" else ":message"
            )
            written = connection.execute(
                text(
                    f"UPDATE rounds SET message = {value} WHERE session_id = :id AND number = 1"
                ).bindparams(message=stored, id=contest.id)
            )
            assert written.rowcount == 1
    finally:
        engine.dispose()
    read_back = contest.get("rounds", headers={"accept-language": "de"}).json()["rounds"]
    assert [record["summary"] for record in read_back] == [
        BOTH_MISS_SAID["en"].format(n=1),
        BOTH_MISS_SAID["de"].format(n=2),
    ]
