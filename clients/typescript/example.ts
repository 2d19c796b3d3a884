// An integration's calls to Arbiter, typed by the types openapi-typescript generates from the
// service's /openapi.json (`npm run generate` writes them to arbiter.d.ts).
import type { components, paths } from "./arbiter";

type QuickContest = paths["/v1/gurps/quick-contest"]["post"];
export type QuickContestRequest = QuickContest["requestBody"]["content"]["application/json"];
export type QuickContestAnswer =
  QuickContest["responses"][200]["content"]["application/json"];
export type ArmWrestleRoundAnswer =
  paths["/v1/arm-wrestles/{session_id}/rounds"]["post"]["responses"][200]["content"]["application/json"];
export type ArmWrestleSession = components["schemas"]["ArmWrestleSession"];

export const request: QuickContestRequest = {
  a: { name: "Ann", skill: 12, roll: [2, 3, 4] },
  b: { name: "Bob", skill: 10 },
  seed: 7,
};

/** The line a chat bot posts: who won and by how much, every die included. */
export function announce(answer: QuickContestAnswer): string {
  const dice = answer.rolls.map((roll) => roll.values.join("+")).join(", ");
  const verdict =
    answer.winner === null
      ? "a tie"
      : answer.winner + " by " + String(answer.margin_of_victory);
  return answer.summary + " (" + verdict + "; dice " + dice + ")";
}

/** What a VTT shows of a session after a round: its round number and whether it is over. */
export function describe(session: ArmWrestleSession): string {
  const status: "active" | "finished" = session.status;
  const etag = '"' + String(session.version) + '"';
  return session.kind + " round " + String(session.round) + " (" + status + ", If-Match " + etag + ")";
}

export function afterRound(answer: ArmWrestleRoundAnswer): string {
  return describe(answer.session) + ": " + answer.summary;
}
