"""The Foundry module's translations (`clients/foundry/lang/*.json`, Foundry's own i18n): every
text the module shows is a key of `en.json`, and every language of `module.json` has each key,
with the same placeholders, none left empty. That a player's client shows them in its language
is proven by the Node run of tests/clients/test_foundry.py (a German player beside an English GM).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

MODULE = Path(__file__).resolve().parents[2] / "clients" / "foundry"
LANGUAGES = ("en", "de", "fr", "es", "pt-BR")
#: A key the module names: a string literal `"ARBITER.…"`, or a template `ARBITER.….${…}`.
KEY = re.compile(r"[\"`](ARBITER(?:\.[\w-]+)+)(\.\$\{)?")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def translations(lang: str) -> dict[str, str]:
    loaded: dict[str, str] = json.loads((MODULE / "lang" / f"{lang}.json").read_text("utf-8"))
    return loaded


def quoted_list(source: str, name: str) -> list[str]:
    """The strings of `export const NAME = [...]` in a script."""
    found = re.search(rf"export const {name} = \[([^\]]*)\]", source)
    assert found is not None, name
    return re.findall(r'"([^"]*)"', found.group(1))


def keys_used() -> set[str]:
    """Every key the scripts show: literal keys, and a template's key for each value of the
    list it walks (a race's courses and pacings, a chase's checks, the live events' names)."""
    used: set[str] = set()
    for script in (MODULE / "scripts").glob("*.js"):
        source = script.read_text("utf-8")
        for key, template in KEY.findall(source):
            if not template:
                used.add(key)
    kinds = (MODULE / "scripts" / "kinds.js").read_text("utf-8")
    used |= {f"ARBITER.Course.{course}" for course in quoted_list(kinds, "COURSES")}
    used |= {f"ARBITER.Check.{check}" for check in quoted_list(kinds, "TERRAINS")}
    used |= {f"ARBITER.Pacing.{pacing}" for pacing in quoted_list(kinds, "PACINGS")}
    module = (MODULE / "scripts" / "arbiter.js").read_text("utf-8")
    used |= {f"ARBITER.Event.{event}" for event in quoted_list(module, "EVENTS")}
    return used


def test_module_json_names_every_language() -> None:
    manifest = json.loads((MODULE / "module.json").read_text("utf-8"))
    assert [(entry["lang"], entry["path"]) for entry in manifest["languages"]] == [
        (lang, f"lang/{lang}.json") for lang in LANGUAGES
    ]
    assert sorted(path.name for path in (MODULE / "lang").iterdir()) == sorted(
        f"{lang}.json" for lang in LANGUAGES
    )


def test_every_shown_key_is_in_english_and_every_english_key_is_shown() -> None:
    english = translations("en")
    used = keys_used()
    assert len(used) > 100
    assert sorted(used - english.keys()) == []
    assert sorted(english.keys() - used) == []


def problems(english: dict[str, str], translated: dict[str, str]) -> list[str]:
    """What is wrong with a language's translations, beside the English ones."""
    found = [f"missing {key}" for key in sorted(english.keys() - translated.keys())]
    found += [f"unknown {key}" for key in sorted(translated.keys() - english.keys())]
    for key in sorted(english.keys() & translated.keys()):
        wanted = sorted(PLACEHOLDER.findall(english[key]))
        if sorted(PLACEHOLDER.findall(translated[key])) != wanted:
            found.append(f"placeholders of {key}: {wanted}")
        if not translated[key].strip():
            found.append(f"empty {key}")
    return found


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_each_language_has_every_key_with_its_placeholders(lang: str) -> None:
    english = translations("en")
    translated = translations(lang)
    assert problems(english, translated) == []
    # Translated, not copied: most texts differ from the English (names, "Arbiter: {x}" and
    # the command lines' syntax may not).
    same = [key for key, text in translated.items() if text == english[key]]
    assert len(same) < len(english) // 4, same


def test_the_check_finds_a_missing_key_and_a_lost_placeholder() -> None:
    german = translations("de")
    del german["ARBITER.Button.Play"]
    german["ARBITER.Card.Round"] = "{title}: Runde"
    german["ARBITER.Form.Bid"] = " "
    german["ARBITER.Button.Stop"] = "Halt"
    assert problems(translations("en"), german) == [
        "missing ARBITER.Button.Play",
        "unknown ARBITER.Button.Stop",
        "placeholders of ARBITER.Card.Round: ['number', 'title']",
        "empty ARBITER.Form.Bid",
    ]
