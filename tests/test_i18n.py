"""The players' language (docs/languages.md): negotiation, the catalogs, and the answers.

Expected texts are written here as a reader of each language reads them, never taken from the
catalogs under test.
"""

from __future__ import annotations

import importlib.util
import io
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient
from httpx import Response

from app.api import i18n
from app.rules.messages import Listing, Signed, english, m, ng
from tests.api.test_skill_games_api import Game, bidding_body, dice
from tests.helpers import Session

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "app" / "locale"
LANGUAGES = ("de", "fr", "es", "pt_BR")
DOMAINS = ("arbiter", "table")
PLACEHOLDER = re.compile(r"\{(\w+)\}|%\((\w+)\)s")


def catalog(language: str, domain: str) -> Catalog:
    with (LOCALE / language / "LC_MESSAGES" / f"{domain}.po").open("rb") as po:
        return read_po(po, locale=language)


def template(directory: Path, domain: str) -> Catalog:
    with (directory / f"{domain}.pot").open("rb") as pot:
        return read_po(pot)


def ids(messages: Catalog) -> set[str]:
    return {message.id if isinstance(message.id, str) else message.id[0] for message in messages}


def dev_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev", ROOT / "scripts" / "dev.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the catalogs ------------------------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_templates_hold_every_message_of_the_source(domain: str, tmp_path: Path) -> None:
    """`dev.py extract` run now finds what the committed template holds: no message of the
    code is missing from the catalogs (and none is left there that the code dropped)."""
    dev = dev_script()
    dev.PYTHON = Path(sys.executable)  # type: ignore[attr-defined]
    dev.extract(tmp_path)
    assert ids(template(tmp_path, domain)) == ids(template(LOCALE, domain))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_is_translated(language: str, domain: str) -> None:
    """Each catalog holds every message of its template, each translated (every plural form),
    none fuzzy: no English falls through in a finished catalog."""
    translated = catalog(language, domain)
    assert not translated.fuzzy
    assert ids(translated) == ids(template(LOCALE, domain))
    for message in translated:
        if not message.id:
            continue
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(forms), f"{language}: {message.id!r} untranslated"
        assert len(forms) == (translated.num_plurals if message.pluralizable else 1)
        assert not message.fuzzy, f"{language}: {message.id!r} fuzzy"


def placeholders(text: str) -> set[str]:
    return {brace or percent for brace, percent in PLACEHOLDER.findall(text)}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_placeholder_survives_translation(language: str, domain: str) -> None:
    for message in catalog(language, domain):
        if not message.id:
            continue
        msgids = [
            str(text) for text in (message.id if isinstance(message.id, tuple) else (message.id,))
        ]
        wanted = set().union(*(placeholders(text) for text in msgids))
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        for form in forms:
            assert placeholders(str(form)) == wanted, f"{language}: {form!r} for {msgids[0]!r}"


def test_the_checks_above_fail_on_a_broken_catalog() -> None:
    """The placeholder check tells a renamed placeholder from a kept one."""
    assert placeholders("{a}; {b}. {winner} gewinnt um {margin}.") == {"a", "b", "winner", "margin"}
    assert placeholders("{a}; {b}. {sieger} gewinnt.") != {"a", "b", "winner", "margin"}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_committed_compiled_catalogs_are_their_sources(language: str, domain: str) -> None:
    """Each `.mo` is its `.po` compiled (`dev.py compile`): served words are reviewed words."""
    compiled = io.BytesIO()
    write_mo(compiled, catalog(language, domain))
    mo = LOCALE / language / "LC_MESSAGES" / f"{domain}.mo"
    assert mo.read_bytes() == compiled.getvalue()


# --- negotiation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept_language", "lang", "chosen"),
    [
        (None, None, "en"),
        ("de", None, "de"),
        ("de-AT,de;q=0.9,en;q=0.8", None, "de"),
        ("fr;q=0.5, es", None, "es"),
        ("ja, fr;q=0.4, en;q=0.3", None, "fr"),
        ("en;q=0.5, de;q=0.5", None, "en"),
        ("de;q=0, fr", None, "fr"),
        ("pt", None, "pt-BR"),
        ("pt-PT", None, "pt-BR"),
        ("pt-br", None, "pt-BR"),
        ("ja, *;q=0.1", None, "en"),
        ("ja", None, "en"),
        ("fr", "de", "de"),
        ("fr", "pt-BR", "pt-BR"),
        ("fr", "xx", "fr"),
        (None, "es", "es"),
        ("de;q=nonsense, es", None, "es"),
    ],
)
def test_negotiation(accept_language: str | None, lang: str | None, chosen: str) -> None:
    assert i18n.negotiate(accept_language, lang) == chosen


# --- rendering ---------------------------------------------------------------------------------


def test_numbers_and_lists_in_each_language() -> None:
    """Numbers grouped as each language groups them, signs, and a list's last `and` (CLDR's,
    through Babel); English as the service always wrote them."""
    message = m(
        "{names}: {feet} ft, {gained}",
        names=Listing(["Ann", "Bob", "Cid"], "and"),
        feet=12345,
        gained=Signed(12),
    )
    assert english(message) == "Ann, Bob and Cid: 12345 ft, +12"
    rendered = {tag: i18n.rendered(message, tag) for tag in ("de", "fr", "es", "pt-BR")}
    assert rendered["de"] == "Ann, Bob und Cid: 12.345 ft, +12"
    assert rendered["fr"] == "Ann, Bob et Cid: 12\u202f345 ft, +12"
    assert rendered["es"] == "Ann, Bob y Cid: 12.345 ft, +12"
    assert rendered["pt-BR"] == "Ann, Bob e Cid: 12.345 ft, +12"


def test_plural_forms_follow_each_language() -> None:
    """A regular contest undecided after 1 round and after 2 (pt-BR and fr count 0 and 1 as
    one, unlike English and German)."""

    def undecided(rounds: int) -> Any:
        return ng(
            "{a}; {b}. Undecided after {count} round.",
            "{a}; {b}. Undecided after {count} rounds.",
            rounds,
            a="A",
            b="B",
        )

    assert i18n.rendered(undecided(1), "de") == "A; B. Unentschieden nach 1 Runde."
    assert i18n.rendered(undecided(2), "de") == "A; B. Unentschieden nach 2 Runden."
    assert i18n.rendered(undecided(1), "pt-BR") == "A; B. Indefinida após 1 turno."
    assert i18n.rendered(undecided(3), "pt-BR") == "A; B. Indefinida após 3 turnos."
    assert i18n.rendered(undecided(0), "fr") == "A ; B. Indécis après 0 round."
    assert english(undecided(0)) == "A; B. Undecided after 0 rounds."


# --- answers -----------------------------------------------------------------------------------

QUICK_CONTEST = {
    "a": {"name": "Ann", "skill": 12, "roll": [2, 3, 4]},
    "b": {"name": "Bob", "skill": 10, "roll": [5, 5, 1]},
}
#: docs/rules.md#quick-contest's worked example, as a player of each language reads it.
QUICK_CONTEST_SAID = {
    "en": "Ann (skill 12) rolled 9, made it by 3; Bob (skill 10) rolled 11, missed by 1. "
    "Ann wins by 4.",
    "de": "Ann (Fertigkeit 12) würfelt 9, geschafft um 3; Bob (Fertigkeit 10) würfelt 11, "
    "verfehlt um 1. Ann gewinnt um 4.",
    "fr": "Ann (compétence 12) obtient 9, réussi de 3 ; Bob (compétence 10) obtient 11, raté "
    "de 1. Ann gagne de 4.",
    "es": "Ann (habilidad 12) saca 9, superada por 3; Bob (habilidad 10) saca 11, fallada "
    "por 1. Ann gana por 4.",
    "pt-BR": "Ann (NH 12) rolou 9, sucesso por 3; Bob (NH 10) rolou 11, falha por 1. "
    "Ann vence por 4.",
}


@pytest.mark.parametrize("language", list(QUICK_CONTEST_SAID))
def test_a_summary_in_each_language(client: TestClient, language: str) -> None:
    """The summary line in the language asked for, as text/plain and in JSON; the JSON's other
    fields the same in every language; `Content-Language` says which, `Vary` that it may."""
    headers = {"accept-language": language}
    text = client.post(
        "/v1/gurps/quick-contest", json=QUICK_CONTEST, headers={**headers, "accept": "text/plain"}
    )
    assert text.status_code == 200
    assert text.text == QUICK_CONTEST_SAID[language] + "\n"
    assert text.headers["content-language"] == language
    assert {part.strip().lower() for part in text.headers["vary"].split(",")} == {
        "accept",
        "accept-language",
    }
    answer = client.post("/v1/gurps/quick-contest", json=QUICK_CONTEST, headers=headers).json()
    english_answer = client.post("/v1/gurps/quick-contest", json=QUICK_CONTEST).json()
    assert answer["summary"] == QUICK_CONTEST_SAID[language]
    assert {**answer, "summary": None} == {**english_answer, "summary": None}


def test_lang_overrides_accept_language(client: TestClient) -> None:
    answer = client.post(
        "/v1/gurps/quick-contest?lang=es", json=QUICK_CONTEST, headers={"accept-language": "de"}
    )
    assert answer.headers["content-language"] == "es"
    assert answer.json()["summary"] == QUICK_CONTEST_SAID["es"]


def test_a_critical_and_a_plural_in_german(client: TestClient) -> None:
    """A critical success (3d6 of 3 against skill 12) and a regular contest's rounds."""
    roll = client.post(
        "/v1/gurps/success-roll",
        json={"skill": 12, "roll": [1, 1, 1]},
        headers={"accept-language": "de"},
    ).json()
    assert roll["summary"] == "Fertigkeit 12 würfelt 3, geschafft um 9 (kritischer Erfolg)."
    assert roll["critical"] == "success"


# --- problem details ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "title", "detail"),
    [
        ("en", "Not Found", "no such resource"),
        ("de", "Nicht gefunden", "keine solche Ressource"),
        ("fr", "Introuvable", "ressource inexistante"),
        ("es", "No encontrado", "no existe ese recurso"),
        ("pt-BR", "Não encontrado", "recurso inexistente"),
    ],
)
def test_a_problem_in_each_language(
    client: TestClient, language: str, title: str, detail: str
) -> None:
    """`title` and `detail` in the language asked for; `type` and `status` never change."""
    answer = client.get("/v1/no-such-thing", headers={"accept-language": language})
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["content-language"] == language
    assert answer.json() == {
        "type": "https://arbiter.example/problems/not-found",
        "title": title,
        "status": 404,
        "detail": detail,
    }


def test_a_malformed_body_in_french_as_a_chat_line(client: TestClient) -> None:
    answer = client.post(
        "/v1/gurps/quick-contest",
        content=b"{nope",
        headers={
            "content-type": "application/json",
            "accept": "text/plain",
            "accept-language": "fr",
        },
    )
    assert answer.status_code == 400
    assert answer.text == "le corps de la requête n'est pas du JSON valide\n"


def test_a_refused_round_keeps_its_errors_list_in_english(client: TestClient) -> None:
    """A 422's `errors` are for programs: the same in every language."""
    english_answer = client.post("/v1/gurps/quick-contest", json={"a": {}}).json()
    german = client.post(
        "/v1/gurps/quick-contest", json={"a": {}}, headers={"accept-language": "de"}
    ).json()
    assert german["errors"] == english_answer["errors"]
    assert (
        german["type"] == english_answer["type"] == "https://arbiter.example/problems/invalid-input"
    )
    assert german["title"] == "Ungültige Eingabe"
    assert english_answer["detail"] == "body.a.name: Field required"
    assert german["detail"] == "body.a.name: Pflichtfeld fehlt"


# --- sessions ----------------------------------------------------------------------------------

ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}
#: Lydia's 17 + 2 = 19 against the Ogre's 8 + 6 = 14: she pushes her DS up by 5.
ROUND_ONE = {
    "en": "Round 1: Lydia beats Ogre by 5: Lydia's DS rises to 5 (Lydia 5, Ogre 0; Lydia leads).",
    "de": "Runde 1: Lydia schlägt Ogre um 5: der EG von Lydia steigt auf 5 (Lydia 5, Ogre 0; "
    "Lydia führt).",
    "fr": "Round 1 : Lydia bat Ogre de 5 : le DR de Lydia monte à 5 (Lydia 5, Ogre 0 ; Lydia "
    "mène).",
    "es": "Asalto 1: Lydia vence a Ogre por 5: el GE de Lydia sube a 5 (Lydia 5, Ogre 0; Lydia "
    "va en cabeza).",
    "pt-BR": "Rodada 1: Lydia vence Ogre por 5: o GS de Lydia sobe para 5 (Lydia 5, Ogre 0; "
    "Lydia lidera).",
}


#: The session's own summary after it, worked out from its state in every language.
SESSION_AFTER_ROUND_ONE = {
    "en": "Arm wrestle Lydia vs Ogre: DS Lydia 5, Ogre 0 (target 20).",
    "de": "Armdrücken Lydia gegen Ogre: EG Lydia 5, Ogre 0 (Ziel 20).",
    "fr": "Bras de fer Lydia contre Ogre : DR Lydia 5, Ogre 0 (objectif 20).",
    "es": "Pulso Lydia contra Ogre: GE Lydia 5, Ogre 0 (objetivo 20).",
    "pt-BR": "Queda de braço Lydia contra Ogre: GS Lydia 5, Ogre 0 (meta 20).",
}


@pytest.mark.parametrize("language", list(ROUND_ONE))
def test_a_round_played_answers_in_its_language_and_is_stored_in_english(
    store_client: TestClient, language: str
) -> None:
    created = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE).json()
    gm = {"authorization": f"Bearer {created['tokens']['gm']}"}
    played = store_client.post(
        f"/v1/arm-wrestles/{created['id']}/rounds",
        json={"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}},
        headers={**gm, "accept-language": language},
    )
    assert played.status_code == 200
    assert played.json()["summary"] == played.json()["round"]["summary"] == ROUND_ONE[language]
    stored = store_client.get(f"/v1/arm-wrestles/{created['id']}/rounds", headers=gm).json()
    assert stored["rounds"][0]["summary"] == ROUND_ONE["en"]
    read_back = store_client.get(
        f"/v1/arm-wrestles/{created['id']}/rounds", headers={**gm, "accept-language": language}
    )
    assert read_back.headers["content-language"] == language
    assert read_back.json()["rounds"][0]["summary"] == ROUND_ONE[language]
    asked = store_client.get(
        f"/v1/arm-wrestles/{created['id']}/rounds?lang={language}", headers=gm
    ).json()
    assert asked["rounds"][0]["summary"] == ROUND_ONE[language]
    session = store_client.get(
        f"/v1/arm-wrestles/{created['id']}", headers={**gm, "accept-language": language}
    ).json()
    assert session["summary"] == SESSION_AFTER_ROUND_ONE[language]
    assert played.json()["session"]["summary"] == SESSION_AFTER_ROUND_ONE[language]


# --- the reviewer's table ----------------------------------------------------------------------


def test_the_reviewers_table_is_what_the_service_answers(store_client: TestClient) -> None:
    """docs/languages.md's table (scripts/languages.py) holds each one-shot kind's worked
    example and each session kind's first round in every language, as the service answers
    it now."""
    spec = importlib.util.spec_from_file_location("languages", ROOT / "scripts" / "languages.py")
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    written = script.table(store_client)
    # Seven one-shot kinds; four session kinds, each its first round and its session after it.
    assert written.count("\n| `/v1/") == (7 + 4 * 2) * len(i18n.LANGUAGES)
    assert script.committed_table((ROOT / "docs" / "languages.md").read_text()) == written


# --- the table page's strings ------------------------------------------------------------------


def test_the_table_pages_strings_in_german(client: TestClient) -> None:
    """A string the page shows today, from its compiled catalog; revalidated by its ETag."""
    answer = client.get("/table/messages/de.json")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["content-language"] == "de"
    assert answer.json()["Create the session"] == "Sitzung erstellen"
    assert answer.json()["Play the round"] == "Runde spielen"
    again = client.get("/table/messages/de.json", headers={"if-none-match": answer.headers["etag"]})
    assert again.status_code == 304
    assert again.content == b""


def test_the_table_pages_strings_by_tag(client: TestClient) -> None:
    portuguese = client.get("/table/messages/pt-BR.json")
    assert portuguese.json()["Check the dice"] == "Verificar os dados"
    assert client.get("/table/messages/pt_br.json").json() == portuguese.json()
    assert client.get("/table/messages/en.json").json() == {}
    missing = client.get("/table/messages/xx.json")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


def test_a_round_played_in_german_is_announced_in_english(
    store_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every stream (and webhook) of the session gets the round as stored, in English, the
    session's summary too, whatever language the request that played it asked for."""
    from app.api.sessions import lifecycle

    announced: list[tuple[str, bytes]] = []

    def publish(
        _app: Any, _session_id: str, _version: int, name: str, data: bytes, *_said: Any
    ) -> None:
        announced.append((name, data))

    monkeypatch.setattr(lifecycle, "publish", publish)
    created = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE).json()
    played = store_client.post(
        f"/v1/arm-wrestles/{created['id']}/rounds",
        json={"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}},
        headers={"authorization": f"Bearer {created['tokens']['gm']}", "accept-language": "de"},
    )
    assert played.json()["summary"] == ROUND_ONE["de"]
    [data] = [data for name, data in announced if name == "round"]
    event = orjson.loads(data)
    assert event["summary"] == event["round"]["summary"] == ROUND_ONE["en"]
    assert event["session"]["summary"] == SESSION_AFTER_ROUND_ONE["en"]
    # Its card's words too; the answer's card is in German.
    assert event["round"]["cards"][0]["text"] == (
        "Lydia 1d20+2 = 19 vs Ogre 1d20+6 = 14 → Lydia +5 (DS 5)"
    )
    assert played.json()["round"]["cards"][0]["text"] == (
        "Lydia 1d20+2 = 19 gegen Ogre 1d20+6 = 14 → Lydia +5 (EG 5)"
    )
    assert {**event, "summary": None, "round": None, "session": None} == {
        **played.json(),
        "summary": None,
        "round": None,
        "session": None,
    }


#: tests/api/test_races_api.py's dash: Ann (speed 30) checks 12, Bob 3, in each language.
DASH_ROUND_ONE = {
    "en": "Round 1: Increment 1/2 (strength): Ann +18 (DS 18); Bob +3 (DS 3).",
    "de": "Runde 1: Abschnitt 1/2 (strength): Ann +18 (EG 18); Bob +3 (EG 3).",
    "fr": "Round 1 : Palier 1/2 (strength) : Ann +18 (DR 18) ; Bob +3 (DR 3).",
    "es": "Asalto 1: Tramo 1/2 (strength): Ann +18 (GE 18); Bob +3 (GE 3).",
    "pt-BR": "Rodada 1: Incremento 1/2 (strength): Ann +18 (GS 18); Bob +3 (GS 3).",
}


def dash_first_increment(
    client: TestClient, language: str = "en"
) -> tuple[dict[str, Any], Response]:
    """The dash made, and its first increment played (Ann checks 12, Bob 3) in `language`:
    the creation's answer and the round's."""
    created: dict[str, Any] = client.post(
        "/v1/races",
        json={
            "course": "dash",
            "competitors": [{"name": "Ann", "speed": 30}, {"name": "Bob", "speed": 0}],
        },
    ).json()
    played = client.post(
        f"/v1/races/{created['id']}/rounds",
        json={"rolls": {"Ann": {"check": 12}, "Bob": {"check": 3}}},
        headers={"authorization": f"Bearer {created['tokens']['gm']}", "accept-language": language},
    )
    return created, played


@pytest.mark.parametrize("language", list(DASH_ROUND_ONE))
def test_a_race_round_in_each_language(store_client: TestClient, language: str) -> None:
    created, played = dash_first_increment(store_client, language)
    assert played.status_code == 200, played.text
    assert played.json()["summary"] == DASH_ROUND_ONE[language]
    read_back = store_client.get(
        f"/v1/races/{created['id']}/rounds",
        headers={"authorization": f"Bearer {created['tokens']['gm']}", "accept-language": language},
    ).json()
    assert [record["summary"] for record in read_back["rounds"]] == [DASH_ROUND_ONE[language]]


# --- chases, races' sessions and skill games -------------------------------------------------

CHASE = {
    "escapee": {"name": "Ralf", "speed": 30, "mods": {"dexterity": 2, "hide": 5}},
    "chaser": {"name": "the guard", "speed": 30, "mods": {"balance": 0, "spot": 2}},
    "start": {"mode": "lead", "lead": 12},
    "hazard_base_cost": 0,
}
#: tests/api/test_chases_api.py's Ralf: a hazard (Dexterity 16 + 2 - 4 = 14 creates it, the
#: guard's 13 misses DC 14), then, not flat, Hide 15 + 5 against Spot 8 + 2: escaped by hiding.
CHASE_ROUNDS = {
    "en": (
        "Round 1: Increment 1 (strength): Ralf pays 4 DS for a hazard (Dexterity 14 vs 14, "
        "created; the guard fails balance 13 vs DC 14); Ralf +12, the guard +0 (held up); "
        "lead 12 -> 20.",
        "Round 2: Increment 2 (strength): Ralf hides from the guard (Hide 20 vs Spot 10); "
        "lead 20 -> 20. Ralf escapes by hiding.",
    ),
    "de": (
        "Runde 1: Abschnitt 1 (strength): Ralf zahlt 4 EG für ein Hindernis "
        "(Geschicklichkeit 14 gegen 14, geschaffen; the guard scheitert an balance 13 gegen "
        "SG 14); Ralf +12, the guard +0 (aufgehalten); Vorsprung 12 -> 20.",
        "Runde 2: Abschnitt 2 (strength): Ralf versteckt sich vor the guard (Verstecken 20 "
        "gegen Entdecken 10); Vorsprung 20 -> 20. Ralf entkommt durch Verstecken.",
    ),
    "fr": (
        "Round 1 : Palier 1 (strength) : Ralf paie 4 DR pour un obstacle (Dextérité 14 "
        "contre 14, créé ; the guard rate balance 13 contre DD 14) ; Ralf +12, the guard +0 "
        "(retenu) ; avance 12 -> 20.",
        "Round 2 : Palier 2 (strength) : Ralf se cache de the guard (Discrétion 20 contre "
        "Détection 10) ; avance 20 -> 20. Ralf s'échappe en se cachant.",
    ),
    "es": (
        "Asalto 1: Tramo 1 (strength): Ralf paga 4 GE por un obstáculo (Destreza 14 contra "
        "14, creado; the guard falla balance 13 contra CD 14); Ralf +12, the guard +0 "
        "(retenido); ventaja 12 -> 20.",
        "Asalto 2: Tramo 2 (strength): Ralf se esconde de the guard (Esconderse 20 contra "
        "Avistar 10); ventaja 20 -> 20. Ralf escapa escondiéndose.",
    ),
    "pt-BR": (
        "Rodada 1: Incremento 1 (strength): Ralf paga 4 GS por um obstáculo (Destreza 14 "
        "contra 14, criado; the guard falha em balance 13 contra CD 14); Ralf +12, the guard "
        "+0 (retido); vantagem 12 -> 20.",
        "Rodada 2: Incremento 2 (strength): Ralf se esconde de the guard (Esconder-se 20 "
        "contra Observar 10); vantagem 20 -> 20. Ralf escapa se escondendo.",
    ),
}
#: The chase's own summary once it is over.
CHASE_OVER = {
    "en": "Chase over: Ralf escaped the guard by hiding after 2 increments.",
    "de": "Verfolgung vorbei: Ralf ist the guard nach 2 Abschnitten durch Verstecken entkommen.",
    "fr": "Poursuite finie : Ralf a échappé à the guard en se cachant après 2 paliers.",
    "es": "Persecución terminada: Ralf escapó de the guard escondiéndose tras 2 tramos.",
    "pt-BR": "Perseguição encerrada: Ralf escapou de the guard se escondendo após 2 incrementos.",
}


@pytest.mark.parametrize("language", list(CHASE_ROUNDS))
def test_a_chase_in_each_language(store_client: TestClient, language: str) -> None:
    chase = Session(store_client, "chases", CHASE)
    speaking = {"accept-language": language}
    first = chase.post(
        "rounds",
        {
            "terrain": {"check": "strength"},
            "tactic": {"kind": "hazard", "penalty": 4},
            "rolls": {"Ralf": {"dexterity": 16, "check": 6}, "the guard": {"hazard": 13}},
        },
        headers=speaking,
    )
    second = chase.post(
        "rounds",
        {
            "terrain": {"check": "strength", "flat": False},
            "tactic": {"kind": "hide"},
            "rolls": {"Ralf": {"hide": 15}, "the guard": {"spot": 8}},
        },
        headers=speaking,
    )
    assert first.status_code == second.status_code == 200, second.text
    played = (first.json(), second.json())
    assert tuple(answer["summary"] for answer in played) == CHASE_ROUNDS[language]
    assert tuple(answer["round"]["summary"] for answer in played) == CHASE_ROUNDS[language]
    assert played[1]["session"]["summary"] == CHASE_OVER[language]
    assert chase.get(headers=speaking).json()["summary"] == CHASE_OVER[language]
    stored = chase.get("rounds").json()["rounds"]
    assert [record["summary"] for record in stored] == list(CHASE_ROUNDS["en"])
    read_back = chase.get("rounds", headers=speaking).json()["rounds"]
    assert [record["summary"] for record in read_back] == list(CHASE_ROUNDS[language])


#: The dash above, after its first increment: the race's own summary.
DASH_AFTER_ONE = {
    "en": "Race (dash): increment 1 of 2 done; Ann 18, Bob 3.",
    "de": "Rennen (dash): Abschnitt 1 von 2 gespielt; Ann 18, Bob 3.",
    "fr": "Course (dash) : palier 1 sur 2 joué ; Ann 18, Bob 3.",
    "es": "Carrera (dash): tramo 1 de 2 jugado; Ann 18, Bob 3.",
    "pt-BR": "Corrida (dash): incremento 1 de 2 jogado; Ann 18, Bob 3.",
}


@pytest.mark.parametrize("language", list(DASH_AFTER_ONE))
def test_a_race_session_in_each_language(store_client: TestClient, language: str) -> None:
    created, _played = dash_first_increment(store_client)
    gm = {"authorization": f"Bearer {created['tokens']['gm']}"}
    session = store_client.get(
        f"/v1/races/{created['id']}", headers={**gm, "accept-language": language}
    )
    assert session.json()["summary"] == DASH_AFTER_ONE[language]


#: tests/api/test_skill_games_api.py's bidding game: Heroes' checks (Stealth: Ann 13 + 2, Bo
#: 17; Persuasion: Ann 18, Bo 1 + 3), Villains earn nothing; Heroes charge with 2 against 0.
SKILL_GAME = {
    "en": (
        "Round 1: Heroes: Stealth 17 by Bo (token), Persuasion 18 by Ann (token) against DC "
        "15; 2 tokens earned.",
        "Round 1: Bids: Heroes 2, Villains 0. Heroes wins the bid by 2. Heroes — Charge: A "
        "clean break. Progress: Heroes 2, Villains 0. Tokens: Heroes 0, Villains 0.",
        "Skill game (bidding, DC 15), round 2: choosing skills, waiting for Heroes, "
        "Villains. Progress: Heroes 2, Villains 0. Tokens: Heroes 0, Villains 0.",
    ),
    "de": (
        "Runde 1: Heroes: Stealth 17 von Bo (Marke), Persuasion 18 von Ann (Marke) gegen SG "
        "15; 2 Marken verdient.",
        "Runde 1: Gebote: Heroes 2, Villains 0. Heroes gewinnt das Bieten um 2. Heroes — "
        "Charge: A clean break. Fortschritt: Heroes 2, Villains 0. Marken: Heroes 0, "
        "Villains 0.",
        "Fertigkeitsspiel (bidding, SG 15), Runde 2: Fertigkeiten wählen, wartet auf Heroes, "
        "Villains. Fortschritt: Heroes 2, Villains 0. Marken: Heroes 0, Villains 0.",
    ),
    "fr": (
        "Round 1 : Heroes : Stealth 17 par Bo (jeton), Persuasion 18 par Ann (jeton) contre "
        "DD 15 ; 2 jetons gagnés.",
        "Round 1 : Enchères : Heroes 2, Villains 0. Heroes remporte l'enchère de 2. Heroes — "
        "Charge : A clean break. Progression : Heroes 2, Villains 0. Jetons : Heroes 0, "
        "Villains 0.",
        "Jeu de compétences (bidding, DD 15), round 2 : choix des compétences, en attente de "
        "Heroes, Villains. Progression : Heroes 2, Villains 0. Jetons : Heroes 0, Villains 0.",
    ),
    "es": (
        "Asalto 1: Heroes: Stealth 17 de Bo (ficha), Persuasion 18 de Ann (ficha) contra CD "
        "15; 2 fichas ganadas.",
        "Asalto 1: Pujas: Heroes 2, Villains 0. Heroes gana la puja por 2. Heroes — Charge: "
        "A clean break. Progreso: Heroes 2, Villains 0. Fichas: Heroes 0, Villains 0.",
        "Juego de habilidad (bidding, CD 15), asalto 2: eligiendo habilidades, esperando a "
        "Heroes, Villains. Progreso: Heroes 2, Villains 0. Fichas: Heroes 0, Villains 0.",
    ),
    "pt-BR": (
        "Rodada 1: Heroes: Stealth 17 de Bo (ficha), Persuasion 18 de Ann (ficha) contra CD "
        "15; 2 fichas ganhas.",
        "Rodada 1: Lances: Heroes 2, Villains 0. Heroes vence o lance por 2. Heroes — "
        "Charge: A clean break. Progresso: Heroes 2, Villains 0. Fichas: Heroes 0, Villains "
        "0.",
        "Jogo de perícias (bidding, CD 15), rodada 2: escolhendo perícias, aguardando "
        "Heroes, Villains. Progresso: Heroes 2, Villains 0. Fichas: Heroes 0, Villains 0.",
    ),
}


@pytest.mark.parametrize("language", list(SKILL_GAME))
def test_a_skill_game_in_each_language(store_client: TestClient, language: str) -> None:
    game = Game(store_client, bidding_body())
    speaking = {"accept-language": language}
    skills = game.post(
        "skills",
        {
            "party": "Heroes",
            "skills": ["Stealth", "Persuasion"],
            "rolls": dice(
                "Heroes",
                ["Stealth", "Persuasion"],
                {("Ann", "Stealth"): 13, ("Bo", "Stealth"): 17, ("Ann", "Persuasion"): 18},
            ),
        },
        "Heroes",
        headers=speaking,
    )
    assert skills.status_code == 200, skills.text
    game.skills("Villains", ["Athletics", "Stealth"], dice("Villains", ["Athletics", "Stealth"]))
    game.bid("Heroes", "Charge", 2)
    revealed = game.post(
        "choices", {"party": "Villains", "action": "Rally", "bid": 0}, "Villains", speaking
    )
    assert revealed.status_code == 200, revealed.text
    session = game.get(headers=speaking).json()
    said = (skills.json()["summary"], revealed.json()["summary"], session["summary"])
    assert said == SKILL_GAME[language]
    assert revealed.json()["round"]["summary"] == said[1]
    stored = game.get("rounds").json()["rounds"]
    assert stored[0]["summary"] == SKILL_GAME["en"][1]
    # Read back by the GM and by each party (a party's view of a bidding round hides the
    # losing action, never the summary): the line the reveal answered, in the language.
    for who in ("gm", "Heroes", "Villains"):
        read_back = game.get("rounds", who, speaking).json()["rounds"]
        assert [record["summary"] for record in read_back] == [SKILL_GAME[language][1]], who


# --- a live-event stream in its GET's language -----------------------------------------------


def test_an_events_frame_in_a_language_is_made_once_for_all_its_streams() -> None:
    """Each language's frame of an event is made once, whatever the streams reading it; a
    party's view of it once for that language and party; English is the event as published."""
    from app.api.kinds.registry import KINDS
    from app.api.sessions import events

    made: list[str] = []
    record = {
        "bids": {"Heroes": 2, "Bandits": 1},
        "choices": {
            "Heroes": {"action": "Charge", "bid": 2},
            "Bandits": {"action": "Sneak", "bid": 1},
        },
        "effects": [],
        "summary": "Round 1: Bids: Heroes 2, Bandits 1.",
    }

    def said(language: str) -> bytes:
        made.append(language)
        return orjson.dumps({"round": {**record, "summary": language}, "summary": language})

    english_data = orjson.dumps({"round": record, "summary": record["summary"]})
    published = events.SaidEvent("s1", 4, "round", english_data, said=said)
    skill_games = KINDS["skill-games"]
    german = events._framed(skill_games, None, published, "de")
    assert german.startswith(b"id: 4\nevent: round\ndata: ")
    assert orjson.loads(german.split(b"data: ")[1])["summary"] == "de"
    for _ in range(100):
        assert events._framed(skill_games, None, published, "de") is german
    heroes = events._framed(skill_games, "Heroes", published, "de")
    assert b"Sneak" not in heroes
    assert orjson.loads(heroes.split(b"data: ")[1])["round"]["summary"] == "de"
    assert events._framed(skill_games, "Heroes", published, "de") is heroes
    french = events._framed(KINDS["chases"], "escapee", published, "fr")
    assert orjson.loads(french.split(b"data: ")[1])["summary"] == "fr"
    assert made == ["de", "fr"]
    assert events._framed(skill_games, None, published) is published.frame


def test_only_a_processs_last_events_can_still_be_made_in_any_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An event kept for resumes lets go of what makes it in another language (the change
    and the session it holds, dozens of objects the garbage collector walks) once it is not
    among the process's last `RECENT_TRANSLATABLE`: what it made so far stays, and in a
    language it never made it is shown in English, as another process's event is."""
    import gc
    import weakref

    from app.api.kinds.registry import KINDS
    from app.api.sessions import events
    from app.store import notify

    monkeypatch.setattr(notify, "RECENT_TRANSLATABLE", 4)
    hub = notify.Hub()

    class Change:  # stands for what a real `said` holds: the change and its session
        pass

    held: list[weakref.ref[Change]] = []
    published: list[events.SaidEvent] = []
    for version in range(1, 11):
        change = Change()
        held.append(weakref.ref(change))

        def said(language: str, change: Change = change, version: int = version) -> bytes:
            assert change is not None
            return orjson.dumps({"summary": f"{language} {version}"})

        english = orjson.dumps({"summary": f"en {version}"})
        one = events.SaidEvent("s1", version, "round", english, said=said)
        published.append(one)
        if version == 1:  # a German stream read the first one while it was new
            assert one.data_in("de") is not None
        hub.publish(one)
        del change, said, one
    gc.collect()
    # Ten published, the last four translatable: the first six let go of their change.
    assert [ref() is None for ref in held] == [True] * 6 + [False] * 4
    assert [event.said is None for event in published] == [True] * 6 + [False] * 4
    first, sixth, seventh = published[0], published[5], published[6]
    assert orjson.loads(first.data_in("de") or b"") == {"summary": "de 1"}  # made: kept
    assert first.data_in("fr") is None
    assert sixth.data_in("de") is None
    assert orjson.loads(seventh.data_in("fr") or b"") == {"summary": "fr 7"}
    arm = KINDS["arm-wrestles"]
    assert events._framed(arm, None, sixth, "de") is sixth.frame  # English, as published
    assert b'"de 1"' in events._framed(arm, None, first, "de")
    # A resume still replays every kept event, each in what it can be shown in.
    assert [event.version for event in hub.recent("s1", 0)] == list(range(1, 11))


def test_a_stream_in_german_reads_each_event_in_german(tmp_path: Path) -> None:
    """`GET …/events` with `Accept-Language: de` (or `?lang=de`): each event's summaries in
    German, its data otherwise the English event's; the stored round stays English."""
    import httpx

    from app.store.database import upgrade_to_head
    from tests.store.test_events import served, stream

    url = f"sqlite:///{tmp_path / 'events.db'}"
    upgrade_to_head(url)
    with served(url) as server, httpx.Client(base_url=server.base) as client:
        arm = Session(client, "arm-wrestles", ARM_WRESTLE)
        path = f"/v1/arm-wrestles/{arm.id}/events"
        with (
            stream(server.base, path + "?lang=de", arm.gm) as german,
            stream(server.base, path, arm.gm) as english,
        ):
            opening = german.next_event()
            assert (
                opening[2]["session"]["summary"]
                == "Armdrücken Lydia gegen Ogre: EG Lydia 0, Ogre 0 (Ziel 20)."
            )
            assert english.next_event()[2]["session"]["summary"].startswith(
                "Arm wrestle Lydia vs Ogre"
            )
            played = arm.play_round({"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}})
            version, name, data = german.next_event()
            assert (version, name) == (2, "round")
            assert data["summary"] == data["round"]["summary"] == ROUND_ONE["de"]
            assert data["session"]["summary"] == SESSION_AFTER_ROUND_ONE["de"]
            in_english = english.next_event()[2]
            assert in_english == played.json()
            assert in_english["summary"] == ROUND_ONE["en"]
            unsaid = {"summary": None, "round": None, "session": None}
            assert {**data, **unsaid} == {**in_english, **unsaid}
            # The round's card is in German as well; its data is the English event's.
            german_card, english_card = data["round"]["cards"][0], in_english["round"]["cards"][0]
            assert (
                german_card["text"] == "Lydia 1d20+2 = 19 gegen Ogre 1d20+6 = 14 → Lydia +5 (EG 5)"
            )
            assert english_card["text"] == "Lydia 1d20+2 = 19 vs Ogre 1d20+6 = 14 → Lydia +5 (DS 5)"
            assert german_card["changes"][0]["text"] == "Lydia +5 (EG 5)"
            assert {**german_card, "text": None, "dice": None, "changes": None} == {
                **english_card,
                "text": None,
                "dice": None,
                "changes": None,
            }
            unworded = ("text", "note")
            assert [
                {key: value for key, value in die.items() if key not in unworded}
                for die in german_card["dice"]
            ] == [
                {key: value for key, value in die.items() if key not in unworded}
                for die in english_card["dice"]
            ]
            assert {**data["round"], "summary": None, "cards": None} == {
                **in_english["round"],
                "summary": None,
                "cards": None,
            }
            assert {**data["session"], "summary": None} == {
                **in_english["session"],
                "summary": None,
            }
        stored = arm.get("rounds").json()["rounds"]
        assert stored[0]["summary"] == ROUND_ONE["en"]


# --- problem details that name a value -------------------------------------------------------

#: A session that is not there, in each language: the kind's name and the id asked for.
NO_SUCH_CHASE = {
    "en": "no chase with id 0123456789abcdef0123456789abcdef",
    "de": "Verfolgungsjagd mit der ID 0123456789abcdef0123456789abcdef gibt es nicht",
    "fr": "pas de poursuite avec l'id 0123456789abcdef0123456789abcdef",
    "es": "no hay persecución con id 0123456789abcdef0123456789abcdef",
    "pt-BR": "não há perseguição com id 0123456789abcdef0123456789abcdef",
}


@pytest.mark.parametrize("language", list(NO_SUCH_CHASE))
def test_a_session_not_found_in_each_language(store_client: TestClient, language: str) -> None:
    created = store_client.post(
        "/v1/chases",
        json={
            "escapee": {"name": "Ralf", "speed": 0},
            "chaser": {"name": "the guard", "speed": 0},
            "start": {"mode": "lead", "lead": 5},
        },
    ).json()
    missing = store_client.get(
        "/v1/chases/0123456789abcdef0123456789abcdef",
        headers={
            "authorization": f"Bearer {created['tokens']['gm']}",
            "accept-language": language,
        },
    )
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert missing.json()["detail"] == NO_SUCH_CHASE[language]
    assert missing.json()["type"] == "https://arbiter.example/problems/not-found"
