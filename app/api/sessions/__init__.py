"""What every long-running kind shares: the lifecycle and its routes, rounds that
wait for the seats' dice and their deadlines, tokens, Idempotency-Keys, the unit of work,
live events, webhooks, verifiable dice and their proofs, and how a session is shown."""
