#!/usr/bin/env python3
"""Boards against leaderboard libraries: zkit's RANK commands beside PyPI
`leaderboard` (agoragames) and npm `redis-rank`, server instructions per
operation and operations per second, at two board sizes, in one run.

Each scenario runs on two servers of the same redis-server: on a plain one
for the operations per second (the median of 5 rounds, the contenders
taking turns in each; a ratio is the median of each round's peer over that
round's zkit, so a busy machine slows them alike), and on one under
valgrind's callgrind for the server's instructions per operation (every
instruction of the server during the scenario, over the operations, as
`bench/queues.py` counts them). Every contender calls one operation at a time and waits for
its answer, as a request handler does. zkit's client is this script (one
connection); `leaderboard` runs in a venv of its own (it needs redis-py 2.x:
`redis<3`, installed into .bench/boards/venv-leaderboard on the first run)
as a subprocess; `redis-rank` runs in Node with its ioredis peer (installed
with npm into .bench/boards/redis-rank on the first run).

The boards are built before counting starts, the same for every contender:
members m0 ... m(n-1), member i at the total i % 1000, so totals tie (one
member per total at 1,000 members, a hundred at 100,000); zkit's with
RANK.SET (member i reaching its total at its own millisecond) and its
totals index for DENSE (each distinct total once, as the member "<total>"),
the libraries' with the ZADD their own writes send (and `leaderboard`'s
TieRankingLeaderboard's set of distinct totals, members str(float(total))).
Each scenario's operations are one list, the same for every contender:

- gift: add 1 to 10 to a member's total and read its rank (zkit RANK.GIFT,
  which replies [total, rank]; leaderboard change_score_for + rank_for;
  redis-rank updateOne on an `aggregate` board + rank). Runs after the
  reads: it moves the totals.
- dense-gift: gift's operations with dense ranks (zkit RANK.GIFT ... DENSE
  totals-key, which keeps the index; leaderboard's TieRankingLeaderboard
  change_score_for, which keeps its set of distinct totals, + rank_for);
  redis-rank has none. Runs last, on boards built again when gift ran
  before it (gift moves the totals and keeps neither set of totals).
- shared: a member's competition rank, ties sharing (1, 1, 3) (zkit RANK.GET
  ... SHARED; leaderboard's CompetitionRankingLeaderboard rank_for, the
  same answer); redis-rank has none.
- dense: shared's operations with dense ranks, ties sharing and the next
  total one lower (1, 1, 2) (zkit RANK.GET ... DENSE totals-key; leaderboard's
  TieRankingLeaderboard rank_for, the same answer); redis-rank has none.
- percentile: zkit RANK.PERCENTILE against leaderboard percentile_for.
- quantile: zkit RANK.QUANTILE against leaderboard score_for_percentile.
- top: the first 10 (zkit RANK.TOP key 10; leaderboard leaders(1,
  page_size=10); redis-rank top(10)).
- range: the members with a total in a range of 10 totals, best first
  (zkit RANK.RANGE key max min LIMIT 0 10, skipped when the module has no
  RANK.RANGE; leaderboard members_from_score_range and redis-rank
  listByScore, which have no limit and return the whole range).
- data-top: the first 10 with each member's data, a profile of about 40
  bytes every member has (zkit RANK.TOP key 10 DATA data-key; leaderboard
  leaders(1, page_size=10, with_member_data=True), which reads its own
  member data hash); redis-rank has none.
- data-gift: gift's operations, each also setting the member's data, then
  the rank (zkit RANK.GIFT ... DATA data-key data; leaderboard
  change_score_for(member, amount, data) + rank_for); redis-rank has none.
  Runs with the gifts.
- best-lap: a board where the lowest total wins (lap times): a member's
  new time kept when it beats the one on the board, then its rank (zkit
  RANK.SET ... LT ASC on its ascending board, which replies [total, rank];
  leaderboard with order 'asc', rank_member_if with a lower-time condition
  + rank_for; redis-rank low-to-high with the 'best' update policy,
  updateOne + rank). Runs with the gifts: it moves the totals.

dense and dense-gift are skipped when the module has no DENSE, data-top
and data-gift when it has no DATA, best-lap when it has no ASC.

usage: bench/boards.py [--module target/release/libzkit.so] [--server redis-server]
                       [--sizes 1000,100000]
                       [--scenarios percentile,quantile,shared,dense,top,range,data-top,gift,dense-gift,data-gift,best-lap]
                       [--ops 5000] [--rounds 5] [--counted-ops 1000] [--no-peers] [--out .bench/boards]
"""

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The plain server and the callgrind counting are the queue benchmark's,
# and through it the perf guard's server under callgrind and dump reader.
_spec = importlib.util.spec_from_file_location("queues", ROOT / "bench/queues.py")
queues = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(queues)
guard = queues.guard
sys.path.insert(0, str(ROOT / "scripts"))
from cases import spread  # noqa: E402  (bench/cases.py)
from harness.resp import ServerError  # noqa: E402  (scripts/harness)

ZKIT_KEY, LB_KEY, RR_KEY = "zk", "lb", "rr"
# zkit's totals index for DENSE (leaderboard's TieRankingLeaderboard keeps
# its own, f"{LB_KEY}:ties").
ZKIT_TOTALS = "zk:totals"
# zkit's member data hash for DATA (leaderboard keeps its own,
# f"{LB_KEY}:member_data").
ZKIT_DATA = "zk:profiles"
# zkit's ascending board for best-lap: the same totals, written with ASC (the
# libraries read their plain boards lowest first).
ZKIT_ASC_KEY = "zk:asc"
TOTALS = 1000  # member i's total is i % TOTALS: ties
PAGE = 10
# Member i reaches its total at this unix ms + i (inside zkit's default
# tie-break window): first-come order is member order.
REACHED_AT = 1735689600000
# The gifts run last: they move the totals the others read (and the boards
# are built again between them: see run_phase).
SCENARIOS = ["percentile", "quantile", "shared", "dense", "top", "range", "data-top", "gift", "dense-gift", "data-gift",
             "best-lap"]
MOVES_TOTALS = {"gift", "dense-gift", "data-gift", "best-lap"}
NEEDS_DENSE = {"dense", "dense-gift"}
NEEDS_DATA = {"data-top", "data-gift"}
NEEDS_ASC = {"best-lap"}
TITLES = {
    "gift": "gift + rank",
    "dense-gift": "gift + dense rank",
    "shared": "competition rank",
    "dense": "dense rank",
    "percentile": "percentile of a member",
    "quantile": "total at a percentile",
    "top": "top page (10)",
    "range": "score-range page (10)",
    "data-top": "top page (10) with member data",
    "data-gift": "gift + member data + rank",
    "best-lap": "best time (lowest wins) + rank",
}
# Per scenario: (contender, driver variant); zkit is this script.
CONTENDERS = {
    "gift": [("zkit", None), ("leaderboard", "gift"), ("redis-rank", "gift")],
    "dense-gift": [("zkit", None), ("leaderboard TieRanking", "dense-gift"), ("redis-rank", None)],
    "shared": [("zkit", None), ("leaderboard CompetitionRanking", "shared-competition"), ("redis-rank", None)],
    "dense": [("zkit", None), ("leaderboard TieRanking", "dense"), ("redis-rank", None)],
    "percentile": [("zkit", None), ("leaderboard", "percentile"), ("redis-rank", None)],
    "quantile": [("zkit", None), ("leaderboard", "quantile"), ("redis-rank", None)],
    "top": [("zkit", None), ("leaderboard", "top"), ("redis-rank", "top")],
    "range": [("zkit", None), ("leaderboard", "range"), ("redis-rank", "range")],
    "data-top": [("zkit", None), ("leaderboard", "data-top"), ("redis-rank", None)],
    "data-gift": [("zkit", None), ("leaderboard", "data-gift"), ("redis-rank", None)],
    "best-lap": [("zkit", None), ("leaderboard asc", "best-lap"), ("redis-rank low-to-high", "best-lap")],
}
NOT_IN_PEER = {
    ("shared", "redis-rank"): "redis-rank has no shared (competition) rank",
    ("dense", "redis-rank"): "redis-rank has no dense rank",
    ("dense-gift", "redis-rank"): "redis-rank has no dense rank",
    ("percentile", "redis-rank"): "redis-rank has no percentile",
    ("quantile", "redis-rank"): "redis-rank has no score at a percentile",
    ("data-top", "redis-rank"): "redis-rank has no member data",
    ("data-gift", "redis-rank"): "redis-rank has no member data",
}


def member(i):
    return f"m{i}"


def profile(i):
    """Member i's data: a small profile, as a game shows beside a rank."""
    return json.dumps({"name": f"Player {i}", "country": "fr", "level": i % 90})


def operations(scenario, size, count):
    """The scenario's operations, the same list for every contender: the
    arguments of each."""
    if scenario in ("gift", "dense-gift"):
        return [[member(spread(k, size, 1)), 1 + k % 10] for k in range(count)]
    if scenario == "data-gift":
        return [[member(spread(k, size, 1)), 1 + k % 10, profile(k)] for k in range(count)]
    if scenario == "best-lap":
        # A new time anywhere in the board's range: about half beat the
        # member's own.
        return [[member(spread(k, size, 5)), spread(k, TOTALS, 6)] for k in range(count)]
    if scenario in ("shared", "dense", "percentile"):
        return [[member(spread(k, size, 2))] for k in range(count)]
    if scenario == "quantile":
        return [[spread(k, 1001, 3) / 10] for k in range(count)]
    if scenario in ("top", "data-top"):
        return [[] for _ in range(count)]
    # range: totals t to t + 9, best first.
    return [[spread(k, TOTALS - PAGE + 1, 4), spread(k, TOTALS - PAGE + 1, 4) + PAGE - 1] for k in range(count)]


def build(conn, size, asc):
    """The boards of every contender, `size` members each; with `asc`
    (a module that has ASC), zkit's ascending board too."""
    calls = []
    for i in range(size):
        total = i % TOTALS
        calls.append(["RANK.SET", ZKIT_KEY, member(i), total, "AT", REACHED_AT + i])
        if asc:
            calls.append(["RANK.SET", ZKIT_ASC_KEY, member(i), total, "AT", REACHED_AT + i, "ASC"])
        calls.append(["ZADD", LB_KEY, total, member(i)])
        calls.append(["ZADD", RR_KEY, total, member(i)])
        # Every member's data, in zkit's hash and in leaderboard's.
        calls.append(["HSET", ZKIT_DATA, member(i), profile(i)])
        calls.append(["HSET", f"{LB_KEY}:member_data", member(i), profile(i)])
        if len(calls) >= 3000:
            check(conn.pipeline(calls))
            calls = []
    # zkit's totals index, as RANK.SET ... DENSE writes it, and
    # TieRankingLeaderboard's set of distinct totals, as its rank_member
    # writes it: the totals the boards have, each once.
    for t in range(min(size, TOTALS)):
        calls.append(["ZADD", ZKIT_TOTALS, t, str(t)])
        calls.append(["ZADD", f"{LB_KEY}:ties", t, str(float(t))])
    check(conn.pipeline(calls))


def check(replies):
    for reply in replies:
        if isinstance(reply, ServerError):
            raise reply
    return replies


def has_command(conn, name):
    info = conn.check("COMMAND", "INFO", name)
    return bool(info) and info[0] is not None


def has_option(conn, *option):
    """Whether the module's RANK.GET takes the option (DENSE, DATA, ASC): a
    module without it refuses it (a syntax error); with it, an absent board
    is nil."""
    try:
        conn.check("RANK.GET", "zk:probe", "m", *option)
    except ServerError:
        return False
    return True


# ---- zkit: this script, one call at a time ------------------------------------------


def zkit_call(scenario, op):
    if scenario == "gift":
        return ["RANK.GIFT", ZKIT_KEY, *op]
    if scenario == "dense-gift":
        return ["RANK.GIFT", ZKIT_KEY, *op, "DENSE", ZKIT_TOTALS]
    if scenario == "shared":
        return ["RANK.GET", ZKIT_KEY, op[0], "SHARED"]
    if scenario == "dense":
        return ["RANK.GET", ZKIT_KEY, op[0], "DENSE", ZKIT_TOTALS]
    if scenario == "percentile":
        return ["RANK.PERCENTILE", ZKIT_KEY, op[0]]
    if scenario == "quantile":
        return ["RANK.QUANTILE", ZKIT_KEY, op[0]]
    if scenario == "top":
        return ["RANK.TOP", ZKIT_KEY, PAGE]
    if scenario == "data-top":
        return ["RANK.TOP", ZKIT_KEY, PAGE, "DATA", ZKIT_DATA]
    if scenario == "data-gift":
        return ["RANK.GIFT", ZKIT_KEY, op[0], op[1], "DATA", ZKIT_DATA, op[2]]
    if scenario == "best-lap":
        return ["RANK.SET", ZKIT_ASC_KEY, op[0], op[1], "LT", "ASC"]
    return ["RANK.RANGE", ZKIT_KEY, op[1], op[0], "LIMIT", 0, PAGE]


def zkit_run(conn, scenario, ops):
    """Runs the operations; returns (done, seconds)."""
    calls = [zkit_call(scenario, op) for op in ops]
    started = time.time()
    for call in calls:
        conn.check(*call)
    return len(calls), time.time() - started


# ---- the peers: a Python driver in leaderboard's venv, a Node driver ----------------

LEADERBOARD_PINS = ["leaderboard==3.*", "redis<3"]
REDIS_RANK_VERSION = "2"
# redis-rank's Redis client, a peer dependency: installed beside it.
IOREDIS_VERSION = "5"

PY_DRIVER = textwrap.dedent('''
    import json, sys, time
    from leaderboard.leaderboard import Leaderboard
    from leaderboard.competition_ranking_leaderboard import CompetitionRankingLeaderboard
    from leaderboard.tie_ranking_leaderboard import TieRankingLeaderboard

    port, variant, ops_file, key, page = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    ops = json.load(open(ops_file))
    kind = {"shared-competition": CompetitionRankingLeaderboard, "dense": TieRankingLeaderboard,
            "dense-gift": TieRankingLeaderboard}.get(variant, Leaderboard)
    # best-lap: the lowest total ranks first.
    order = "asc" if variant == "best-lap" else "desc"
    board = kind(key, host="127.0.0.1", port=port, order=order)
    board.redis_connection.ping()

    def gift(m, amount, data=None):
        board.change_score_for(m, amount, data)
        return board.rank_for(m)

    def best_lap(m, time):
        board.rank_member_if(lambda _, member, current, score, data, options: current is None or score < current,
                             m, time)
        return board.rank_for(m)

    # TieRankingLeaderboard's change_score_for keeps its set of distinct
    # totals; its rank_for is the dense rank.
    run = {
        "gift": gift,
        "dense-gift": gift,
        "shared-competition": board.rank_for,
        "dense": board.rank_for,
        "percentile": board.percentile_for,
        "quantile": board.score_for_percentile,
        "top": lambda: board.leaders(1, page_size=page),
        "data-top": lambda: board.leaders(1, page_size=page, with_member_data=True),
        "data-gift": gift,
        "best-lap": best_lap,
        "range": lambda low, high: board.members_from_score_range(low, high),
    }[variant]
    print("ready", flush=True)
    sys.stdin.readline()
    started = time.time()
    answers = 0
    for op in ops:
        answer = run(*op)
        answers += len(answer) if isinstance(answer, list) else 1
    seconds = time.time() - started
    print(json.dumps({"done": len(ops), "seconds": seconds, "answers": answers}), flush=True)
''')

NODE_DRIVER = textwrap.dedent("""
    import { readFileSync } from 'node:fs';
    import { createInterface } from 'node:readline';
    import { Redis } from 'ioredis';
    import rank from 'redis-rank';
    const [port, variant, opsFile, key, page] = process.argv.slice(2);
    const ops = JSON.parse(readFileSync(opsFile, 'utf8'));
    const client = new Redis({ host: '127.0.0.1', port: Number(port) });
    await client.ping();
    // best-lap: the lowest total ranks first, and a member keeps its best.
    const lap = variant === 'best-lap';
    const board = new rank.Leaderboard(client, key, lap
      ? { sortPolicy: 'low-to-high', updatePolicy: 'best' }
      : { sortPolicy: 'high-to-low', updatePolicy: 'aggregate' });
    const run = {
      gift: async (m, amount) => [await board.updateOne(m, amount), await board.rank(m)],
      'best-lap': async (m, time) => [await board.updateOne(m, time), await board.rank(m)],
      top: async () => board.top(Number(page)),
      range: async (low, high) => board.listByScore(low, high),
    }[variant];
    const lines = createInterface({ input: process.stdin });
    const next = () => new Promise((resolve) => lines.once('line', resolve));
    process.stdout.write('ready\\n');
    await next();
    const started = Date.now();
    let answers = 0;
    for (const op of ops) {
      const answer = await run(...op);
      answers += variant === 'gift' || lap ? 1 : answer.length;
    }
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(JSON.stringify({ done: ops.length, seconds, answers }) + '\\n');
    await client.quit();
    process.exit(0);
""")


def leaderboard_python(out):
    """leaderboard's venv's python, installed on the first run; None and why
    when it cannot be."""
    venv = Path(out) / "venv-leaderboard"
    python = venv / "bin/python"
    probe = [str(python), "-c", "import leaderboard.leaderboard, redis"]
    if not python.exists() or subprocess.run(probe, capture_output=True).returncode:
        try:
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "--quiet", *LEADERBOARD_PINS], check=True)
        except (subprocess.CalledProcessError, OSError) as error:
            return None, f"leaderboard could not be installed ({error})"
    (Path(out) / "leaderboard_driver.py").write_text(PY_DRIVER)
    return python, None


def redis_rank_dir(out):
    """redis-rank's npm directory, installed on the first run; None and why
    when it cannot be."""
    where = Path(out) / "redis-rank"
    if not all((where / "node_modules" / name).exists() for name in ("redis-rank", "ioredis")):
        where.mkdir(parents=True, exist_ok=True)
        (where / "package.json").write_text(json.dumps({"type": "module", "private": True}))
        try:
            subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund",
                            f"redis-rank@{REDIS_RANK_VERSION}", f"ioredis@{IOREDIS_VERSION}"],
                           cwd=where, check=True)
        except (subprocess.CalledProcessError, OSError) as error:
            return None, f"redis-rank could not be installed ({error})"
    (where / "driver.mjs").write_text(NODE_DRIVER)
    return where, None


def installed_version(argv, cwd=None):
    try:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, OSError):
        return "?"


def peer_run(argv, cwd, before=None, after=None):
    """Runs a driver: `before()` once it is connected and ready, `after()`
    once it answered; returns (done, seconds, answers)."""
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if proc.stdout.readline().strip() != "ready":
        proc.kill()
        raise RuntimeError(f"the driver {argv[1]} did not start")
    if before:
        before()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if after:
        after()
    proc.wait(timeout=120)
    if not line:
        raise RuntimeError(f"the driver {argv[1]} answered nothing")
    result = json.loads(line)
    return result["done"], result["seconds"], result["answers"]


# ---- the run -------------------------------------------------------------------------


def run_contender(server, phase, peers, out, scenario, contender, variant, ops, ops_file):
    """One contender's run of the operations: (ops/s or instructions per
    operation, entries per operation or None); None when it has no such
    operation or is not installed."""
    if contender == "zkit":
        if phase == "counted":
            queues.start_counting(server)
        done, seconds = zkit_run(server.conn, scenario, ops)
        if phase == "counted":
            return queues.counted(server) / max(done, 1), None
        return done / seconds, None
    kind = "python" if contender.startswith("leaderboard") else "node"
    if variant is None or peers[kind][0] is None:
        return None
    if kind == "python":
        argv, cwd, key = [str(peers[kind][0]), str(out / "leaderboard_driver.py")], out, LB_KEY
    else:
        argv, cwd, key = ["node", "driver.mjs"], peers[kind][0], RR_KEY
    argv += [str(server.port), variant, str(ops_file), key, str(PAGE)]
    if phase == "counted":
        total = {}
        done, _, got = peer_run(argv, cwd, before=lambda: queues.start_counting(server),
                                after=lambda: total.update(n=queues.counted(server)))
        return total["n"] / max(done, 1), got / max(done, 1)
    done, seconds, got = peer_run(argv, cwd)
    return done / seconds, got / max(done, 1)


def run_phase(phase, args, out, peers, size, scenarios, skipped):
    """Every scenario on one server at one size: {(scenario, contender): value},
    ops/s on the plain server (the median of --rounds rounds, the contenders
    taking turns in each), instructions per operation under callgrind (one
    round: the count does not move with the machine's load)."""
    count, rounds = (args.ops, args.rounds) if phase == "plain" else (args.counted_ops, 1)
    if phase == "plain":
        server = queues.plain_server(args.server, args.module, out)
    else:
        server = guard.CallgrindServer(args.server, args.module, out)
    values, answers, ratios = {}, {}, {}
    try:
        asc = has_option(server.conn, "ASC")
        build(server.conn, size, asc)
        has_range = has_command(server.conn, "RANK.RANGE")
        dense = has_option(server.conn, "DENSE", "zk:probe:totals")
        data = has_option(server.conn, "DATA", "zk:probe:data")
        moved = False
        for scenario in [s for s in SCENARIOS if s in scenarios]:
            if scenario == "range" and not has_range:
                skipped[scenario] = "RANK.RANGE: not in this build"
                continue
            if scenario in NEEDS_DENSE and not dense:
                skipped[scenario] = "DENSE: not in this build"
                continue
            if scenario in NEEDS_DATA and not data:
                skipped[scenario] = "DATA: not in this build"
                continue
            if scenario in NEEDS_ASC and not asc:
                skipped[scenario] = "ASC: not in this build"
                continue
            if scenario in MOVES_TOTALS:
                if moved:
                    # An earlier scenario moved the totals (and gift keeps
                    # no set of totals): every contender starts again from
                    # the same boards.
                    rebuild(server, phase, size, asc)
                moved = True
            ops = operations(scenario, size, count)
            ops_file = out / f"ops.{scenario}.{size}.{phase}.json"
            ops_file.write_text(json.dumps(ops))
            seen = {}
            for _ in range(rounds):
                for contender, variant in CONTENDERS[scenario]:
                    result = run_contender(server, phase, peers, out, scenario, contender, variant, ops, ops_file)
                    if result:
                        seen.setdefault(contender, []).append(result)
            for contender, results in seen.items():
                values[(scenario, contender)] = statistics.median(value for value, _ in results)
                if results[0][1] is not None:
                    answers[(scenario, contender)] = results[0][1]
                # Each round's peer over that round's zkit: the load moves
                # both alike within a round more than across rounds.
                if "zkit" in seen:
                    ratios[(scenario, contender)] = statistics.median(
                        value / zkit for (value, _), (zkit, _) in zip(results, seen["zkit"]))
            ops_file.unlink()
    finally:
        server.stop()
    return values, answers, ratios


def rebuild(server, phase, size, asc):
    """The boards built again from nothing, uncounted (at valgrind's plain
    speed under callgrind: the last count left its instrumentation on)."""
    if phase == "counted":
        server.control("-i", "off")
    server.conn.check("FLUSHALL")
    build(server.conn, size, asc)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", default=str(ROOT / "target/release/libzkit.so"))
    parser.add_argument("--server", default="redis-server")
    parser.add_argument("--sizes", default="1000,100000", help="board sizes, comma-separated")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--ops", type=int, default=5000, help="operations per scenario and round on the plain server")
    parser.add_argument("--rounds", type=int, default=5, help="rounds on the plain server (the median counts)")
    parser.add_argument("--counted-ops", type=int, default=1000, help="operations per scenario under callgrind")
    parser.add_argument("--no-peers", action="store_true", help="zkit only (no pip, no npm)")
    parser.add_argument("--out", default=str(ROOT / ".bench/boards"))
    args = parser.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    scenarios = args.scenarios.split(",")
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        sys.exit(f"boards: no scenario {', '.join(unknown)} (there are {', '.join(SCENARIOS)})")
    sizes = [int(s) for s in args.sizes.split(",")]

    not_run = []
    if args.no_peers:
        peers = {"python": (None, "--no-peers"), "node": (None, "--no-peers")}
    else:
        peers = {"python": leaderboard_python(out), "node": redis_rank_dir(out)}
    for kind, (_, why) in peers.items():
        if why:
            not_run.append(f"{'leaderboard' if kind == 'python' else 'redis-rank'} not run: {why}")
    versions = {
        "redis-server": installed_version([args.server, "--version"]).split(" ")[2].removeprefix("v="),
        "leaderboard": installed_version([str(peers["python"][0]), "-c",
                                          "import importlib.metadata as m; "
                                          "print(m.version('leaderboard'), m.version('redis'))"])
        if peers["python"][0] else None,
        "redis-rank": installed_version(["node", "-e", "console.log(require('redis-rank/package.json').version,"
                                         " require('ioredis/package.json').version)"], cwd=peers["node"][0])
        if peers["node"][0] else None,
        "node": installed_version(["node", "--version"]),
    }

    rows, skipped = [], {}
    for size in sizes:
        rates, answers, rate_ratios = run_phase("plain", args, out, peers, size, scenarios, skipped)
        instructions, _, _ = run_phase("counted", args, out, peers, size, scenarios, skipped)
        for (scenario, contender), rate in rates.items():
            rows.append({"scenario": scenario, "size": size, "contender": contender, "ops_per_s": rate,
                         "instructions_per_op": instructions.get((scenario, contender)),
                         "entries_per_op": answers.get((scenario, contender)),
                         "ops_per_s_peer_over_zkit": rate_ratios.get((scenario, contender))})

    def zkit_of(row, column):
        for other in rows:
            if (other["scenario"], other["size"], other["contender"]) == (row["scenario"], row["size"], "zkit"):
                return other[column]
        return None

    for row in rows:
        zi = zkit_of(row, "instructions_per_op")
        row["instructions_peer_over_zkit"] = row["instructions_per_op"] / zi if zi and row["instructions_per_op"] else None

    with open(out / "results.tsv", "w") as tsv:
        columns = ["scenario", "size", "contender", "instructions_per_op", "ops_per_s",
                   "instructions_peer_over_zkit", "ops_per_s_peer_over_zkit", "entries_per_op"]
        tsv.write("\t".join(columns) + "\n")
        for row in rows:
            tsv.write("\t".join("" if row[c] is None else str(row[c]) for c in columns) + "\n")
    (out / "results.json").write_text(json.dumps(
        {"versions": versions, "sizes": sizes, "ops": args.ops, "rounds": args.rounds, "counted_ops": args.counted_ops,
         "rows": rows, "skipped": skipped, "not_run": not_run,
         "not_in_peer": [{"scenario": s, "contender": c, "why": w} for (s, c), w in NOT_IN_PEER.items()]},
        indent=2) + "\n")

    print(f"redis-server {versions['redis-server']}; leaderboard, redis-py: {versions['leaderboard'] or 'not run'}; "
          f"redis-rank, ioredis: {versions['redis-rank'] or 'not run'}; node {versions['node']}")
    for line in not_run:
        print(line)
    for scenario in [s for s in SCENARIOS if s in scenarios]:
        print()
        print(f"{scenario}: {TITLES[scenario]}")
        if scenario in skipped:
            print(skipped[scenario])
            continue
        print("| members | contender | server instructions/op | ops/s | instructions peer/zkit | ops/s peer/zkit |")
        print("|---|---|---|---|---|---|")
        for row in [r for r in rows if r["scenario"] == scenario]:
            print(f"| {row['size']:,} | {row['contender']} | {cell(row['instructions_per_op'])} | "
                  f"{cell(row['ops_per_s'])} | {ratio(row['instructions_peer_over_zkit'], row)} | "
                  f"{ratio(row['ops_per_s_peer_over_zkit'], row)} |")
        for (s, contender), why in NOT_IN_PEER.items():
            if s == scenario and peers["node" if contender == "redis-rank" else "python"][0]:
                print(f"{contender}: not run, {why}")
        if scenario == "range":
            for row in [r for r in rows if r["scenario"] == scenario and r["entries_per_op"]]:
                print(f"{row['contender']} at {row['size']:,}: {row['entries_per_op']:,.0f} entries per call")


def cell(value):
    return "-" if value is None else format(value, ",.0f")


def ratio(value, row):
    if row["contender"] == "zkit":
        return ""
    return "-" if value is None else f"{value:.2f}x"


if __name__ == "__main__":
    main()
