#!/usr/bin/env python3
"""What each of zkit's commands costs the server as a module command, as a
function of the Functions library, and as the native commands a client
would send instead, on one server that has both the module and the library,
on small and large data: the library's cases of the benches' one table
(bench/cases.py), the same calls on the same members for each variant.

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
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
from cases import BOARD_SCORE, build, fcall_of, fill_lua, library_cases  # noqa: E402  (bench/cases.py)
from harness.resp import Resp, ServerError  # noqa: E402  (scripts/harness)
from harness.server import Server  # noqa: E402

PIPELINE = 64


def cpu_ns(pid: int) -> int:
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[0])


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
            before, steps, cursor = cpu_ns(server.pid), 0, "0"
            while True:
                week, day1, day2, staging = MERGE_KEYS
                argv = ["RANK.MERGE", week, "2", day1, day2, "STEP", str(MERGE_COUNT), staging, cursor]
                reply = con.call(*(argv if variant == "module" else fcall_of(argv, MERGE_KEYS)))
                if isinstance(reply, ServerError):
                    raise SystemExit(f"bench: {argv} failed: {reply}")
                steps += 1
                cursor = reply[0].decode()
                if cursor == "0":
                    break
            runs.append((cpu_ns(server.pid) - before) / steps)
    return tuple(statistics.median(results[v]) for v in ("module", "library"))


def merge_boards(con: Resp, size: int) -> None:
    """The two boards of MERGE_KEYS, of `size` members each, half of them
    on both."""
    con.check("FLUSHALL")
    for key, first in ((MERGE_KEYS[1], 0), (MERGE_KEYS[2], size // 2)):
        build(con, fill_lua(f"'{key}'", size, BOARD_SCORE, "m:%d", first=str(first)))


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
    for variant, call in (("module", argv), ("library", fcall_of(argv, MERGE_KEYS[:3]))):
        cpu, start = cpu_ns(server.pid), time.perf_counter()
        reply = con.call(*call)
        if isinstance(reply, ServerError):
            raise SystemExit(f"bench: {call[:5]} failed: {reply}")
        out[variant] = (time.perf_counter() - start, (cpu_ns(server.pid) - cpu) / 1e9)
    longest, total, cursor, spent = 0, 0, "0", 0
    while True:
        step = ["RANK.MERGE", week, "2", day1, day2, "STEP", str(step_count), staging, cursor]
        longest = max(longest, spent)
        cpu = cpu_ns(server.pid)
        reply = con.call(*fcall_of(step, MERGE_KEYS))
        spent = cpu_ns(server.pid) - cpu
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
    before = cpu_ns(server.pid)
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
    return (cpu_ns(server.pid) - before) / len(batches)


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

    server = Server(args.server, ["--loadmodule", os.path.abspath(args.module)], "functions-bench")
    try:
        con = server.conn
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
            # The library's cases of the benches' table (bench/cases.py),
            # less those of a few calls that cost millions (a whole merge:
            # --one-shot-merge has it).
            for case in library_cases((size,)):
                if case.calls:
                    continue
                con.check("FLUSHALL")
                variants = {"module": (case.data, lambda i, p, c=case: [c.zkit(i, p)]),
                            "library": (case.data, lambda i, p, c=case: [c.fcall(i, p)])}
                if case.native:
                    variants["native"] = (case.native_data, case.native)
                for variant, (data, _) in variants.items():
                    data(con, f"{variant}:", args.calls * args.rounds)
                results: dict = {v: [] for v in variants}
                for round_ in range(args.rounds):
                    for variant, (_, call) in variants.items():
                        first = round_ * args.calls
                        batches = [call(i, f"{variant}:") for i in range(first, first + args.calls)]
                        results[variant].append(measure(server, con, batches))
                m, l = (statistics.median(results[v]) / 1000 for v in ("module", "library"))
                native = f"{statistics.median(results['native']) / 1000:.1f} µs" if case.native else "—"
                print(f"| {case.name} | {size:,} | {m:.1f} µs | {l:.1f} µs | {native} | {l / m:.1f}x |",
                      flush=True)
            # No native commands do a step's work (an exact merge that
            # resumes where it stopped): the module and the library only.
            m, l = (ns / 1000 for ns in merge_steps(server, con, size, args.rounds))
            print(f"| RANK.MERGE STEP {MERGE_COUNT} (per step) | 2 x {size:,} | {m:.1f} µs | {l:.1f} µs | — "
                  f"| {l / m:.1f}x |", flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
