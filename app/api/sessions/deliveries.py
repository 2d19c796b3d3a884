"""The delivery worker: sends the outbox's webhooks (docs/webhooks.md#delivery).

Every server process runs one, from its lifespan (`run`). A pass claims, in one short write
transaction (app/store/webhooks.py, `claim_due`), the deliveries due that head their queue
(one subscription's deliveries of one session), with up to `PER_QUEUE - 1` behind each, for
a lease of `webhook_lease_seconds`; sends each queue's in order, the queues side by side
(at most `webhook_concurrency` at once, counting those still going from earlier passes);
and writes what came of them in one transaction. A pass waits `PATIENCE_S` for its queues:
one still going then (a receiver taking its time, up to `webhook_timeout_seconds` a
request) goes on alone and writes what came of it in a transaction of its own when done,
while the next passes send the other sessions' deliveries; one subscription's queues may
hold at most half the senders so. A queue stops at its first
delivery not answered 2xx: that one is tried again after an exponential backoff with jitter
(or the receiver's `Retry-After`), the ones behind it wait for it. Past
`webhook_retry_window_seconds` since it was first due, a delivery is given up and its
subscription marked failing (active again at its next delivery answered 2xx).

A worker killed mid-pass leaves its claims to run out; then another worker (or the same
process restarted) claims those deliveries again and sends them with the same `webhook-id`:
at least once, and once in the normal case, whatever the number of workers. The worker
looks again after a change made by its own process (`poke`): at once after a quiet spell,
and under a steady flow of changes no sooner than `webhook_batch_seconds` after its last
pass began, so that a pass sends what they wrote together; and every `webhook_poll_seconds`
for the other processes' changes.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from itertools import groupby

from fastapi import FastAPI

from app.api.sessions import outbound, outbox
from app.api.sessions.outbox import sign
from app.api.sessions.security import SealedSecret, open_webhook_secret
from app.observability import count_webhook_attempts
from app.settings import Settings
from app.store import webhooks
from app.store.database import Store, Unavailable
from app.store.repository import now
from app.store.webhooks import Attempted, Job

log = logging.getLogger("arbiter")

#: What came of a queue sent: its attempts, and its deliveries not attempted.
Outcome = tuple[list[Attempted], list[Job]]

#: A queue's deliveries claimed together (its first and those behind it).
PER_QUEUE = 32
#: Queues claimed in a pass for each one sent at once (`webhook_concurrency`): a pass's two
#: transactions serve that many more deliveries when many sessions each have a few.
QUEUES_PER_SENDER = 4
#: How long a pass waits for its queues before it writes what came of those done, leaving
#: the others to finish (and write) on their own: a slow receiver holds up nobody else.
PATIENCE_S = 1.0
#: After a poke, how long the worker waits at least for more changes to commit before its
#: pass (`webhook_batch_seconds` after the last pass began, when that is later).
COALESCE_S = 0.01


def backoff(attempts: int, first: float, longest: float, rng: random.Random) -> float:
    """Seconds before the next attempt after `attempts` failed ones: `first` doubled for
    each attempt after the first, at most `longest`, with "equal jitter" (between half of it
    and all of it), so receivers coming back are not met by every sender at once."""
    ceiling = min(longest, first * 2.0 ** min(attempts - 1, 62))
    return ceiling / 2 + rng.random() * ceiling / 2


class DeliveryWorker:
    """One process's sender of the outbox's deliveries."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Callable[[], datetime] = now,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ):
        self.store = store
        self.settings = settings
        self.clock = clock
        self.monotonic = monotonic
        self.sleep = sleep
        self.wake = asyncio.Event()
        self.rng = random.Random()
        key = settings.webhook_key
        self.key = None if key is None else key.get_secret_value()
        #: Attempts made by this worker (for tests and curiosity).
        self.attempts = 0
        #: The process's deliveries written when this worker last looked (`outbox.written`).
        self.seen = -1
        #: Whether the last pass may have left deliveries due (it claimed all it could, or
        #: left some unsent): the next pass comes at once, not after a poke.
        self.more = False
        #: When the last pass began (`monotonic`), and how many passes there have been.
        self.began = -math.inf
        self.passes = 0
        #: Senders a pass left going (a queue not done within `PATIENCE_S`), each with the
        #: subscription of the queue it is sending; they hold their place among
        #: `webhook_concurrency`, and write what came of them themselves.
        self.straggling: dict[asyncio.Task[None], str] = {}

    def poke(self, *, written: bool = False) -> None:
        """Look for deliveries now, if a change of this process has written some since the
        last look (a change without webhooks costs the worker nothing), or the caller has
        (`written`: a replay, a ping)."""
        if written or outbox.written() != self.seen:
            self.wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Passes until `stop`: again at once while a pass may have left work due, else after
        a poke (and `gathering`) or `webhook_poll_seconds`."""
        try:
            await self._run(stop)
        finally:
            # A queue still being sent is let finish (within its lease) and write what came
            # of it: what a receiver has answered is not sent again.
            while self.straggling:
                await asyncio.wait(list(self.straggling))
            await outbound.close_idle()

    async def _run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.wake.clear()
            self.seen = outbox.written()
            self.began = self.monotonic()
            self.passes += 1
            try:
                found = await self.once()
            except Unavailable:
                found = 0  # the store logs the outage once; tried again later
            except Exception as exc:  # a hiccup must not end the worker
                log.warning("delivering webhooks failed: %r", exc)
                found = 0
            if found and self.more:
                continue  # a full pass: more may be due at once
            await _first_of(
                [stop.wait(), self.wake.wait()], timeout=self.settings.webhook_poll_seconds
            )
            if self.wake.is_set() and not stop.is_set():
                # The changes committing meanwhile go in the same pass (a pass is two write
                # transactions however many deliveries it sends). A shutdown does not wait
                # for them (up to `webhook_batch_seconds`).
                await _first_of([self.sleep(self.gathering()), stop.wait()])

    def gathering(self) -> float:
        """How long a poked worker waits before its pass: `COALESCE_S`, or until
        `webhook_batch_seconds` after its last pass began if that is later (a steady flow
        of changes is sent a batch a pass; a change after a quiet spell, at once)."""
        batch_ends = self.began + self.settings.webhook_batch_seconds
        return max(COALESCE_S, batch_ends - self.monotonic())

    async def once(self) -> int:
        """One pass: claim what is due, send it, write what came of it; how many queues."""
        settings = self.settings
        while len(self.straggling) >= settings.webhook_concurrency:
            # Every sender is busy with a slow receiver: the pass waits for one to be free.
            await asyncio.wait(list(self.straggling), return_when=asyncio.FIRST_COMPLETED)
        senders = settings.webhook_concurrency - len(self.straggling)
        # A subscription whose receiver keeps half the senders waiting already gets no more
        # of them: its queues are passed over until one of them is done.
        busy = Counter(self.straggling.values())
        most = max(1, settings.webhook_concurrency // 2)
        skip = sorted(subscription for subscription, count in busy.items() if count >= most)
        claim = uuid.uuid4().hex
        moment = self.clock()
        lease = timedelta(seconds=settings.webhook_lease_seconds)
        jobs = await self.store.run(
            "write",
            lambda connection: webhooks.claim_due(
                connection,
                now=moment,
                until=moment + lease,
                claim=claim,
                limit=senders * QUEUES_PER_SENDER,
                per_queue=PER_QUEUE,
                skip=skip,
            ),
        )
        if not jobs:
            self.more = False
            return 0
        deadline = time.monotonic() + settings.webhook_lease_seconds
        queues = [
            list(queue)
            for _key, queue in groupby(
                sorted(jobs, key=lambda job: (job.subscription_id, job.session_id, job.id)),
                key=lambda job: (job.subscription_id, job.session_id),
            )
        ]
        waiting = iter(queues)
        sent: list[Outcome] = []
        patient = True
        #: The subscription of each sender's queue being sent, by sender.
        current: dict[int, str] = {}

        async def sender(number: int) -> Outcome | None:
            # The senders share one iterator: each queue is taken by the first one free.
            for queue in waiting:
                current[number] = queue[0].subscription_id
                outcome = await self._send_queue(queue, deadline)
                if not patient:
                    return outcome  # the pass has stopped waiting: its straggler writes it
                sent.append(outcome)
            return None

        begun = {
            asyncio.create_task(sender(number)): number
            for number in range(min(senders, len(queues)))
        }
        going = (await asyncio.wait(set(begun), timeout=PATIENCE_S))[1] if begun else set()
        patient = False
        # The queues no sender has begun are let go (a later pass's).
        let_go = [job for queue in waiting for job in queue]
        attempted = [attempt for outcomes, _released in sent for attempt in outcomes]
        released = [job for _outcomes, left in sent for job in left]
        # A pass that found fewer than it could claim, and sent all it claimed, left nothing
        # due behind it: the next waits for the changes committing meanwhile (a poke, then
        # `gathering`), so that one pass sends them together.
        self.more = (
            bool(released)
            or bool(going)
            or len(queues) >= senders * QUEUES_PER_SENDER
            or any(len(queue) >= PER_QUEUE for queue in queues)
        )
        for task in going:
            self.straggling[asyncio.create_task(self._straggle(task, claim))] = current[begun[task]]
        await self._record(claim, attempted, released + let_go)
        return len(queues)

    async def _straggle(self, sender: asyncio.Task[Outcome | None], claim: str) -> None:
        """Wait for a sender its pass left going, write what came of its queue, and wake the
        worker (the deliveries behind it may be due now)."""
        try:
            outcome = await sender
            if outcome is not None:
                await self._record(claim, *outcome)
        except Exception as exc:  # its claims run out: sent again (at least once)
            log.warning("delivering webhooks failed: %r", exc)
        finally:
            me = asyncio.current_task()
            self.straggling = {task: sub for task, sub in self.straggling.items() if task is not me}
            self.wake.set()

    async def _record(self, claim: str, attempted: list[Attempted], released: list[Job]) -> None:
        """Write, in one transaction, what came of deliveries claimed by `claim`."""
        if not attempted and not released:
            return
        moment = self.clock()
        try:
            await self.store.run(
                "write",
                lambda connection: webhooks.record(connection, claim, attempted, released, moment),
            )
        except Exception as exc:
            # Its claims run out: the deliveries are sent again (at least once).
            log.warning("recording webhook deliveries failed: %r", exc)
        else:
            count_webhook_attempts(
                sum(outcome.error is None for outcome in attempted),
                sum(outcome.next_at is not None for outcome in attempted),
                sum(outcome.error is not None and outcome.next_at is None for outcome in attempted),
            )

    async def _send_queue(self, queue: Sequence[Job], deadline: float) -> Outcome:
        """Send a queue's claimed deliveries in order, up to the first that fails, while the
        lease leaves time for one more: what came of them, and those not attempted."""
        attempted: list[Attempted] = []
        for job in queue:
            # Never past the lease: another worker may claim the delivery after it.
            if time.monotonic() + self.settings.webhook_timeout_seconds + 1 > deadline:
                break
            outcome = await self.attempt(job)
            attempted.append(outcome)
            if outcome.error is not None:
                break
        return attempted, list(queue[len(attempted) :])

    def secrets(self, job: Job) -> list[bytes]:
        """The secrets signing `job`: its subscription's, and during a rotation's overlap the
        one before it too."""
        opened = [open_webhook_secret(job.subscription_id, job.secret, self.key)]
        if (
            job.previous_secret is not None
            and job.previous_until is not None
            and job.previous_until > self.clock()
        ):
            opened.append(open_webhook_secret(job.subscription_id, job.previous_secret, self.key))
        return opened

    async def attempt(self, job: Job) -> Attempted:
        """Send `job` once, signed now; what came of it."""
        settings = self.settings
        attempts = job.attempts + 1
        self.attempts += 1
        status: int | None = None
        retry_after: float | None = None
        try:
            timestamp = int(time.time())
            headers = [
                ("Content-Type", "application/json"),
                ("webhook-id", job.message_id),
                ("webhook-timestamp", str(timestamp)),
                (
                    "webhook-signature",
                    sign(job.message_id, timestamp, job.payload, self.secrets(job)),
                ),
            ]
            answer = await outbound.post(
                job.url,
                headers,
                job.payload,
                allow_private=settings.webhook_allow_private,
                connect_timeout=settings.webhook_connect_timeout_seconds,
                total_timeout=settings.webhook_timeout_seconds,
                max_answer_bytes=settings.webhook_answer_bytes,
            )
        except (outbound.Refused, outbound.Failed) as exc:
            error = str(exc)
        except SealedSecret:
            error = "its signing secret cannot be opened (another ARBITER_WEBHOOK_KEY?)"
        else:
            status, retry_after = answer.status, answer.retry_after
            if 200 <= status < 300:
                return Attempted(job, attempts, status)
            error = f"answered {status}"
        moment = self.clock()
        window = timedelta(seconds=settings.webhook_retry_window_seconds)
        wait = backoff(
            attempts,
            settings.webhook_retry_first_seconds,
            settings.webhook_retry_max_seconds,
            self.rng,
        )
        if retry_after is not None:
            wait = retry_after  # the receiver knows best (within the retry window)
        given_up_at = job.first_due_at + window
        if moment >= given_up_at:
            return Attempted(job, attempts, status, error, None)
        # The last attempt comes at the window's end: retried for the whole of it.
        next_at = min(moment + timedelta(seconds=wait), given_up_at)
        return Attempted(job, attempts, status, error, next_at)


async def _first_of(waits: Sequence[Awaitable[object]], timeout: float | None = None) -> None:
    """Wait until the first of `waits` is done (or `timeout` passes), then cancel the rest."""
    started = [asyncio.ensure_future(waiting) for waiting in waits]
    try:
        await asyncio.wait(started, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in started:
            waiting.cancel()


def worker_of(app: FastAPI) -> DeliveryWorker | None:
    worker: DeliveryWorker | None = getattr(app.state, "deliveries", None)
    return worker


def poke(app: FastAPI, *, written: bool = False) -> None:
    """A change of this process has committed: its worker looks for deliveries now (with
    `written`, even if no change wrote any: a replay, a ping)."""
    worker = worker_of(app)
    if worker is not None:
        worker.poke(written=written)
