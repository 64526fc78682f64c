"""Runs the Python reference (inbox.py) on the benchmark's work, one step at a time.

Driven by bench/python-reference.ts over stdin/stdout, one JSON object per
line: the Node side sends {"op": ..., **params} and gets back one JSON line
with the figures of that step (or {"error": ...}). Driving it step by step
lets the benchmark interleave the two implementations' repetitions, so load
from other processes hits both sides alike.

The reference is imported from the directory given with --reference, never
copied. Its times are integer seconds; every step uses an integer `now` so
leases and timers behave the same on every run.

    python3 reference_bench.py --reference ../shared/reference --tmp /tmp/dir
"""
import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time

HOUR = 3600          # the reference's time unit is the second
T0 = 1_000_000       # the clock every step starts from
FAR = 10_000 * HOUR  # "not due during the benchmark"


def payload(i):
    return {"text": f"event {i}", "n": i}


class Bench:
    def __init__(self, ib, tmp, synchronous):
        self.ib = ib
        self.tmp = tmp
        self.synchronous = synchronous  # None: the reference's own setting
        self.schedulers = {}   # name -> [db, now, due count]
        self.forced_synchronous = False

    # --- helpers ---------------------------------------------------------------

    def fresh_db(self, name):
        """A new inbox file in its own directory, opened exactly as the reference does."""
        path = os.path.join(tempfile.mkdtemp(prefix=name + "-", dir=self.tmp), "inbox.db")
        db = self.ib.connect(path)
        if self.synchronous is not None:  # a diagnostic run (--synchronous)
            db.execute(f"PRAGMA synchronous={self.synchronous}")
        # The reference relies on SQLite's default (FULL, 2). Should this
        # build default to something else, pin FULL so both sides match.
        elif db.execute("PRAGMA synchronous").fetchone()[0] != 2:
            db.execute("PRAGMA synchronous=FULL")
            self.forced_synchronous = True
        return db

    def preload_done(self, db, n, now):
        """n events already done (setup, not timed): one transaction, one run."""
        ib = self.ib
        with ib.tx(db):
            for i in range(n):
                ib.ingest(db, "chat", f"old-{i}", payload(i))
        gen = ib.acquire(db, "preloader", now)
        rows = ib.claim_batch(db, "preloader", gen, now)
        ib.finish(db, "preloader", gen, now, [r[0] for r in rows])
        # Hand the lease back the only way the reference can: let it lapse.
        return now + ib.LEASE_TTL + 1

    # --- steps -----------------------------------------------------------------

    def op_hello(self, _):
        db = sqlite3.connect(":memory:")
        probe = self.fresh_db("probe")
        info = {
            "python": sys.version.split()[0],
            "sqlite": sqlite3.sqlite_version,
            "reference": os.path.abspath(self.ib.__file__),
            "journal_mode": probe.execute("PRAGMA journal_mode").fetchone()[0],
            "synchronous": probe.execute("PRAGMA synchronous").fetchone()[0],
            "default_synchronous": db.execute("PRAGMA synchronous").fetchone()[0],
            "forced_synchronous": self.forced_synchronous,
        }
        probe.close()
        db.close()
        return info

    def op_ingest(self, p):
        """One event per call; each call is its own (autocommit) transaction."""
        ib, n = self.ib, p["n"]
        db = self.fresh_db("ingest")
        start = time.perf_counter()
        for i in range(n):
            if not ib.ingest(db, "chat", f"msg-{i}", payload(i)):
                raise RuntimeError("unexpected duplicate")
        seconds = time.perf_counter() - start
        db.close()
        return {"seconds": seconds, "events": n}

    def op_ingest_many(self, p):
        """The reference has no ingestMany: the same INSERT OR IGNORE, many per transaction."""
        ib, n, batch = self.ib, p["n"], p["batch"]
        db = self.fresh_db("ingest-many")
        start = time.perf_counter()
        for lo in range(0, n, batch):
            with ib.tx(db):
                for i in range(lo, min(lo + batch, n)):
                    ib.ingest(db, "chat", f"msg-{i}", payload(i))
        seconds = time.perf_counter() - start
        db.close()
        return {"seconds": seconds, "events": n}

    def op_cycle(self, p):
        """acquire + claim_batch + finish with one message, timed; the ingest before each run is not."""
        ib, runs, per_run = self.ib, p["runs"], p["perRun"]
        db = self.fresh_db("cycle")
        now = T0
        if p["preloadDone"] > 0:
            now = self.preload_done(db, p["preloadDone"], now)
        seconds = 0.0
        claimed = 0
        for r in range(runs):
            with ib.tx(db):
                for k in range(per_run):
                    ib.ingest(db, "chat", f"run-{r}-{k}", payload(k))
            now += 1
            start = time.perf_counter()
            gen = ib.acquire(db, "worker", now)
            rows = ib.claim_batch(db, "worker", gen, now)
            ok = ib.finish(db, "worker", gen, now, [row[0] for row in rows], [f"reply to run {r}"])
            seconds += time.perf_counter() - start
            if not ok or len(rows) != per_run:
                raise RuntimeError(f"run {r}: finish={ok}, claimed {len(rows)} of {per_run}")
            claimed += len(rows)
        db.close()
        return {"seconds": seconds, "runs": runs, "events": claimed}

    def op_sched_setup(self, p):
        """`total` interval timers, `due` of them due at T0 (every hour), the rest far later."""
        ib, total, due = self.ib, p["total"], p["due"]
        db = self.fresh_db("sched")
        start = time.perf_counter()
        with ib.tx(db):   # setup only: the reference's add_timer, in one transaction
            for i in range(total):
                if i < due:
                    ib.add_timer(db, f"due-{i}", T0, {"n": i}, every=HOUR)
                else:
                    ib.add_timer(db, f"later-{i}", T0 + FAR, {"n": i}, every=HOUR)
        self.schedulers[p["name"]] = [db, T0 - HOUR, due]
        return {"seconds": time.perf_counter() - start}

    def op_sched_pass(self, p):
        """The next occurrence of the due timers: each pass fires all `due` of them."""
        state = self.schedulers[p["name"]]
        db, now, due = state
        now += HOUR
        state[1] = now
        start = time.perf_counter()
        fired = self.ib.run_scheduler(db, now)
        seconds = time.perf_counter() - start
        if fired != due:
            raise RuntimeError(f"pass at {now} fired {fired}, expected {due}")
        return {"seconds": seconds, "fired": fired}

    def op_sched_idle(self, p):
        """Passes between occurrences: nothing is due."""
        state = self.schedulers[p["name"]]
        db, now = state[0], state[1] + 1
        times = []
        for _ in range(p["passes"]):
            start = time.perf_counter()
            fired = self.ib.run_scheduler(db, now)
            times.append(time.perf_counter() - start)
            if fired != 0:
                raise RuntimeError("idle pass fired timers")
        return {"times": times}

    def op_sched_drop(self, p):
        self.schedulers.pop(p["name"])[0].close()
        return {}

    def op_dispatch(self, p):
        """`messages` held messages (queued by one run's finish, not timed), sent by one dispatch."""
        ib, n = self.ib, p["messages"]
        db = self.fresh_db("dispatch")
        now = T0
        ib.ingest(db, "chat", "ask", payload(0))
        gen = ib.acquire(db, "worker", now)
        rows = ib.claim_batch(db, "worker", gen, now)
        ib.finish(db, "worker", gen, now, [r[0] for r in rows], [f"message {i}" for i in range(n)])
        sent_bodies = []
        start = time.perf_counter()
        sent = ib.dispatch(db, now + 1, sent_bodies.append)
        seconds = time.perf_counter() - start
        if sent != n or len(sent_bodies) != 1:
            raise RuntimeError(f"dispatch sent {sent} of {n}")
        db.close()
        return {"seconds": seconds, "sent": sent}

    def op_dispatch_spread(self, p):
        """One held message in each of `inboxes` inbox files (queued untimed), each dispatched.

        The reference keeps one inbox per file, as Vigil does; its connections
        stay open through the timed loop (its best case: a real dispatcher over
        many files would open them too).
        """
        ib, n = self.ib, p["inboxes"]
        now = T0
        dbs = []
        for i in range(n):
            db = self.fresh_db(f"spread-{i}")
            ib.ingest(db, "chat", "ask", payload(i))
            gen = ib.acquire(db, "worker", now)
            rows = ib.claim_batch(db, "worker", gen, now)
            ib.finish(db, "worker", gen, now, [r[0] for r in rows], [f"reply {i}"])
            dbs.append(db)
        sent_bodies = []
        start = time.perf_counter()
        sent = sum(ib.dispatch(db, now + 1, sent_bodies.append) for db in dbs)
        seconds = time.perf_counter() - start
        for db in dbs:
            db.close()
        if sent != n or len(sent_bodies) != n:
            raise RuntimeError(f"dispatch sent {sent} of {n}")
        return {"seconds": seconds, "sent": sent}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True, help="directory holding inbox.py")
    parser.add_argument("--tmp", required=True, help="scratch directory (removed by the caller)")
    parser.add_argument("--synchronous", choices=["full", "normal"], help="diagnostics only: override the reference's setting")
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.reference))
    import inbox  # noqa: E402  the reference, imported from where it lives

    bench = Bench(inbox, args.tmp, args.synchronous)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.pop("op")
        if op == "bye":
            break
        try:
            reply = getattr(bench, "op_" + op)(request)
        except Exception as error:  # reported to the driver, which stops the run
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
