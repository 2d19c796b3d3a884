// For the type-check only (tsc --checkJs, jsconfig.json): the module's settings, as Foundry VTT's
// types learn of a module's settings, by declaration merging. Foundry never loads this file.
import type { Arbiter, CardFlags, Followed, Party, Seat } from "../scripts/arbiter.js";

declare module "fvtt-types/configuration" {
  interface SettingConfig {
    "arbiter.url": string;
    "arbiter.deadline": number;
    "arbiter.sessions": Record<string, Followed>;
    "arbiter.seats": Record<string, Seat>;
    "arbiter.parties": Record<string, Party>;
  }
  // What the module's chat cards carry, and the API it hands macros.
  interface FlagConfig {
    ChatMessage: { arbiter: CardFlags };
  }
  interface ModuleConfig {
    arbiter: { api: Arbiter["api"] };
  }
  // The module reads `game` from its `init` hook on, and a user's own from `ready` on.
  interface AssumeHookRan {
    ready: never;
  }
}
