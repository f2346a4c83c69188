#!/usr/bin/env python3
"""make bench: what every zkit command costs at every size, against the
native commands it replaces and the Lua a user would write, in one run:

  1. sweep    each case of bench/cases.py at every size of BENCH_SIZES: zkit
              vs native vs Lua, the same calls on copies of the same data,
              rounds interleaved (median);
  2. tax      native ZADD and SET on a server without zkit vs one where
              DELAY.BPOLL has been used (nobody waiting, and one waiting);
  3. latency  p50/p99/p99.9 of each case's zkit call and its natives at a
              fixed request rate (bench/latency.rs, open loop);
  4. memory   bytes per member of keys zkit wrote vs the same contents
              written natively, at 1k and 1M;
  5. long     how long the O(N) commands hold the server (SLOWLOG);
  6. vote     VOTE.CAST vs its script vs client round trips (vote_load.rs);
  7. small    the board cases on boards of 10-128 members vs native
              commands on an integer board, zkit 0.2's layout and Lua,
              before and after DEBUG RELOAD; bytes per member.

The calls go out through bench/load.rs (50 connections, 16 requests in
flight each, as redis-benchmark -c 50 -P 16 would send them); a case's call
is any sequence of commands, so its natives run in turn on the same members
and the rate is calls per second. Everything lands in .bench/: results.csv
(every number), table.md (what docs/benchmarks.md shows; `make bench-docs`
splices it in) and sweep.png (bench/report.py, from the CSV).

usage: bench/bench.py path/to/libzkit.so
env:   BENCH_SIZES     (default "10 100 1000 10000 100000 1000000 10000000")
       BENCH_SECTIONS  (default "sweep tax latency memory long vote small")
       BENCH_SMALL_SIZES (default "10 50 100 128", the small section's)
       BENCH_CASES     (default: every case; names as in the table, e.g.
                       "RANK.GIFT,FEED.ADD CAP")
       BENCH_REQUESTS  (100000 calls per measurement), BENCH_ROUNDS (3),
       BENCH_CLIENTS (50), BENCH_PIPELINE (16),
       BENCH_RATE (20000 calls/s for latencies), BENCH_LATENCY_SECONDS (5),
       BENCH_QUICK=1   sizes 100 and 10000, 20000 calls, 1 round, short
                       latencies, memory at 1k only: a few minutes;
       BENCH_MEASURE=instructions  the servers run under callgrind and each
                       rate is calls per billion server instructions (other
                       load on the machine does not move it); defaults
                       become 2000 calls, 1 round, sizes up to 10^5,
                       sections sweep and tax;
       BENCH_PROFILE=1 with instructions: keeps each measurement's callgrind
                       profile in .bench/profiles/ (callgrind_annotate);
       BENCH_PERF=1    with ops: records each measurement's server with perf
                       (clock samples) as .bench/profiles/<case>-<size>-<variant>.perf;
       BENCH_OUT       where results go (default .bench);
       REDIS_SERVER    (redis-server).
A default run takes about an hour on 2 cores (the 10^7 sizes about a third
of it) and needs about 4 GB of memory.
"""

import csv
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from cases import every_case  # noqa: E402  (bench/cases.py)
from harness.resp import ServerError, encode  # noqa: E402  (scripts/harness)
from harness.server import Server  # noqa: E402

STARTED = time.time()


def progress(*text):
    s = int(time.time() - STARTED)
    print(f"[{s // 60:2d}:{s % 60:02d}] {' '.join(text)}", file=sys.stderr, flush=True)


def fail(text):
    sys.exit(f"bench: {text}")


def knob(name, default, kind=str):
    value = os.environ.get(name, "")
    return kind(value) if value else default


class Settings:
    def __init__(self):
        self.measure = knob("BENCH_MEASURE", "ops")
        self.quick = knob("BENCH_QUICK", 0, int)
        sizes, sections = "10 100 1000 10000 100000 1000000 10000000", "sweep tax latency memory long vote small"
        requests, rounds, latency_seconds, memory_sizes = 100000, 3, 5, [1000, 1000000]
        if self.quick:
            sizes, requests, rounds, latency_seconds, memory_sizes = "100 10000", 20000, 1, 2, [1000]
        if self.measure == "instructions":
            sizes, sections, requests, rounds = "10 100 1000 10000 100000", "sweep tax", 2000, 1
            if self.quick:
                sizes, requests = "100 10000", 1000
        self.sizes = [int(s) for s in knob("BENCH_SIZES", sizes).split()]
        self.sections = knob("BENCH_SECTIONS", sections).split()
        self.small_sizes = [int(s) for s in knob("BENCH_SMALL_SIZES", "10 50 100 128").split()]
        self.requests = knob("BENCH_REQUESTS", requests, int)
        self.rounds = knob("BENCH_ROUNDS", rounds, int)
        self.clients = knob("BENCH_CLIENTS", 50, int)
        self.pipeline = knob("BENCH_PIPELINE", 16, int)
        self.latency_rate = knob("BENCH_RATE", 20000, int)
        self.latency_seconds = knob("BENCH_LATENCY_SECONDS", latency_seconds, int)
        self.memory_sizes = memory_sizes
        self.only = {c for c in knob("BENCH_CASES", "").split(",") if c}
        self.out = Path(knob("BENCH_OUT", str(ROOT / ".bench")))
        self.server = knob("REDIS_SERVER", "redis-server")
        self.profile = bool(os.environ.get("BENCH_PROFILE"))
        self.perf = bool(os.environ.get("BENCH_PERF"))
        self.unit = "calls/Ginstr" if self.measure == "instructions" else "calls/s"
        # Server and load generator on different cores when there are two.
        self.pinned = (os.cpu_count() or 1) >= 2 and shutil.which("taskset") is not None


S = Settings()


def csv_row(*fields):
    with (S.out / "results.csv").open("a", newline="") as f:
        csv.writer(f).writerow(fields)


def selected(name):
    return not S.only or name in S.only


# ---- servers and measurements ------------------------------------------------


def bench_binaries():
    """The paths of the load generators cargo builds (bench/load.rs,
    bench/latency.rs, bench/vote_load.rs)."""
    out = subprocess.run(["cargo", "bench", "--quiet", "--no-run", "--message-format=json",
                          "--bench", "load", "--bench", "latency", "--bench", "vote_load"],
                         cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        fail(f"could not build the load generators: {out.stderr[-2000:]}")
    paths = {}
    for line in out.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable"):
            paths[message["target"]["name"]] = message["executable"]
    return paths


def client_argv(binary, *args):
    return [*(["taskset", "-c", "1"] if S.pinned else []), binary, *[str(a) for a in args]]


class BenchServer(Server):
    """A server of the run: the module copy loaded (or not), pinned to core
    0, under callgrind when the run counts instructions."""

    def __init__(self, name, module=None, *args):
        wrap, extra = [], []
        self.callgrind = None
        if S.measure == "instructions":
            self.callgrind = S.out / f"tmp.callgrind.{name}"
            shutil.rmtree(self.callgrind, ignore_errors=True)
            self.callgrind.mkdir(parents=True)
            # Valgrind slows the server ~50x, not its timers: hz 1 keeps the
            # cron's share of each call small.
            wrap = ["valgrind", "--tool=callgrind", f"--log-file={self.callgrind}/valgrind.log",
                    f"--callgrind-out-file={self.callgrind}/callgrind.out"]
            extra = ["--hz", "1"]
        loaded = ["--loadmodule", module] if module else []
        super().__init__(S.server, [*extra, *loaded, *args], f"bench-{name}", wrap=wrap, workdir=S.out,
                         pin=0 if S.pinned else None, timeout=120)

    def stop(self):
        super().stop()
        if self.callgrind:
            shutil.rmtree(self.callgrind, ignore_errors=True)


def write_calls(path, calls):
    """Writes `calls` (each a list of argvs) for a load generator; returns
    the commands a call has."""
    group = len(calls[0])
    if any(len(c) != group for c in calls):
        fail(f"the calls of {path.name} do not all have {group} commands")
    with path.open("wb") as f:
        for call in calls:
            f.write(b"".join(encode(argv) for argv in call))
    return group


def run_load(server, calls, label):
    """Sends `calls` through bench/load.rs; the seconds they took."""
    path = S.out / "tmp.calls"
    group = write_calls(path, calls)
    out = subprocess.run(client_argv(BINARIES["load"], "--port", server.port, "--file", path, "--group", group,
                                     "--connections", S.clients, "--pipeline", S.pipeline),
                         capture_output=True, text=True)
    if out.returncode or not server.alive():
        fail(f"{label}: the load generator failed ({out.stderr.strip()}); the server "
             f"{'is alive' if server.alive() else 'died: ' + server.log_tail()}")
    seconds, _, errors = out.stdout.split()
    if int(errors):
        fail(f"{label}: {errors} error replies: {out.stderr.strip()}")
    return float(seconds)


def rate(server, calls, label, warm=()):
    """Calls per second of `calls` (each a list of argvs), or in
    instructions mode calls per billion server instructions (callgrind),
    which other load on the machine does not move. Either way higher is
    faster and ratios read the same. `warm` goes first, not counted (one-off
    work: lazy binding, a cron tick after a preload)."""
    if warm:
        run_load(server, warm, label)
    if S.measure != "instructions":
        recorder = None
        if S.perf:
            # Sampled on the clock (this virtual machine has no hardware
            # counters): where the server's time goes, memory stalls included.
            (S.out / "profiles").mkdir(exist_ok=True)
            recorder = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-p",
                                         str(server.pid), "-o", str(S.out / "profiles" / f"{label}.perf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        seconds = run_load(server, calls, label)
        if recorder:
            recorder.send_signal(signal.SIGINT)
            recorder.wait()
        return len(calls) / seconds
    control = ["callgrind_control", "-z", str(server.pid)]
    subprocess.run(control, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    before = set(server.callgrind.glob("callgrind.out.*"))
    run_load(server, calls, label)
    control[1] = "-d"
    subprocess.run(control, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while True:
        dumps = [d for d in server.callgrind.glob("callgrind.out.*") if d not in before]
        if dumps and "totals:" in dumps[0].read_text()[-4096:]:
            break
        if time.time() > deadline:
            fail(f"{label}: callgrind wrote no dump")
        time.sleep(0.1)
    dump = dumps[0]
    instructions = int(re.search(r"^summary:\s*(\d+)", dump.read_text(), re.M).group(1))
    if S.profile:
        (S.out / "profiles").mkdir(exist_ok=True)
        shutil.copy(dump, S.out / "profiles" / f"{label}.callgrind")
    dump.unlink()
    return len(calls) * 1e9 / instructions


def median(values):
    return statistics.median_low(sorted(values))


# ---- 1. the sweep ---------------------------------------------------------------


def variants(case, sha):
    """(name, data builder, the i-th call's commands) of each variant of a
    case: zkit, the natives, the script (when bench/lua has one)."""
    out = [("zkit", case.data, lambda i, p: [case.zkit(i, p)])]
    if case.native:
        out.append(("native", case.native_data, case.native))
    if case.script:
        out.append(("lua", case.data, lambda i, p: [case.script_call(sha, i, p)]))
    return out


def load_script(server, case):
    return server.conn.check("SCRIPT", "LOAD", (ROOT / "bench/lua" / case.script).read_text()).decode() \
        if case.script else None


def natives_spelled(case):
    """The natives of a case as the table names them: "SISMEMBER x2 + SADD"."""
    names = [argv[0] for argv in case.native(0, "")]
    unique = list(dict.fromkeys(names))
    return " + ".join(n if names.count(n) == 1 else f"{n} x{names.count(n)}" for n in unique)


def sweeps(case):
    """Whether the sweep and the latencies run a case: not the guard's
    cases of a few calls that cost millions (a whole merge: the long
    section has them) or that depend on the clock (paced)."""
    return selected(case.name) and not case.calls and not case.paced


def run_sweep():
    server = BenchServer("sweep", MODULE)
    warm = max(1, S.requests // 10)
    for size in S.sizes:
        for case in every_case(size):
            if not sweeps(case):
                continue
            progress(f"sweep: {case.name} at {size}: building the data")
            server.conn.check("FLUSHALL")
            sha = load_script(server, case)
            measured = variants(case, sha)
            for name, data, _ in measured:
                data(server.conn, f"{name}:", warm + S.rounds * S.requests)
            server.conn.call("MEMORY", "PURGE")
            got = {name: [] for name, _, _ in measured}
            for r in range(S.rounds):
                progress(f"sweep: {case.name} at {size}: round {r + 1} of {S.rounds}")
                first = warm + r * S.requests
                for name, _, call in measured:
                    calls = [call(i, f"{name}:") for i in range(first, first + S.requests)]
                    warmup = [call(i, f"{name}:") for i in range(warm)] if r == 0 else ()
                    label = f"{case.name.replace(' ', '_')}-{size}-{name}"
                    got[name].append(rate(server, calls, label, warmup))
            rates = {name: median(values) for name, values in got.items()}
            for name, value in rates.items():
                csv_row("sweep", case.name, size, name, f"{value:.0f}", S.unit)
            if case.native:
                csv_row("sweep", case.name, size, "natives", natives_spelled(case), "commands")
            versus = "  ".join(f"vs {name} {rates['zkit'] / value:.2f}x" for name, value in rates.items()
                               if name != "zkit")
            progress(f"measured: {case.name:<22} {size:>9}  zkit {rates['zkit']:9.0f} {S.unit}  {versus}")
    server.stop()


# ---- 2. the tax on native writes ----------------------------------------------


def run_tax():
    """Native ZADD (re-scoring members of a 10k zset) and SET on three
    servers: without zkit; with zkit after a DELAY.BPOLL that has ended
    (nobody waits); with zkit while a client waits in DELAY.BPOLL on
    another key."""
    servers = {"without-zkit": BenchServer("plain"), "bpoll-used": BenchServer("used", MODULE),
               "client-waiting": BenchServer("waiting", MODULE)}
    servers["bpoll-used"].conn.check("DELAY.BPOLL", "bench:nobody", 1)
    waiter = servers["client-waiting"].connect()
    waiter.send(["DELAY.BPOLL", "bench:nobody", 0])
    fill = "for s = 0, 9999, 1000 do local a = {} for i = s, s + 999 do a[#a + 1] = i; " \
           "a[#a + 1] = 'm:' .. i end redis.call('ZADD', 'bench:tax', unpack(a)) end"
    for server in servers.values():
        server.conn.check("EVAL", fill, 0)
    deadline = time.time() + 10
    while b"blocked_clients:1\r" not in servers["client-waiting"].conn.check("INFO", "clients"):
        if time.time() > deadline:
            fail("tax: the client waiting in DELAY.BPOLL is not blocked")
        time.sleep(0.05)
    commands = {"ZADD": lambda i: ["ZADD", "bench:tax", (i * 7919) % 10000, f"m:{(i * 104729) % 10000}"],
                "SET": lambda i: ["SET", f"bench:s:{(i * 104729) % 10000}", "v"]}
    for command, make in commands.items():
        calls = [[make(i)] for i in range(S.requests)]
        got = {name: [] for name in servers}
        for r in range(S.rounds):
            progress(f"tax: {command}: round {r + 1} of {S.rounds}")
            for name, server in servers.items():
                got[name].append(rate(server, calls, f"tax-{command}-{name}", calls[:S.requests // 10 + 1]))
        values = {name: median(v) for name, v in got.items()}
        for name, value in values.items():
            csv_row("tax", command, "-", name, f"{value:.0f}", S.unit)
        base = values["without-zkit"]
        progress(f"measured: {command} without zkit {base:.0f} {S.unit}; BPOLL used "
                 f"{values['bpoll-used'] / base:.2f}x; a client waiting {values['client-waiting'] / base:.2f}x")
    waiter.close()
    for server in servers.values():
        server.stop()


# ---- 3. latencies at a fixed rate -------------------------------------------------

LATENCY_SIZE = 10000


def run_latency():
    server = BenchServer("latency", MODULE)
    calls_needed = S.latency_rate * S.latency_seconds * 2 + 1000
    for case in every_case(LATENCY_SIZE):
        if not sweeps(case) or not case.native:
            continue
        server.conn.check("FLUSHALL")
        for name, data, call in variants(case, None)[:2]:
            data(server.conn, f"{name}:", calls_needed)
            calls = [call(i, f"{name}:") for i in range(calls_needed)]
            spelled = case.zkit(0, "")[0] if name == "zkit" else "+".join(a[0] for a in case.native(0, ""))
            progress(f"latency: {case.name} ({name}) at {S.latency_rate}/s for {S.latency_seconds}s")
            path = S.out / "tmp.calls"
            group = write_calls(path, calls)
            out = subprocess.run(client_argv(BINARIES["latency"], "--port", server.port, "--file", path,
                                             "--group", group, "--rate", S.latency_rate,
                                             "--seconds", S.latency_seconds),
                                 capture_output=True, text=True)
            if out.returncode:
                fail(f"latency: {case.name} ({name}) failed: {out.stderr.strip()}")
            p50, p99, p999, achieved, errors = out.stdout.split()
            if int(errors):
                fail(f"latency: {case.name} ({name}) got {errors} error replies")
            for what, value, unit in (("p50", p50, "us"), ("p99", p99, "us"), ("p99.9", p999, "us"),
                                      ("rate", achieved, "calls/s")):
                csv_row("latency", case.name, LATENCY_SIZE, f"{name}:{spelled}:{what}", value, unit)
            progress(f"measured: {case.name} {name} {spelled}: p50 {p50} us, p99 {p99} us, p99.9 {p999} us "
                     f"at {achieved} calls/s")
    server.stop()


# ---- 4. memory ----------------------------------------------------------------

# Each family's key written through zkit commands (in a server-side loop),
# then the same contents written natively into another key.
MEMORY_BUILDS = {
    "RANK": "for i = 1, n do redis.call('RANK.GIFT', 'z', string.format('m:%012d', i), i % 5000) end",
    "FEED": """for s = 1, n, 1000 do local a = {'z'}
               for i = s, math.min(s + 999, n) do a[#a + 1] = i; a[#a + 1] = string.format('m:%012d', i) end
               redis.call('FEED.ADD', unpack(a)) end""",
    "DELAY": """for s = 1, n, 1000 do local a = {}
                for i = s, math.min(s + 999, n) do a[#a + 1] = i; a[#a + 1] = string.format('t:%012d', i) end
                redis.call('ZADD', 'q', unpack(a)) end
                while redis.call('EXISTS', 'q') == 1 do
                  redis.call('DELAY.POLL', 'q', 'COUNT', 1000, 'LEASE', 'z', 600000) end""",
    "RATE": "redis.call('RATE.HIT', 'z', 'COST', n, 1000000000, n)",
    "RECENT": """for s = 1, n, 1000 do local a = {'z', 'CAP', n, 'ITEMS'}
                 for i = s, math.min(s + 999, n) do a[#a + 1] = string.format('m:%012d', i) end
                 redis.call('RECENT.ADD', unpack(a)) end""",
    "VOTE": "for i = 1, n do redis.call('VOTE.CAST', 'scores', 'z', 'down', 'item', "
            "string.format('u:%012d', i), 'UP') end",
}
COPY_SET = """local m = redis.call('SMEMBERS', 'z')
              for s = 1, #m, 1000 do redis.call('SADD', 'native', unpack(m, s, math.min(s + 999, #m))) end"""
COPY_ZSET = """local m = redis.call('ZRANGE', 'z', 0, -1, 'WITHSCORES')
               for s = 1, #m, 2000 do local a = {}
                 for i = s, math.min(s + 1999, #m), 2 do a[#a + 1] = m[i + 1]; a[#a + 1] = m[i] end
                 redis.call('ZADD', 'native', unpack(a)) end"""


def run_memory():
    server = BenchServer("memory", MODULE)
    conn = server.conn
    for n in S.memory_sizes:
        for family, build in MEMORY_BUILDS.items():
            conn.check("FLUSHALL")
            progress(f"memory: {family} at {n} members")
            conn.check("EVAL", f"local n = tonumber(ARGV[1]) {build}", 0, n)
            conn.check("EVAL", COPY_SET if family == "VOTE" else COPY_ZSET, 0)
            members = conn.check("SCARD" if family == "VOTE" else "ZCARD", "z")
            zkit_bytes = conn.check("MEMORY", "USAGE", "z", "SAMPLES", 0)
            native_bytes = conn.check("MEMORY", "USAGE", "native", "SAMPLES", 0)
            csv_row("memory", family, n, "zkit", f"{zkit_bytes / members:.1f}", "bytes/member")
            csv_row("memory", family, n, "native", f"{native_bytes / members:.1f}", "bytes/member")
            progress(f"measured: memory {family} at {members} members: zkit {zkit_bytes} bytes, "
                     f"native {native_bytes} bytes")
    server.stop()


# ---- 5. long commands --------------------------------------------------------


def fill_zset(conn, key, count, score, member_prefix, first=0):
    """Members member_prefix .. %012d of i scored `score` (a Lua expression
    of i), for i = first .. first + count - 1, 1000 per ZADD, in the server."""
    conn.check("EVAL", f"""
      local first, last = tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1
      for s = first, last, 1000 do
        local args = {{}}
        for i = s, math.min(s + 999, last) do
          args[#args + 1] = {score}
          args[#args + 1] = string.format(ARGV[3], i)
        end
        redis.call('ZADD', KEYS[1], unpack(args))
      end""", 1, key, first, count, member_prefix + "%012d")


def slowlog_us(conn):
    return conn.check("SLOWLOG", "GET", 1)[0][2]


def hold_ms(conn, setup, *command):
    """The median time `command` ran (SLOWLOG) over 3 runs, each on fresh
    data (`setup`, Lua)."""
    times = []
    for _ in range(3):
        conn.check("EVAL", setup, 0)
        conn.check("SLOWLOG", "RESET")
        conn.check(*command)
        times.append(slowlog_us(conn))
    return median(times) / 1000


def cpu_us(pid):
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[0]) / 1000


# The step count docs/commands.md recommends: steps that stay under ~10 ms.
MERGE_STEP_COUNT = 500


def step_merge(server, dest, staging, *sources):
    """RANK.MERGE ... STEP from cursor 0 to its end: (longest step ms, sum of
    steps ms, steps, wall ms, the longest step's CPU ms). Step times are
    SLOWLOG's (wall time: on a loaded machine they include the time the
    server waited for a core); a step's CPU time is the server thread's run
    time around it; the wall time includes the client's round trips."""
    conn, cursor, steps, longest, total, cpu_longest = server.conn, "0", 0, 0, 0, 0
    started = time.time()
    while True:
        before = cpu_us(server.pid)
        reply = conn.check("RANK.MERGE", dest, len(sources), *sources, "STEP", MERGE_STEP_COUNT, staging, cursor)
        cpu_longest = max(cpu_longest, cpu_us(server.pid) - before)
        us = slowlog_us(conn)
        steps, total, longest = steps + 1, total + us, max(longest, us)
        cursor = reply[0].decode()
        if cursor == "0":
            break
        if not cursor.startswith("m2:"):
            fail(f"long: unexpected step reply {reply!r}")
    return longest / 1000, total / 1000, steps, (time.time() - started) * 1000, cpu_longest / 1000


def same_digest(conn, a, b):
    return conn.check("DEBUG", "DIGEST-VALUE", a) == conn.check("DEBUG", "DIGEST-VALUE", b)


def merge_holds(server, n):
    """One-shot RANK.MERGE, RANK.MERGE in steps and ZUNIONSTORE of two
    boards that share about half their members into n; how long each holds
    the server, and the stepped result checked against the one-shot's."""
    conn = server.conn
    size = (2 * n + 2) // 3
    shared = 2 * size - n
    progress(f"long: merges of two boards of {size} members into {n} (building them)")
    conn.check("FLUSHALL")
    fill_zset(conn, "{m}:a", size, "(i % 1000) + 0.5", "m:")
    fill_zset(conn, "{m}:b", size, "(i % 1000) + 0.25", "m:", size - shared)
    ms = hold_ms(conn, "return redis.call('DEL', '{m}:once')", "RANK.MERGE", "{m}:once", 2, "{m}:a", "{m}:b")
    csv_row("long", f"RANK.MERGE one-shot {n} members out: hold", n, "ms", f"{ms:.1f}", "ms")
    progress(f"measured: RANK.MERGE one-shot into {n} members holds the server {ms:.1f} ms")
    ms = hold_ms(conn, "return redis.call('DEL', '{m}:union')", "ZUNIONSTORE", "{m}:union", 2, "{m}:a", "{m}:b")
    csv_row("long", f"ZUNIONSTORE {n} members out: hold", n, "ms", f"{ms:.1f}", "ms")
    progress(f"measured: ZUNIONSTORE into {n} members holds the server {ms:.1f} ms")
    longest, total, steps, wall, cpu = step_merge(server, "{m}:week", "{m}:staging", "{m}:a", "{m}:b")
    if not same_digest(conn, "{m}:week", "{m}:once"):
        fail("long: the stepped merge differs from the one-shot merge")
    name = f"RANK.MERGE STEP {MERGE_STEP_COUNT} {n} members out"
    csv_row("long", f"{name}: longest step", n, "ms", f"{longest:.1f}", "ms")
    csv_row("long", f"{name}: sum of {steps} steps", n, "ms", f"{total:.1f}", "ms")
    csv_row("long", f"{name}: wall time", n, "ms", f"{wall:.0f}", "ms")
    csv_row("long", f"{name}: longest step CPU", n, "ms", f"{cpu:.1f}", "ms")
    progress(f"measured: {name}: {steps} steps, the longest {longest:.1f} ms ({cpu:.1f} ms CPU), "
             f"{total:.1f} ms in all ({wall:.0f} ms wall time); equal to the one-shot merge")


def run_long():
    server = BenchServer("long", MODULE, "--enable-debug-command", "local")
    conn = server.conn
    conn.check("CONFIG", "SET", "slowlog-log-slower-than", 0)
    for n in (10000, 100000, 1000000):
        merge_holds(server, n)

    progress("long: two boards of 500k members merged in steps")
    conn.check("FLUSHALL")
    fill_zset(conn, "{m}:a", 500000, "(i % 1000) + 0.5", "m:")
    fill_zset(conn, "{m}:b", 500000, "(i % 1000) + 0.25", "m:", 250000)
    conn.check("RANK.MERGE", "{m}:once", 2, "{m}:a", "{m}:b")
    longest, total, steps, wall, cpu = step_merge(server, "{m}:week", "{m}:staging", "{m}:a", "{m}:b")
    if not same_digest(conn, "{m}:week", "{m}:once"):
        fail("long: the stepped merge of two 500k boards differs from the one-shot merge")
    verdict = "yes" if longest <= 10 else "NO"
    csv_row("long", f"two 500k boards in steps: max step in SLOWLOG <= 10 ms: {verdict}", 750000, "ms",
            f"{longest:.1f}", "ms")
    csv_row("long", "two 500k boards in steps: the longest step's CPU", 750000, "ms", f"{cpu:.1f}", "ms")
    csv_row("long", f"two 500k boards in steps: sum of {steps} steps", 750000, "ms", f"{total:.1f}", "ms")
    progress(f"measured: two 500k boards in {steps} steps of {MERGE_STEP_COUNT}: the longest {longest:.1f} ms "
             f"(<= 10 ms: {verdict}; {cpu:.1f} ms CPU), {total:.1f} ms in all; equal to the one-shot merge")

    progress("long: RANK.MERGE of two boards of 10^6 members (building them)")
    conn.check("FLUSHALL")
    fill_zset(conn, "{b}:a", 1000000, "(i % 1000) + 0.5", "m:")
    fill_zset(conn, "{b}:b", 1000000, "(i % 1000) + 0.25", "m:", 500000)
    ms = hold_ms(conn, "return redis.call('DEL', '{b}:week')", "RANK.MERGE", "{b}:week", 2, "{b}:a", "{b}:b")
    csv_row("long", "RANK.MERGE of two 10^6 boards (1.5*10^6 members out)", 1000000, "ms", f"{ms:.1f}", "ms")
    progress(f"measured: RANK.MERGE of two 10^6 boards holds the server {ms:.1f} ms")

    progress("long: FEED.ADD CAP trimming 10^6 items (building a feed of 2*10^6)")
    conn.check("FLUSHALL")
    fill_zset(conn, "feed:template", 2000000, "i", "m:")
    ms = hold_ms(conn, "redis.call('DEL', 'feed'); return redis.call('COPY', 'feed:template', 'feed')",
                 "FEED.ADD", "feed", "CAP", 1000000, 3000000, "newest")
    csv_row("long", "FEED.ADD CAP trimming 10^6 items", 1000000, "ms", f"{ms:.1f}", "ms")
    progress(f"measured: FEED.ADD CAP trimming 10^6 items holds the server {ms:.1f} ms")

    progress("long: DELAY.POLL of 10^4 due tasks")
    conn.check("FLUSHALL")
    fill_zset(conn, "queue:template", 10000, "i", "t:")
    fill_zset(conn, "queue:template", 1000000, "4000000000000 + i", "later:")
    copy = "redis.call('DEL', 'q', 'held'); return redis.call('COPY', 'queue:template', 'q')"
    ms = hold_ms(conn, copy, "DELAY.POLL", "q", "COUNT", 10000)
    csv_row("long", "DELAY.POLL COUNT 10000 (10^4 due of 1.01*10^6)", 10000, "ms", f"{ms:.1f}", "ms")
    progress(f"measured: DELAY.POLL of 10^4 due tasks holds the server {ms:.1f} ms")
    ms = hold_ms(conn, copy, "DELAY.POLL", "q", "COUNT", 10000, "LEASE", "held", 600000)
    csv_row("long", "DELAY.POLL COUNT 10000 LEASE (10^4 due of 1.01*10^6)", 10000, "ms", f"{ms:.1f}", "ms")
    progress(f"measured: DELAY.POLL LEASE of 10^4 due tasks holds the server {ms:.1f} ms")
    server.stop()


# ---- 6. VOTE.CAST against client round trips ------------------------------------


def run_vote():
    server = BenchServer("vote", MODULE)
    progress("vote: VOTE.CAST vs Lua vs round trips (bench/vote_load.rs)")
    out = subprocess.run(client_argv(BINARIES["vote_load"], "--port", server.port, "--requests", S.requests,
                                     "--connections", S.clients, "--pipeline", S.pipeline, "--rounds", S.rounds),
                         capture_output=True, text=True)
    if out.returncode:
        fail(f"vote: vote_load failed: {out.stderr.strip()}")
    (S.out / "vote.txt").write_text(out.stdout)
    print(out.stdout, file=sys.stderr)
    server.stop()


# ---- 7. small boards ---------------------------------------------------------

# Boards of 10 to 128 members, where the server's own layout is a listpack.
# Each board case against: its natives on an INTEGER board of the same size
# (what a team has today: ZINCRBY without first-come ties, whose listpack
# keeps integers); the same call on the same board in zkit 0.2's layout
# (`zkit.small-set-max 0`: a listpack of score text); the Lua a user would
# write, on the board as a server gives it (a listpack). zkit's board is
# measured busy (its first writes move it to the skiplist layout:
# zkit.hot-set-writes), then again after DEBUG RELOAD (which loads it as a
# listpack, moved again by the run's first writes). Its memory is measured
# after one write (still the listpack) and busy (the skiplist).
SMALL_VARIANTS = {"zkit": "z:", "zkit-0.2-layout": "p:", "native-integer": "n:", "lua": "l:"}


def small_cases(size):
    return [c for c in every_case(size) if c.name.startswith("RANK.") and c.native and sweeps(c)
            and "IDMP" not in c.name]


def small_memory(conn, key, size, variant):
    csv_row("small-memory", "board", size, variant, f"{conn.check('MEMORY', 'USAGE', key, 'SAMPLES', 0) / size:.1f}",
            "B/member")


def small_rate(server, case, variant, first, calls, size, shas):
    """The rate of a board case's variant: calls first .. first + calls - 1."""
    prefix = f"{SMALL_VARIANTS[variant]}{case.name}:"
    if variant == "native-integer":
        call = case.native
    elif variant == "lua":
        def call(i, p):
            return [case.script_call(shas[case.name], i, p)]
    else:
        def call(i, p):
            return [case.zkit(i, p)]
    return rate(server, [call(i, prefix) for i in range(first, first + calls)],
                f"small-{case.name.replace(' ', '_')}-{size}-{variant}")


def run_small():
    server = BenchServer("small", MODULE, "--enable-debug-command", "yes")
    conn = server.conn
    # The config's name since 0.5.0; the modules before it (which this
    # bench also measures) know it as zkit.small-board-max.
    small_max = "zkit.small-set-max" if conn.check("CONFIG", "GET", "zkit.small-set-max") else "zkit.small-board-max"
    calls = S.requests
    for size in S.small_sizes:
        conn.check("FLUSHALL")
        conn.check("CONFIG", "SET", small_max, 128)
        cases = small_cases(size)
        shas = {c.name: load_script(server, c) for c in cases}
        rounds = range(S.rounds)
        # Each case's boards for each variant, under its own prefix.
        for case in cases:
            for variant, prefix in SMALL_VARIANTS.items():
                data = case.native_data if variant == "native-integer" else case.data
                data(conn, f"{prefix}{case.name}:", (2 * S.rounds + 1) * calls)
        # The gift board's memory after one write (the listpack still), then
        # busy: 20 writes in one go move it to the skiplist layout.
        gift = f"z:{cases[0].name}:b" if cases and cases[0].name == "RANK.GIFT" else None
        if gift:
            conn.check("RANK.GIFT", gift, "m:0", 1)
            small_memory(conn, gift, size, "z")
        for case in cases:
            boards = conn.check("KEYS", f"z:{case.name}:*")
            conn.pipeline([["RANK.GIFT", board, "m:0", 1] for board in boards for _ in range(20)])
        if gift:
            small_memory(conn, gift, size, "h")
            small_memory(conn, f"p:{cases[0].name}:b", size, "p")
            small_memory(conn, f"n:{cases[0].name}:b", size, "n")
            layouts = " ".join(conn.check("OBJECT", "ENCODING", f"{p}{cases[0].name}:b").decode()
                               for p in SMALL_VARIANTS.values())
            progress(f"small: {size} members; layouts of zkit (busy), 0.2, integer natives, Lua: {layouts}")

        for case in cases:
            got = {v: [] for v in SMALL_VARIANTS if v != "lua" or case.script}
            for r in rounds:
                progress(f"small: {case.name} at {size}: round {r + 1} of {S.rounds}")
                for variant in got:
                    conn.check("CONFIG", "SET", small_max, 0 if variant == "zkit-0.2-layout" else 128)
                    got[variant].append(small_rate(server, case, variant, r * calls, calls, size, shas))
            conn.check("CONFIG", "SET", small_max, 128)
            values = {v: median(g) for v, g in got.items()}
            for variant, value in values.items():
                csv_row("small", case.name, size, variant, f"{value:.0f}", S.unit)
            z = values["zkit"]
            lua = f"{z / values['lua']:.2f}x" if "lua" in values else "-"
            progress(f"measured: {case.name:<26} {size:4}  zkit {z:8.0f}  0.2 layout "
                     f"{values['zkit-0.2-layout'] / z:.2f}x  vs integer native {z / values['native-integer']:.2f}x"
                     f"  vs Lua {lua}")
        # After DEBUG RELOAD every board is a listpack again until zkit's
        # loaded hook moves it (the integer board stays one).
        conn.check("DEBUG", "RELOAD")
        if gift:
            progress(f"small: {size} members after DEBUG RELOAD: zkit's board is a "
                     f"{conn.check('OBJECT', 'ENCODING', gift).decode()}")
        for case in cases:
            # Native again in the same rounds: the ratio stays interleaved.
            got = {"zkit": [], "native-integer": []}
            for r in rounds:
                for variant in got:
                    got[variant].append(small_rate(server, case, variant, (S.rounds + r) * calls, calls, size, shas))
            z, n = median(got["zkit"]), median(got["native-integer"])
            csv_row("small", case.name, size, "zkit-after-reload", f"{z:.0f}", S.unit)
            csv_row("small", case.name, size, "native-integer-after-reload", f"{n:.0f}", S.unit)
            progress(f"measured: {case.name} at {size} after DEBUG RELOAD: zkit {z:.0f}, vs integer native "
                     f"{z / n:.2f}x")
    server.stop()


# ---- the run ---------------------------------------------------------------


SECTIONS = {"sweep": run_sweep, "tax": run_tax, "latency": run_latency, "memory": run_memory,
            "long": run_long, "vote": run_vote, "small": run_small}
# What a run under callgrind cannot measure: wall times.
WALL_CLOCK = {"latency", "long", "vote"}


def module_code_changed():
    """Whether the tree has uncommitted changes to the module's code (the
    paths scripts/lib.sh's module_code names)."""
    paths = subprocess.run(["bash", "-c", "source scripts/lib.sh && printf '%s\\n' \"${module_code[@]}\""],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return subprocess.run(["git", "diff", "--quiet", "HEAD", "--", *paths], cwd=ROOT).returncode != 0


def report():
    # The code measured: docs/benchmarks.md names it, and
    # scripts/check/bench-page-check.sh holds the page to it.
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    if module_code_changed():
        commit += "+uncommitted changes"
    version = subprocess.run([S.server, "--version"], capture_output=True, text=True).stdout
    run = {"server": re.search(r"v=(\S+)", version).group(1), "commit": commit, "measure": S.measure,
           "unit": S.unit, "sizes": " ".join(map(str, S.sizes)), "requests": S.requests, "rounds": S.rounds,
           "clients": S.clients, "pipeline": S.pipeline, "latency_rate": S.latency_rate,
           "latency_seconds": S.latency_seconds, "latency_size": LATENCY_SIZE, "quick": S.quick,
           "date": time.strftime("%Y-%m-%d", time.gmtime()), "minutes": int((time.time() - STARTED + 59) // 60)}
    (S.out / "run.txt").write_text("".join(f"{k}={v}\n" for k, v in run.items()))
    # The plot needs matplotlib: from the system, or installed once into
    # .bench/venv (ignored by git).
    python = sys.executable
    if subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode:
        python = str(S.out / "venv/bin/python")
        if not Path(python).exists() or subprocess.run([python, "-c", "import matplotlib"],
                                                       capture_output=True).returncode:
            progress(f"report: installing matplotlib into {S.out}/venv (once)")
            subprocess.run([sys.executable, "-m", "venv", str(S.out / "venv")], check=True)
            subprocess.run([python, "-m", "pip", "install", "-q", "matplotlib"], check=True)
    progress(f"report: writing {S.out}/table.md and {S.out}/sweep.png")
    if subprocess.run([python, str(ROOT / "bench/report.py"), str(S.out)]).returncode:
        fail("report: bench/report.py failed")
    progress(f"done in {run['minutes']} min: {S.out}/results.csv, table.md, sweep.png; "
             "make bench-docs puts them in docs/benchmarks.md")


MODULE = None
BINARIES = {}


def main():
    global MODULE, BINARIES
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_file():
        fail("usage: bench/bench.py path/to/libzkit.so (make bench builds it)")
    unknown = [s for s in S.sections if s not in SECTIONS]
    if unknown:
        fail(f"unknown sections {unknown} ({' '.join(SECTIONS)})")
    S.out.mkdir(parents=True, exist_ok=True)
    for old in S.out.glob("tmp.*"):
        shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink()
    # Servers load a copy: a build during the run cannot change (or crash) them.
    MODULE = str(S.out / "libzkit.so")
    shutil.copy(sys.argv[1], MODULE)
    (S.out / "results.csv").write_text("section,case,size,variant,value,unit\n")
    progress(f"zkit bench: {S.server}, sizes {S.sizes}; sections {' '.join(S.sections)}; {S.requests} calls x "
             f"{S.rounds} rounds, {S.clients} clients, pipeline {S.pipeline}, in {S.unit}")
    progress("building the load generators (cargo bench --no-run)")
    BINARIES = bench_binaries()
    for section in S.sections:
        if S.measure == "instructions" and section in WALL_CLOCK:
            continue
        SECTIONS[section]()
    report()


if __name__ == "__main__":
    try:
        main()
    except ServerError as error:
        fail(f"a setup command failed: {error}")
