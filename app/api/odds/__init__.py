"""Odds before and during a contest (docs/api.md#odds, docs/rules.md#odds), one room a job.

* `worker`: the one process the heavy questions run in (replaced when it ends), the bounded
  queue in front of it (deadlines, the quickest kind first, questions whose caller left
  dropped) and the answer cache (bounded in bytes);
* `figures`: probabilities as the answers write them (float, exact fraction, percent) and
  the chart alternative of an answer;
* `gurps`, `cairn`, `arm_wrestles`, `races`, `chases`, `skill_games`: each family's answers,
  worked out from the rules' config and state by `app.rules.odds` (the kinds' odds from a
  session, `SessionOdds`, call them);
* `routes`: the `POST /v1/odds/...` endpoints, each taking the body of the matching
  resolution or session creation, checked as that call checks it (the kinds' own `start`).

Speed: the GURPS questions take well under a millisecond and run inline. The heavier ones
(a Cairn distribution, an arm wrestle's walk or its Monte Carlo estimate, every chart) run in
the worker, so the event loop keeps serving other requests meanwhile; a large skill-game
question is even checked and written there, handing back its answer's bytes. Answers are kept
in a cache in this process, bounded in bytes (identical questions are answered from it).
"""
