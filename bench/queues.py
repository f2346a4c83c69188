#!/usr/bin/env python3
"""Job queues against BullMQ: jobs with payloads, repeating jobs, priorities
and groups, jobs per second and server instructions per job, in one run.

Each scenario runs twice per queue: on a plain redis-server for the jobs per
second (one worker process, many jobs in flight), and on a redis-server under
valgrind's callgrind for the server's instructions per job (every instruction
of the server during the scenario, over the jobs done, as `bench/guard.py`'s
"request" count). zkit's worker is this script (one connection, pipelined
claims and acks); BullMQ's is a Node process with `bullmq`'s Worker (installed
with npm into .bench/bullmq on the first run).

- jobs: 3,000 jobs with a 100-byte payload each, added in batches of 100 and
  processed (zkit DELAY.ADD ... JOBS, claims WITHDATA, acks that drop the
  payload; BullMQ addBulk with `data`, removeOnComplete): the adding counts
  too, and the memory per waiting job (used_memory once all are queued, over
  the jobs) is measured on the way.
- repeats: 100 schedules every 50 ms for 2 s (zkit DELAY.SCHEDULE ... EVERY;
  BullMQ upsertJobScheduler with `every`); each occurrence claimed and acked.
- priorities: 3,000 jobs in three priorities, drained highest first (zkit
  DELAY.POLL ... LANES; BullMQ `priority`).
- groups: 3,000 jobs of 10 tenants, at most 5 of a tenant in flight (zkit
  DELAY.GROUP ... CAP): BullMQ's groups are in its paid tier (BullMQ Pro), so
  only zkit runs it.

usage: bench/queues.py [--module target/release/libzkit.so] [--server redis-server]
                       [--scenarios jobs,repeats,priorities,groups] [--no-bullmq]
                       [--out .bench/queues]
"""

import argparse
import importlib.util
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The server under callgrind and its dump reader are the perf guard's; the
# plain server is the tooling's (scripts/harness).
_spec = importlib.util.spec_from_file_location("guard", ROOT / "bench/guard.py")
guard = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(guard)
Server = guard.Server


def plain_server(binary, module, workdir):
    """A server with the module, for the jobs per second."""
    return Server(binary, ["--loadmodule", str(module)], "queues", workdir=workdir)

QUEUE, INFLIGHT, DATA = "{q}", "{q}:inflight", "{q}:data"
LANES = ["{q}:high", "{q}", "{q}:low"]
JOBS = 3000
PAYLOAD = "x" * 100
BATCH = 100
SCHEDULES, EVERY_MS, REPEAT_S = 100, 50, 2.0
TENANTS, CAP = 10, 5


def start_counting(server):
    """Instruments the callgrind server (it starts with instrumentation
    off, so data is built at valgrind's plain speed) and zeroes its counts."""
    server.control("-i", "on")
    server.control("-z")


def counted(server):
    """Every instruction of the callgrind server since `start_counting`."""
    server.control("-d")
    server.dumps += 1
    dump = server.callgrind / f"callgrind.out.{server.dumps}"
    deadline = time.time() + 60
    while not dump.exists() or "totals:" not in dump.read_text()[-4096:]:
        if time.time() > deadline:
            sys.exit(f"queues: callgrind wrote no {dump}")
        time.sleep(0.05)
    total, _command = guard.read_dump(dump)
    dump.unlink()
    return total


# ---- zkit's worker: pipelined claims and acks --------------------------------------


def tasks_of(reply):
    """[(task, token)] of a poll's reply (WITHTOKENS)."""
    return [(t[0], t[2]) for t in reply or []]


def drain(conn, poll, total, deadline_s=120):
    """Claims with `poll` and acks with the tokens until `total` jobs are done;
    returns the jobs done."""
    done, deadline = 0, time.time() + deadline_s
    while done < total and time.time() < deadline:
        claimed = tasks_of(conn.check(*poll))
        if claimed:
            done += ack_all(conn, claimed)
    return done


def ack_all(conn, claimed):
    """Acks the deliveries `claimed` names; returns how many were done."""
    ack = ["DELAY.ACK", INFLIGHT, "DATA", DATA, "LEASES"]
    for task, token in claimed:
        ack += [task, token]
    return conn.check(*ack)


def used_memory(conn):
    """The server's used_memory (INFO memory)."""
    info = conn.check("INFO", "memory")
    info = info.decode() if isinstance(info, bytes) else info
    return int(next(line.split(":")[1] for line in info.splitlines() if line.startswith("used_memory:")))


def zkit_jobs(conn, memory):
    """Adds JOBS jobs with payloads, notes the memory per waiting job into
    `memory`, then drains them."""
    poll = ["DELAY.POLL", QUEUE, "COUNT", 50, "LEASE", INFLIGHT, 60000, "DATA", DATA, "WITHDATA"]

    def run():
        empty = used_memory(conn)
        for at in range(0, JOBS, BATCH):
            jobs = []
            for i in range(at, at + BATCH):
                jobs += [0, f"job:{i}", PAYLOAD]
            conn.check("DELAY.ADD", QUEUE, "DATA", DATA, "JOBS", *jobs)
        memory["zkit"] = (used_memory(conn) - empty) / JOBS
        return drain(conn, poll, JOBS)

    return run


def zkit_priorities(conn):
    for lane, name in enumerate(LANES):
        calls = [["ZADD", name, 1, f"p{lane}:{i}"] for i in range(JOBS // len(LANES))]
        conn.pipeline(calls)
    poll = ["DELAY.POLL", LANES[0], "COUNT", 50, "LEASE", INFLIGHT, 60000, "DATA", DATA, "WITHTOKENS",
            "LANES", *LANES[1:]]
    return lambda: drain(conn, poll, JOBS)


def zkit_groups(conn):
    for tenant in range(TENANTS):
        conn.check("DELAY.GROUP", QUEUE, DATA, f"t{tenant}", "CAP", CAP)
    calls = []
    for tenant in range(TENANTS):
        jobs = []
        for i in range(JOBS // TENANTS):
            jobs += [0, f"t{tenant}:{i}", "x"]
        calls.append(["DELAY.ADD", QUEUE, "DATA", DATA, "GROUP", f"t{tenant}", "JOBS", *jobs])
    conn.pipeline(calls)
    poll = ["DELAY.POLL", QUEUE, "COUNT", 50, "LEASE", INFLIGHT, 60000, "DATA", DATA, "WITHTOKENS"]
    return lambda: drain(conn, poll, JOBS)


def zkit_repeats(conn):
    now = conn.check("TIME")
    start = int(now[0]) * 1000 + int(now[1]) // 1000 + 200
    conn.pipeline([["DELAY.SCHEDULE", QUEUE, DATA, f"s{n}", "EVERY", EVERY_MS, "START", start]
                   for n in range(SCHEDULES)])
    poll = ["DELAY.POLL", QUEUE, "COUNT", 50, "LEASE", INFLIGHT, 60000, "DATA", DATA, "WITHTOKENS"]

    def run():
        done, until = 0, time.time() + 0.2 + REPEAT_S
        while time.time() < until:
            claimed = tasks_of(conn.check(*poll))
            if claimed:
                done += ack_all(conn, claimed)
            else:
                time.sleep(0.001)
        return done

    return run


ZKIT = {"repeats": zkit_repeats, "priorities": zkit_priorities, "groups": zkit_groups}
MEMORY = {}


def zkit_scenario(scenario, conn):
    """The zkit run of `scenario` on `conn`: a function that does the jobs."""
    if scenario == "jobs":
        return zkit_jobs(conn, MEMORY)
    return ZKIT[scenario](conn)

# ---- BullMQ's worker: a Node process -----------------------------------------------

BULLMQ_VERSION = "6"
# Its Redis client, optional to npm since BullMQ 6.7: installed beside it.
IOREDIS_VERSION = "5"

DRIVER = textwrap.dedent("""
    import { Queue, Worker } from 'bullmq';
    const [port, scenario, jobs, schedules, everyMs, repeatMs] = process.argv.slice(2).map((v, i) => i === 1 ? v : Number(v));
    const connection = { host: '127.0.0.1', port };
    const queue = new Queue('bench', { connection });
    let done = 0;
    if (scenario === 'priorities') {
      for (let at = 0; at < jobs; at += 500) {
        await queue.addBulk(Array.from({ length: 500 }, (_, i) => ({
          name: 'job', data: {}, opts: { priority: 1 + ((at + i) % 3), removeOnComplete: true } })));
      }
    } else if (scenario === 'repeats') {
      for (let n = 0; n < schedules; n++) {
        await queue.upsertJobScheduler(`s${n}`, { every: everyMs }, { name: 'tick', data: {}, opts: { removeOnComplete: true } });
      }
    }
    const line = () => new Promise((resolve) => process.stdin.once('data', resolve));
    process.stdout.write('ready\\n');
    await line();
    const started = Date.now();
    if (scenario === 'jobs') {
      // The adding counts: jobs with a 100-byte payload, in batches of 100.
      for (let at = 0; at < jobs; at += 100) {
        await queue.addBulk(Array.from({ length: 100 }, (_, i) => ({
          name: 'job', data: { payload: 'x'.repeat(100), n: at + i }, opts: { removeOnComplete: true } })));
      }
      process.stdout.write('queued\\n');
      await line();
    }
    const worker = new Worker('bench', async () => { done += 1; }, { connection, concurrency: 50 });
    if (scenario === 'repeats') {
      await new Promise((resolve) => setTimeout(resolve, repeatMs));
    } else {
      while (done < jobs) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const seconds = (Date.now() - started) / 1000;
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    process.stdout.write(JSON.stringify({ done, seconds }) + '\\n');
    process.exit(0);
""")


def bullmq_dir(out):
    where = Path(out) / "bullmq"
    if not all((where / "node_modules" / name).exists() for name in ("bullmq", "ioredis")):
        where.mkdir(parents=True, exist_ok=True)
        (where / "package.json").write_text(json.dumps({"type": "module", "private": True}))
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", f"bullmq@{BULLMQ_VERSION}",
                        f"ioredis@{IOREDIS_VERSION}"],
                       cwd=where, check=True)
    (where / "driver.mjs").write_text(DRIVER)
    return where


def bullmq(where, port, scenario, before=None, after=None, queued=None):
    """Runs BullMQ's driver against `port`: `before()` once it is ready (its
    jobs queued but in the jobs scenario, which queues them in the run),
    `queued()` once the jobs scenario's jobs are, `after()` once its worker
    stopped; returns (jobs done, seconds)."""
    proc = subprocess.Popen(["node", "driver.mjs", str(port), scenario, str(JOBS), str(SCHEDULES),
                             str(EVERY_MS), str(int(REPEAT_S * 1000))], cwd=where,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if proc.stdout.readline().strip() != "ready":
        sys.exit("queues: the BullMQ driver did not start")
    if before:
        before()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    if scenario == "jobs":
        if proc.stdout.readline().strip() != "queued":
            sys.exit("queues: the BullMQ driver queued nothing")
        if queued:
            queued()
        proc.stdin.write("next\n")
        proc.stdin.flush()
    result = json.loads(proc.stdout.readline())
    proc.wait(timeout=60)
    if after:
        after()
    return result["done"], result["seconds"]


# ---- the run -------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", default=str(ROOT / "target/release/libzkit.so"))
    parser.add_argument("--server", default="redis-server")
    parser.add_argument("--scenarios", default="jobs,repeats,priorities,groups")
    parser.add_argument("--no-bullmq", action="store_true", help="zkit only (no npm)")
    parser.add_argument("--out", default=str(ROOT / ".bench/queues"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    where = None if args.no_bullmq else bullmq_dir(out)
    rows = []
    for scenario in args.scenarios.split(","):
        # Jobs per second, on a plain server.
        plain = plain_server(args.server, args.module, out)
        run = zkit_scenario(scenario, plain.conn)
        started = time.time()
        done = run()
        zkit_rate = done / (time.time() - started)
        plain.conn.check("FLUSHALL")
        bull_rate = None
        if where and scenario != "groups":
            empty = used_memory(plain.conn)
            bull_done, seconds = bullmq(where, plain.port, scenario,
                                        queued=lambda server=plain, empty=empty: MEMORY.update(
                                            bullmq=(used_memory(server.conn) - empty) / JOBS))
            bull_rate = bull_done / seconds
        plain.stop()
        # Instructions per job, on a server under callgrind.
        graded = guard.CallgrindServer(args.server, args.module, out)
        run = zkit_scenario(scenario, graded.conn)
        start_counting(graded)
        done = run()
        zkit_instr = counted(graded) / max(done, 1)
        graded.conn.check("FLUSHALL")
        bull_instr = None
        if where and scenario != "groups":
            total = {}
            bull_done, _ = bullmq(where, graded.port, scenario, before=lambda server=graded: start_counting(server),
                                  after=lambda server=graded, total=total: total.update(n=counted(server)))
            bull_instr = total["n"] / max(bull_done, 1)
        graded.stop()
        rows.append((scenario, zkit_rate, bull_rate, zkit_instr, bull_instr))
    print("| scenario | zkit jobs/s | BullMQ jobs/s | zkit server instructions/job | BullMQ server instructions/job |")
    print("|---|---|---|---|---|")
    for scenario, zr, br, zi, bi in rows:
        print(f"| {scenario} | {zr:,.0f} | {bull_cell(br, scenario)} | {zi:,.0f} | {bull_cell(bi, scenario)} |")
    if MEMORY:
        print()
        print(f"memory per waiting job (100-byte payload): zkit {MEMORY['zkit']:,.0f} B"
              + (f", BullMQ {MEMORY['bullmq']:,.0f} B" if "bullmq" in MEMORY else ""))


def bull_cell(value, scenario: str) -> str:
    """A BullMQ figure for the table: none for groups, which its free
    version has not."""
    if value is None:
        return "n/a (BullMQ Pro)" if scenario == "groups" else "-"
    return format(value, ",.0f")


if __name__ == "__main__":
    main()
