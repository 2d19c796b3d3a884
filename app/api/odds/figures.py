"""Probabilities as the odds answers write them, and an answer's chart alternative."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar, cast

from fastapi import Request
from starlette.responses import Response

from app.api import i18n
from app.api.answers import charts
from app.api.odds.worker import off_loop_bytes
from app.rules.messages import N_, Message, english, term
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


def in_language(answer: T, said: Message, tag: str | None = None) -> T:
    """`answer` (an odds answer, made in English wherever it was computed) with its `summary`
    in the request's language (or `tag`'s): `said`, its line as a message
    (docs/languages.md); English, or a line that is not what `said` says in English, as it
    is."""
    shown: Any = answer
    tag = tag or i18n.current()
    if tag == i18n.DEFAULT or english(said) != shown["summary"]:
        return answer
    return cast(T, {**shown, "summary": i18n.said(said, tag)})


#: A chart's y axis, in every chart.
PROBABILITY = term(N_("probability"))


@dataclass(frozen=True, slots=True)
class ChartWords:
    """A chart's words as messages: its title, its x axis and (grouped bars) its legend's
    title; worded in a language by `in_words`."""

    title: Message
    xlabel: Message
    legend: Message | None = None

    def in_words(self, tag: str | None = None) -> tuple[str, str, str | None, str]:
        """(title, x axis, legend title, y axis) in the request's language (or `tag`'s)."""
        legend = None if self.legend is None else i18n.said(self.legend, tag)
        return (
            i18n.said(self.title, tag),
            i18n.said(self.xlabel, tag),
            legend,
            i18n.said(PROBABILITY, tag),
        )


def percent(probability: float) -> str:
    return f"{probability * 100:.1f}%"


async def maybe_chart(
    request: Request, answer: T, distribution: Mapping[str, float], words: ChartWords
) -> T | Response:
    """`answer`, or its chart when the caller asks for an image, worded in the request's
    language."""
    kind = charts.wanted_image(request)
    if kind is None:
        return answer
    title, xlabel, _, ylabel = words.in_words()
    body = await off_loop_bytes(
        charts.bar_chart_bytes, tuple(distribution.items()), title, xlabel, kind, ylabel
    )
    return chart_response(body, kind)


async def maybe_grouped_chart(
    request: Request,
    answer: T,
    series: Mapping[str, Mapping[str, float]],
    words: ChartWords,
) -> T | Response:
    """`maybe_chart` for several distributions, one per name: grouped bars, a legend."""
    kind = charts.wanted_image(request)
    if kind is None:
        return answer
    title, xlabel, legend_title, ylabel = words.in_words()
    hashable = tuple((name, tuple(values.items())) for name, values in series.items())
    body = await off_loop_bytes(
        charts.grouped_bar_chart_bytes, hashable, title, xlabel, kind, legend_title, ylabel
    )
    return chart_response(body, kind)


def chart_response(body: bytes, kind: str) -> Response:
    """A chart's answer: its words are in the request's language, which it says."""
    return Response(
        body,
        media_type=kind,
        headers={"Content-Language": i18n.current(), "Vary": "Accept, Accept-Language"},
    )
