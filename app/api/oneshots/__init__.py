"""The one-shot endpoints: a contest resolved in one call (GURPS, Cairn Hill, d20
checks, long throws, dice notation, one against many)."""
