"""Every operation of Arbiter's API as a typed `Call` builder.

    from arbiter_client import Arbiter, operations as ops

    with Arbiter("http://127.0.0.1:8000") as arbiter:
        contest = arbiter.send(ops.gurps_quick_contest({"a": ..., "b": ...})).body
        created = arbiter.send(ops.arm_wrestles.create({...})).body
        played = arbiter.send(
            ops.arm_wrestles.play(created.id, if_match=1, idempotency_key="round-1"),
            token=created.tokens.gm,
        )

Bodies are the generated request models (`models.QuickContestRequest`, …) or the same JSON as
a mapping; answers are parsed into the generated answer models.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from arbiter_client import models
from arbiter_client.calls import Body, Call, no_content, parser, precondition, segment

CreateT = TypeVar("CreateT", bound=BaseModel)
CreatedT = TypeVar("CreatedT", bound=BaseModel)
SessionT = TypeVar("SessionT", bound=BaseModel)
RoundsT = TypeVar("RoundsT", bound=BaseModel)
RoundT = TypeVar("RoundT", bound=BaseModel)
AnswerT = TypeVar("AnswerT", bound=BaseModel)
ResolvedT = TypeVar("ResolvedT", bound=BaseModel)
OddsT = TypeVar("OddsT", bound=BaseModel)
ModelT = TypeVar("ModelT", bound=BaseModel)
RequestT = TypeVar("RequestT", bound=BaseModel)


def _post(path: str, body: Body, answer: type[ModelT]) -> Call[ModelT]:
    return Call("POST", path, {200: parser(answer)}, body=body)


def healthz() -> Call[models.Health]:
    return Call("GET", "/healthz", {200: parser(models.Health)})


def readyz() -> Call[models.Readiness]:
    return Call("GET", "/readyz", {200: parser(models.Readiness)})


def _one_shot(
    path: str, request: type[RequestT], answer: type[ModelT]
) -> Callable[[RequestT | Mapping[str, Any]], Call[ModelT]]:
    """The builder of a one-shot `POST path`: its body a `request` model (or the same JSON as
    a mapping), its answer parsed into `answer`."""

    def build(body: RequestT | Mapping[str, Any]) -> Call[ModelT]:
        return _post(path, body, answer)

    build.__doc__ = f"`POST {path}`: a `{request.__name__}`, answered `{answer.__name__}`."
    return build


gurps_success_roll = _one_shot(
    "/v1/gurps/success-roll", models.SuccessRollRequest, models.SuccessRollAnswer
)
gurps_quick_contest = _one_shot(
    "/v1/gurps/quick-contest", models.QuickContestRequest, models.QuickContestAnswer
)
gurps_resistance_roll = _one_shot(
    "/v1/gurps/resistance-roll", models.ResistanceRollRequest, models.ResistanceRollAnswer
)
gurps_regular_contest = _one_shot(
    "/v1/gurps/regular-contest", models.RegularContestRequest, models.RegularContestAnswer
)
cairn_roll = _one_shot("/v1/cairn/roll", models.CairnRollRequest, models.CairnRollAnswer)
d20_check = _one_shot("/v1/d20/check", models.D20CheckRequest, models.D20CheckAnswer)
long_throws = _one_shot("/v1/long-throws", models.LongThrowRequest, models.LongThrowAnswer)
#: One against many: one roll against each opponent's (or everyone ranked), one d20 check
#: against each opponent's opposed check (or everyone ranked by one check each).
gurps_quick_contests = _one_shot(
    "/v1/gurps/quick-contests", models.QuickContestsRequest, models.QuickContestsAnswer
)
d20_opposed_checks = _one_shot(
    "/v1/d20/opposed-checks", models.OpposedChecksRequest, models.OpposedChecksAnswer
)

# The odds of the same questions (their dice, if any, are not used; a Monte Carlo estimate
# takes the body's seed): exact, or an estimate with its standard errors.
odds_gurps_success_roll = _one_shot(
    "/v1/odds/gurps/success-roll", models.SuccessRollRequest, models.OddsSuccessRollAnswer
)
odds_gurps_quick_contest = _one_shot(
    "/v1/odds/gurps/quick-contest", models.QuickContestRequest, models.OddsQuickContestAnswer
)
odds_gurps_resistance_roll = _one_shot(
    "/v1/odds/gurps/resistance-roll",
    models.ResistanceRollRequest,
    models.OddsResistanceRollAnswer,
)
odds_gurps_regular_contest = _one_shot(
    "/v1/odds/gurps/regular-contest",
    models.RegularContestRequest,
    models.OddsRegularContestAnswer,
)
odds_cairn = _one_shot("/v1/odds/cairn", models.CairnRollRequest, models.OddsCairnAnswer)
#: From an arm wrestle's creation body.
odds_arm_wrestle = _one_shot(
    "/v1/odds/arm-wrestles", models.ArmWrestleCreate, models.OddsArmWrestleAnswer
)
odds_chase = _one_shot("/v1/odds/chases", models.OddsChaseRequest, models.OddsChaseAnswer)
#: From a race's creation body.
odds_race = _one_shot("/v1/odds/races", models.RaceCreate, models.OddsRaceAnswer)
#: One against many, exact over the one shared roll.
odds_gurps_quick_contests = _one_shot(
    "/v1/odds/gurps/quick-contests", models.QuickContestsOddsRequest, models.OddsGroupAnswer
)
odds_d20_opposed_checks = _one_shot(
    "/v1/odds/d20/opposed-checks", models.OpposedChecksOddsRequest, models.OddsGroupAnswer
)
odds_skill_game_tokens = _one_shot(
    "/v1/odds/skill-games/tokens",
    models.OddsSkillGameTokensRequest,
    models.OddsSkillGameTokensAnswer,
)


def roll(expr: str, *, seed: int | None = None) -> Call[models.NotationRollAnswer]:
    """Dice notation (`4d6kh3`, `1d20+5`)."""
    body: dict[str, Any] = {"expr": expr} if seed is None else {"expr": expr, "seed": seed}
    return _post("/v1/roll", body, models.NotationRollAnswer)


class Sessions(Generic[CreateT, CreatedT, SessionT, RoundsT]):
    """The lifecycle every long-running kind shares: create, get, list rounds, delete."""

    def __init__(
        self,
        path: str,
        create: type[CreateT],
        created: type[CreatedT],
        session: type[SessionT],
        rounds: type[RoundsT],
    ) -> None:
        self.path = path
        self.create_model = create
        self._created = parser(created)
        self._session = parser(session)
        self._rounds = parser(rounds)
        #: `ArmWrestleSeedAdded`, … : named after the kind, as its creation's answer is.
        self._seed_added = parser(
            getattr(models, created.__name__.removesuffix("Created") + "SeedAdded")
        )

    def at(self, session_id: str, *parts: str) -> str:
        return "/".join((self.path, segment(session_id), *parts))

    def create(
        self, body: CreateT | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> Call[CreatedT]:
        """201 with the session, its tokens (shown only here), `Location` and `ETag`.

        With an Idempotency-Key, send the creation with a bearer secret of your own
        (`send(..., token=secret)`) for a replay to carry the tokens again.
        """
        return Call(
            "POST",
            self.path,
            {201: self._created},
            body=body,
            headers=precondition(None, idempotency_key),
        )

    def get(self, session_id: str) -> Call[SessionT]:
        return Call("GET", self.at(session_id), {200: self._session})

    def rounds(
        self, session_id: str, *, after: int | None = None, limit: int | None = None
    ) -> Call[RoundsT]:
        """A page of rounds, oldest first; `Link: <…>; rel="next"` while more remain."""
        params: dict[str, str | int] = {}
        if after is not None:
            params["after"] = after
        if limit is not None:
            params["limit"] = limit
        return Call("GET", self.at(session_id, "rounds"), {200: self._rounds}, params=params)

    def delete(
        self,
        session_id: str,
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[None]:
        """204: a deletion answers no body, so its `Reply.body` is None."""
        return Call(
            "DELETE",
            self.at(session_id),
            {204: no_content},
            headers=precondition(if_match, idempotency_key),
        )

    def add_seed(
        self,
        session_id: str,
        seed: str,
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[Any]:
        """A verifiable session's seed, added by the token sent (once each, before its first
        round): the seeds so far, their digest and the session."""
        return Call(
            "POST",
            self.at(session_id, "seeds"),
            {200: self._seed_added},
            body={"seed": seed},
            headers=precondition(if_match, idempotency_key),
        )

    def proof(
        self, session_id: str, *, after: int | None = None, limit: int | None = None
    ) -> Call[models.Proof]:
        """A verifiable session's proof (a page of its rounds once revealed); check it with
        `arbiter_client.verify`."""
        params: dict[str, str | int] = {}
        if after is not None:
            params["after"] = after
        if limit is not None:
            params["limit"] = limit
        return Call("GET", self.at(session_id, "proof"), {200: parser(models.Proof)}, params=params)

    def _change(
        self,
        session_id: str,
        action: str,
        answer: type[ModelT],
        body: Body | None,
        if_match: int | str | None,
        idempotency_key: str | None,
    ) -> Call[ModelT]:
        return Call(
            "POST",
            self.at(session_id, action),
            {200: parser(answer)},
            body=body,
            headers=precondition(if_match, idempotency_key),
        )


class PlayedSessions(
    Sessions[CreateT, CreatedT, SessionT, RoundsT],
    Generic[CreateT, CreatedT, SessionT, RoundsT, RoundT, AnswerT, ResolvedT, OddsT],
):
    """A kind played round by round by the GM: arm wrestles, regular contests, races, chases."""

    def __init__(
        self,
        path: str,
        create: type[CreateT],
        created: type[CreatedT],
        session: type[SessionT],
        rounds: type[RoundsT],
        round_: type[RoundT],
        answer: type[AnswerT],
        resolved: type[ResolvedT],
        odds: type[OddsT],
    ) -> None:
        super().__init__(path, create, created, session, rounds)
        self.round_model = round_
        self._answer = answer
        self._resolved = resolved
        self._odds = parser(odds)

    def odds(
        self, session_id: str, *, seed: int | None = None, trials: int | None = None
    ) -> Call[OddsT]:
        """The odds from the session's current state (any token of it); `seed` and `trials`,
        those of a Monte Carlo estimate (races, chases)."""
        params: dict[str, str | int] = {} if seed is None else {"seed": seed}
        if trials is not None:
            params["trials"] = trials
        return Call("GET", self.at(session_id, "odds"), {200: self._odds}, params=params)

    def play(
        self,
        session_id: str,
        body: RoundT | Mapping[str, Any] | None = None,
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[AnswerT]:
        """One round: with the players' dice in `rolls`, or (an empty body) server dice."""
        return self._change(
            session_id, "rounds", self._answer, {} if body is None else body,
            if_match, idempotency_key,
        )  # fmt: skip

    def resolve(
        self,
        session_id: str,
        body: Body | None = None,
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[ResolvedT]:
        """Play to the end with server dice (a chase's body says its terrain and tactics)."""
        return self._change(session_id, "resolve", self._resolved, body, if_match, idempotency_key)


class Chases(
    PlayedSessions[
        models.ChaseCreate,
        models.ChaseCreated,
        models.ChaseSession,
        models.ChaseRounds,
        models.ChaseRound,
        models.ChaseRoundAnswer,
        models.ChaseResolved,
        models.OddsChaseAnswer,
    ]
):
    def odds(
        self,
        session_id: str,
        *,
        seed: int | None = None,
        terrain: models.ChaseTerrain | Mapping[str, Any] | None = None,
        tactic_policy: str | None = None,
        trials: int | None = None,
    ) -> Call[models.OddsChaseAnswer]:
        """The odds from the chase's current state over `terrain` (every increment to come)
        and the escapee's `tactic_policy`, asked in the query (`trials`: an estimate's)."""
        params: dict[str, str | int] = {} if seed is None else {"seed": seed}
        if trials is not None:
            params["trials"] = trials
        if terrain is not None:
            params["terrain"] = (
                terrain.model_dump_json(by_alias=True, exclude_unset=True)
                if isinstance(terrain, BaseModel)
                else json.dumps(dict(terrain))
            )
        if tactic_policy is not None:
            params["tactic_policy"] = tactic_policy
        return Call("GET", self.at(session_id, "odds"), {200: self._odds}, params=params)

    def odds_with_terrain(
        self, session_id: str, body: models.OddsChaseFromHereRequest | Mapping[str, Any]
    ) -> Call[models.OddsChaseAnswer]:
        """The same question as `odds`, its terrain, tactic policy, seed and trials in a JSON
        body."""
        return Call("POST", self.at(session_id, "odds"), {200: self._odds}, body=body)

    def odds_at_choices(
        self, session_id: str, body: models.OddsChaseChoicesRequest | Mapping[str, Any]
    ) -> Call[models.OddsChaseChoicesAnswer]:
        """For each option of the next increment (a round body without dice), the odds once
        it is taken (any token of the chase)."""
        return Call(
            "POST",
            self.at(session_id, "odds", "choices"),
            {200: parser(models.OddsChaseChoicesAnswer)},
            body=body,
        )

    def end(
        self,
        session_id: str,
        body: models.ChaseEnd | Mapping[str, Any] | None = None,
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[models.ChaseEnded]:
        return self._change(session_id, "end", models.ChaseEnded, body, if_match, idempotency_key)


class Races(
    PlayedSessions[
        models.RaceCreate,
        models.RaceCreated,
        models.RaceSession,
        models.RaceRounds,
        models.RaceRound,
        models.RaceRoundAnswer,
        models.RaceResolved,
        models.OddsRaceAnswer,
    ]
):
    """Races: increments played by the GM; each racer chooses her pacing before the first."""

    def pacing(
        self,
        session_id: str,
        body: models.RacePacing | Mapping[str, Any],
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[models.RacePacingChosen]:
        """A racer's pacing for the whole race, before its first increment (her token, her
        seat's or the GM's)."""
        return self._change(
            session_id, "pacing", models.RacePacingChosen, body, if_match, idempotency_key
        )

    def odds_at_choices(
        self, session_id: str, body: models.OddsRaceChoicesRequest | Mapping[str, Any]
    ) -> Call[models.OddsRaceChoicesAnswer]:
        """For each option (a racer's pacing, before the first increment), the race's odds
        once it is taken (any token of the race)."""
        return Call(
            "POST",
            self.at(session_id, "odds", "choices"),
            {200: parser(models.OddsRaceChoicesAnswer)},
            body=body,
        )


class SkillGames(
    Sessions[
        models.SkillGameCreate,
        models.SkillGameCreated,
        models.SkillGameSession,
        models.SkillGameRounds,
    ]
):
    """Legend skill games: parties choose skills, then seal their choices until all are in."""

    def odds_at_choices(
        self, session_id: str, body: models.OddsSkillGameChoicesRequest | Mapping[str, Any]
    ) -> Call[models.OddsSkillGameChoicesAnswer]:
        """For each option (a party's skills for this round), its exact token odds (any token
        of the game)."""
        return Call(
            "POST",
            self.at(session_id, "odds", "choices"),
            {200: parser(models.OddsSkillGameChoicesAnswer)},
            body=body,
        )

    def skills(
        self,
        session_id: str,
        body: models.SkillGameSkills | Mapping[str, Any],
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[models.SkillGameSkillsAnswer]:
        return self._change(
            session_id, "skills", models.SkillGameSkillsAnswer, body, if_match, idempotency_key
        )

    def choices(
        self,
        session_id: str,
        body: models.SkillGameChoice | Mapping[str, Any],
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[models.SkillGameSealed | models.SkillGameRevealed]:
        """202 `SkillGameSealed` while others have yet to choose; the last one's 200 reveals."""
        return Call(
            "POST",
            self.at(session_id, "choices"),
            {202: parser(models.SkillGameSealed), 200: parser(models.SkillGameRevealed)},
            body=body,
            headers=precondition(if_match, idempotency_key),
        )

    def grants(
        self,
        session_id: str,
        body: models.SkillGameGrant | Mapping[str, Any],
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[models.SkillGameGranted]:
        return self._change(
            session_id, "grants", models.SkillGameGranted, body, if_match, idempotency_key
        )

    def end(
        self,
        session_id: str,
        body: models.SkillGameEnd | Mapping[str, Any] | None = None,
        *,
        if_match: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[models.SkillGameEnded]:
        return self._change(
            session_id, "end", models.SkillGameEnded, body, if_match, idempotency_key
        )


arm_wrestles = PlayedSessions(
    "/v1/arm-wrestles",
    models.ArmWrestleCreate,
    models.ArmWrestleCreated,
    models.ArmWrestleSession,
    models.ArmWrestleRounds,
    models.ArmWrestleRound,
    models.ArmWrestleRoundAnswer,
    models.ArmWrestleResolved,
    models.OddsArmWrestleAnswer,
)
regular_contests = PlayedSessions(
    "/v1/regular-contests",
    models.RegularContestCreate,
    models.RegularContestCreated,
    models.RegularContestSession,
    models.RegularContestRounds,
    models.RegularContestRound,
    models.RegularContestRoundAnswer,
    models.RegularContestResolved,
    models.OddsRegularContestAnswer,
)
races = Races(
    "/v1/races",
    models.RaceCreate,
    models.RaceCreated,
    models.RaceSession,
    models.RaceRounds,
    models.RaceRound,
    models.RaceRoundAnswer,
    models.RaceResolved,
    models.OddsRaceAnswer,
)
chases = Chases(
    "/v1/chases",
    models.ChaseCreate,
    models.ChaseCreated,
    models.ChaseSession,
    models.ChaseRounds,
    models.ChaseRound,
    models.ChaseRoundAnswer,
    models.ChaseResolved,
    models.OddsChaseAnswer,
)
skill_games = SkillGames(
    "/v1/skill-games",
    models.SkillGameCreate,
    models.SkillGameCreated,
    models.SkillGameSession,
    models.SkillGameRounds,
)
