"""The odds' other words in the players' language (docs/languages.md#odds): each chart's title
and axes, a token question too large for the request (answered whole by the odds worker), and
an `…/odds/choices` answer's own line comparing its options. The expected words are the
catalogs' reviewed translations, written out here; the figures are the answers' own."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from fastapi.testclient import TestClient

from app.api.odds.skill_games import TOKENS_EXAMPLE
from tests.api.odds_jobs import large_token_question
from tests.helpers import Session

LANGUAGES = ("en", "de", "fr", "es", "pt-BR")
SVG_NS = "{http://www.w3.org/2000/svg}"
QUICK = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}


def speaking(language: str, **headers: str) -> dict[str, str]:
    return {"accept-language": language, **headers}


def svg_text(svg: bytes) -> list[str]:
    """Every text of the chart, as drawn (its SVG keeps text as text)."""
    root = ET.fromstring(svg)
    return [text for element in root.iter(f"{SVG_NS}text") for text in element.itertext()]


def _percent(value: float, language: str) -> str:
    """A percentage as the language writes it (CLDR: a no-break space before `%` in German,
    French and Spanish)."""
    number = f"{value * 100:.1f}".replace(".", "." if language == "en" else ",")
    return number + ("%" if language in ("en", "pt-BR") else "\u00a0%")


def _decimal(value: float, language: str) -> str:
    shown = f"{value:.2f}"
    return shown if language == "en" else shown.replace(".", ",")


# --- charts ----------------------------------------------------------------------------------

#: Each chart's title, x axis and y axis (and legend title), by language.
QUICK_CHART = {
    "en": ("Ann vs Bob: margin of victory", "margin of victory", "probability"),
    "de": ("Ann gegen Bob: Siegesabstand", "Siegesabstand", "Wahrscheinlichkeit"),
    "fr": ("Ann contre Bob : marge de victoire", "marge de victoire", "probabilité"),
    "es": ("Ann contra Bob: margen de victoria", "margen de victoria", "probabilidad"),
    "pt-BR": ("Ann contra Bob: margem de vitória", "margem de vitória", "probabilidade"),
}
SUCCESS_CHART = {
    "en": ("Skill 12: signed margin", "margin"),
    "de": ("Fertigkeit 12: Spielraum mit Vorzeichen", "Spielraum"),
    "fr": ("Compétence 12 : marge signée", "marge"),
    "es": ("Habilidad 12: margen con signo", "margen"),
    "pt-BR": ("NH 12: margem com sinal", "margem"),
}
CAIRN_CHART = {
    "en": ("Cairn Hill, rating 12", "score"),
    "de": ("Cairn Hill, Wert 12", "Ergebnis"),
    "fr": ("Cairn Hill, valeur 12", "score"),
    "es": ("Cairn Hill, valor 12", "puntuación"),
    "pt-BR": ("Cairn Hill, valor 12", "pontuação"),
}
TOKEN_CHART = {
    "en": ("Tokens earned in one round (DC {dc}, token rule exceed)", "tokens earned", "party"),
    "de": (
        "In einer Runde verdiente Marken (SG {dc}, Markenregel exceed)",
        "verdiente Marken",
        "Partei",
    ),
    "fr": ("Jetons gagnés en un round (DD {dc}, règle des jetons exceed)", "jetons gagnés", "camp"),
    "es": (
        "Fichas ganadas en un asalto (CD {dc}, regla de fichas exceed)",
        "fichas ganadas",
        "bando",
    ),
    "pt-BR": (
        "Fichas ganhas em uma rodada (CD {dc}, regra de fichas exceed)",
        "fichas ganhas",
        "grupo",
    ),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_charts_words_in_each_language(client: TestClient, language: str) -> None:
    """Each chart's title and axes in the request's language, which it says; the bars' values
    and the callers' names as they are."""
    probability = QUICK_CHART[language][2]
    quick = client.post(
        "/v1/odds/gurps/quick-contest",
        json=QUICK,
        headers=speaking(language, accept="image/svg+xml"),
    )
    assert quick.status_code == 200, quick.text
    assert quick.headers["content-language"] == language
    assert "Accept-Language" in quick.headers["vary"]
    texts = svg_text(quick.content)
    assert {*QUICK_CHART[language]} <= set(texts)

    success = client.post(
        "/v1/odds/gurps/success-roll",
        json={"skill": 12},
        headers=speaking(language, accept="image/svg+xml"),
    )
    assert {*SUCCESS_CHART[language], probability} <= set(svg_text(success.content))

    cairn = client.post(
        "/v1/odds/cairn", json={"rating": 12}, headers=speaking(language, accept="image/svg+xml")
    )
    assert {*CAIRN_CHART[language], probability} <= set(svg_text(cairn.content))

    tokens = client.post(
        "/v1/odds/skill-games/tokens",
        json=TOKENS_EXAMPLE,
        headers=speaking(language, accept="image/svg+xml"),
    )
    title, xlabel, legend = TOKEN_CHART[language]
    drawn = set(svg_text(tokens.content))
    assert {title.format(dc=TOKENS_EXAMPLE["game"]["dc"]), xlabel, legend, probability} <= drawn
    assert {party["name"] for party in TOKENS_EXAMPLE["game"]["parties"]} <= drawn
    if language != "en":
        english = set(
            svg_text(
                client.post(
                    "/v1/odds/skill-games/tokens",
                    json=TOKENS_EXAMPLE,
                    headers={"accept": "image/svg+xml"},
                ).content
            )
        )
        assert "probability" not in drawn
        assert TOKEN_CHART["en"][1] in english


# --- a token question too large for the request ----------------------------------------------


TOKENS_LINE = {
    "en": "{party}: {n} tokens expected ({chances}).",
    "de": "{party}: {n} Marken erwartet ({chances}).",
    "fr": "{party} : {n} jetons attendus ({chances}).",
    "es": "{party}: {n} fichas esperadas ({chances}).",
    "pt-BR": "{party}: {n} fichas esperadas ({chances}).",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_token_question_too_large_for_the_request_in_each_language(
    client: TestClient, language: str
) -> None:
    """Its JSON's and its chat line's summary and its chart's words in the request's
    language, made in the worker from the answer's own figures."""
    path = "/v1/odds/skill-games/tokens"
    question = large_token_question()
    english = client.post(path, json=question).json()
    answer = client.post(path, json=question, headers=speaking(language))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-language"] == language
    horde = english["parties"]["Horde"]
    expected = TOKENS_LINE[language].format(
        party="Horde",
        n=_decimal(horde["expected_tokens"], language),
        chances=", ".join(
            f"{skill} {_percent(share, language)}" for skill, share in horde["token"].items()
        ),
    )
    assert answer.json()["summary"] == expected
    assert {**answer.json(), "summary": None} == {**english, "summary": None}
    text = client.post(path, json=question, headers=speaking(language, accept="text/plain"))
    assert text.headers["content-language"] == language
    assert text.text == expected + "\n"
    svg = client.post(path, json=question, headers=speaking(language, accept="image/svg+xml"))
    assert svg.headers["content-language"] == language
    title, xlabel, legend = TOKEN_CHART[language]
    drawn = set(svg_text(svg.content))
    assert {title.format(dc=question["game"]["dc"]), xlabel, legend} <= drawn
    assert QUICK_CHART[language][2] in drawn


# --- an …/odds/choices answer's own line -----------------------------------------------------

RACE = {
    "course": "dash",
    "competitors": [
        {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
        {"name": "Bob", "speed": 30, "mods": {"strength": 0}},
    ],
}
PACINGS = {
    "options": [
        {"move": {"name": "Ann", "pacing": "sprint"}},
        {"label": "as she is", "move": {"name": "Ann", "pacing": "normal"}},
    ],
    "seed": 5,
    "trials": 400,
}
RACE_CHOICE = {
    "en": ("{label}: {name} wins {chance}", "{options}. Best: {best}."),
    "de": ("{label}: {name} gewinnt {chance}", "{options}. Am besten: {best}."),
    "fr": ("{label} : {name} gagne {chance}", "{options}. Meilleur : {best}."),
    "es": ("{label}: {name} gana {chance}", "{options}. Mejor: {best}."),
    "pt-BR": ("{label}: {name} vence {chance}", "{options}. Melhor: {best}."),
}
CHASE = {
    "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2, "hide": 5, "dexterity": 3}},
    "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1, "balance": 1}},
    "start": {"mode": "lead", "lead": 22},
    "max_rounds": 12,
}
TACTICS = {
    "options": [
        {"move": {"terrain": {"check": "strength"}, "tactic": {"kind": "hide"}}},
        {"label": "run", "move": {"terrain": {"check": "strength"}}},
    ]
}
CHASE_CHOICE = {
    "en": ("Ralf's next increment: {options}", "{label}: escapes {e}, caught {c}"),
    "de": ("Nächster Abschnitt von Ralf: {options}", "{label}: entkommt {e}, gefangen {c}"),
    "fr": ("Prochain palier de Ralf : {options}", "{label} : s'échappe {e}, attrapé {c}"),
    "es": ("Siguiente tramo de Ralf: {options}", "{label}: escapa {e}, atrapado {c}"),
    "pt-BR": ("Próximo incremento de Ralf: {options}", "{label}: escapa {e}, pego {c}"),
}
SKILL_GAME = {
    "dc": 12,
    "skill_list": ["Athletics", "Stealth", "Persuasion"],
    "skills_per_round": 2,
    "kind": "bidding",
    "actions": [{"name": "Charge", "effects": [{"text": "Forward.", "progress": 1}]}],
    "goal": 5,
    "parties": [
        {
            "name": "Heroes",
            "controller": "players",
            "members": [
                {"name": "Ann", "skills": {"Athletics": 5, "Stealth": 2, "Persuasion": 1}},
                {"name": "Bo", "skills": {}},
            ],
        },
        {
            "name": "Bandits",
            "controller": "gm",
            "members": [{"name": "Rook", "skills": {"Stealth": 6}}],
        },
    ],
}
SKILLS = {
    "options": [
        {"move": {"party": "Heroes", "skills": ["Athletics", "Stealth"]}},
        {"label": "talk", "move": {"party": "Heroes", "skills": ["Stealth", "Persuasion"]}},
    ]
}
SKILL_CHOICE = {
    "en": "{label}: {n} tokens expected",
    "de": "{label}: {n} Marken erwartet",
    "fr": "{label} : {n} jetons attendus",
    "es": "{label}: {n} fichas esperadas",
    "pt-BR": "{label}: {n} fichas esperadas",
}


def _listed(parts: list[str], language: str) -> str:
    """Options one after another, as each language sets its semicolon."""
    return (" ; " if language == "fr" else "; ").join(parts)


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_odds_at_a_choice_line_in_each_language(store_client: TestClient, language: str) -> None:
    """A race's, a chase's and a skill game's `…/odds/choices` line in the request's language,
    from the answer's own figures; `best` and every label as the caller (or the service) named
    them, and every field but the summaries the English answer's."""
    clause, whole = RACE_CHOICE[language]
    race = Session(store_client, "races", RACE)
    english = race.post("odds/choices", PACINGS).json()
    answer = race.post("odds/choices", PACINGS, headers=speaking(language))
    assert answer.status_code == 200, answer.text
    said = answer.json()
    assert said["best"] == english["best"]
    lines = [
        clause.format(
            label=option["label"],
            name="Ann",
            chance=_percent(option["odds"]["wins"]["Ann"], language),
        )
        for option in english["options"]
    ]
    assert said["summary"] == whole.format(options=_listed(lines, language), best=english["best"])
    assert [option["label"] for option in said["options"]] == ["Ann sprints", "as she is"]

    head, clause = CHASE_CHOICE[language]
    chase = Session(store_client, "chases", CHASE)
    english = chase.post("odds/choices", TACTICS).json()
    answer = chase.post("odds/choices", TACTICS, headers=speaking(language))
    assert answer.status_code == 200, answer.text
    lines = [
        clause.format(
            label=option["label"],
            e=_percent(option["odds"]["escaped"], language),
            c=_percent(option["odds"]["caught"], language),
        )
        for option in english["options"]
    ]
    listed = whole.format(options=_listed(lines, language), best=english["best"])
    assert answer.json()["summary"] == head.format(options=listed)
    assert answer.json()["best"] == english["best"]

    game = Session(store_client, "skill-games", SKILL_GAME)
    english = game.post("odds/choices", SKILLS).json()
    answer = game.post("odds/choices", SKILLS, headers=speaking(language))
    assert answer.status_code == 200, answer.text
    lines = [
        SKILL_CHOICE[language].format(
            label=option["label"],
            n=_decimal(option["odds"]["parties"]["Heroes"]["expected_tokens"], language),
        )
        for option in english["options"]
    ]
    assert answer.json()["summary"] == whole.format(
        options=_listed(lines, language), best=english["best"]
    )
    assert [option["label"] for option in answer.json()["options"]] == [
        "Heroes: Athletics, Stealth",
        "talk",
    ]
