"""Odds before and during a contest (docs/api.md#odds, docs/rules.md#odds), one room a job.

* `worker`: the one-process pool the heavy questions run in, and the answer cache;
* `figures`: probabilities as the answers write them (float, exact fraction, percent) and
  the chart alternative of an answer;
* `gurps`, `cairn`, `arm_wrestles`, `races`, `chases`, `skill_games`: each family's answers,
  worked out from the rules' config and state by `app.rules.odds` (the kinds' odds from a
  session, `SessionOdds`, call them);
* `routes`: the `POST /v1/odds/...` endpoints, each taking the body of the matching
  resolution or session creation, checked as that call checks it (the kinds' own `start`).

Speed: the GURPS questions take well under a millisecond and run inline. The heavier ones
(a Cairn distribution, an arm wrestle's walk or its Monte Carlo estimate, every chart) run in
the worker, so the event loop keeps serving other requests meanwhile; their answers are kept
in a bounded cache in this process too (identical questions are answered from it).
"""
