#!/usr/bin/env python3
"""What each of zkit's commands costs the server as a module command, as a
function of the Functions library, and as the native commands a client
would send instead, on one server that has both the module and the library,
on small and large data.

    python3 functions/bench.py --module target/release/libzkit.so \\
        [--server redis-server] [--sizes 100 100000] [--calls 20000] [--rounds 3]
    python3 functions/bench.py --module target/release/libzkit.so \\
        --one-shot-merge 100000 1000000 [--step 500]

The figure is the server's own CPU time per call (its main thread's, from
/proc/<pid>/task/<pid>/schedstat, in nanoseconds), so other load on the
machine moves it little. Calls go out in pipelines of 64 from one client,
each variant on a copy of its own of the same data; rounds interleave the
variants and the median round is shown. Prints a Markdown table. (The
docs' per-command table counts server instructions instead, on a server
without the module, beside the script a team would write: `make
perf-guard`'s library cases, bench/guard.py.) With --one-shot-merge, how long one
RANK.MERGE of two large boards holds the server instead, and the library's
longest step in the stepped form.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import statistics
import struct
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from differential import Resp, Server, ServerError  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
PIPELINE = 64
DAY_MS = 86_400_000


def cpu_ns(pid: int) -> int:
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[0])


def fcall(argv: list, keys: list) -> list:
    return ["FCALL", "zkit_" + argv[0].lower().replace(".", "_"), str(len(keys)), *keys, *argv[1:]]


class Case:
    """One command: how to build its data, and one call of each variant.

    ``data(con, key, size)`` fills a key; ``call(key, i)`` returns (module
    argv, its keys, the native calls) for the i-th call."""

    def __init__(self, name, data, call):
        self.name, self.data, self.call = name, data, call


def fill(con: Resp, key: str, items) -> None:
    batch = []
    for score, member in items:
        batch += [str(score), member]
        if len(batch) >= 2000:
            con.call("ZADD", key, *batch)
            batch = []
    if batch:
        con.call("ZADD", key, *batch)


def board(con, key, size, now):
    # Rank scores with a tie-break fraction, totals 1..1000.
    fill(con, key, (((i % 1000) + 0.5 + (i % 997) / 2048, f"m:{i}") for i in range(size)))


def feed(con, key, size, now):
    fill(con, key, ((i, f"m:{i}") for i in range(size)))


def votes(con, key, size, now):
    fill(con, key, ((1_000_000_000 + i, f"i:{i}") for i in range(size)))


def rate_log(con, key, size, now):
    fill(con, key, ((now - DAY_MS // 2 + i, f"{now - DAY_MS // 2 + i}-0") for i in range(size)))


def recent(con, key, size, now):
    fill(con, key, ((now - size + i, f"i:{i}") for i in range(size)))


def queue(con, key, size, now, calls):
    fill(con, key, ((4_000_000_000_000 + i, f"later:{i}") for i in range(size)))
    fill(con, key, ((i, f"due:{i}") for i in range(calls)))


def cases(size: int, calls: int) -> list:
    rnd = random.Random(size)
    pick = lambda: rnd.randrange(size)  # noqa: E731
    return [
        Case("RANK.GIFT", board, lambda k, i: (
            ["RANK.GIFT", k, f"m:{pick()}", "5"], [k],
            [["ZINCRBY", k, "5", f"m:{pick()}"], ["ZREVRANK", k, f"m:{pick()}"]])),
        Case("RANK.GET", board, lambda k, i: (
            ["RANK.GET", k, f"m:{pick()}"], [k],
            [["ZSCORE", k, f"m:{pick()}"], ["ZREVRANK", k, f"m:{pick()}"]])),
        Case("RANK.TOP 10", board, lambda k, i: (
            ["RANK.TOP", k, "10"], [k], [["ZRANGE", k, "0", "9", "REV", "WITHSCORES"]])),
        Case("RANK.AROUND 2", board, lambda k, i: (
            ["RANK.AROUND", k, f"m:{pick()}", "2"], [k],
            [["ZREVRANK", k, f"m:{pick()}"], ["ZRANGE", k, "0", "4", "REV", "WITHSCORES"]])),
        Case("FEED.PAGE 20 OLDER", feed, lambda k, i: (
            ["FEED.PAGE", k, "COUNT", "20", "OLDER", CURSORS[k]], [k],
            [["ZRANGE", k, f"({size // 2}", "-inf", "BYSCORE", "REV", "LIMIT", "0", "21", "WITHSCORES"]])),
        Case("FEED.ADD CAP", feed, lambda k, i: (
            ["FEED.ADD", k, "CAP", str(size), str(size + i), f"new:{i}"], [k],
            [["ZADD", k, str(size + i), f"new:{i}"], ["ZCARD", k], ["ZPOPMIN", k]])),
        Case("VOTE.CAST", votes, lambda k, i: (
            ["VOTE.CAST", k, k + ":up", k + ":down", f"i:{pick()}", f"u:{i}", "UP", "WEIGHT", "432", "432"],
            [k, k + ":up", k + ":down"],
            [["SISMEMBER", k + ":up", f"u:{i}"], ["SISMEMBER", k + ":down", f"u:{i}"],
             ["SADD", k + ":up", f"u:{i}"], ["ZINCRBY", k, "432", f"i:{pick()}"],
             ["SCARD", k + ":up"], ["SCARD", k + ":down"]])),
        Case("RATE.HIT", rate_log, lambda k, i: (
            ["RATE.HIT", k, str(DAY_MS), "1000000"], [k],
            [["ZREMRANGEBYSCORE", k, "-inf", "0"], ["ZCARD", k], ["ZADD", k, str(NOW[0]), f"{NOW[0]}-{i}"],
             ["PEXPIREAT", k, str(NOW[0] + DAY_MS)]])),
        Case("RECENT.ADD CAP", recent, lambda k, i: (
            ["RECENT.ADD", k, "CAP", str(size), "TTL", "3600", "ITEMS", f"v:{i}"], [k],
            [["ZADD", k, str(NOW[0] + i), f"v:{i}"], ["ZREMRANGEBYRANK", k, "0", "-" + str(size + 1)],
             ["EXPIRE", k, "3600"]])),
        Case("DELAY.POLL LEASE", lambda con, key, size, now: queue(con, key, size, now, calls), lambda k, i: (
            ["DELAY.POLL", k, "LEASE", k + ":held", "60000"], [k, k + ":held"],
            [["ZPOPMIN", k], ["ZADD", k + ":held", str(NOW[0] + 60000), f"due:{i}"]])),
    ]


CURSORS: dict = {}
NOW = [0]

# A stepped merge's keys (one slot) and step size.
MERGE_KEYS = ["{b}:week", "{b}:day1", "{b}:day2", "{b}:staging"]
MERGE_COUNT = 100


def merge_steps(server: Server, con: Resp, size: int, rounds: int) -> tuple:
    """Server CPU ns per step of RANK.MERGE STEP over two boards of `size`
    members (half of them on both), as module commands and as functions: a
    whole run per round and variant, each step sent when the previous one
    replied (its cursor). -> (module, library), medians of the rounds."""
    merge_boards(con, size)
    results: dict = {"module": [], "library": []}
    for _ in range(rounds):
        for variant, runs in results.items():
            before, steps, cursor = cpu_ns(server.proc.pid), 0, "0"
            while True:
                week, day1, day2, staging = MERGE_KEYS
                argv = ["RANK.MERGE", week, "2", day1, day2, "STEP", str(MERGE_COUNT), staging, cursor]
                reply = con.call(*(argv if variant == "module" else fcall(argv, MERGE_KEYS)))
                if isinstance(reply, ServerError):
                    raise SystemExit(f"bench: {argv} failed: {reply}")
                steps += 1
                cursor = reply[0].decode()
                if cursor == "0":
                    break
            runs.append((cpu_ns(server.proc.pid) - before) / steps)
    return tuple(statistics.median(results[v]) for v in ("module", "library"))


def merge_boards(con: Resp, size: int) -> None:
    """The two boards of MERGE_KEYS, of `size` members each, half of them
    on both."""
    con.call("FLUSHALL")
    for key, first in ((MERGE_KEYS[1], 0), (MERGE_KEYS[2], size // 2)):
        fill(con, key, (((i % 1000) + 0.5 + (i % 997) / 2048, f"m:{first + i}") for i in range(size)))


def one_shot_merges(server: Server, con: Resp, size: int, step_count: int) -> dict:
    """How long one RANK.MERGE of the two boards of `size` members holds the
    server, as a module command and as a function (wall and server CPU
    seconds), and the library's stepped run of `step_count` entries a step,
    in server CPU seconds: its longest step but the last, its last (which
    renames staging over the board the one-shot merges left in destkey, and
    so frees it), and the whole run."""
    merge_boards(con, size)
    week, day1, day2, staging = MERGE_KEYS
    argv = ["RANK.MERGE", week, "2", day1, day2]
    out = {}
    for variant, call in (("module", argv), ("library", fcall(argv, MERGE_KEYS[:3]))):
        cpu, start = cpu_ns(server.proc.pid), time.perf_counter()
        reply = con.call(*call)
        if isinstance(reply, ServerError):
            raise SystemExit(f"bench: {call[:5]} failed: {reply}")
        out[variant] = (time.perf_counter() - start, (cpu_ns(server.proc.pid) - cpu) / 1e9)
    longest, total, cursor, spent = 0, 0, "0", 0
    while True:
        step = ["RANK.MERGE", week, "2", day1, day2, "STEP", str(step_count), staging, cursor]
        longest = max(longest, spent)
        cpu = cpu_ns(server.proc.pid)
        reply = con.call(*fcall(step, MERGE_KEYS))
        spent = cpu_ns(server.proc.pid) - cpu
        if isinstance(reply, ServerError):
            raise SystemExit(f"bench: {step} failed: {reply}")
        total += spent
        cursor = reply[0].decode()
        if cursor == "0":
            break
    out["steps"] = (longest / 1e9, spent / 1e9, total / 1e9)
    return out


def measure(server: Server, con: Resp, batches: list) -> float:
    """Server CPU ns per call for `batches` (lists of commands, one call each)."""
    before = cpu_ns(server.proc.pid)
    sent = 0
    window: list = []
    for commands in batches:
        window.extend(commands)
        if len(window) >= PIPELINE:
            con.send(*window)
            for _ in window:
                reply = con.read()[1]
                if isinstance(reply, ServerError):
                    raise SystemExit(f"bench: {window[0]} failed: {reply}")
            sent += len(window)
            window = []
    if window:
        con.send(*window)
        for _ in window:
            con.read()
    return (cpu_ns(server.proc.pid) - before) / len(batches)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.environ.get("REDIS_SERVER", "redis-server"))
    parser.add_argument("--module", required=True)
    parser.add_argument("--library", default=str(ROOT / "functions" / "zkit.lua"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 100_000])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one-shot-merge", type=int, nargs="+", metavar="SIZE",
                        help="instead: how long a one-shot RANK.MERGE of two boards of SIZE members holds the server")
    parser.add_argument("--step", type=int, default=500, help="entries a step, for --one-shot-merge")
    args = parser.parse_args()

    server = Server(args.server, ["--loadmodule", os.path.abspath(args.module)], "bench")
    try:
        con = server.con
        reply = con.call("FUNCTION", "LOAD", "REPLACE", pathlib.Path(args.library).read_text())
        if isinstance(reply, ServerError):
            raise SystemExit(f"bench: FUNCTION LOAD: {reply}")
        version = [l for l in con.call("INFO", "server").decode().splitlines() if l.startswith("redis_version")]
        if args.one_shot_merge:
            print(f"<!-- {args.server} {version[0]}: one call, wall time (server CPU) -->")
            print(f"| boards | members out | module | library | library, steps of {args.step}: "
                  "longest but the last, last, all |")
            print("|---|---:|---:|---:|---:|")
            for size in args.one_shot_merge:
                r = one_shot_merges(server, con, size, args.step)
                print(f"| 2 x {size:,} | {size * 3 // 2:,} | {r['module'][0]:.2f} s ({r['module'][1]:.2f} s) "
                      f"| {r['library'][0]:.2f} s ({r['library'][1]:.2f} s) "
                      f"| {r['steps'][0] * 1000:.1f} ms, {r['steps'][1] * 1000:.1f} ms, {r['steps'][2]:.1f} s |",
                      flush=True)
            return 0
        print(f"<!-- {args.server} {version[0]}, {args.calls} calls x {args.rounds} rounds, "
              f"server CPU per call -->")
        print("| command | members | module | library | native commands | library / module |")
        print("|---|---:|---:|---:|---:|---:|")
        for size in args.sizes:
            for case in cases(size, args.calls * args.rounds):
                con.call("FLUSHALL")
                NOW[0] = int(time.time() * 1000)
                keys = {v: f"{{b}}:{case.name.split()[0].lower()}:{v}" for v in ("module", "library", "native")}
                for key in keys.values():
                    case.data(con, key, size, NOW[0])
                    # A page from the middle of the feed.
                    middle = size // 2
                    CURSORS[key] = f"f1:{struct.pack('>d', middle).hex()}:{f'm:{middle}'.encode().hex()}"
                results = {v: [] for v in keys}
                for round_ in range(args.rounds):
                    for variant, key in keys.items():
                        batches = []
                        for i in range(args.calls):
                            argv, call_keys, natives = case.call(key, round_ * args.calls + i)
                            batches.append({"module": [argv], "library": [fcall(argv, call_keys)],
                                            "native": natives}[variant])
                        results[variant].append(measure(server, con, batches))
                m, l, n = (statistics.median(results[v]) / 1000 for v in ("module", "library", "native"))
                print(f"| {case.name} | {size:,} | {m:.1f} µs | {l:.1f} µs | {n:.1f} µs | {l / m:.1f}x |",
                      flush=True)
            # No native commands do a step's work (an exact merge that
            # resumes where it stopped): the module and the library only.
            m, l = (ns / 1000 for ns in merge_steps(server, con, size, args.rounds))
            print(f"| RANK.MERGE STEP {MERGE_COUNT} (per step) | 2 x {size:,} | {m:.1f} µs | {l:.1f} µs | — "
                  f"| {l / m:.1f}x |", flush=True)
    finally:
        server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
