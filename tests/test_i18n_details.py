"""Problem details that name values, and a skill game's and a session's other lines, in the
players' language (docs/languages.md): the values kept, written as each language writes its
numbers; `type`, `status` and `errors` the same in every language. The expected lines are the
catalogs' reviewed translations, written out here."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from babel.numbers import format_decimal
from fastapi.testclient import TestClient

from app.api import i18n
from app.errors import api_error_response, rules_error
from app.rules.dice import DiceBudget, WorkLimitExceeded, outside
from app.rules.errors import DiceError
from app.rules.messages import Grouped, m
from tests.api.test_odds_api import SMALL_ARM_WRESTLE
from tests.api.test_skill_games_api import RANGERS, Game, at_choices, bidding_body, parties
from tests.helpers import Session

LANGUAGES = ("en", "de", "fr", "es", "pt-BR")
REGULAR = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}
#: U+202F, the narrow no-break space French groups digits with (CLDR).
NNBSP = "\u202f"


def speaking(language: str, **headers: str) -> dict[str, str]:
    return {"accept-language": language, **headers}


STALE = {
    "en": 'If-Match "7" is stale: the session is at version 1',
    "de": 'If-Match "7" ist veraltet: die Sitzung ist bei Version 1',
    "fr": 'If-Match "7" est périmé : la session en est à la version 1',
    "es": 'If-Match "7" está desfasado: la sesión va por la versión 1',
    "pt-BR": 'If-Match "7" está desatualizado: a sessão está na versão 1',
}
#: pydantic's `le` with its value, and the list too short (a plural) with both of its numbers.
TOO_HIGH = {
    "en": "body.rolls.Ann.success.2: Input should be less than or equal to 6",
    "de": "body.rolls.Ann.success.2: Eingabe muss kleiner oder gleich 6 sein",
    "fr": "body.rolls.Ann.success.2 : L'entrée doit être inférieure ou égale à 6",
    "es": "body.rolls.Ann.success.2: La entrada debe ser menor o igual que 6",
    "pt-BR": "body.rolls.Ann.success.2: A entrada deve ser menor ou igual a 6",
}
TOO_SHORT = {
    "en": "body.rolls.Ann.success: List should have at least 3 items after validation, not 2",
    "de": "body.rolls.Ann.success: Liste muss nach der Prüfung mindestens 3 Einträge haben, "
    "nicht 2",
    "fr": "body.rolls.Ann.success : La liste doit avoir au moins 3 éléments après validation, "
    "pas 2",
    "es": "body.rolls.Ann.success: La lista debe tener al menos 3 elementos tras la "
    "validación, no 2",
    "pt-BR": "body.rolls.Ann.success: A lista deve ter pelo menos 3 itens após a validação, não 2",
}
NOT_IN_CONTEST = {
    "en": "'Cid' is not in this contest",
    "de": "'Cid' nimmt an diesem Wettstreit nicht teil",
    "fr": "'Cid' ne participe pas à cette opposition",
    "es": "'Cid' no participa en esta competición",
    "pt-BR": "'Cid' não está nesta disputa",
}
#: A number of six digits, grouped as each language groups it.
TOO_MANY_SIDES = {
    "en": "1d100000000: a die has at most 100000 sides",
    "de": "1d100000000: ein Würfel hat höchstens 100.000 Seiten",
    "fr": f"1d100000000 : un dé a au plus 100{NNBSP}000 faces",
    "es": "1d100000000: un dado tiene como mucho 100.000 caras",
    "pt-BR": "1d100000000: um dado tem no máximo 100.000 faces",
}


SIZES = "'fine', 'diminutive', 'tiny', 'small', 'medium', 'large', 'huge', 'gargantuan'"
#: pydantic's "one of several" (a Literal's values), its list joined in each language's words.
NOT_ONE_OF = {
    "en": f"body.competitors.0.size: Input should be {SIZES} or 'colossal'",
    "de": f"body.competitors.0.size: Eingabe muss {SIZES} oder 'colossal' sein",
    "fr": f"body.competitors.0.size : L'entrée doit être {SIZES} ou 'colossal'",
    "es": f"body.competitors.0.size: La entrada debe ser {SIZES} o 'colossal'",
    "pt-BR": f"body.competitors.0.size: A entrada deve ser {SIZES} ou 'colossal'",
}
NOT_ONE_OF_TWO = {
    "en": "body.dice: Input should be 'server' or 'verifiable'",
    "de": "body.dice: Eingabe muss 'server' oder 'verifiable' sein",
    "fr": "body.dice : L'entrée doit être 'server' ou 'verifiable'",
    "es": "body.dice: La entrada debe ser 'server' o 'verifiable'",
    "pt-BR": "body.dice: A entrada deve ser 'server' ou 'verifiable'",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_value_not_among_those_allowed_is_refused_in_each_language(
    store_client: TestClient, language: str
) -> None:
    throw = {
        "object": "javelin",
        "competitors": [{"name": "Ann", "strength_score": 10, "size": "enormous"}],
    }
    refused = store_client.post("/v1/long-throws", json=throw, headers=speaking(language))
    assert refused.status_code == 422
    assert refused.json()["detail"] == NOT_ONE_OF[language]
    wrestle = {
        "a": {"name": "Lydia", "strength_mod": 0, "con_score": 12, "con_mod": 0},
        "b": {"name": "Ogre", "strength_mod": 0, "con_score": 12, "con_mod": 0},
        "dice": "loaded",
    }
    refused = store_client.post("/v1/arm-wrestles", json=wrestle, headers=speaking(language))
    assert refused.status_code == 422
    assert refused.json()["detail"] == NOT_ONE_OF_TWO[language]


@pytest.mark.parametrize("language", LANGUAGES)
def test_problem_details_with_values_in_each_language(
    store_client: TestClient, language: str
) -> None:
    session = Session(store_client, "regular-contests", REGULAR)
    stale = session.post_round(headers=speaking(language, **{"if-match": '"7"'}))
    assert stale.status_code == 412
    assert stale.json()["type"] == "https://arbiter.example/problems/precondition-failed"
    assert stale.json()["detail"] == STALE[language]

    english = {}
    for rolls, expected in (
        ({"Ann": {"success": [3, 4, 7]}}, TOO_HIGH),
        ({"Ann": {"success": [3, 4]}}, TOO_SHORT),
        ({"Ann": {"success": [3, 4, 5]}, "Cid": {"success": [1, 1, 1]}}, NOT_IN_CONTEST),
    ):
        refused = session.post_round(rolls, headers=speaking(language))
        assert refused.status_code == 422
        assert refused.json()["detail"] == expected[language]
        english[expected["en"]] = session.post_round(rolls).json()
        # A program's fields never change with the language.
        assert {**refused.json(), "title": None, "detail": None} == {
            **english[expected["en"]],
            "title": None,
            "detail": None,
        }
    assert session.session()["version"] == 1

    roll = store_client.get("/v1/roll", params={"expr": "1d100000000"}, headers=speaking(language))
    assert roll.status_code == 422
    assert roll.json()["detail"] == TOO_MANY_SIDES[language]
    assert roll.json()["errors"][0]["msg"] == TOO_MANY_SIDES["en"]


def test_a_dice_refusal_of_the_rules_keeps_its_values_in_german() -> None:
    """A `DiceError` built as a message: its detail in the request's language, its
    `errors` in English."""
    refused = rules_error(DiceError(outside(25, 20), ("rolls", "Ann", "check")))
    with i18n.speaking("de"):
        body = api_error_response(refused).body
    problem = orjson.loads(body)
    assert problem["detail"] == "Würfelwert 25 liegt außerhalb von 1..20"
    assert problem["errors"] == [
        {"loc": ["body", "rolls", "Ann", "check"], "msg": "die value 25 is outside 1..20"}
    ]


SEALED = {
    "en": "Heroes has sealed its choice; waiting for Villains, Rangers.",
    "de": "Heroes hat seine Wahl versiegelt; es fehlen noch Villains, Rangers.",
    "fr": "Heroes a scellé son choix ; en attente de Villains, Rangers.",
    "es": "Heroes ha sellado su elección; faltan Villains, Rangers.",
    "pt-BR": "Heroes selou sua escolha; aguardando Villains, Rangers.",
}
TAKE_AFTER_THE_REVEAL = {
    "en": "Heroes has sealed its choice; take tokens after the reveal",
    "de": "Heroes hat seine Wahl versiegelt; Marken erst nach der Aufdeckung nehmen",
    "fr": "Heroes a scellé son choix ; retirez des jetons après la révélation",
    "es": "Heroes ha sellado su elección; quita fichas tras la revelación",
    "pt-BR": "Heroes selou sua escolha; tire fichas depois da revelação",
}
GRANTED = {
    "en": "The GM grants Heroes 3 tokens: A rousing speech. Tokens: Heroes 3, Villains 0.",
    "de": "Die SL gewährt Heroes 3 Marken: A rousing speech. Marken: Heroes 3, Villains 0.",
    "fr": "Le MJ accorde 3 jetons à Heroes : A rousing speech. Jetons : Heroes 3, Villains 0.",
    "es": "El DJ concede 3 fichas a Heroes: A rousing speech. Fichas: Heroes 3, Villains 0.",
    "pt-BR": "O mestre concede 3 fichas a Heroes: A rousing speech. Fichas: Heroes 3, Villains 0.",
}
TAKEN = {
    "en": "The GM takes from Heroes 1 token: Taxes. Tokens: Heroes 2, Villains 0.",
    "de": "Die SL nimmt Heroes 1 Marke: Taxes. Marken: Heroes 2, Villains 0.",
    "fr": "Le MJ retire 1 jeton à Heroes : Taxes. Jetons : Heroes 2, Villains 0.",
    "es": "El DJ quita 1 ficha a Heroes: Taxes. Fichas: Heroes 2, Villains 0.",
    "pt-BR": "O mestre tira 1 ficha de Heroes: Taxes. Fichas: Heroes 2, Villains 0.",
}
FINISHED = {
    "en": "the skill game is finished",
    "de": "das Fertigkeitsspiel ist beendet",
    "fr": "le jeu de compétences est terminé",
    "es": "el juego de habilidad ha terminado",
    "pt-BR": "o jogo de perícias terminou",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_skill_games_other_lines_in_each_language(
    store_client: TestClient, language: str
) -> None:
    """The sealed choice's waiting line, a refusal naming the party, the GM's grant (one and
    several tokens), the end's note of its reason, and a 409 once it is over."""
    game = at_choices(store_client, bidding_body(parties=parties(RANGERS)), 1, 1)
    sealed = game.post(
        "choices", {"party": "Heroes", "action": "Charge", "bid": 1}, "Heroes", speaking(language)
    )
    assert sealed.status_code == 202
    assert sealed.json()["summary"] == SEALED[language]
    refused = game.post(
        "grants", {"party": "Heroes", "tokens": -1, "reason": "x"}, "gm", speaking(language)
    )
    assert refused.status_code == 409
    assert refused.json()["detail"] == TAKE_AFTER_THE_REVEAL[language]

    fresh = Game(store_client, bidding_body())
    granted = fresh.post(
        "grants",
        {"party": "Heroes", "tokens": 3, "reason": "A rousing speech"},
        "gm",
        speaking(language),
    )
    assert granted.json()["summary"] == GRANTED[language]
    taken = fresh.post(
        "grants", {"party": "Heroes", "tokens": -1, "reason": "Taxes"}, "gm", speaking(language)
    )
    assert taken.json()["summary"] == TAKEN[language]

    ended = fresh.post("end", {"reason": "Dawn breaks"}, "gm", speaking(language))
    assert ended.status_code == 200
    session = fresh.get(headers=speaking(language)).json()
    assert session["status"] == "finished"
    # The GM's reason in her own words, after the session's line in the language asked for.
    assert ended.json()["summary"] == f"{session['summary']} (Dawn breaks)"
    again = fresh.post("end", {}, "gm", speaking(language))
    assert again.status_code == 409
    assert again.json()["detail"] == FINISHED[language]


PACED = {
    "en": "Ann sprints this race. ",
    "de": "Ann sprintet dieses Rennen. ",
    "fr": "Ann sprinte cette course. ",
    "es": "Ann esprinta esta carrera. ",
    "pt-BR": "Ann dispara nesta corrida. ",
}
WAITING = {
    "en": "Round 1 waits for dice from Ann, Bob (until {deadline}).",
    "de": "Runde 1 wartet auf Würfel von Ann, Bob (bis {deadline}).",
    "fr": "Le round 1 attend les dés de Ann, Bob (jusqu'à {deadline}).",
    "es": "El asalto 1 espera dados de Ann, Bob (hasta {deadline}).",
    "pt-BR": "A rodada 1 aguarda dados de Ann, Bob (até {deadline}).",
}
RACE: dict[str, Any] = {
    "course": {"increments": [{"check": "strength"}]},
    "competitors": [
        {"name": "Ann", "speed": 0, "mods": {"strength": 1}},
        {"name": "Bob", "speed": 0, "mods": {"strength": 2}},
    ],
    "seats": True,
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_races_pacing_and_a_round_waiting_for_dice_in_each_language(
    store_client: TestClient, language: str
) -> None:
    race = Session(store_client, "races", RACE)
    paced = race.post("pacing", {"name": "Ann", "pacing": "sprint"}, headers=speaking(language))
    assert paced.status_code == 200, paced.text
    session = race.get(headers=speaking(language)).json()
    assert paced.json()["summary"] == PACED[language] + session["summary"]
    waiting = race.post(
        "rounds", {"collect": True, "deadline_seconds": 60}, headers=speaking(language)
    )
    assert waiting.status_code == 202, waiting.text
    deadline = waiting.json()["pending"]["deadline"]
    assert waiting.json()["summary"] == WAITING[language].format(deadline=deadline)


@pytest.mark.parametrize("language", ["de", "pt-BR"])
def test_a_resolve_answers_its_rounds_in_its_language(
    store_client: TestClient, language: str
) -> None:
    """`…/resolve` answers the last rounds it played in the request's language, each as the
    same round played alone (`POST …/rounds`, seeded alike) answers in it; they are stored in
    English."""
    seeded = {**REGULAR, "seed": 7, "b": {"name": "Bob", "skill": 12}}
    resolved = Session(store_client, "regular-contests", seeded)
    answer = resolved.resolve(headers=speaking(language))
    assert answer.status_code == 200, answer.text
    rounds = answer.json()["rounds"]
    assert rounds
    one_by_one = Session(store_client, "regular-contests", seeded)
    alone = [
        one_by_one.play_round(headers=speaking(language)).json()["round"]
        for _ in range(answer.json()["played"])
    ]
    assert [each["summary"] for each in rounds] == [
        each["summary"] for each in alone[-len(rounds) :]
    ]
    assert answer.json()["summary"] == rounds[-1]["summary"]
    stored = resolved.rounds()[-len(rounds) :]
    assert [each["number"] for each in stored] == [each["number"] for each in rounds]
    first = {"de": "Runde ", "pt-BR": "Rodada "}[language]
    for said, kept in zip(rounds, stored, strict=True):
        assert said["summary"].startswith(f"{first}{said['number']}: ")
        assert kept["summary"].startswith(f"Round {said['number']}: ")
        assert {**said, "summary": None, "cards": None} == {**kept, "summary": None, "cards": None}


def _three_dice_at_most(skill: int) -> tuple[float, float, float]:
    """A GURPS success roll's success and criticals for `skill`, by enumerating 3d6
    (docs/rules.md#success-roll: 3-4 always a critical success, 18 always a critical failure,
    17 one below skill 16)."""
    totals = [a + b + c for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)]
    success = sum(total <= skill or total <= 4 for total in totals if total < 17) / 216
    critical_success = sum(total <= 4 for total in totals) / 216
    critical_failure = sum(total == 18 or (total == 17 and skill <= 15) for total in totals) / 216
    return success, critical_success, critical_failure


#: The figures of a success roll at skill 12 as each language writes a percentage (CLDR: a
#: no-break space before `%` in German, French and Spanish, none in Portuguese).
SUCCESS_ROLL = {
    "en": "Skill 12: succeeds {s}% (critical success {cs}%, critical failure {cf}%).",
    "de": "Fertigkeit 12: gelingt {s}\u00a0% (kritischer Erfolg {cs}\u00a0%, kritischer "
    "Fehlschlag {cf}\u00a0%).",
    "fr": "Compétence 12 : réussit {s}\u00a0% (réussite critique {cs}\u00a0%, échec critique "
    "{cf}\u00a0%).",
    "es": "Habilidad 12: supera {s}\u00a0% (éxito crítico {cs}\u00a0%, fallo crítico {cf}\u00a0%).",
    "pt-BR": "NH 12: sucesso {s}% (sucesso decisivo {cs}%, falha crítica {cf}%).",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_success_rolls_odds_in_each_language(client: TestClient, language: str) -> None:
    """The odds' line with its percentages in the language's own forms; the figures the
    same in every language."""
    success, critical_success, critical_failure = _three_dice_at_most(12)
    mark = "." if language == "en" else ","
    figures = {
        name: f"{value * 100:.1f}".replace(".", mark)
        for name, value in (("s", success), ("cs", critical_success), ("cf", critical_failure))
    }
    answer = client.post(
        "/v1/odds/gurps/success-roll", json={"skill": 12}, headers=speaking(language)
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["summary"] == SUCCESS_ROLL[language].format(**figures)
    assert answer.json()["success"] == pytest.approx(success)
    english = client.post("/v1/odds/gurps/success-roll", json={"skill": 12}).json()
    assert {**answer.json(), "summary": None} == {**english, "summary": None}


#: An arm wrestle's odds line as each language writes it (percentages in the language's own
#: forms, CLDR; the rounds expected with two decimals).
ARM_WRESTLE_ODDS = {
    "en": "A wins {a}%, B {b}%, draw {d}%, undecided {u}%; {r} rounds expected (exact).",
    "de": "A gewinnt {a}\u00a0%, B {b}\u00a0%, Unentschieden {d}\u00a0%, noch offen {u}\u00a0%; "
    "{r} Runden erwartet (exakt).",
    "fr": "A gagne {a}\u00a0%, B {b}\u00a0%, match nul {d}\u00a0%, indécis {u}\u00a0% ; "
    "{r} manches attendues (exact).",
    "es": "A gana {a}\u00a0%, B {b}\u00a0%, empate {d}\u00a0%, sin decidir {u}\u00a0%; "
    "{r} asaltos esperados (exacto).",
    "pt-BR": "A vence {a}%, B {b}%, empate {d}%, indefinido {u}%; {r} rodadas esperadas (exato).",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_arm_wrestles_odds_in_each_language(client: TestClient, language: str) -> None:
    """The odds' line from the answer's own figures, in the language's forms; the figures and
    every other field the same in every language."""
    small = SMALL_ARM_WRESTLE
    english = client.post("/v1/odds/arm-wrestles", json=small).json()
    answer = client.post("/v1/odds/arm-wrestles", json=small, headers=speaking(language))
    assert answer.status_code == 200, answer.text
    mark = "." if language == "en" else ","
    figures = {
        short: f"{english[name] * 100:.1f}".replace(".", mark)
        for short, name in (("a", "a_wins"), ("b", "b_wins"), ("d", "draw"), ("u", "undecided"))
    }
    figures["r"] = f"{english['expected_rounds']:.2f}".replace(".", mark)
    assert answer.json()["summary"] == ARM_WRESTLE_ODDS[language].format(**figures)
    assert {**answer.json(), "summary": None} == {**english, "summary": None}


def _percent(value: float, language: str) -> str:
    """A percentage as the language writes it (CLDR: a no-break space before `%` in German,
    French and Spanish)."""
    number = f"{value * 100:.1f}".replace(".", "." if language == "en" else ",")
    return number + ("%" if language in ("en", "pt-BR") else "\u00a0%")


def _grouped(value: int, language: str) -> str:
    """A count as the language writes it: Babel's CLDR forms (the service's English writes it
    plain, as its English lines always have)."""
    if language == "en":
        return str(value)
    return format_decimal(value, locale=language.replace("-", "_"))


RACE_ODDS = {
    "en": "{leader} wins {share} of {count} races; a tie {tie}.",
    "de": "{leader} gewinnt {share} von {count} Rennen; ein Gleichstand {tie}.",
    "fr": "{leader} gagne {share} de {count} courses ; une égalité {tie}.",
    "es": "{leader} gana {share} de {count} carreras; un empate {tie}.",
    "pt-BR": "{leader} vence {share} de {count} corridas; um empate {tie}.",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_races_odds_in_each_language(client: TestClient, language: str) -> None:
    race = {
        "course": "dash",
        "competitors": [
            {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
            {"name": "Bob", "speed": 30, "mods": {"strength": 0}},
        ],
        "seed": 11,
    }
    english = client.post("/v1/odds/races", json=race).json()
    answer = client.post("/v1/odds/races", json=race, headers=speaking(language))
    assert answer.status_code == 200, answer.text
    leader = max(english["wins"], key=english["wins"].__getitem__)
    assert leader == "Ann"
    assert answer.json()["summary"] == RACE_ODDS[language].format(
        leader=leader,
        share=_percent(english["wins"][leader], language),
        count=_grouped(english["trials"], language),
        tie=_percent(english["tie"], language),
    )
    assert {**answer.json(), "summary": None} == {**english, "summary": None}


CHASE_ODDS = {
    "en": "Guard catches Ralf {c}, Ralf escapes {e} (hiding {h}), still on after 30 increments "
    "{g}; {x} increments expected (exact).",
    "de": "Guard fängt Ralf {c}, Ralf entkommt {e} (versteckt {h}), nach 30 Abschnitten noch "
    "im Gange {g}; {x} Abschnitte erwartet (exakt).",
    "fr": "Guard attrape Ralf {c}, Ralf s'échappe {e} (en se cachant {h}), toujours en cours "
    "après 30 paliers {g} ; {x} paliers attendus (exact).",
    "es": "Guard atrapa a Ralf {c}, Ralf escapa {e} (escondiéndose {h}), sigue tras 30 tramos "
    "{g}; {x} tramos esperados (exacto).",
    "pt-BR": "Guard pega Ralf {c}, Ralf escapa {e} (escondendo-se {h}), ainda em curso após 30 "
    "incrementos {g}; {x} incrementos esperados (exato).",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_chases_odds_in_each_language(client: TestClient, language: str) -> None:
    chase = {
        "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2, "hide": 5}},
        "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1}},
        "start": {"mode": "lead", "lead": 12},
        "max_rounds": 30,
        "terrain": {"check": "strength"},
        "tactic_policy": "hide-when-possible",
    }
    english = client.post("/v1/odds/chases", json=chase).json()
    answer = client.post("/v1/odds/chases", json=chase, headers=speaking(language))
    assert answer.status_code == 200, answer.text
    mark = "." if language == "en" else ","
    assert answer.json()["summary"] == CHASE_ODDS[language].format(
        c=_percent(english["caught"], language),
        e=_percent(english["escaped"], language),
        h=_percent(english["hid"], language),
        g=_percent(english["gave_up"], language),
        x=f"{english['expected_increments']:.2f}".replace(".", mark),
    )
    assert {**answer.json(), "summary": None} == {**english, "summary": None}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_skill_games_token_odds_in_each_language(client: TestClient, language: str) -> None:
    """Each party's expected tokens and each skill's chance, in the language's forms; the
    figures and every other field the same in every language."""
    from app.api.odds.skill_games import TOKENS_EXAMPLE

    english = client.post("/v1/odds/skill-games/tokens", json=TOKENS_EXAMPLE).json()
    answer = client.post(
        "/v1/odds/skill-games/tokens", json=TOKENS_EXAMPLE, headers=speaking(language)
    )
    assert answer.status_code == 200, answer.text
    mark = "." if language == "en" else ","
    words = {
        "en": "{party}: {n} tokens expected ({chances})",
        "de": "{party}: {n} Marken erwartet ({chances})",
        "fr": "{party} : {n} jetons attendus ({chances})",
        "es": "{party}: {n} fichas esperadas ({chances})",
        "pt-BR": "{party}: {n} fichas esperadas ({chances})",
    }[language]
    clauses = [
        words.format(
            party=party,
            n=f"{tokens['expected_tokens']:.2f}".replace(".", mark),
            chances=", ".join(
                f"{skill} {_percent(share, language)}" for skill, share in tokens["token"].items()
            ),
        )
        for party, tokens in english["parties"].items()
    ]
    # (French sets a space before its semicolon, as before its colon.)
    semicolon = " ; " if language == "fr" else "; "
    assert answer.json()["summary"] == semicolon.join(clauses) + "."
    assert {**answer.json(), "summary": None} == {**english, "summary": None}


# --- refusals gathered from several rules, and the dice budget ----------------------------------


def test_the_dice_budget_in_german_and_english() -> None:
    """Its count grouped as each language groups it (the English line as it always was)."""
    refused = WorkLimitExceeded(
        m(
            "this request needs more than {count} dice, the most the service rolls for one "
            "request; play it in smaller steps",
            count=Grouped(1_000_000),
        )
    )
    with pytest.raises(WorkLimitExceeded) as spent:
        DiceBudget(1_000_000).spend(1_000_001)
    assert (
        str(spent.value)
        == str(refused)
        == (
            "this request needs more than 1,000,000 dice, the most the service rolls for one "
            "request; play it in smaller steps"
        )
    )
    with i18n.speaking("de"):
        problem = orjson.loads(api_error_response(rules_error(spent.value)).body)
    assert problem["detail"] == (
        "diese Anfrage braucht mehr als 1.000.000 Würfel, die meisten, die der Dienst für eine "
        "Anfrage würfelt; spiele sie in kleineren Schritten"
    )
    assert problem["errors"][0]["msg"] == str(refused)


#: A long throw refused for two reasons at once (a name used twice, a competitor with neither
#: strength_score nor load_limits): its detail is the first, in the language.
LONG_THROW_REFUSED = {
    "en": "the name 'Ann' is used twice",
    "de": "der Name 'Ann' kommt zweimal vor",
    "fr": "le nom 'Ann' est utilisé deux fois",
    "es": "el nombre 'Ann' se usa dos veces",
    "pt-BR": "o nome 'Ann' é usado duas vezes",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_long_throws_combined_refusals_in_each_language(
    client: TestClient, language: str
) -> None:
    body = {
        "object": "javelin",
        "competitors": [
            {"name": "Ann", "strength_score": 14},
            {"name": "Ann", "strength_score": 14},
            {"name": "Bo"},
        ],
    }
    refused = client.post("/v1/long-throws", json=body, headers=speaking(language))
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["detail"] == LONG_THROW_REFUSED[language]
    # Every refusal listed, in English, whatever the language.
    assert problem["errors"] == [
        {"loc": ["body", "competitors", 1, "name"], "msg": LONG_THROW_REFUSED["en"]},
        {"loc": ["body", "competitors", 2], "msg": "give strength_score or load_limits"},
    ]


#: A skill game whose skill list names a skill twice (a violation gathered with others).
TWICE_ON_THE_LIST = {
    "en": "'Stealth' is on the skill list twice",
    "de": "'Stealth' steht zweimal auf der Fertigkeitenliste",
    "fr": "'Stealth' figure deux fois dans la liste des compétences",
    "es": "'Stealth' está dos veces en la lista de habilidades",
    "pt-BR": "'Stealth' está duas vezes na lista de perícias",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_skill_games_gathered_refusals_in_each_language(
    client: TestClient, language: str
) -> None:
    body = bidding_body()
    body["skill_list"] = [*body["skill_list"], "Stealth"]
    refused = client.post("/v1/skill-games", json=body, headers=speaking(language))
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"] == TWICE_ON_THE_LIST[language]
    assert refused.json()["errors"][0]["msg"] == TWICE_ON_THE_LIST["en"]
