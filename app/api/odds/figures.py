"""Probabilities as the odds answers write them, and an answer's chart alternative."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, TypeVar, cast

from fastapi import Request
from starlette.responses import Response

from app.api import i18n
from app.api.answers import charts
from app.api.odds.worker import off_loop_bytes
from app.rules.messages import Message, english
from app.rules.odds import fraction_text

T = TypeVar("T")


def probability(value: Fraction) -> float:
    """A probability as an answer's float."""
    return float(value)


def exact(probability: Fraction) -> str:
    return fraction_text(probability)


def distribution(values: Mapping[int, Fraction]) -> tuple[dict[str, float], dict[str, str]]:
    return (
        {str(value): float(p) for value, p in values.items()},
        {str(value): exact(p) for value, p in values.items()},
    )


def in_language(answer: T, said: Message) -> T:
    """`answer` (an odds answer, made in English wherever it was computed) with its `summary`
    in the request's language: `said`, its line as a message (docs/languages.md); English,
    or a line that is not what `said` says in English, as it is."""
    shown: Any = answer
    if i18n.current() == i18n.DEFAULT or english(said) != shown["summary"]:
        return answer
    return cast(T, {**shown, "summary": i18n.said(said)})


def percent(probability: float) -> str:
    return f"{probability * 100:.1f}%"


async def maybe_chart(
    request: Request, answer: T, distribution: Mapping[str, float], title: str, xlabel: str
) -> T | Response:
    kind = charts.wanted_image(request)
    if kind is None:
        return answer
    body = await off_loop_bytes(
        charts.bar_chart_bytes, tuple(distribution.items()), title, xlabel, kind
    )
    return Response(body, media_type=kind)


async def maybe_grouped_chart(
    request: Request,
    answer: T,
    series: Mapping[str, Mapping[str, float]],
    title: str,
    xlabel: str,
    legend_title: str,
) -> T | Response:
    """`maybe_chart` for several distributions, one per name: grouped bars, a legend."""
    kind = charts.wanted_image(request)
    if kind is None:
        return answer
    hashable = tuple((name, tuple(values.items())) for name, values in series.items())
    body = await off_loop_bytes(
        charts.grouped_bar_chart_bytes, hashable, title, xlabel, kind, legend_title
    )
    return Response(body, media_type=kind)
