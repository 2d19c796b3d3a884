"""Generators read the document as integrators run them, on the served `/openapi.json`.

openapi-python-client (the version pinned in pyproject.toml's dev extra, `--fail-on-warning`)
generates a client, which is imported. Every request example of the document, and every request
body of README.md's curl examples, goes through the request body model of its operation
unchanged (`Model.from_dict(body).to_dict() == body`), and each JSON object in it is read into
a generated model with typed fields, none left a dict or kept as untyped extra fields. (While
the document published name-keyed maps as patternProperties, the generator made them empty
models, which dropped every name.) The generated client then plays an arm wrestle's round with
supplied dice against a live server, its body built from the generated models, and reads a
session's live events: the stream's 200 is text (`text/event-stream`, a string schema), which the
generated client keeps a string (an object schema made it call `from_dict` on one).

openapi-typescript (clients/typescript's, default options) generates types, and `tsc --strict`
compiles a file that assigns every request body of README.md's curl examples, extracted here, to
its operation's request body type — which failed while defaulted request fields were typed as
always present — and refuses a misuse of each kind: a wrong type, a missing field, an unknown
field (so the check is known to look at the types). The README's comments that show a session
call's body (`# POST …/rounds {...}`) are taken too, on the session kind created above them.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import shlex
import subprocess
import sys
import threading
import typing
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import httpx
import pytest

from app.main import create_app
from app.store.database import upgrade_to_head
from tests.clients.node import BIN, run, typescript_tools
from tests.store.servers import running_servers

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: The README's second half (its reference: every kind's curl), moved there whole.
REFERENCE = ROOT / "docs" / "reference.md"
#: The generated client's package: a name of its own, beside the project's arbiter_client.
PACKAGE = "arbiter_generated"
JSON = "application/json"
SHELL_BLOCK = re.compile(r"^[ \t]*```(?:sh|bash|shell)[ \t]*\n(.*?)^[ \t]*```", re.M | re.S)
SESSION_CALL = re.compile(r"#.*?\bPOST\s+…(/\S+)\s+(\{.*)")
#: Bodies tsc must refuse, one of each kind, and the error each is refused with.
MISUSES = [
    ("/v1/gurps/success-roll", {"skill": "twelve"}, "TS2322"),  # a wrong type
    ("/v1/gurps/quick-contest", {"a": {"name": "Ann", "skill": 12}}, "TS2741"),  # no "b"
    ("/v1/d20/check", {"modifier": 3, "dc": 15, "advantage_dice": 2}, "TS2353"),  # unknown
]


def request_operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(path, method, operation) of every operation that takes a JSON body."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and JSON in operation.get("requestBody", {}).get(
                "content", {}
            ):
                yield path, method, operation


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app().openapi()


# -- README.md's request bodies ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShownBody:
    """A request body README.md shows (in a curl command or a comment): where it is posted, as
    shown and as the document's path."""

    shown_in: str
    shown: str
    path: str
    method: str
    body: Any


def shell_commands(script: str) -> Iterator[str]:
    """A shell block's commands (a continued line joined, newlines inside quotes kept), and each
    comment as one of its own, starting with "#"."""
    script = script.replace("\\\n", " ")
    current: list[str] = []
    quote: str | None = None
    at = 0
    while at < len(script):
        char = script[at]
        if quote is None and char == "#" and (not current or current[-1].isspace()):
            end = script.find("\n", at)
            end = len(script) if end < 0 else end
            yield script[at:end]
            at = end
            continue
        if quote is None and char == "\n":
            if "".join(current).strip():
                yield "".join(current).strip()
            current = []
        else:
            if quote is None and char in "'\"":
                quote = char
            elif char == quote:
                quote = None
            current.append(char)
        at += 1
    if "".join(current).strip():
        yield "".join(current).strip()


def curl_post(command: str) -> tuple[str, str | None] | None:
    """(URL path, `-d` data) of a curl command that POSTs, or None for any other command."""
    found = re.search(r"\bcurl\s.*", command, re.S)
    if found is None:
        return None
    text = found.group(0)
    if re.search(r"\$\(\s*curl\b", command):  # created=$(curl ...)
        text = text.rstrip().removesuffix(")")
    words = shlex.split(text)
    flags = [at for at, word in enumerate(words) if word in ("-d", "--data", "--data-raw")]
    data = words[flags[-1] + 1] if flags else None
    method = words[words.index("-X") + 1] if "-X" in words else ("POST" if data else "GET")
    if method != "POST":
        return None
    url = next(word for word in words[1:] if "/v1/" in word or "localhost" in word)
    return url.split("localhost:8000", 1)[-1].split("?", 1)[0], data


def document_path(document: dict[str, Any], shown: str) -> str | None:
    """The document's path that a path as shown (`$id` for a parameter) is one of."""
    parts = shown.split("/")
    for path in document["paths"]:
        template = path.split("/")
        if len(template) == len(parts) and all(
            mine == theirs or (theirs.startswith("{") and mine.startswith("$"))
            for mine, theirs in zip(parts, template, strict=True)
        ):
            return str(path)
    return None


def readme_bodies(document: dict[str, Any]) -> tuple[list[ShownBody], list[str]]:
    """The JSON bodies of the POSTs to /v1/... of README.md and docs/reference.md, and what
    could not be read or matched."""
    bodies: list[ShownBody] = []
    problems: list[str] = []
    guides = "\n".join(page.read_text(encoding="utf-8") for page in (README, REFERENCE))
    for block in SHELL_BLOCK.findall(guides):
        collection: str | None = None  # the session kind last created in the block
        for command in shell_commands(block):
            if command.startswith("#"):
                call = SESSION_CALL.match(command)
                if call is None:
                    continue
                if collection is None:
                    problems.append(f"{command!r}: no session created above it")
                    continue
                shown_in, shown = "comment", f"{collection}/$id{call.group(1)}"
                data: str | None = call.group(2)
            else:
                post = curl_post(command)
                if post is None:
                    continue
                shown_in, (shown, data) = "curl", post
                if re.fullmatch(r"/v1/[a-z-]+", shown):
                    collection = shown
            if not shown.startswith("/v1/"):
                continue
            if data is None or data.startswith("@"):  # no body, or one read from a file
                continue
            try:
                body, _ = json.JSONDecoder().raw_decode(data)
            except json.JSONDecodeError as exc:
                problems.append(f"POST {shown}: its body is not JSON ({exc}): {data!r}")
                continue
            path = document_path(document, shown)
            if path is None or "post" not in document["paths"][path]:
                problems.append(f"POST {shown}: no such operation in the document")
                continue
            bodies.append(ShownBody(shown_in, shown, path, "post", body))
    return bodies, problems


def test_the_readme_bodies_are_all_read(document: dict[str, Any]) -> None:
    bodies, problems = readme_bodies(document)

    assert not problems, "\n".join(problems)
    # Both ways a body is shown: a curl command's -d, and a session call in a comment.
    assert {body.shown_in for body in bodies} == {"curl", "comment"}
    assert "/v1/arm-wrestles/$id/rounds" in {body.shown for body in bodies}


# -- openapi-python-client -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated(
    tmp_path_factory: pytest.TempPathFactory, document: dict[str, Any]
) -> Iterator[ModuleType]:
    """The client openapi-python-client generates from the document, imported."""
    folder = tmp_path_factory.mktemp("openapi-python-client")
    (folder / "openapi.json").write_text(json.dumps(document), encoding="utf-8")
    # No post hooks: the generated code is imported, not formatted (ruff would not be on PATH).
    (folder / "config.json").write_text(json.dumps({"post_hooks": []}), encoding="utf-8")
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            "openapi.json",
            "--output-path",
            PACKAGE,
            "--meta",
            "none",
            "--config",
            "config.json",
            "--fail-on-warning",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    sys.path.insert(0, str(folder))
    try:
        package = importlib.import_module(PACKAGE)
        for module in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
            importlib.import_module(module.name)
    finally:
        sys.path.remove(str(folder))
    yield package
    for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
        del sys.modules[name]


def body_models(generated: ModuleType, document: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """The generated request body model of each (path, method) that takes a JSON body: the type
    of `body` in its generated module's request (`api/<tag>/<operation id in snake case>.py`)."""
    api = f"{generated.__name__}.api."
    modules = {
        name.rsplit(".", 1)[-1]: module
        for name, module in sys.modules.items()
        if name.startswith(api) and name.count(".") == 3
    }
    found: dict[tuple[str, str], Any] = {}
    for path, method, operation in request_operations(document):
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", operation["operationId"]).lower()
        assert snake in modules, f"{method.upper()} {path}: no generated module {snake}"
        hint = typing.get_type_hints(modules[snake]._get_kwargs)["body"]
        (model,) = [kind for kind in (*typing.get_args(hint), hint) if attrs.has(kind)]
        found[path, method] = model
    return found


def untyped(value: object, where: str) -> Iterator[str]:
    """Where a parsed body holds JSON that no generated model read: an object left a dict, or
    a map's entries of a type the generator did not know."""
    if isinstance(value, dict):
        yield f"{where}: an object left untyped"
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from untyped(item, f"{where}[{index}]")
    elif attrs.has(kind := type(value)):
        for field in attrs.fields(kind):
            item = getattr(value, field.name)
            if field.name != "additional_properties":
                yield from untyped(item, f"{where}.{field.name}")
                continue
            if item and str(field.type) in ("dict[str, Any]", "dict[str, typing.Any]"):
                yield f"{where}: {sorted(item)} kept as untyped extra fields"
            for key, entry in item.items():
                yield from untyped(entry, f"{where}[{key!r}]")


def round_trip(model: Any, body: Any, label: str) -> list[str]:
    """What goes wrong when `body` goes through `model` and back."""
    try:
        parsed = model.from_dict(body)
        back = parsed.to_dict()
    except Exception as exc:
        return [f"{label}: {model.__name__}.from_dict(...).to_dict() raised {exc!r}"]
    wrong = [f"{label}: {item}" for item in untyped(parsed, model.__name__)]
    if back != body:
        wrong.append(f"{label}: {model.__name__} gave back\n  {back}\n  for {body}")
    return wrong


def test_every_request_example_goes_through_its_generated_model_unchanged(
    generated: ModuleType, document: dict[str, Any]
) -> None:
    models = body_models(generated, document)
    failures: list[str] = []
    tried = 0
    for path, method, operation in request_operations(document):
        examples = operation["requestBody"]["content"][JSON].get("examples", {})
        if not examples:
            failures.append(f"{method.upper()} {path}: no request example to try")
        for name, example in examples.items():
            label = f"{operation['operationId']} example {name!r}"
            failures += round_trip(models[path, method], example["value"], label)
            tried += 1

    assert not failures, "\n".join(failures)
    assert tried >= len(models) > 0


def test_every_readme_body_goes_through_its_generated_model_unchanged(
    generated: ModuleType, document: dict[str, Any]
) -> None:
    models = body_models(generated, document)
    bodies, _ = readme_bodies(document)
    failures: list[str] = []
    for shown in bodies:
        assert (shown.path, shown.method) in models, f"POST {shown.shown} takes no JSON body"
        failures += round_trip(models[shown.path, shown.method], shown.body, f"POST {shown.shown}")

    assert not failures, "\n".join(failures)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One live server on a migrated SQLite database."""
    folder = tmp_path_factory.mktemp("generated-client-server")
    url = f"sqlite:///{folder / 'arbiter.db'}"
    upgrade_to_head(url)
    with running_servers(url, 1, folder) as (server,):
        yield server.base_url


def test_the_generated_client_plays_a_round_with_supplied_dice(
    generated: ModuleType, base_url: str
) -> None:
    models = importlib.import_module(f"{PACKAGE}.models")
    arm_wrestles = f"{PACKAGE}.api.arm_wrestles"
    create = importlib.import_module(f"{arm_wrestles}.create_arm_wrestle")
    play = importlib.import_module(f"{arm_wrestles}.play_arm_wrestle_round")
    match = models.ArmWrestleCreate(
        a=models.ArmWrestler(name="Lydia", strength_mod=2, con_score=12, con_mod=1),
        b=models.ArmWrestler(name="Ogre", strength_mod=6, con_score=15, con_mod=2),
    )
    with generated.Client(base_url=base_url) as client:
        created = create.sync_detailed(client=client, body=match)
    assert created.status_code == 201, created.content
    session = created.parsed
    assert isinstance(session, models.ArmWrestleCreated)

    dice = models.ArmWrestleRoundRollsType0()
    dice["Lydia"] = models.ArmWrestleDice(strength=17)
    dice["Ogre"] = models.ArmWrestleDice(strength=8)
    body = models.ArmWrestleRound(rolls=dice)
    assert body.to_dict() == {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
    with generated.AuthenticatedClient(base_url=base_url, token=session.tokens.gm) as gm:
        played = play.sync_detailed(session.id, client=gm, body=body, if_match='"1"')

    assert played.status_code == 200, played.content
    answer = played.parsed
    assert isinstance(answer, models.ArmWrestleRoundAnswer)
    assert (answer.round_.number, answer.session.version) == (1, 2)
    rolls = answer.round_.rolls
    assert all(isinstance(roll, models.RollRecord) for roll in rolls)
    assert [(roll.who, roll.purpose, roll.values, roll.source) for roll in rolls] == [
        ("Lydia", "strength", [17], "supplied"),
        ("Ogre", "strength", [8], "supplied"),
    ]
    assert all(roll.source is models.RollRecordSource.SUPPLIED for roll in rolls)


def sse_events(text: str) -> list[tuple[str, str, Any]]:
    """(id, event, data as JSON) of each event of a `text/event-stream` (one `data:` line each,
    as the server writes them); comments left out."""
    events: list[tuple[str, str, Any]] = []
    for block in text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":")
        )
        if fields:
            events.append((fields["id"], fields["event"], json.loads(fields["data"])))
    return events


def test_the_generated_client_reads_a_sessions_events_as_text(
    generated: ModuleType, base_url: str
) -> None:
    """The stream's 200 is text to the generated client (an object schema made it call
    `from_dict` on a string): read to its end, a round played and the session deleted on the
    way, it is every event, in order."""
    models = importlib.import_module(f"{PACKAGE}.models")
    arm_wrestles = f"{PACKAGE}.api.arm_wrestles"
    create = importlib.import_module(f"{arm_wrestles}.create_arm_wrestle")
    stream = importlib.import_module(f"{arm_wrestles}.stream_arm_wrestle_events")
    assert typing.get_type_hints(stream.sync_detailed)["return"].__args__ == (models.Problem | str,)
    match = models.ArmWrestleCreate(
        a=models.ArmWrestler(name="Lydia", strength_mod=2, con_score=12, con_mod=1),
        b=models.ArmWrestler(name="Ogre", strength_mod=6, con_score=15, con_mod=2),
    )
    with generated.Client(base_url=base_url) as client:
        session = create.sync_detailed(client=client, body=match).parsed
    gm = session.tokens.gm
    assert stream._get_kwargs(session.id, last_event_id="1")["headers"] == {"Last-Event-ID": "1"}

    # The stream's headers are in (so it is subscribed) before the round is played.
    opened = threading.Event()
    hooks = {"response": [lambda _response: opened.set()]}
    reader = generated.AuthenticatedClient(
        base_url=base_url, token=gm, timeout=httpx.Timeout(20.0), httpx_args={"event_hooks": hooks}
    )
    with reader, ThreadPoolExecutor(1) as pool:
        read = pool.submit(stream.sync_detailed, session.id, client=reader)
        assert opened.wait(20.0), "the stream did not open"
        headers = {"authorization": f"Bearer {gm}"}
        dice = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
        url = f"{base_url}/v1/arm-wrestles/{session.id}"
        assert httpx.post(f"{url}/rounds", json=dice, headers=headers).status_code == 200
        assert httpx.delete(url, headers=headers).status_code == 204
        answer = read.result(timeout=20.0)

    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert isinstance(answer.parsed, str)
    events = sse_events(answer.parsed)
    assert [(number, name) for number, name, _ in events] == [
        ("1", "session"),
        ("2", "round"),
        ("3", "deleted"),
    ]
    (_, _, opening), (_, _, played), (_, _, deleted) = events
    assert (opening["session"]["id"], opening["session"]["version"]) == (session.id, 1)
    assert [(roll["who"], roll["values"], roll["source"]) for roll in played["round"]["rolls"]] == [
        ("Lydia", [17], "supplied"),
        ("Ogre", [8], "supplied"),
    ]
    assert played["session"]["version"] == 2
    assert deleted == {"id": session.id}
    assert "tokens" not in answer.parsed


# -- openapi-typescript --------------------------------------------------------------------------


def typescript_bodies(bodies: list[tuple[str, str, Any]]) -> tuple[str, list[int]]:
    """A TypeScript module assigning each (path, method, body) to that operation's request body
    type, one line each, and the line number of each."""
    lines = ['import type { paths } from "./arbiter";']
    numbers: list[int] = []
    for index, (path, method, body) in enumerate(bodies):
        kind = (
            f"NonNullable<paths[{json.dumps(path)}][{json.dumps(method)}]"
            f'["requestBody"]>["content"][{json.dumps(JSON)}]'
        )
        lines.append(f"export const body{index}: {kind} = {json.dumps(body)};")
        numbers.append(len(lines))
    return "\n".join(lines) + "\n", numbers


@pytest.fixture(scope="module")
def typed(tmp_path_factory: pytest.TempPathFactory, document: dict[str, Any]) -> Path:
    """A folder holding the document and the types openapi-typescript generates from it."""
    tools = typescript_tools()
    folder = tmp_path_factory.mktemp("openapi-typescript")
    (folder / "openapi.json").write_text(json.dumps(document), encoding="utf-8")
    made = run(tools / "openapi-typescript", "openapi.json", "--output", "arbiter.d.ts", cwd=folder)
    assert made.returncode == 0, made.stdout + made.stderr
    return folder


def test_tsc_compiles_every_readme_body_as_its_request_body_type(
    typed: Path, document: dict[str, Any]
) -> None:
    bodies, _ = readme_bodies(document)
    source, _ = typescript_bodies([(body.path, body.method, body.body) for body in bodies])
    (typed / "readme.ts").write_text(source, encoding="utf-8")

    checked = run(BIN / "tsc", "--noEmit", "--strict", "readme.ts", cwd=typed)

    assert checked.returncode == 0, checked.stdout + checked.stderr + "\n" + source


def test_tsc_refuses_request_bodies_the_types_forbid(typed: Path) -> None:
    source, lines = typescript_bodies([(path, "post", body) for path, body, _ in MISUSES])
    (typed / "misuse.ts").write_text(source, encoding="utf-8")

    checked = run(BIN / "tsc", "--noEmit", "--strict", "misuse.ts", cwd=typed)

    assert checked.returncode != 0
    for line, (path, body, error) in zip(lines, MISUSES, strict=True):
        assert re.search(rf"misuse\.ts\({line},\d+\): error {error}", checked.stdout), (
            f"tsc did not refuse {body} for {path} with {error}:\n{checked.stdout}"
        )
