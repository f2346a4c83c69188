#!/usr/bin/env python3
"""make differential: the module and the Functions library held to each other.

Two servers of the same binary: one with the module (built with the
test-clock feature), one with only the library (functions/gen.py
--test-clock). A seeded random workload, generated from docs/commands.json
(every argument of every command the library has, options in any order,
values spelled like keywords, and a share of malformed calls) runs on both
with the clock pinned to the same instant on each; after every call the two
replies must be the same bytes, and at checkpoints the data must be the same
(DEBUG DIGEST, and every key's PEXPIRETIME). On a mismatch the run stops and
prints the shortest sequence of calls it can find that still shows it.

    python3 functions/differential.py --server redis-server --module M.so \\
        --library zkit-test.lua [--calls 100000] [--seed N]

ZKIT_SEED=<n> replays a run; the seed is printed first.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import re
import sys
import time
from collections import Counter

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from harness.resp import ServerError  # noqa: E402  (scripts/harness)
from harness.server import Server  # noqa: E402

SPEC = json.loads((ROOT / "docs" / "commands.json").read_text())

class ModuleEngine:
    label = "module"

    def __init__(self, server: Server):
        self.server = server
        self.con = server.conn

    def pin(self, ms: int) -> list:
        return [["ZKIT.DEBUG-CLOCK", str(ms)]]

    def command(self, argv: list, keys: list) -> list:
        return argv


class LibraryEngine:
    label = "library"

    def __init__(self, server: Server, library: str):
        self.server = server
        self.con = server.conn
        reply = self.con.call("FUNCTION", "LOAD", "REPLACE", library)
        if isinstance(reply, ServerError):
            raise SystemExit(f"differential: FUNCTION LOAD failed: {reply}")

    def pin(self, ms: int) -> list:
        return [["FCALL", "zkit_debug_clock", "0", str(ms)]]

    def command(self, argv: list, keys: list) -> list:
        name = "zkit_" + argv[0].lower().replace(".", "_")
        return ["FCALL", name, str(len(keys)), *keys, *argv[1:]]


class MixedEngine(LibraryEngine):
    """A server with the module and the library: each call goes to one of
    them at random, so each continues what the other wrote."""

    label = "module and library"

    def __init__(self, server: Server, library: str, rng: random.Random):
        super().__init__(server, library)
        self.rng = rng

    def pin(self, ms: int) -> list:
        return [["ZKIT.DEBUG-CLOCK", str(ms)]] + super().pin(ms)

    def command(self, argv: list, keys: list) -> list:
        if self.rng.random() < 0.5:
            return argv
        return super().command(argv, keys)


# ------------------------------------------------------------ workload ----

# Member ids: plain, spelled like every keyword of the grammar (either
# case), empty, binary, numeric.
def keywords() -> list[str]:
    out = set()

    def walk(args):
        for arg in args:
            if "token" in arg:
                out.add(arg["token"])
            walk(arg.get("arguments", []))

    for spec in SPEC.values():
        walk(spec.get("arguments", []))
    return sorted(out)


KEYWORDS = keywords()
MEMBERS = ["alice", "bob", "carol", "dave", "eve", "", "\u00e9t\u00e9", "a b", "\x00\xff", "123", "-1",
           "inf", "1e5", "f1:3ff0000000000000:61"] + KEYWORDS + [k.lower() for k in KEYWORDS[:8]]

# Keys by what they hold, so families meet their own keys mostly, and other
# families' keys (and other types) sometimes.
POOLS = {
    "board": ["board:a", "board:b", "board:c", "SHARED"],
    "dest": ["merged:a", "board:c"],
    "staging": ["staging:a"],
    "totals": ["totals:a", "totals:b", "totals:c"],
    "profiles": ["profiles:a", "profiles:b", "board:a"],
    "feed": ["feed:a", "feed:b"],
    "recent": ["recent:a", "recent:b"],
    "rate": ["rate:a", "rate:b"],
    "seen": ["seen:a", "seen:b"],
    "scores": ["votes:a", "votes:b"],
    "upvoters": ["up:a", "up:b"],
    "downvoters": ["down:a", "down:b"],
    "times": ["posted:a"],
    "queue": ["queue:a", "queue:b"],
    "inflight": ["held:a", "held:b", "queue:b"],
    "dead": ["dead:a"],
    "deliveries": ["counts:a"],
    "data": ["jobs:a", "jobs:b"],
    "lane": ["queue:a", "queue:b", "lane:a"],
    "wrong": ["str", "aset", "ahash"],
}
ALL_KEYS = sorted({k for pool in POOLS.values() for k in pool})

KEY_POOL = {
    ("RANK", "key"): "board", ("RANK", "destkey"): "dest", ("RANK", "staging"): "staging",
    ("RANK", "totals-key"): "totals", ("RANK", "data-key"): "profiles",
    ("FEED", "key"): "feed", ("RECENT", "key"): "recent", ("RATE", "key"): "rate",
    ("VOTE", "scores"): "scores", ("VOTE", "upvoters"): "upvoters",
    ("VOTE", "downvoters"): "downvoters", ("VOTE", "times"): "times",
    ("DELAY", "key"): "queue", ("DELAY", "queue"): "queue", ("DELAY", "inflight"): "inflight",
    ("DELAY", "dead"): "dead", ("DELAY", "deliveries"): "deliveries", ("DELAY", "data"): "data",
    ("DELAY", "lane"): "lane", ("DELAY", "log"): "rate",
}

#: What the library refuses where the module serves it (docs/functions.md,
#: "Where the library differs"): none of the commands; cron rules with L, W
#: or # (so the workload's come from CRON_RULES or cron_rule).
MODULE_ONLY_COMMANDS: set = set()
MODULE_ONLY_OPTIONS: set = set()

#: DELAY.SCHEDULE's cron rules: ones that match (names, lists, ranges,
#: steps, either or both day fields, 29 February, Sunday as 7, a 29
#: February that is a Monday, decades apart), ones that never do,
#: and the parse errors the library reads as the module does.
CRON_RULES = [
    "0 9 * * *", "*/15 * * * *", "0 9 * * MON-FRI", "30 2 1 * *", "0 0 29 2 *", "0 0 1,15 * 1",
    "5-10/2 0-23/6 */3 JAN-MAR,DEC sun", "0 0 31 * *", "0 12 * * 7", "59 23 31 12 *", "0 0 * * 0-7/2",
    "0,30 8-18 * * 1-5", "0 0 13 * FRI", "  1   2 3 4 5 ", "* * * * *", "0 0 1 1 *", "7 7 */10 * *",
    "0 0 30 2 *", "0 0 31 4,6,9,11 *", "61 * * * *", "0 24 * * *", "0 0 0 * *", "*/0 * * * *",
    "5-1 * * * *", "0 0 9 * * *", "every day", "", "   ", "0-70/5 * * * *", "1,,2 * * * *", "0 9 * * 8",
    "0 0 1 13 *", "0 9 * *", "0 0 29 2 +MON", "0 0 30 2 +mon", "0 12 13 * +FRI",
]

TIEBREAK_EPOCH = 1704067200000
TIEBREAK_END = TIEBREAK_EPOCH + (1 << 41)
MAX_DURATION = 3155760000000
BAD_INTEGERS = ["1.5", "abc", "", "+1", "01", "-0", "9223372036854775808", "-9223372036854775809", " 1", "1e3"]


class Workload:
    def __init__(self, rng: random.Random, clock: list, skip_options: set, window: tuple):
        self.rng = rng
        # The tie-break window [start, end) of unix ms (AT values in and out).
        self.window = window
        self.clock = clock  # [now_ms]
        self.cursors: list[str] = []
        # Delivery tokens DELAY.POLL WITHTOKENS and DELAY.TOUCH TOKEN replied:
        # fenced calls name them (current or stale) most of the time.
        self.tokens: list[str] = []
        # Tasks DELAY.POLL claimed lately: ACK, NACK and TOUCH name them.
        self.claimed: list[str] = []
        # Holders RATE.ACQUIRE named lately: acquires and releases name them.
        self.holders: list[str] = []
        # (key, holder, token) of acquired leases: lease_follow_up's calls.
        self.leases: list[tuple] = []
        # (inflight, queue, task, token) of fenced claims: follow_up's calls.
        self.deliveries: list[tuple] = []
        # Stepped merges: the last step call and the cursor the module
        # replied to it (the next step of the same run continues it), and
        # every merge cursor replied so far (sent again: repeats or stale).
        self.last_step: tuple[list, str] | None = None
        self.merge_cursors: list[str] = []
        self.own_runs: list[str] = []
        self.recent: list[list] = []
        self.skip_options = skip_options | MODULE_ONLY_OPTIONS
        self.commands = [name for name, spec in SPEC.items()
                         if "BLOCKING" not in spec["command_flags"] and name not in MODULE_ONLY_COMMANDS]

    # -- values
    def integer(self, name: str, command: str) -> str:
        """A value for an integer argument: in range mostly, out of range or
        not an integer sometimes."""
        r = self.rng
        if r.random() < 0.01:
            return r.choice(BAD_INTEGERS)
        now = self.clock[0]
        valid, invalid = self.integers(name, command, now)
        if invalid and r.random() < 0.05:
            return str(r.choice(invalid))
        return str(r.choice(valid))

    def integers(self, name: str, command: str, now: int) -> tuple[list, list]:
        r = self.rng
        if name in ("amount", "total"):
            if r.random() < 0.05:
                return [(1 << 52) - r.randint(1, 3), -(1 << 52) + r.randint(1, 3)], [1 << 52]
            return ([r.randint(-5, 100), r.randint(-5, 100), r.randint(0, 10 ** 6), 0, 4096, 4095, -4096],
                    [r.randint(-(1 << 62), 1 << 62)])
        if name == "unix-ms":
            start, end = self.window
            return ([now, now - r.randint(0, 10 ** 7), now + r.randint(0, 1000), start, end - 1,
                     r.randint(start, end - 1)],
                    [start - 1, end, r.randint(-10, 10 ** 13)])
        if name == "count":
            if command == "FEED.PAGE":
                return [1, 2, 3, 5, 10, 1000], [0, 1001]
            if command == "RANK.TOP":
                return [0, 1, 3, 10, 100, 1 << 62], [-1]
            if command == "RANK.RANGE":
                # LIMIT's count: a negative one is all the rest.
                return [0, 1, 3, 10, 100, 1 << 62, -1, -5, -(1 << 63)], []
            if command == "RANK.MERGE":
                # Steps: mostly short ones, so that runs take several.
                return [1, 1, 2, 2, 3, 5, 10, 1 << 60], [0, -1]
            return [1, 1, 2, 3, 10, 1 << 60], [0, -1]
        if name in ("offset", "radius"):
            return [0, 1, 2, 5, 100, 1 << 62], [-1]
        if name in ("cap", "n"):
            return [1, 2, 3, 5, 8, 1 << 62], [0, -1]
        if name == "seconds":
            return [1, 10, 600, 86400, 3155760000], [0, -1, 3155760001, 1 << 62]
        if name == "ms":
            return [1, 100, 1000, 60000, 86400000, MAX_DURATION], [0, -5, MAX_DURATION + 1]
        if name == "delay-ms":
            return [0, 0, 1, 500, 60000, MAX_DURATION], [-1, MAX_DURATION + 1]
        if name == "token":
            if self.tokens and r.random() < 0.8:
                return [int(r.choice(self.tokens))], []
            return [now, now + 1, now + 100, now + 60000], [-1]
        if name == "due-ms":
            # Due now or past (scored now), soon, in one millisecond with
            # others; out of range sometimes.
            return ([0, now, now, now - r.randint(1, 5000), now + r.choice([0, 1, 2, 100, 1000, 60000])],
                    [-1, 1 << 53, r.randint(1 << 53, 1 << 62)])
        if name == "max-deliveries":
            return [1, 2, 3, 1 << 62], [0, -1]
        if name == "window-ms":
            return [100, 1000, 5000, 60000, MAX_DURATION], [0, -1, MAX_DURATION + 1]
        if name == "limit":
            return [1, 2, 3, 5, 10, 1000000], [0, 1000001]
        if name == "cost":
            # Above a limit (refused), refunds, the extremes of an i64.
            if command == "RATE.PEEK":
                return [1, 1, 2, 3, 6, 1 << 62], [0, -1]
            return ([1, 1, 2, 3, 6, -1, -2, -50, 1 << 62, -(1 << 63), (1 << 63) - 1], [0])
        if name == "lease-ms":
            return [1, 10, 100, 1000, 60000, MAX_DURATION], [0, -1, MAX_DURATION + 1]
        if name == "weight":
            return [1, 1, 2, -1, 0, 3], [1 << 40, 9223372036854775807]
        return [0, 1, 2, 10], [-1]

    def double(self, name: str) -> str:
        r = self.rng
        if r.random() < 0.03:
            return r.choice(["nan", "abc", "0x10", "1e400", "1e-400", " 1", "", "1e", "-nan"])
        if name in ("up", "down"):
            return r.choice(["1", "1", "2", "0.5", "432", "0", "-0", "-1", "inf", "1e308", "1.7976931348623157e308", "0.1"])
        if name == "percentile":
            # RANK.QUANTILE: within 0..100 mostly (decimals, both ends, -0),
            # outside it sometimes.
            return r.choice(["0", "50", "100", "87.5", "93.75", "33.333333333333336", f"{r.uniform(0, 100):.17g}",
                             str(r.randint(0, 100)), "-0", "1e-300", "100.00000000000001", "-1", "101", "inf",
                             "-inf", "1E2", ".5"])
        # No -0: a listpack stores it as 0, a skiplist (where the module
        # keeps small boards) as -0, so its sign depends on the encoding
        # (docs/functions.md, "Differences").
        return r.choice([str(r.randint(-10, 100)), str(r.randint(-10, 100)), f"{r.uniform(-1e6, 1e6):.17g}",
                         f"{r.uniform(0, 1):.3f}", "0", "inf", "-inf", "1e-300", "5e-324", "1e21", "1.5e-7",
                         "9007199254740993", "+7", ".5", "5.", "1E2", "Infinity", "1.7976931348623157e308",
                         str(r.randint(-(1 << 62), 1 << 62))])

    def cron_rule(self) -> str:
        """A random five-field cron rule: values, names, ranges, steps and
        lists in each field, in either case, sometimes with ?, a + before
        the day of week, a shorthand, or a character the parser refuses."""
        r = self.rng
        months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
        weekdays = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"]

        def field(low: int, high: int, names: list | None = None) -> str:
            if r.random() < 0.3:
                return "*"

            def value() -> str:
                v = r.randint(low, high)
                return names[v - low] if names and r.random() < 0.3 else str(v)
            parts = []
            for _ in range(r.choice([1, 1, 2, 3])):
                a, b = sorted([r.randint(low, high), r.randint(low, high)])
                parts.append(r.choice([value(), f"{a}-{b}", f"*/{r.randint(1, high)}", f"{a}-{b}/{r.randint(1, 12)}"]))
            return ",".join(parts)
        rule = " ".join([field(0, 59), field(0, 23), field(1, 31), field(1, 12, months), field(0, 7, weekdays)])
        roll = r.random()
        if roll < 0.1:
            rule = rule.lower()
        elif roll < 0.15:
            rule = rule.replace("*", "?", 1)
        elif roll < 0.2:
            fields = rule.split(" ")
            rule = " ".join(fields[:4] + ["+" + fields[4]])
        elif roll < 0.25:
            rule = r.choice(["@daily", "@weekly", "@hourly", "@monthly", "@yearly", "@annually", " @DAILY", "@foo"])
        elif roll < 0.35:
            at = r.randrange(len(rule) + 1)
            rule = rule[:at] + r.choice(["x", "/", "-", ",", " ", "00", "/0", "--", "\t", "+", "99999"]) + rule[at:]
        return rule

    def merge_cursor(self) -> str:
        """A STEP cursor: 0, one a step replied (the latest or an older
        one), a run id of the client's own, or an edited one."""
        r = self.rng
        roll = r.random()
        if roll < 0.3 or not self.merge_cursors:
            return "0"
        if roll < 0.55:
            return self.merge_cursors[-1]
        if roll < 0.7:
            return r.choice(self.merge_cursors)
        if roll < 0.85:
            if not self.own_runs or r.random() < 0.3:
                self.own_runs = (self.own_runs + ["%032x" % r.getrandbits(128)])[-5:]
            return f"m2:{r.choice(self.own_runs)}:0"
        cursor = r.choice(self.merge_cursors)
        if cursor.startswith("m2:"):
            run, _, steps = cursor[3:].partition(":")
            return r.choice([f"m2:{run}:{int(steps) + 1}", f"m2:{run}:{max(int(steps) - 2, 0)}",
                             f"m2:{run.upper()}:{steps}", f"m2:{run}:0{steps}", f"m1:{run}:{steps}",
                             f"m2:{run[:-1]}:{steps}", f"m2:{run}:{steps}:", f"m2:{run}:18446744073709551616",
                             f"m2:{run}:18446744073709551615"])
        return r.choice(["00", "m2:", "", "1"])

    def string(self, name: str, command: str = "") -> str:
        r = self.rng
        if name == "cursor" and command == "RANK.MERGE":
            return self.merge_cursor()
        if name == "cursor":
            if self.cursors and r.random() < 0.7:
                return r.choice(self.cursors)
            return r.choice(["f1:3ff0000000000000:61", "f1:4059000000000000:", "f1:7ff8000000000000:61",
                             "F1:3ff0000000000000:61", "f1:3ff0000000000000:6", "100", "",
                             "f1:fff0000000000000:ff00", "f1:8000000000000000:626f62"])
        if name in ("task", "member") and command.startswith("DELAY.") and self.claimed and r.random() < 0.6:
            return r.choice(self.claimed)
        if name == "payload":
            return r.choice(["", "x", "{\"to\":\"ann\"}", "\x00\xff", "p" * r.choice([1, 10, 100])])
        if name == "reason":
            return r.choice(["boom", "", "SMTP 451", "expired"])
        if name == "name" and command.startswith("DELAY."):
            return r.choice(["w1", "w2", ""])
        if name == "holder":
            if self.holders and r.random() < 0.7:
                return r.choice(self.holders)
            holder = r.choice(MEMBERS)
            self.holders = (self.holders + [holder])[-6:]
            return holder
        if name in ("min", "max") and command in ("RANK.COUNT", "RANK.RANGE"):
            # Bounds as ZCOUNT reads them: totals, decimals, infinities,
            # exclusive ones, ones past any total, and some that are no number.
            if r.random() < 0.03:
                return r.choice(["abc", "", "(", "((1", "nan", "(nan", " 1", "1e400", "0x10"])
            bound = r.choice([str(r.randint(-10, 100)), str(r.randint(-10, 100)), "0", "-0", "inf", "-inf", "+inf",
                              f"{r.uniform(-20, 120):.3f}", "4096", "4095", "1e300", "-1e300", "4503599627370495",
                              "-4503599627370496", "9007199254740993", "1e-300", ".5", "5."])
            return ("(" if r.random() < 0.3 else "") + bound
        if name == "expression" and command == "DELAY.SCHEDULE":
            return r.choice(CRON_RULES) if r.random() < 0.5 else self.cron_rule()
        if name == "zone" and command in ("DELAY.SCHEDULE", "RANK.SEASON"):
            # UTC, zones that have always been UTC, zones with daylight
            # saving (one of half an hour, one that skipped a whole day, one
            # that sets its clock back in winter), and names that are no zone.
            return r.choice(["UTC", "UTC", "Etc/UTC", "GMT", "utc", "Mars/Olympus", "", "Europe/Paris",
                             "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "Europe/Dublin",
                             "Asia/Kolkata"])
        if name == "event-id":
            return r.choice(["e1", "e2", "e3", "IDMP", "RETAIN", "e" + str(r.randint(1, 30))])
        return r.choice(MEMBERS)

    def key(self, family: str, name: str) -> str:
        r = self.rng
        if name == "seen-key":
            pool = "seen"
        else:
            pool = KEY_POOL.get((family, name), "board")
        roll = r.random()
        if roll < 0.01:
            return r.choice(POOLS["wrong"])
        if roll < 0.03:
            # Not a RANK total of 2^63 and more into a deliveries set: a
            # count that large replies as a double holds it
            # (docs/functions.md, "Differences").
            if family == "RANK":
                return r.choice([k for k in ALL_KEYS if k not in POOLS["deliveries"]])
            return r.choice(ALL_KEYS)
        choices = [k for k in POOLS[pool] if k not in self.taken] or POOLS[pool]
        key = r.choice(choices)
        self.taken.add(key)
        return key

    # -- calls
    def call(self) -> list:
        r = self.rng
        roll = r.random()
        if roll < 0.08:
            return self.native()
        if roll < 0.13 and self.recent:
            # A retry: a recent call sent again as it was (an IDMP repeat).
            return list(r.choice(self.recent))
        if self.deliveries and r.random() < 0.06:
            return self.follow_up()
        if self.leases and r.random() < 0.04:
            return self.lease_follow_up()
        name = r.choice(self.commands)
        if name == "RANK.MERGE" and self.last_step and r.random() < 0.6:
            # The next step of the last stepped merge (or the same step
            # again): the same arguments, the cursor its reply gave.
            argv, at, cursor = self.last_step
            out = list(argv)
            roll = r.random()
            if roll < 0.8:
                out[at] = cursor
            elif roll < 0.9 and self.merge_cursors:
                out[at] = r.choice(self.merge_cursors)
            self.recent = (self.recent + [out])[-20:]
            return out
        family = name.split(".")[0]
        out = [name]
        self.counts = {}
        # Keys of one call differ mostly (a repeated board is refused).
        self.taken = set() if r.random() < 0.9 else _Nothing()
        self.args(SPEC[name].get("arguments", []), out, family, name)
        if r.random() < 0.05:
            self.mutate(out)
        self.recent = (self.recent + [out])[-20:]
        return out

    def follow_up(self) -> list:
        """A worker's next call about a delivery a fenced poll made: an ACK,
        NACK or TOUCH of the task, with its token (or an older one the
        worker kept, made stale by a takeover or a TOUCH)."""
        r = self.rng
        inflight, queue, task, token = r.choice(self.deliveries)
        if self.tokens and r.random() < 0.2:
            token = r.choice(self.tokens)
        roll = r.random()
        # Half name the queue's job data (a NACK with a reason, mostly).
        data = ["DATA", r.choice(POOLS["data"])] if r.random() < 0.5 else []
        if roll < 0.4:
            out = ["DELAY.ACK", inflight, *data, "LEASES", task, token]
        elif roll < 0.7:
            out = ["DELAY.NACK", inflight, queue, task, r.choice(["0", "100", "60000"]), "TOKEN", token, *data]
            if data and r.random() < 0.8:
                out += ["REASON", r.choice(["boom", "SMTP 451"])]
        else:
            out = ["DELAY.TOUCH", inflight, task, r.choice(["1", "1000", "60000"]), "TOKEN", token]
        self.recent = (self.recent + [out])[-20:]
        return out

    def lease_follow_up(self) -> list:
        """A holder's next call about a lease it acquired: a release with its
        token (or an older one, made stale by a renewal or a takeover), one
        without, or a renewal."""
        r = self.rng
        key, holder, token = r.choice(self.leases)
        if self.tokens and r.random() < 0.2:
            token = r.choice(self.tokens)
        roll = r.random()
        if roll < 0.6:
            out = ["RATE.RELEASE", key, holder, "TOKEN", token]
        elif roll < 0.75:
            out = ["RATE.RELEASE", key, holder]
        else:
            out = ["RATE.ACQUIRE", key, holder, r.choice(["1", "100", "60000"]), r.choice(["1", "2", "3"])]
        self.recent = (self.recent + [out])[-20:]
        return out

    def args(self, args: list, out: list, family: str, command: str) -> None:
        r = self.rng
        i = 0
        while i < len(args):
            arg = args[i]
            if arg.get("optional") and ("token" in arg or arg["type"] == "oneof"):
                # A group of options: each given or not, in any order.
                group = []
                while i < len(args) and args[i].get("optional"):
                    group.append(args[i])
                    i += 1
                chosen = [a for a in group if (command, a["name"]) not in self.skip_options and r.random() < 0.4]
                names = [a["name"] for a in chosen]
                if command.startswith("DELAY.") and "data" not in names and r.random() < 0.5:
                    # The queue's job data, in most DELAY calls.
                    chosen += [a for a in group if a["name"] == "data"]
                    names.append("data")
                for needs, needed in (("ms", "idmp"), ("deadletter", "lease"), ("withdata", "data"),
                                      ("name", "data"), ("reason", "data"), ("name", "lease")):
                    if needs in names and needed not in names and r.random() < 0.9:
                        # RETAIN needs IDMP, DEADLETTER LEASE, the job
                        # options DATA, WORKER LEASE: mostly give both.
                        chosen += [a for a in group if a["name"] == needed]
                        names.append(needed)
                r.shuffle(chosen)
                for option in chosen:
                    self.one(option, out, family, command)
                continue
            self.one(arg, out, family, command)
            i += 1

    def one(self, arg: dict, out: list, family: str, command: str) -> None:
        r = self.rng
        kind = arg["type"]
        if kind == "oneof":
            choice = r.choice([a for a in arg["arguments"] if (command, a["name"]) not in self.skip_options])
            self.one(dict(choice, optional=False), out, family, command)
            return
        if "token" in arg:
            out.append(arg["token"] if r.random() < 0.8 else arg["token"].lower())
        if kind == "pure-token":
            return
        items = 1
        if arg.get("multiple"):
            counted = arg.get("counted_by")
            items = self.counts.get(counted) if counted else r.choice([1, 1, 1, 2, 3, 5])
            if counted and items is None:
                items = 1
        for _ in range(items):
            if kind == "block":
                for part in arg["arguments"]:
                    self.one(part, out, family, command)
            elif kind == "key":
                out.append(self.key(family, arg["name"]))
            elif kind in ("integer", "unix-time"):
                if arg["name"] == "numkeys":
                    n = r.choice([1, 1, 2, 2, 3])
                    self.counts["numkeys"] = n
                    out.append(str(n) if r.random() > 0.02 else r.choice(["0", "-1", "99"]))
                else:
                    out.append(self.integer(arg["name"], command))
            elif kind == "double":
                out.append(self.double(arg["name"]))
            else:
                out.append(self.string(arg["name"], command))

    def mutate(self, out: list) -> None:
        r = self.rng
        i = r.randrange(1, len(out)) if len(out) > 1 else 0
        how = r.randrange(5)
        if how == 0 and len(out) > 1:
            del out[i]
        elif how == 1:
            out.insert(i, out[i])
        elif how == 2:
            out.insert(i, r.choice(KEYWORDS))
        elif how == 3 and len(out) > 2:
            j = r.randrange(1, len(out))
            out[i], out[j] = out[j], out[i]
        else:
            out.append(r.choice(KEYWORDS + MEMBERS))

    def native(self) -> list:
        """Native writes both servers make alike: tasks scheduled, posts
        timed, foreign scores, deletions."""
        r = self.rng
        now = self.clock[0]
        roll = r.random()
        if roll < 0.45:
            return ["ZADD", r.choice(POOLS["queue"]), str(now + r.choice([-5000, -1, 0, 0, 1, 10, 1000, 60000])),
                    r.choice(MEMBERS)]
        if roll < 0.6:
            return ["ZADD", r.choice(POOLS["times"]), str(now // 1000 - r.randint(0, 3000)), r.choice(MEMBERS)]
        if roll < 0.62:
            return ["ZADD", r.choice(POOLS["board"] + POOLS["feed"]),
                    r.choice(["inf", "-inf", "1e300", "3.5", "7", str(now)]), r.choice(MEMBERS)]
        if roll < 0.7:
            # Not beyond 2^63 ms: a wait that long is an integer a Lua
            # number cannot hold (docs/functions.md, "Differences").
            return ["ZADD", r.choice(POOLS["rate"]), r.choice(["-inf", "3.5", "7", str(now), str(now + 10 ** 15)]),
                    r.choice(MEMBERS)]
        if roll < 0.8:
            return ["SADD", r.choice(POOLS["upvoters"] + POOLS["downvoters"]), r.choice(MEMBERS)]
        return ["DEL", r.choice([k for k in ALL_KEYS if k not in POOLS["times"] + POOLS["wrong"]])]


def zone_changes(zone: str) -> list[int]:
    """The unix seconds at which `zone`'s offset changes, from 1970 on, as
    the module's tz database has them (functions/zones.json)."""
    zones = json.loads((ROOT / "functions" / "zones.json").read_text())
    digit = {c: i for i, c in enumerate(zones["digits"])}

    def records(index: int) -> list[int]:
        table = zones["tables"][index]
        text = table["records"]
        own = [sum(digit[c] * 90 ** (4 - i) for i, c in enumerate(text[at:at + 5])) for at in range(0, len(text), 6)]
        if "then" in table:
            other, first = table["then"]
            own += records(other)[first:]
        return own
    return records(zones["zones"][zone])[1:]


#: Cron rules for the sweep across clock changes: fixed times of day (run
#: once, at the first instant after a gap) and others (run at each reading).
ZONE_SWEEP_RULES = ["30 2 * * *", "0 2 * * *", "0 3 * * SUN", "0 1 * * *", "30 0 * * *", "0 0 * * *", "45 23 * * *",
                    "0 2-2 * * *", "0 9 * * MON-FRI", "*/30 * * * *", "0 * * * *", "15,45 1-3 * * *", "*/7 2 * * *",
                    "* * * * *", "0 */1 * * *", "0 0-23/2 * * *", "@hourly", "0 2 29 2 *", "0 2 29 2 +SUN"]


def zone_sweep(pair: "Pair", rng: random.Random, clock: list, cases: int) -> str | None:
    """DELAY.SCHEDULE's first occurrence and RANK.SEASON's seasons on both
    engines, for cron rules and periods in zones with clock changes, started around the changes (a second, an
    hour, a few hours before and after): None when every reply is equal,
    else the first call that differs."""
    zones = ["Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "Europe/Dublin",
             "America/Santiago", "Pacific/Chatham", "Africa/Casablanca", "Antarctica/Troll", "America/Havana",
             "Africa/Monrovia", "Asia/Tehran", "Pacific/Kwajalein", "America/St_Johns"]
    changes = {zone: zone_changes(zone) for zone in zones}
    for _ in range(cases):
        zone = rng.choice(zones)
        at = rng.choice(changes[zone]) + rng.choice([-10800, -3601, -3600, -1, 0, 1, 1799, 3599, 3600,
                                                      rng.randint(-86400, 86400)])
        start = max(0, at * 1000 + rng.choice([0, 0, -1, 1, 999, rng.randint(0, 999)]))
        argv = ["DELAY.SCHEDULE", "{q}:zones", "{q}:zones-data", "sweep", "CRON", rng.choice(ZONE_SWEEP_RULES),
                "TZ", zone, "START", str(start)]
        # A season's bounds around the same change: a midnight the clock
        # skips or repeats starts a day, a week or a month.
        season = ["RANK.SEASON", "{b}:season", rng.choice(["DAY", "WEEK", "MONTH"]), "TZ", zone, "AT", str(start),
                  "KEEP", str(rng.choice([1, 3600, 86400, 604800]))]
        for call in (argv, season):
            (a_raw, _), (b_raw, _), _ = pair.run(clock[0], call)
            if not same_reply(a_raw, b_raw):
                return f"{show(call)}\n  module:  {a_raw!r}\n  library: {b_raw!r}"
    return None


def step_cursor_at(argv: list, keys: list) -> int | None:
    """Where a RANK.MERGE call's STEP cursor stands (its staging key is the
    call's last key), or None."""
    if argv[0] != "RANK.MERGE" or not keys:
        return None
    for i, word in enumerate(argv[:-3]):
        if word.upper() == "STEP" and argv[i + 2] == keys[-1]:
            return i + 3
    return None


class _Nothing(set):
    """A set that keeps nothing: keys may repeat."""

    def add(self, _):
        pass


def setup(now_ms: int) -> list:
    """What both servers hold before the first call: keys of other types,
    and a post time for every item (VOTE.CAST ... WINDOW)."""
    posted = ["ZADD", POOLS["times"][0]]
    for i, member in enumerate(MEMBERS):
        posted += [str(now_ms // 1000 - 600 * i), member]
    return [["SET", "str", "x"], ["SADD", "aset", "x"], ["HSET", "ahash", "f", "v"], posted]

# ---------------------------------------------------------------- run ----


# The one reply the library cannot give: an integer of i64::MAX (RATE.HIT's
# wait on a log holding scores of 2^63 ms and more), which no Lua number
# reaches; it answers the largest double below (docs/functions.md).
I64_MAX = b":9223372036854775807\r\n"
LUA_LARGEST = b":9223372036854774784\r\n"


# A stepped merge's run record (the top member of its staging key).
RECORD_PREFIX = b"zkit:merge-run:v1:"
# The same, hex-encoded as a FEED cursor carries a member.
RECORD_HEX = RECORD_PREFIX.hex().encode()


# RANK.STATS's memory-bytes is MEMORY USAGE's: the module keeps small boards
# in the skiplist layout, the library cannot choose one (docs/functions.md).
MEMORY_BYTES = re.compile(rb"(\$12\r\nmemory-bytes\r\n):\d+\r\n")


def typed(raw: bytes, at: int = 0):
    """A RESP reply as (type, value) trees, and where it ends."""
    end = raw.index(b"\r\n", at)
    kind, rest = raw[at:at + 1], raw[at + 1:end]
    if kind in (b"*", b"%", b"~"):
        n = int(rest) * (2 if kind == b"%" else 1)
        items, at = [], end + 2
        for _ in range(max(n, 0)):
            item, at = typed(raw, at)
            items.append(item)
        return ("array", items), at
    if kind == b"$" and int(rest) >= 0:
        n = int(rest)
        return ("bulk", raw[end + 2:end + 2 + n]), end + 4 + n
    return (kind.decode(), rest), end + 2


def same_scores(module, library) -> bool:
    """Equal but for RESP3 doubles that the library sends as exact text
    (FEED.PAGE's scores: a function cannot tell its caller's protocol)."""
    if module[0] == "," and library[0] == "bulk":
        return float(module[1]) == float(library[1])
    if module[0] == "array" and library[0] == "array" and len(module[1]) == len(library[1]):
        return all(same_scores(a, b) for a, b in zip(module[1], library[1]))
    return module == library


def same_reply(module: bytes, library: bytes, resp3_scores: bool = False) -> bool:
    module, library = (MEMORY_BYTES.sub(rb"\1:<bytes>\r\n", reply) for reply in (module, library))
    if module == library or (I64_MAX in module and module.replace(I64_MAX, LUA_LARGEST) == library):
        return True
    return resp3_scores and same_scores(typed(module)[0], typed(library)[0])


def show(argv: list) -> str:
    def quote(w):
        w = w if isinstance(w, str) else str(w)
        if w and all(c.isalnum() or c in "._:-{}+" for c in w):
            return w
        return '"' + w.encode("utf-8", "surrogateescape").decode("latin-1").encode("unicode_escape").decode().replace('"', '\\"') + '"'
    return " ".join(quote(w) for w in argv)


class Pair:
    """The two engines, side by side."""

    def __init__(self, module: ModuleEngine, library: LibraryEngine, setup_calls: list, resp3: bool = False):
        self.engines = (module, library)
        self.pinned = None
        # Runs started with cursor 0 on each side: the module's id -> the
        # library's (and back). Their ids are the one thing the two draw
        # differently (random bits, a hash of the clock: docs/functions.md);
        # everything else about those runs must be equal.
        self.runs: dict[str, str] = {}
        self.runs_back: dict[str, str] = {}
        # Replaying a recorded sequence (shrinking), the module draws other
        # ids than it did: the id each call started (by the call's argv
        # object), and the recorded ids -> this replay's.
        self.started: dict[int, str] = {}
        self.replayed: dict[str, str] = {}
        self.setup = setup_calls
        self.resp3 = resp3
        if resp3:
            for engine in self.engines:
                engine.con.call("HELLO", "3")

    def reset(self) -> None:
        for engine in self.engines:
            engine.con.send(["FLUSHALL"], *self.setup)
            for _ in range(1 + len(self.setup)):
                engine.con.read()
        self.pinned = None
        self.runs.clear()
        self.runs_back.clear()
        self.replayed.clear()

    @staticmethod
    def renamed(argv: list, ids: dict, keys: tuple = ()) -> list:
        """`argv` with each run id of `ids` (in a merge cursor, or
        hex-encoded in a FEED cursor that points at a run record) replaced
        by its value, in every word but the call's keys."""
        for old, new in ids.items():
            for a, b in ((old, new), (old.encode().hex(), new.encode().hex())):
                argv = [w.replace(a, b) if isinstance(w, str) and w not in keys else w for w in argv]
        return argv

    def from_library(self, raw: bytes) -> bytes:
        """A library reply (or member) with its runs' ids as the module's."""
        for module_run, library_run in self.runs.items():
            raw = raw.replace(library_run.encode(), module_run.encode())
            raw = raw.replace(library_run.encode().hex().encode(), module_run.encode().hex().encode())
        return raw

    def learn_run(self, staging: str, call: list) -> None:
        """After a step with cursor 0 (`call`): the run record on top of
        staging on each side names the run each drew."""
        found = []
        for engine in self.engines:
            top = engine.con.call("ZRANGE", staging, "-1", "-1")
            member = top[0] if isinstance(top, list) and top else b""
            found.append(member[len(RECORD_PREFIX):len(RECORD_PREFIX) + 32].decode("latin-1")
                         if member.startswith(RECORD_PREFIX) else None)
        module_run, library_run = found
        if module_run:
            recorded = self.started.setdefault(id(call), module_run)
            if recorded != module_run:
                self.replayed[recorded] = module_run
        if module_run and library_run and module_run != library_run:
            self.runs[module_run] = library_run
            self.runs_back[library_run] = module_run

    def run(self, clock_ms: int, argv: list):
        """Runs one call on both: (module reply, library reply, keys)."""
        module, library = self.engines
        pin = self.pinned != clock_ms
        self.pinned = clock_ms
        zkit = "." in argv[0]
        call, argv = argv, self.renamed(argv, self.replayed)
        mcon, lcon = module.con, library.con
        batch = []
        if pin:
            batch.extend(module.pin(clock_ms))
        if zkit:
            batch.append(["COMMAND", "GETKEYS", *argv])
        batch.append(argv)
        mcon.send(*batch)
        replies = [mcon.read() for _ in batch]
        keys = []
        if zkit:
            found = replies[-2][1]
            keys = [k.decode("utf-8", "surrogateescape") for k in found] if isinstance(found, list) else []
        largv = self.renamed(argv, self.runs, tuple(keys))
        lbatch = library.pin(clock_ms) if pin else []
        lbatch.append(library.command(largv, keys) if zkit else largv)
        lcon.send(*lbatch)
        lreplies = [lcon.read() for _ in lbatch]
        at = step_cursor_at(argv, keys)
        if at is not None and argv[at] == "0" and isinstance(replies[-1][1], list):
            self.learn_run(keys[-1], call)
        lraw, lvalue = lreplies[-1]
        return replies[-1], (self.from_library(lraw), lvalue), keys

    def data(self) -> list:
        """Each server's data: DEBUG DIGEST, keys, and every key's expiry."""
        out = []
        for engine in self.engines:
            con = engine.con
            keys = sorted(con.call("KEYS", "*"))
            con.send(["DEBUG", "DIGEST"], *[["PEXPIRETIME", k] for k in keys])
            replies = [con.read()[1] for _ in range(1 + len(keys))]
            out.append((replies[0], list(zip(keys, replies[1:]))))
        return out

    def zsets_equal(self, keys: list) -> bool:
        """Whether every key holds the same on both sides, run records
        compared with the library's run ids read as the module's."""
        for key, _ in keys:
            values = []
            for engine in self.engines:
                con = engine.con
                if con.call("TYPE", key) == b"zset":
                    items = con.call("ZRANGE", key, "0", "-1", "WITHSCORES")
                    # RESP3 answers [member, score] pairs, RESP2 a flat list.
                    pairs = [tuple(i) for i in items] if items and isinstance(items[0], list) \
                        else list(zip(items[::2], items[1::2]))
                    values.append(("zset", pairs))
                else:
                    values.append(("digest", con.call("DEBUG", "DIGEST-VALUE", key)))
            module, library = values
            if module[0] == library[0] == "zset":
                module = sorted(module[1])
                library = sorted((self.from_library(m) if m.startswith(RECORD_PREFIX) else m, s)
                                 for m, s in library[1])
            if module != library:
                return False
        return True

    def data_diff(self) -> str | None:
        (md, mkeys), (ld, lkeys) = self.data()
        if md == ld and mkeys == lkeys:
            return None
        if self.runs and mkeys == lkeys and self.zsets_equal(mkeys):
            return None
        lines = []
        mnames, lnames = {k for k, _ in mkeys}, {k for k, _ in lkeys}
        for k in sorted(mnames ^ lnames):
            lines.append(f"  key {k!r} only on the {'module' if k in mnames else 'library'} server")
        for k in sorted(mnames & lnames):
            digests = [e.con.call("DEBUG", "DIGEST-VALUE", k) for e in self.engines]
            dumps = [e.con.call("ZRANGE", k, "0", "-1", "WITHSCORES") if e.con.call("TYPE", k) == b"zset"
                     else None for e in self.engines]
            if digests[0] != digests[1]:
                lines.append(f"  key {k!r} differs:\n    module:  {dumps[0]}\n    library: {dumps[1]}")
        for (k, me), (k2, le) in zip(mkeys, lkeys):
            if k == k2 and me != le:
                lines.append(f"  key {k!r} expires at {me!r} on the module server, {le!r} on the library's")
        return "\n".join(lines) or "  DEBUG DIGEST differs"


def replay(pair: Pair, sequence: list) -> str | None:
    """Runs a sequence on empty servers: the first difference, or None."""
    pair.reset()
    for i, (clock, argv) in enumerate(sequence):
        a, b, _ = pair.run(clock, argv)
        if not same_reply(a[0], b[0], pair.resp3 and argv[0] == "FEED.PAGE"):
            return f"reply of call {i + 1}"
    if pair.data_diff():
        return "data after the last call"
    return None


def shrink(pair: Pair, sequence: list, budget_s: float = 60.0) -> list:
    """The shortest sub-sequence that still shows a difference (ddmin)."""
    deadline = time.time() + budget_s
    n = 2
    while len(sequence) >= 2 and time.time() < deadline:
        chunk = max(1, len(sequence) // n)
        reduced = False
        for start in range(0, len(sequence), chunk):
            candidate = sequence[:start] + sequence[start + chunk:]
            if candidate and replay(pair, candidate):
                sequence = candidate
                n = max(n - 1, 2)
                reduced = True
                break
            if time.time() > deadline:
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(n * 2, len(sequence))
    return sequence


def report(pair: Pair, sequence: list, what: str) -> None:
    print(f"differential: MISMATCH ({what}) after {len(sequence)} calls; shrinking...", flush=True)
    small = shrink(pair, sequence)
    why = replay(pair, small)
    print(f"differential: {len(small)} calls reproduce it ({why}), on servers holding only what these make:")
    for argv in pair.setup:
        text = show(argv)
        print("  " + (text if len(text) < 200 else text[:200] + f" ... ({len(argv)} words)"))
    last = None
    pair.reset()
    for clock, argv in small:
        if clock != last:
            print(f"  # clock {clock} (ZKIT.DEBUG-CLOCK {clock} / FCALL zkit_debug_clock 0 {clock})")
            last = clock
        a, b, keys = pair.run(clock, argv)
        print("  " + show(argv))
        if not same_reply(a[0], b[0], pair.resp3 and argv[0] == "FEED.PAGE"):
            print(f"    module:  {a[0]!r}\n    library: {b[0]!r}")
    diff = pair.data_diff()
    if diff:
        print("  data after the last call:\n" + diff)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.environ.get("REDIS_SERVER", "redis-server"))
    parser.add_argument("--module", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--calls", type=int, default=int(os.environ.get("ZKIT_DIFFERENTIAL_CALLS", "100000")))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--checkpoint", type=int, default=500, help="calls between data comparisons")
    parser.add_argument("--zone-cases", type=int, default=2000,
                        help="cron schedules started (and seasons asked for) around clock changes, compared after the calls")
    parser.add_argument("--skip-option", action="append", default=[],
                        help="COMMAND:option-name the workload leaves out")
    parser.add_argument("--mixed", action="store_true",
                        help="the second server has the module too, and each call goes to either")
    parser.add_argument("--config", action="append", default=[],
                        help="NAME=VALUE: the module's zkit.NAME, and the library's CONFIG alike")
    parser.add_argument("--resp3", action="store_true",
                        help="both connections speak RESP3 (FEED.PAGE's scores then compare by value)")
    parser.add_argument("--verbose", action="store_true", help="print the most common errors")
    parser.add_argument("--env", action="append", default=[], help="NAME=value for the servers")
    args = parser.parse_args()

    seed = args.seed if args.seed is not None else int(os.environ.get("ZKIT_SEED", random.randrange(1 << 32)))
    env = dict(os.environ)
    for pair_text in args.env:
        name, _, value = pair_text.partition("=")
        env[name] = value
    started = time.time()
    # Other configs (a tie-break span that is no power of two, a small
    # idmp-max-ids) on both: the module as load arguments, the library in
    # its CONFIG table, as docs/functions.md tells users to set them.
    configs = []
    library = pathlib.Path(args.library).read_text()
    for setting in args.config:
        name, _, value = setting.partition("=")
        configs += [f"zkit.{name}", value]
        library, found = re.subn(rf"\['{re.escape(name)}'\] = \d+", f"['{name}'] = {int(value)}", library)
        if not found:
            raise SystemExit(f"differential: the library has no config {name}")
    debug = ["--enable-debug-command", "yes"]
    module_server = Server(args.server, [*debug, "--loadmodule", os.path.abspath(args.module), "debug-commands",
                                         *configs], "differential-module", env=env)
    second = ["--loadmodule", os.path.abspath(args.module), "debug-commands", *configs] if args.mixed else []
    library_server = Server(args.server, [*debug, *second], "differential-library", env=env)
    try:
        version = module_server.conn.call("INFO", "server")
        line = [l for l in version.decode().splitlines() if l.startswith(("redis_version:", "valkey_version:"))]
        print(f"differential: seed {seed} (ZKIT_SEED={seed} replays its calls; the clock starts from now and the module draws new run ids), {args.calls} calls, "
              f"{args.server}: {', '.join(line)}", flush=True)
        rng = random.Random(seed)
        clock = [(int(time.time() * 1000) + 86_400_000) // 1000 * 1000]
        if args.mixed:
            second_engine = MixedEngine(library_server, library, random.Random(seed + 1))
        else:
            second_engine = LibraryEngine(library_server, library)
        pair = Pair(ModuleEngine(module_server), second_engine, setup(clock[0]), args.resp3)
        pair.reset()
        skip = {tuple(s.split(":", 1)) for s in args.skip_option}
        settings = dict(setting.partition("=")[::2] for setting in args.config)
        epoch = int(settings.get("tiebreak-epoch-ms", TIEBREAK_EPOCH))
        window = (epoch, epoch + int(settings.get("tiebreak-span-ms", TIEBREAK_END - TIEBREAK_EPOCH)))
        workload = Workload(rng, clock, skip, window)
        history: list = []
        calls, errors, messages, keys_seen = Counter(), Counter(), Counter(), set()
        steps = Counter()  # stepped merges' replies: True when a run finished
        fenced_calls = Counter()  # fenced ACK, NACK, TOUCH: True when they acted
        poll_options = Counter()  # DELAY.POLL with LANES, RATE: True when it claimed
        for n in range(1, args.calls + 1):
            if rng.random() < 0.5:
                clock[0] += rng.choice([0, 1, 1, 2, 5, 17, 100, 999, 1000, 5000, 60000])
            argv = workload.call()
            history.append((clock[0], argv))
            (a_raw, a), (b_raw, _), keys = pair.run(clock[0], argv)
            calls[argv[0]] += 1
            keys_seen.update(keys)
            if isinstance(a, ServerError):
                errors[argv[0]] += 1
                messages[argv[0] + ": " + str(a)[:70]] += 1
            if argv[0] == "FEED.PAGE" and isinstance(a, list) and len(a) == 4:
                for cursor in a[1:3]:
                    # Not a cursor at a merge's run record (a feed that is
                    # also a staging key): records sort by run id at +inf,
                    # and the two engines draw different ids, so paging from
                    # one run's record on a key holding another's finds
                    # different neighbours on each side (ids are compared
                    # mapped, their order cannot be).
                    if isinstance(cursor, bytes) and RECORD_HEX not in cursor:
                        workload.cursors.append(cursor.decode("latin-1"))
                workload.cursors = workload.cursors[-50:]
            if argv[0] == "DELAY.POLL" and isinstance(a, list):
                upper = [w.upper() for w in argv]
                # With RATE: [tasks, retry-after-ms].
                polled = a[0] if "RATE" in upper and len(a) == 2 and isinstance(a[0], list) else a
                for option in ("LANES", "RATE"):
                    if option in upper:
                        poll_options[option, bool(polled)] += 1
                # Leased tasks carry their token third (WITHTOKENS, or WITHDATA's nil without a lease).
                leased = [task for task in polled if isinstance(task, list) and len(task) in (3, 5) and task[2] is not None]
                workload.tokens += [str(int(task[2])) for task in leased]
                workload.claimed += [task[0].decode("latin-1") for task in polled if isinstance(task, list) and task]
                workload.claimed = workload.claimed[-30:]
                # LEASE as a keyword has its in-flight key after it; a drawn
                # key or task may be spelled LEASE too, even as the last word.
                lease_at = [i for i, word in enumerate(upper[:-1]) if word == "LEASE"]
                if lease_at:
                    inflight = argv[lease_at[0] + 1]
                    workload.deliveries += [(inflight, argv[1], task[0].decode("latin-1"), str(int(task[2])))
                                            for task in leased]
                    workload.deliveries = workload.deliveries[-20:]
            if argv[0] == "RATE.ACQUIRE" and isinstance(a, list) and len(a) == 5 and int(a[4]) > 0:
                # A lease's token, for releases to name (current or stale).
                workload.tokens.append(str(a[4]))
                workload.leases = (workload.leases + [(argv[1], argv[2], str(a[4]))])[-20:]
            fenced = {w.upper() for w in argv} & {"TOKEN", "LEASES"}
            if argv[0] in ("DELAY.ACK", "DELAY.NACK", "DELAY.TOUCH", "RATE.RELEASE") and fenced and isinstance(a, int):
                fenced_calls[int(a) > 0] += 1
                if argv[0] == "DELAY.TOUCH" and int(a) > 1:
                    workload.tokens.append(str(a))
            workload.tokens = workload.tokens[-30:]
            at = step_cursor_at(argv, keys)
            if at is not None and isinstance(a, list) and len(a) == 2 and isinstance(a[0], bytes):
                cursor = a[0].decode("latin-1")
                steps[cursor == "0"] += 1
                steps["later"] += argv[at] != "0" and not argv[at].endswith(":0")
                workload.last_step = (argv, at, cursor)
                if cursor != "0":
                    workload.merge_cursors = (workload.merge_cursors + [cursor])[-30:]
            if not same_reply(a_raw, b_raw, pair.resp3 and argv[0] == "FEED.PAGE"):
                print(f"differential: call {n}: {show(argv)}\n  module:  {a_raw!r}\n  library: {b_raw!r}")
                report(pair, history, f"reply of call {n}")
                return 1
            if n % args.checkpoint == 0 or n == args.calls:
                diff = pair.data_diff()
                if diff:
                    print(f"differential: data differ after call {n}:\n{diff}")
                    report(pair, history, f"data after call {n}")
                    return 1
        sweep_started = time.time()
        differs = zone_sweep(pair, rng, clock, args.zone_cases)
        if differs:
            print(f"differential: a cron rule or a season across a clock change: {differs}")
            return 1
        print(f"differential: {args.zone_cases} cron schedules and seasons around clock changes in 14 zones: "
              f"first occurrences and seasons equal ({time.time() - sweep_started:.0f} s)")
        zkit_calls = {k: v for k, v in calls.items() if "." in k}
        library_commands = [c for c in SPEC if "BLOCKING" not in SPEC[c]["command_flags"]]
        missing = [c for c in library_commands if c not in zkit_calls and c not in MODULE_ONLY_COMMANDS]
        print(f"differential: module against {pair.engines[1].label}{' (RESP3)' if args.resp3 else ''}: {args.calls} calls ({sum(zkit_calls.values())} zkit, "
              f"{args.calls - sum(zkit_calls.values())} native), {len(zkit_calls)} of {len(library_commands)} "
              f"library commands, {len(keys_seen)} keys, replies equal after every call, data equal at "
              f"{args.calls // args.checkpoint} checkpoints, {time.time() - started:.0f} s")
        for name in sorted(zkit_calls):
            print(f"  {name:<12} {zkit_calls[name]:>7} calls, {errors[name]:>6} errors")
        print(f"  RANK.MERGE STEP: {steps[False] + steps[True]} steps applied or repeated "
              f"({steps['later']} a run's second or later, {steps[True]} last steps); {len(pair.runs)} "
              f"runs started with cursor 0 (their ids drawn by each side, compared mapped)")
        print(f"  fenced DELAY.ACK, NACK, TOUCH, RATE.RELEASE: {fenced_calls[True]} acted on the lease named, "
              f"{fenced_calls[False]} answered 0 (a stale, unknown or ended delivery)")
        print(f"  DELAY.POLL answered with LANES: {poll_options['LANES', True]} claimed, {poll_options['LANES', False]} none; "
              f"with RATE: {poll_options['RATE', True]} claimed, {poll_options['RATE', False]} none")
        if args.verbose:
            for message, count in messages.most_common(40):
                print(f"  {count:>6}  {message}")
        if missing:
            print(f"differential: FAILED: no call of {', '.join(missing)}")
            return 1
        return 0
    finally:
        module_server.stop()
        library_server.stop()


if __name__ == "__main__":
    sys.exit(main())
