"""`python -m arbiter_client verify URL --token T`: check a verifiable session's dice.

URL is the session's (`http://host/v1/chases/<id>`) or its proof's; T any token of it. The
command fetches the proof and the rounds the token is served, checks them
(docs/verifiable-dice.md#verifying-a-session) and, against what the player recorded during
play, `--expect-commitment HEX` (the commitment shown at creation), `--expect-head K=HEX` (the
chain head shown when K rounds were chained; 0: before the first round; repeatable) and
`--expect-seed BY=TEXT` (a seed the player added, e.g. `seat:Lydia=lucky 7`; repeatable): a
server that rebuilt its whole chain is caught only by these. Prints what was recomputed, every
problem found (which die, which record) and what is left for the reveal; exits 0 when all of it
matches, 1 when something does not, 2 when the proof cannot be read, 3 when nothing is wrong
so far but the session is still running (its dice are checked once the server seed is
revealed).
"""

from __future__ import annotations

import argparse
import re
import sys
import urllib.error

from arbiter_client.verify import Expected, verify

_HEAD = re.compile(r"([0-9]+)=([0-9a-f]{64})")
_HEX = re.compile(r"[0-9a-f]{64}")
#: The options whose value is always the next word (a token may begin with `-`).
_VALUED = ("--token", "--expect-head", "--expect-commitment", "--expect-seed")


def _head(text: str) -> tuple[int, str]:
    found = _HEAD.fullmatch(text)
    if found is None:
        raise argparse.ArgumentTypeError("K=HEX: rounds chained, then the 64-digit head")
    return int(found.group(1)), found.group(2)


def _commitment(text: str) -> str:
    if _HEX.fullmatch(text) is None:
        raise argparse.ArgumentTypeError("64 lower-case hex digits")
    return text


def _seed(text: str) -> dict[str, str]:
    by, equals, seed = text.partition("=")
    if not equals or not (by == "gm" or by.startswith(("seat:", "party:"))):
        raise argparse.ArgumentTypeError("BY=TEXT, BY being gm, seat:<name> or party:<name>")
    return {"by": by, "seed": seed}


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line's options.

    A token is URL-safe base64, so one in 64 begins with `-`, which argparse would take for an
    option: the word after `--token` (and each `--expect-…`) is always its value (as
    `--token=T` is)."""
    parser = argparse.ArgumentParser(prog="python -m arbiter_client")
    commands = parser.add_subparsers(dest="command", required=True)
    checking = commands.add_parser("verify", help="check a verifiable session's dice")
    checking.add_argument("url", help="the session's URL, e.g. http://host/v1/races/<id>")
    checking.add_argument("--token", required=True, help="any token of the session")
    checking.add_argument(
        "--expect-head",
        type=_head,
        action="append",
        default=[],
        metavar="K=HEX",
        help="the chain head shown when K rounds were chained (0: before the first round)",
    )
    checking.add_argument(
        "--expect-commitment",
        type=_commitment,
        metavar="HEX",
        help="the commitment shown when the session was created",
    )
    checking.add_argument(
        "--expect-seed",
        type=_seed,
        action="append",
        default=[],
        metavar="BY=TEXT",
        help="a seed you added, e.g. seat:Lydia=lucky 7",
    )
    words: list[str] = []
    rest = iter(argv)
    for word in rest:
        if word in _VALUED:
            value = next(rest, None)
            words.append(word if value is None else f"{word}={value}")
        else:
            words.append(word)
    return parser.parse_args(words)


def main(argv: list[str] | None = None) -> int:
    options = parse(sys.argv[1:] if argv is None else argv)
    parts = options.url.rstrip("/").removesuffix("/proof").split("/")
    expected = Expected(
        session=parts[-1],
        kind=parts[-2] if len(parts) >= 2 else None,
        commitment=options.expect_commitment,
        heads=dict(options.expect_head),
        seeds=options.expect_seed,
    )
    try:
        report = verify(options.url, options.token, expected=expected)
    except (urllib.error.URLError, ValueError) as exc:
        sys.stderr.write(f"cannot read the proof: {exc}\n")
        return 2
    sys.stdout.write(report.text() + "\n")
    if report.ok:
        return 0
    if report.left and report.problems == [
        "the server seed is not revealed yet: the session is still running"
    ]:
        return 3
    return 1


if __name__ == "__main__":
    sys.exit(main())
