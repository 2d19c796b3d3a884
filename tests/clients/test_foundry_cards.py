"""The Foundry module's round cards (`clients/foundry/scripts/cards.js`, `roundCards`): the
service's card as Arbiter worded it in the client's language, shown as it is, every word of it
escaped — one card for the module, the table page and the Discord markdown alike."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.clients.node import INSTALL
from tests.helpers import Session
from tests.requirements import program

CARDS = Path(__file__).resolve().parents[2] / "clients" / "foundry" / "scripts" / "cards.js"


def round_cards(cards: list[dict[str, Any]]) -> str:
    """`roundCards(cards)` as the module renders it, run in Node."""
    node = program("node", INSTALL, called="Node.js (node)")
    script = (
        f"import {{ roundCards }} from {json.dumps(CARDS.as_uri())};\n"
        "let input = '';\n"
        "process.stdin.on('data', (chunk) => { input += chunk; });\n"
        "process.stdin.on('end', () => { process.stdout.write(roundCards(JSON.parse(input))); });\n"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(cards),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_round_card_in_the_clients_language(store_client: TestClient) -> None:
    made = Session(
        store_client,
        "arm-wrestles",
        {
            "a": {"name": "Lydia <b>", "strength_mod": 2, "con_score": 12, "con_mod": 1},
            "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
        },
    )
    played = made.play_round(
        {"rolls": {"Lydia <b>": {"strength": 17}, "Ogre": {"strength": 8}}},
        headers={"accept-language": "de"},
    )
    html = round_cards(played.json()["round"]["cards"])
    # Lydia 17 + 2 = 19 beats the Ogre's 8 + 6 = 14 by 5: her DS (EG in German) rises by 5.
    assert (
        '<li class="arbiter-check arbiter-success">Lydia &lt;b&gt; 1d20+2 = 19 gegen Ogre 14'
        ' <span class="arbiter-margin">(Spanne +5, geschafft, eingegeben)</span></li>'
    ) in html
    assert (
        '<li class="arbiter-check arbiter-failure">Ogre 1d20+6 = 14 gegen Lydia &lt;b&gt; 19'
        ' <span class="arbiter-margin">(Spanne -5, verfehlt, eingegeben)</span></li>'
    ) in html
    assert '<p class="arbiter-change">→ Lydia &lt;b&gt; +5 (EG 5)</p>' in html
    assert "<b>" not in html
    assert " vs " not in html
    assert "DS" not in html
