#!/usr/bin/env python3
"""The metrics path end to end, on real servers (scripts/observe-check.sh runs it).

    observe-check.py --tools DIR --module libzkit.so

1. A Redis master with zkit and its replica, holding a queue, boards, a
   rate log and an IDMP seen-key named as observe/zkit-exporter.lua's
   defaults expect (the guides' layouts).
2. redis_exporter (Debian's) with --script observe/zkit-exporter.lua on each:
   the master's /metrics carries every per-key metric, and each value is
   what DELAY.STATS, RANK.STATS, RATE.STATS and ZCARD say of the same key
   (the queue's lag among them); the replica's carries the counters only.
3. Prometheus with observe/prometheus-zkit.yml (the scrape job, its
   relabelling and the alert rules), scraping both exporters each second
   while a small workload runs: every metric the dashboard and the alert
   rules name exists after relabelling, every panel's query returns series,
   every rule's query runs, and ZkitQueueLagging is pending for the lagging
   queue.

Nothing here needs more than the Python standard library and redis-cli.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from typing import Callable, Dict, List, Optional, Tuple

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import spare_ports  # noqa: E402  (beside this script)

ROOT = pathlib.Path(__file__).resolve().parent.parent
OBSERVE = ROOT / "observe"
SCRIPT = OBSERVE / "zkit-exporter.lua"
DASHBOARD = OBSERVE / "zkit-dashboard.json"
RULES = OBSERVE / "zkit-alerts.yml"
SCRAPE_CONFIG = OBSERVE / "prometheus-zkit.yml"

#: The lagging queue's oldest task is due this long ago (more than the
#: ZkitQueueLagging threshold of 300 s).
LAG_MS = 600_000

checks = 0


def check(condition: bool, what: str) -> None:
    global checks
    checks += 1
    if not condition:
        raise SystemExit(f"observe-check: FAILED: {what}")


def say(text: str) -> None:
    print(f"observe-check: {text}", flush=True)


handed_out: set = set()


def free_port() -> int:
    port = spare_ports.free_port(handed_out)
    handed_out.add(port)
    return port


def wait(what: str, condition: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"observe-check: FAILED: waited {seconds} s for {what}")
        time.sleep(0.1)


class Processes:
    """Every process started here, stopped at the end by its own pid."""

    def __init__(self, work: pathlib.Path) -> None:
        self.work = work
        self.running: List[Tuple[str, subprocess.Popen]] = []

    def start(self, name: str, argv: List[str], cwd: Optional[pathlib.Path] = None) -> subprocess.Popen:
        log = open(self.work / f"{name}.log", "wb")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=cwd)
        self.running.append((name, process))
        return process

    def stop(self) -> None:
        for _, process in reversed(self.running):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for name, process in self.running:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def log(self, name: str) -> str:
        return (self.work / f"{name}.log").read_text(errors="replace")[-3000:]


class Redis:
    def __init__(self, port: int) -> None:
        self.port = port

    def __call__(self, *words: object) -> str:
        out = subprocess.run(
            ["redis-cli", "-p", str(self.port), *map(str, words)], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()

    def lines(self, *words: object) -> List[str]:
        return self(*words).splitlines()

    def fields(self, *words: object) -> Dict[str, str]:
        """A stats reply by name (redis-cli prints it one line per element)."""
        lines = self.lines(*words)
        return dict(zip(lines[::2], lines[1::2]))

    def now_ms(self) -> int:
        seconds, micros = self.lines("TIME")
        return int(seconds) * 1000 + int(micros) // 1000


def http_get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


def script_values(metrics: str) -> Dict[str, float]:
    """redis_script_values of a /metrics page, by their `key` label (the
    script's name, as Prometheus would name it after relabelling)."""
    values = {}
    for line in metrics.splitlines():
        match = re.match(r'redis_script_values\{key="((?:[^"\\]|\\.)*)"(?:,[^}]*)?\} (\S+)$', line)
        if match:
            values[match.group(1).replace('\\"', '"').replace("\\\\", "\\")] = float(match.group(2))
    return values


def seed(redis: Redis) -> int:
    """The data the script's default lists find; returns the server's now."""
    now = redis.now_ms()
    # {jobs}: one task 10 minutes overdue, one due in an hour; a leased task
    # whose lease ended, one dead task, one counted twice.
    redis("ZADD", "{jobs}", now - LAG_MS, "mail:1", now + 3_600_000, "report:9")
    redis("ZADD", "{jobs}:inflight", now - 5_000, "resize:3", now + 60_000, "mail:0")
    redis("ZADD", "{jobs}:dead", now - 1_000, "poison:1")
    redis("ZADD", "{jobs}:deliveries", 1, "mail:0", 2, "resize:3")
    # {mail}: drained.
    redis("ZADD", "{mail}", now + 3_600_000, "digest")
    for i, amount in enumerate([500, 120, 120, 80, 20, 5]):
        redis("RANK.GIFT", "gifts:room:42", f"viewer:{i}", amount)
    redis("RANK.GIFT", "{room:7}:board", "alice", 10, "IDMP", "{room:7}:seen", "pay-1")
    for _ in range(3):
        redis("RATE.HIT", "user:1000:comment", 60000, 2)
    return now


def scrape_ok(metrics: str) -> bool:
    return re.search(r"^redis_exporter_last_scrape_error(\{[^}]*\})? 0$", metrics, re.M) is not None


def check_exporter_page(redis: Redis, metrics: str, now: int) -> None:
    check(scrape_ok(metrics), "the master's scrape has no error")
    values = script_values(metrics)
    check(values.get("zkit_module_loaded") == 1, "the script found zkit (zkit_module_loaded 1)")
    queue = redis.fields("DELAY.STATS", "{jobs}", "INFLIGHT", "{jobs}:inflight", "DEAD", "{jobs}:dead", "DELIVERIES", "{jobs}:deliveries")
    q = 'queue="{jobs}"'
    lag = values.get(f"zkit_queue_oldest_due_age_seconds{{{q}}}")
    # The lag is measured at the scrape, after `now`.
    check(lag is not None and LAG_MS / 1000 <= lag < LAG_MS / 1000 + 60, f"the per-queue lag of {{jobs}} in /metrics: {lag}")
    for metric, field in [
        ("zkit_queue_tasks", "tasks"),
        ("zkit_queue_due_tasks", "due"),
        ("zkit_queue_inflight_tasks", "inflight"),
        ("zkit_queue_expired_leases", "expired"),
        ("zkit_queue_dead_tasks", "dead"),
        ("zkit_queue_redelivered_tasks", "redelivered"),
    ]:
        check(values.get(f"{metric}{{{q}}}") == float(queue[field]), f"{metric} is DELAY.STATS {field} ({queue[field]})")
    check(values.get(f"zkit_queue_next_due_timestamp_seconds{{{q}}}") == (now + 3_600_000) / 1000, "the next due time of {jobs}")
    check(values.get('zkit_queue_due_tasks{queue="{mail}"}') == 0, "{mail} has nothing due")
    board = redis.fields("RANK.STATS", "gifts:room:42")
    b = 'board="gifts:room:42"'
    check(values.get(f"zkit_board_members{{{b}}}") == float(board["members"]), "the board's members")
    for quantile, field in [("0", "bottom-total"), ("0.5", "p50-total"), ("0.9", "p90-total"), ("0.99", "p99-total"), ("1", "top-total")]:
        got = values.get(f'zkit_board_total{{{b},quantile="{quantile}"}}')
        check(got == float(board[field]), f"the board's {field}: {got} vs {board[field]}")
    check(values.get(f"zkit_board_memory_bytes{{{b}}}", 0) > 0, "the board's memory")
    check(values.get('zkit_board_members{board="{room:7}:board"}') == 1, "the second board pattern")
    log = 'log="user:1000:comment"'
    check(values.get(f"zkit_rate_log_entries{{{log}}}") == 2, "the rate log's entries")
    check(values.get(f'zkit_rate_window_entries{{{log},window_seconds="60"}}') == 2, "the rate log's minute")
    check(values.get('zkit_idmp_seen_ids{seen_key="{room:7}:seen"}') == 1, "the seen-key's ids")
    info = dict(line.split(":", 1) for line in redis.lines("INFO", "zkit") if line.startswith("zkit_"))
    check(values.get("zkit_rate_hits_refused_total") == float(info["zkit_rate_hits_refused"]), "INFO zkit counters as _total")
    check(values.get("zkit_idmp_max_ids") == float(info["zkit_idmp_max_ids"]), "INFO zkit gauges as they are")
    check(values.get("zkit_exporter_keys_capped") == 0 and values.get("zkit_exporter_scan_incomplete") == 0, "within the script's bounds")
    say(f"master's /metrics: {len(values)} zkit values, the lag of {{jobs}} {lag:.3f} s, each per-key value equal to its stats command's")


def check_replica_page(metrics: str) -> None:
    values = script_values(metrics)
    check(values.get("zkit_module_loaded") == 1 and "zkit_delay_tasks_claimed_total" in values, "the replica's counters")
    per_key = [name for name in values if "{" in name]
    check(per_key == [], f"no per-key stats from a replica: {per_key}")
    check(scrape_ok(metrics), "the replica's scrape has no error")
    say(f"replica's /metrics: {len(values)} zkit values, counters only")


def workload(redis: Redis, seconds: float) -> None:
    """Claims, acks, refused hits and repeats for a few seconds, so every
    rate() of the dashboard has something to measure."""
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        i += 1
        redis("ZADD", "{work}", 0, f"t{i}")
        redis("DELAY.POLL", "{work}", "LEASE", "{work}:inflight", 1, "DEADLETTER", "{work}:dead", "{work}:deliveries", 2)
        redis("DELAY.POLL", "{work}:inflight", "LEASE", "{work}:inflight", 60000, "DEADLETTER", "{work}:dead", "{work}:deliveries", 2)
        redis("DELAY.ACK", "{work}:inflight", "DELIVERIES", "{work}:deliveries", "TASKS", f"t{i - 1}")
        redis("RATE.HIT", "user:1000:comment", 60000, 2)
        redis("RANK.GIFT", "{room:7}:board", "alice", 1, "IDMP", "{room:7}:seen", "pay-1")
        time.sleep(0.2)


def metric_names(expr: str) -> List[str]:
    without_strings = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    return sorted(set(re.findall(r"\b((?:zkit|redis)_[a-z0-9_]+)\b", without_strings)))


def grafana_to_promql(expr: str) -> str:
    for variable in ("$instance", "$queue", "$board"):
        expr = expr.replace(variable, ".*")
    return expr.replace("$__rate_interval", "1m")


class Prometheus:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}/api/v1"

    def api(self, path: str, **params: str) -> dict:
        query = urllib.parse.urlencode(params)
        reply = json.loads(http_get(f"{self.base}/{path}?{query}"))
        if reply.get("status") != "success":
            raise SystemExit(f"observe-check: FAILED: Prometheus {path} {params}: {reply}")
        return reply["data"]

    def query(self, expr: str) -> list:
        return self.api("query", query=expr)["result"]


def check_prometheus(prometheus: Prometheus, master_target: str) -> None:
    names = set(prometheus.api("label/__name__/values"))
    dashboard = json.loads(DASHBOARD.read_text())
    panel_exprs = [
        (panel["title"], target["expr"]) for panel in dashboard["panels"] for target in panel.get("targets", [])
    ]
    variables = [v["query"]["query"] for v in dashboard["templating"]["list"] if v["type"] == "query"]
    rules = re.findall(r"^\s+- alert: (\S+)\n\s+expr: (\|\n(?:\s{10}.*\n)+|.*\n)", RULES.read_text(), re.M)
    check(len(panel_exprs) >= 20 and len(rules) >= 8, f"{len(panel_exprs)} panel queries, {len(rules)} rules read")
    named = set()
    for where, expr in [(f"panel {t}", e) for t, e in panel_exprs] + [(f"variable {q}", q) for q in variables] + [
        (f"rule {a}", e) for a, e in rules
    ]:
        used = metric_names(expr)
        check(used != [], f"{where} names no zkit or redis metric")
        missing = [name for name in used if name not in names]
        check(missing == [], f"{where} names metrics Prometheus does not have: {missing}")
        named.update(used)
    # Every panel shows data (the queries run, and find series); every
    # rule's query runs (an alert that does not fire finds none).
    for title, expr in panel_exprs:
        result = prometheus.query(grafana_to_promql(expr))
        check(result != [], f"panel {title!r} shows no data: {expr}")
    for alert, expr in rules:
        prometheus.query(expr.strip("|\n "))  # fails unless it parses and runs
    say(
        f"Prometheus: {len(panel_exprs)} panel queries with data, {len(variables)} variables, "
        f"{len(rules)} rules run; {len(named)} metric names, all scraped"
    )

    def lagging() -> bool:
        alerts = prometheus.api("alerts")["alerts"]
        return any(
            a["labels"].get("alertname") == "ZkitQueueLagging"
            and a["labels"].get("queue") == "{jobs}"
            and a["labels"].get("instance") == master_target
            for a in alerts
        )

    wait("ZkitQueueLagging pending for {jobs}", lagging, 20)
    others = [a["labels"]["alertname"] for a in prometheus.api("alerts")["alerts"] if a["labels"].get("queue") == "{mail}"]
    check(others == [], f"no alert for the drained queue {{mail}}: {others}")
    say("Prometheus: ZkitQueueLagging is pending for {jobs} on the master, nothing for {mail}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", required=True, help="folder holding prometheus, promtool, prometheus-redis-exporter")
    parser.add_argument("--module", required=True)
    parser.add_argument("--server", default="redis-server")
    args = parser.parse_args()
    tools = pathlib.Path(args.tools).resolve()
    started = time.monotonic()
    work = pathlib.Path(tempfile.mkdtemp(prefix="zkit-observe."))
    processes = Processes(work)
    try:
        ports = {name: free_port() for name in ("master", "replica", "exporter", "replica-exporter", "prometheus")}
        for name in ("master", "replica"):
            folder = work / name
            folder.mkdir()
            argv = [args.server, "--bind", "127.0.0.1", "--port", str(ports[name]), "--dir", str(folder),
                    "--save", "", "--appendonly", "no", "--loadmodule", str(pathlib.Path(args.module).resolve())]
            if name == "master":
                argv += ["--repl-diskless-sync-delay", "0"]
            if name == "replica":
                argv += ["--replicaof", "127.0.0.1", str(ports["master"])]
            processes.start(name, argv)
        master, replica = Redis(ports["master"]), Redis(ports["replica"])
        for server in (master, replica):
            wait(f"redis on {server.port}", lambda s=server: _pings(s))
        now = seed(master)
        wait("the replica in sync", lambda: replica("EXISTS", "{jobs}") == "1" and "master_link_status:up" in replica("INFO", "replication"))

        exporter = tools / "prometheus-redis-exporter"
        for name, server in (("exporter", master), ("replica-exporter", replica)):
            processes.start(name, [str(exporter), "-redis.addr", f"redis://127.0.0.1:{server.port}",
                                   "-script", str(SCRIPT), "-web.listen-address", f"127.0.0.1:{ports[name]}"])
        pages = {}
        for name in ("exporter", "replica-exporter"):
            url = f"http://127.0.0.1:{ports[name]}/metrics"
            wait(f"{name} answering", lambda u=url: _answers(u))
            pages[name] = http_get(url)
        check_exporter_page(master, pages["exporter"], now)
        check_replica_page(pages["replica-exporter"])

        # The shipped scrape config, pointed at both exporters, scraping and
        # evaluating every second.
        master_target = f"127.0.0.1:{ports['exporter']}"
        config = SCRAPE_CONFIG.read_text()
        targets = f'["{master_target}", "127.0.0.1:{ports["replica-exporter"]}"]'
        check('["localhost:9121"]' in config, "the shipped config's target")
        config = config.replace('["localhost:9121"]', targets)
        config = re.sub(r"(scrape_interval|evaluation_interval): 15s", r"\1: 1s", config)
        (work / "prometheus.yml").write_text(config)
        shutil.copy(RULES, work / RULES.name)
        processes.start("prometheus", [str(tools / "prometheus"), f"--config.file={work / 'prometheus.yml'}",
                                       f"--storage.tsdb.path={work / 'tsdb'}", f"--web.listen-address=127.0.0.1:{ports['prometheus']}"],
                        cwd=work)
        prometheus = Prometheus(ports["prometheus"])
        wait("Prometheus ready", lambda: _answers(f"http://127.0.0.1:{ports['prometheus']}/-/ready"))
        # Prometheus takes up new targets after a few seconds: the workload
        # starts once both are scraped, and the checks once each was scraped
        # often enough for rate() over a minute.
        def scraped(times: int) -> bool:
            counts = prometheus.query("count_over_time(zkit_module_loaded[1m])")
            return len(counts) == 2 and all(float(c["value"][1]) >= times for c in counts)

        wait("both exporters scraped", lambda: scraped(1))
        workload(master, 4)
        wait("both exporters scraped during the workload", lambda: scraped(4))
        check(prometheus.query('zkit_queue_oldest_due_age_seconds{queue="{jobs}"}') != [], "the relabelled lag in Prometheus")
        check_prometheus(prometheus, master_target)
        say(f"{checks} checks passed in {time.monotonic() - started:.1f} s")
        return 0
    except SystemExit:
        for name, _ in processes.running:
            sys.stderr.write(f"--- {name} log ---\n{processes.log(name)}\n")
        raise
    finally:
        processes.stop()
        shutil.rmtree(work, ignore_errors=True)


def _pings(server: Redis) -> bool:
    try:
        return server("PING") == "PONG"
    except subprocess.CalledProcessError:
        return False


def _answers(url: str) -> bool:
    try:
        http_get(url)
        return True
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
