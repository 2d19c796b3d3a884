"""`python -m arbiter_client verify URL --token T`: check a verifiable session's dice.

URL is the session's (`http://host/v1/chases/<id>`) or its proof's; T any token of it. Prints
what was recomputed and every problem found (which die, which record); exits 0 when all of it
matches, 1 when something does not, 2 when the proof cannot be read.
"""

from __future__ import annotations

import argparse
import sys
import urllib.error

from arbiter_client.verify import fetch_proof, verify_proof


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line's options.

    A token is URL-safe base64, so one in 64 begins with `-`, which argparse would take for an
    option: the word after `--token` is always its value (as `--token=T` is)."""
    parser = argparse.ArgumentParser(prog="python -m arbiter_client")
    commands = parser.add_subparsers(dest="command", required=True)
    checking = commands.add_parser("verify", help="check a verifiable session's dice")
    checking.add_argument("url", help="the session's URL, e.g. http://host/v1/races/<id>")
    checking.add_argument("--token", required=True, help="any token of the session")
    words: list[str] = []
    rest = iter(argv)
    for word in rest:
        if word == "--token":
            value = next(rest, None)
            words.append(word if value is None else f"--token={value}")
        else:
            words.append(word)
    return parser.parse_args(words)


def main(argv: list[str] | None = None) -> int:
    options = parse(sys.argv[1:] if argv is None else argv)
    try:
        proof = fetch_proof(options.url, options.token)
    except (urllib.error.URLError, ValueError) as exc:
        sys.stderr.write(f"cannot read the proof: {exc}\n")
        return 2
    report = verify_proof(proof)
    sys.stdout.write(report.text() + "\n")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
