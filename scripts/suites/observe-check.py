#!/usr/bin/env python3
"""The metrics path end to end, on real servers (scripts/suites/observe-check.sh runs it).

    observe-check.py --tools DIR --module libzkit.so

(functions/gen.py writes the exporter's copy of functions/zkit.lua.)

0. observe/zkit-exporter.lua holds functions/zkit.lua as it is now.
1. A Redis master with zkit and its replica, and a master with the Functions
   library instead of the module, each holding queues, boards, a rate log and
   an IDMP seen-key named as the guides name them (the script's defaults).
2. redis_exporter (Debian's) with --script observe/zkit-exporter.lua on each:
   both masters' /metrics carry every per-key metric, each key once, and each
   value is what DELAY.STATS, RANK.STATS, RATE.STATS and ZCARD (through FCALL
   on the library's master) say of the same key, the queues' lag among them;
   INFO zkit's levels are exported as levels, its counts as `_total`; the
   replica's /metrics carries the counters only.
3. The scan across scrapes: on 100,000 keys, every matching key is exported
   within the bound docs/observe.md states, those within MAX_KEYS on every
   scrape from then on, and a key made later within two passes; on a
   two-master cluster (the script's bounds shrunk so a pass takes several
   scrapes), each node exports its own keys, keeping its place in a key of
   its own slots.
4. Prometheus with observe/prometheus-zkit.yml (the scrape job, its
   relabelling and the alert rules), scraping the three exporters each second
   while a small workload runs: every metric the dashboard and the alert
   rules name exists after relabelling, every panel's query returns series,
   every rule's query runs, ZkitQueueLagging is pending for the lagging queue
   of both masters, and no alert that needs history fires.

Nothing here needs more than the Python standard library and redis-cli.
"""

from __future__ import annotations

import argparse
import json
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

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from harness.server import free_port  # noqa: E402  (scripts/harness)

OBSERVE = ROOT / "observe"
SCRIPT = OBSERVE / "zkit-exporter.lua"
DASHBOARD = OBSERVE / "zkit-dashboard.json"
RULES = OBSERVE / "zkit-alerts.yml"
SCRAPE_CONFIG = OBSERVE / "prometheus-zkit.yml"
OBSERVE_DOC = ROOT / "docs" / "observe.md"
LIBRARY = ROOT / "functions" / "zkit.lua"

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
        for _, process in self.running:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def log(self, name: str) -> str:
        return (self.work / f"{name}.log").read_text(errors="replace")[-3000:]


class Redis:
    """redis-cli on a port; `library` when the server has the Functions
    library and not the module (zkit's commands then go through FCALL)."""

    def __init__(self, port: int, library: bool = False) -> None:
        self.port = port
        self.library = library

    def __call__(self, *words: object) -> str:
        out = subprocess.run(
            ["redis-cli", "-p", str(self.port), *map(str, words)], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()

    def lines(self, *words: object) -> List[str]:
        return self(*words).splitlines()

    def zkit(self, command: str, *args: object) -> str:
        """A zkit command, as the module or as the library's function (its
        keys declared as FCALL_RO zkit_keys says)."""
        if not self.library:
            return self(command, *args)
        keys = self.lines("FCALL_RO", "zkit_keys", 0, command, *args)
        function = "zkit_" + command.lower().replace(".", "_")
        return self("FCALL", function, len(keys), *keys, *args)

    def fields(self, command: str, *args: object) -> Dict[str, str]:
        """A stats reply by name (redis-cli prints it one line per element)."""
        lines = self.zkit(command, *args).splitlines()
        return dict(zip(lines[::2], lines[1::2]))

    def now_ms(self) -> int:
        seconds, micros = self.lines("TIME")
        return int(seconds) * 1000 + int(micros) // 1000

    def run_script(self, script: pathlib.Path, user: str = "default", database: int = 0) -> List[Tuple[str, str]]:
        """The exporter script's reply, run as redis_exporter runs it (EVAL),
        as (name, value) pairs in its order; `user` is an ACL user of
        ACL_PASSWORD's."""
        auth = [] if user == "default" else ["--user", user, "--pass", ACL_PASSWORD, "--no-auth-warning"]
        lines = self.lines(*auth, "-n", database, "--eval", script)
        return list(zip(lines[::2], lines[1::2]))


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


#: The metric naming each family's exported key, and its label.
KEY_METRICS = {
    "queue": ("zkit_queue_tasks", "queue"),
    "board": ("zkit_board_members", "board"),
    "rate log": ("zkit_rate_log_entries", "log"),
    "seen-key": ("zkit_idmp_seen_ids", "seen_key"),
}


def exported_keys(values: Dict[str, float]) -> Dict[str, set]:
    """The keys a page exports, by family."""
    keys: Dict[str, set] = {family: set() for family in KEY_METRICS}
    for name in values:
        for family, (metric, label) in KEY_METRICS.items():
            match = re.fullmatch(re.escape(metric) + r'\{' + label + r'="([^"]*)"\}', name)
            if match:
                keys[family].add(match.group(1))
    return keys


def exported_count(values: Dict[str, float]) -> int:
    return sum(len(keys) for keys in exported_keys(values).values())


#: The boards of the gift-board guide and of the delivery guide (RANK.MGIFT's
#: day, week and all-time boards, a game's best runs, a room's board with
#: IDMP), which the script's defaults must find.
GUIDE_BOARDS = ["gifts:room:42", "{room42}:day", "{room42}:week", "{room42}:all", "best:level:3", "{room:7}:board"]
#: A board two of the default patterns name (gifts:* and *:board).
TWICE_NAMED_BOARD = "gifts:vip:board"


def seed(redis: Redis) -> int:
    """The data the script's default lists find, laid out as the guides lay
    it out; returns the server's now."""
    now = redis.now_ms()
    # {jobs}: one task 10 minutes overdue, one due in an hour; a leased task
    # whose lease ended, one dead task, one counted twice.
    redis("ZADD", "{jobs}", now - LAG_MS, "mail:1", now + 3_600_000, "report:9")
    redis("ZADD", "{jobs}:inflight", now - 5_000, "resize:3", now + 60_000, "mail:0")
    redis("ZADD", "{jobs}:dead", now - 1_000, "poison:1")
    redis("ZADD", "{jobs}:deliveries", 1, "mail:0", 2, "resize:3")
    # {mail}: drained, and paused.
    redis("ZADD", "{mail}", now + 3_600_000, "digest")
    redis.zkit("DELAY.PAUSE", "{mail}", "{mail}:data")
    # {idle}: every task leased, one lease ended; the queue itself is empty.
    redis("ZADD", "{idle}:inflight", now - 5_000, "thumb:1")
    for i, amount in enumerate([500, 120, 120, 80, 20, 5]):
        redis.zkit("RANK.GIFT", "gifts:room:42", f"viewer:{i}", amount)
    redis.zkit("RANK.MGIFT", 3, "{room42}:day", "{room42}:week", "{room42}:all", "bob", 100)
    redis.zkit("RANK.SET", "best:level:3", "alice", 120, "GT")
    redis.zkit("RANK.GIFT", "{room:7}:board", "alice", 10, "IDMP", "{room:7}:seen", "pay-1")
    redis.zkit("RANK.GIFT", TWICE_NAMED_BOARD, "carol", 7)
    for _ in range(3):
        redis.zkit("RATE.HIT", "user:1000:comment", 5000, 2, 3600000, 20)
    redis.zkit("RATE.HIT", "user:1000:upload", "COST", 4, 60000, 10)
    return now


def scrape_ok(metrics: str) -> bool:
    return re.search(r"^redis_exporter_last_scrape_error(\{[^}]*\})? 0$", metrics, re.M) is not None


def check_per_key(redis: Redis, values: Dict[str, float], now: int, where: str) -> float:
    """Every per-key value of a master's page against its stats command;
    returns the lag of {jobs}."""
    queue = redis.fields("DELAY.STATS", "{jobs}", "INFLIGHT", "{jobs}:inflight", "DEAD", "{jobs}:dead", "DELIVERIES", "{jobs}:deliveries")
    q = 'queue="{jobs}"'
    lag = values.get(f"zkit_queue_oldest_due_age_seconds{{{q}}}")
    # The lag is measured at the scrape, after `now`.
    check(lag is not None and LAG_MS / 1000 <= lag < LAG_MS / 1000 + 60, f"{where}: the per-queue lag of {{jobs}} in /metrics: {lag}")
    for metric, field in [
        ("zkit_queue_tasks", "tasks"),
        ("zkit_queue_due_tasks", "due"),
        ("zkit_queue_inflight_tasks", "inflight"),
        ("zkit_queue_expired_leases", "expired"),
        ("zkit_queue_dead_tasks", "dead"),
        ("zkit_queue_redelivered_tasks", "redelivered"),
    ]:
        check(values.get(f"{metric}{{{q}}}") == float(queue[field]), f"{where}: {metric} is DELAY.STATS {field} ({queue[field]})")
    check(values.get(f"zkit_queue_next_due_timestamp_seconds{{{q}}}") == (now + 3_600_000) / 1000, f"{where}: the next due time of {{jobs}}")
    check(values.get('zkit_queue_due_tasks{queue="{mail}"}') == 0, f"{where}: {{mail}} has nothing due")
    check(values.get('zkit_queue_paused{queue="{mail}"}') == 1 and values.get(f"zkit_queue_paused{{{q}}}") == 0,
          f"{where}: {{mail}} is paused, {{jobs}} (no job data) is not")
    check(values.get('zkit_queue_capped_groups{queue="{mail}"}') == 0 and values.get(f"zkit_queue_capped_groups{{{q}}}") == 0,
          f"{where}: neither {{mail}} nor {{jobs}} (no job data hash) has a capped group")
    check(values.get('zkit_queue_expired_leases{queue="{idle}"}') == 1 and values.get('zkit_queue_tasks{queue="{idle}"}') == 0,
          f"{where}: {{idle}}, found by its in-flight set alone, has its expired lease")
    for name in GUIDE_BOARDS + [TWICE_NAMED_BOARD]:
        board = redis.fields("RANK.STATS", name)
        b = f'board="{name}"'
        check(values.get(f"zkit_board_members{{{b}}}") == float(board["members"]), f"{where}: the members of the guides' board {name}")
        for quantile, field in [("0", "bottom-total"), ("0.5", "p50-total"), ("0.9", "p90-total"), ("0.99", "p99-total"), ("1", "top-total")]:
            got = values.get(f'zkit_board_total{{{b},quantile="{quantile}"}}')
            check(got == float(board[field]), f"{where}: {name}'s {field}: {got} vs {board[field]}")
        check(values.get(f"zkit_board_memory_bytes{{{b}}}", 0) > 0, f"{where}: {name}'s memory")
    for name, entries, window in [("user:1000:comment", 2, "3600"), ("user:1000:upload", 4, "60")]:
        log = f'log="{name}"'
        rate = redis.zkit("RATE.STATS", name, "WINDOWS", int(window) * 1000).splitlines()
        check(values.get(f"zkit_rate_log_entries{{{log}}}") == float(rate[1]) == entries, f"{where}: {name}'s entries")
        check(values.get(f'zkit_rate_window_entries{{{log},window_seconds="{window}"}}') == entries, f"{where}: {name}'s {window} s")
    check(values.get('zkit_idmp_seen_ids{seen_key="{room:7}:seen"}') == 1, f"{where}: the seen-key's ids")
    keys = exported_keys(values)
    check("{room:7}:seen" not in keys["board"], f"{where}: the seen-key {{room:7}}:seen is not also a board")
    check(not keys["queue"] & {"{jobs}:inflight", "{jobs}:dead", "{idle}:inflight", "{mail}:data"}, f"{where}: a queue's sets are not queues: {keys['queue']}")
    check(values.get("zkit_exporter_keys_exported") == exported_count(values),
          f"{where}: each key exported once ({values.get('zkit_exporter_keys_exported')} exported, {exported_count(values)} keys)")
    check(values.get("zkit_exporter_keys_capped") == 0 and values.get("zkit_exporter_scan_incomplete") == 0, f"{where}: within the script's bounds")
    return lag


#: INFO zkit's fields that are levels (docs/operating.md): the rest count
#: since the module loaded.
INFO_LEVELS = {"blocked_clients", "hot_sets", "hot_boards", "idmp_max_ids", "tiebreak_window_start_ms",
               "tiebreak_window_end_ms"}


def check_counters(redis: Redis, values: Dict[str, float]) -> None:
    info = dict(line.split(":", 1) for line in redis.lines("INFO", "zkit") if line.startswith("zkit_"))
    for field, text in info.items():
        if not re.fullmatch(r"-?\d+", text):
            continue
        level = field[len("zkit_"):] in INFO_LEVELS
        name, other = (field, f"{field}_total") if level else (f"{field}_total", field)
        check(name in values and other not in values, f"INFO {field} exported as {name}, not {other}")
    check(values["zkit_rate_hits_refused_total"] == float(info["zkit_rate_hits_refused"]), "INFO zkit counters' values")
    check(values["zkit_idmp_max_ids"] == float(info["zkit_idmp_max_ids"]), "INFO zkit levels' values")


def check_master_page(redis: Redis, metrics: str, now: int) -> None:
    check(scrape_ok(metrics), "the master's scrape has no error")
    values = script_values(metrics)
    check(values.get("zkit_module_loaded") == 1, "the script found zkit (zkit_module_loaded 1)")
    lag = check_per_key(redis, values, now, "master")
    check_counters(redis, values)
    # redis_exporter keeps one value a name: the script's own reply shows
    # whether it named a key twice.
    names = [name for name, _ in redis.run_script(SCRIPT)]
    twice = sorted({name for name in names if names.count(name) > 1})
    check(twice == [], f"the script's reply names each metric once: {twice}")
    # Once its state holds the keys found, a scrape of a server nobody
    # writes to writes nothing either.
    changes = lambda: re.search(r"rdb_changes_since_last_save:(\d+)", redis("INFO", "persistence")).group(1)
    before = changes()
    redis.run_script(SCRIPT)
    redis.run_script(SCRIPT)
    check(changes() == before, f"scrapes of an idle server write nothing: {before} writes, then {changes()}")
    say(f"master's /metrics: {len(values)} zkit values, the lag of {{jobs}} {lag:.3f} s, each key once and each "
        "per-key value equal to its stats command's; the guides' boards found; INFO's levels as levels")


def check_library_page(redis: Redis, metrics: str, now: int) -> None:
    check(scrape_ok(metrics), "the library's master's scrape has no error")
    values = script_values(metrics)
    check(values.get("zkit_module_loaded") == 0, "no module on the library's master")
    lag = check_per_key(redis, values, now, "library")
    say(f"library's master's /metrics: the lag of {{jobs}} {lag:.3f} s, every per-key value equal to FCALL's")
    check_acl(redis, "library", resumes=False)


def check_replica_page(metrics: str) -> None:
    values = script_values(metrics)
    check(values.get("zkit_module_loaded") == 1 and "zkit_delay_tasks_claimed_total" in values, "the replica's counters")
    per_key = [name for name in values if "{" in name]
    check(per_key == [], f"no per-key stats from a replica: {per_key}")
    check(scrape_ok(metrics), "the replica's scrape has no error")
    say(f"replica's /metrics: {len(values)} zkit values, counters only")


ACL_PASSWORD = "observe-check"
#: The stats commands the docs' ACL line names for the module on Redis 7.0.
MODULE_ACL = ["+delay.stats", "+rank.stats", "+rate.stats"]


def check_acl(redis: Redis, where: str, resumes: bool) -> None:
    """The ACL user docs/observe.md gives the script: every per-key metric,
    and the scan keeps its place; a user that cannot write the state key
    gets the metrics too, and is told the scan starts over (`resumes`: the
    database is larger than one scrape's share)."""
    line = re.search(r"^ACL SETUSER (zkit-exporter) (.*)$", OBSERVE_DOC.read_text(), re.M)
    user, rules = line.group(1), [f">{ACL_PASSWORD}" if rule == ">password" else rule for rule in line.group(2).split()]
    if redis.library:
        rules = [rule for rule in rules if rule not in MODULE_ACL]
    check(redis("ACL", "SETUSER", user, *rules) == "OK", f"{where}: the docs' ACL line: {' '.join(rules)}")
    readonly = [rule for rule in rules if not rule.startswith("%RW~") and rule not in ("+hset", "+hdel", "+pexpire")]
    check(redis("ACL", "SETUSER", "zkit-readonly", *readonly) == "OK", f"{where}: a user without the state key")
    # Each run from no state: its scan starts at the first key, and on 100,000
    # keys cannot end its pass in one scrape.
    forget_state = lambda: [redis("DEL", key) for key in redis("--scan", "--pattern", "zkit-exporter:*").split()]
    forget_state()
    full = dict(redis.run_script(SCRIPT, user))
    check(full.get("zkit_exporter_scan_incomplete") == "0" and "zkit_exporter_key_errors" not in " ".join(full),
          f"{where}: the docs' ACL user runs the script, keeping its place: {full.get('zkit_exporter_scan_incomplete')}")
    forget_state()
    read_only = dict(redis.run_script(SCRIPT, "zkit-readonly"))
    per_key = lambda values: sorted(name for name in values if name.startswith(("zkit_queue_", "zkit_board_members")))
    check(per_key(read_only) != [] and "zkit_exporter_key_errors" not in " ".join(read_only),
          f"{where}: a user that cannot write the state key still gets the per-key metrics")
    check(read_only.get("zkit_exporter_scan_incomplete") == ("1" if resumes else "0"),
          f"{where}: ... and is told whether the scan starts over: {read_only.get('zkit_exporter_scan_incomplete')}")
    say(f"{where}: the docs' ACL user runs the script and keeps its place; one without its state key is told")


def with_lists(script: str, **lists: str) -> str:
    """The script with some of its lists (or bounds) replaced, as a user edits
    them: NAME="{ ... }"."""
    for name, value in lists.items():
        script, replaced = re.subn(rf"^local {name} = (\{{\n(?:.*\n)*?\}}|.*)$", lambda _, line=f"local {name} = {value}": line, script, count=1, flags=re.M)
        check(replaced == 1, f"the script has a {name} to edit")
    return script


def label(key: str) -> str:
    """A key as the script writes it in a label (percent-encoded bytes)."""
    return "".join(chr(b) if 32 <= b <= 126 and chr(b) not in '"\\%' else f"%{b:02X}" for b in key.encode())


#: Patterns SCAN MATCH reads in ways a naive translation would not, and keys
#: that tell them apart.
GLOBS = ["h?llo", "h[ae]llo", "h[^e]llo", "h[a-b]llo", "x\\*y", "[]x", "[^]q", "p[!-/]p", "w[%]w", "d.t*", "(par)*",
         "c^a$*", "s[\\]]s", "e[z-a]e", "tail\\", "*%*", "**q**"]
GLOB_KEYS = ["hello", "hallo", "hbllo", "hxllo", "hllo", "x*y", "xay", "]x", "zq", "p!p", "p/p", "p0p", "w%w", "wxw",
             "d.t", "dxt", "d.tail", "(par)x", "par", "c^a$b", "ca", "s]s", "sxs", "ebe", "eze", "tail\\", "100%", "q", "aqb"]


def check_globs(redis: Redis, work: pathlib.Path) -> None:
    """The script matches patterns as SCAN MATCH does (it matches every
    pattern against one SCAN's keys in Lua)."""
    for key in GLOB_KEYS:
        redis("-n", 1, "ZADD", key, 1, "member")
    script = work / "zkit-exporter-globs.lua"
    boards = "{ " + ", ".join('"' + glob.replace("\\", "\\\\") + '"' for glob in GLOBS) + " }"
    script.write_text(with_lists(SCRIPT.read_text(), QUEUES="{}", SEEN_KEYS="{}", RATE_LOGS="{}", BOARDS=boards))
    expected = set()
    for glob in GLOBS:
        expected |= set(redis("-n", 1, "--scan", "--pattern", glob).splitlines())
    values = dict((name, float(value)) for name, value in redis.run_script(script, database=1))
    got = exported_keys(values)["board"]
    check(got == {label(key) for key in expected}, f"the script's patterns match as SCAN MATCH's: {sorted(got)} vs {sorted(expected)}")
    redis("-n", 1, "FLUSHDB")
    say(f"{len(GLOBS)} patterns match {len(expected)} of {len(GLOB_KEYS)} keys, as SCAN MATCH does")


def script_bound(script: str, name: str) -> int:
    return int(re.search(rf"^local {name} = (\d+)$", script, re.M).group(1))


def pass_bound(script: str, keys: int, past_max_keys: int) -> int:
    """The scrapes a pass takes at most (docs/observe.md): SCAN looks at about
    MAX_SCANNED keys a scrape (twice as many scrapes for a sparse table), and
    a scrape that exports MAX_ROTATED keys past MAX_KEYS stops there."""
    scanned, rotated = script_bound(script, "MAX_SCANNED"), script_bound(script, "MAX_ROTATED")
    return -(-2 * keys // scanned) + -(-past_max_keys // rotated)


class Scrapes:
    """An exporter's /metrics, scraped one page at a time: which keys each
    scrape exported."""

    def __init__(self, url: str, where: str) -> None:
        self.url, self.where = url, where
        self.pages: List[Dict[str, set]] = []
        self.last: Dict[str, float] = {}

    def scrape(self) -> Dict[str, set]:
        metrics = http_get(self.url)
        check(scrape_ok(metrics), f"{self.where}: scrape {len(self.pages) + 1} has no error")
        self.last = script_values(metrics)
        keys = exported_keys(self.last)
        check(self.last.get("zkit_exporter_keys_exported") == exported_count(self.last),
              f"{self.where}: each key once in scrape {len(self.pages) + 1}")
        check(self.last.get("zkit_exporter_scan_incomplete") == 0, f"{self.where}: the scan keeps its place")
        self.pages.append(keys)
        return keys

    def until_all(self, expected: Dict[str, set], bound: int) -> int:
        """Scrapes until every expected key (by family) was exported once;
        returns how many scrapes it took, failing past `bound`."""
        seen: Dict[str, set] = {family: set() for family in expected}
        for n in range(1, bound + 1):
            page = self.scrape()
            for family in expected:
                seen[family] |= page[family]
            if all(expected[family] <= seen[family] for family in expected):
                return n
        missing = sorted(set().union(*(expected[family] - seen[family] for family in expected)))
        raise SystemExit(f"observe-check: FAILED: {self.where}: {len(missing)} keys not exported within "
                         f"{bound} scrapes, e.g. {missing[:5]}")

    def until_pass(self, bound: int) -> int:
        """Scrapes until a pass ended (at most `bound` scrapes in all); its
        length in scrapes."""
        while self.last.get("zkit_exporter_scan_pass_scrapes") is None and len(self.pages) < bound:
            self.scrape()
        passes = self.last.get("zkit_exporter_scan_pass_scrapes")
        check(passes is not None, f"{self.where}: a pass ended within {bound} scrapes")
        return int(passes)


#: The 100,000-key database: boards past MAX_KEYS, queues, the rest plain
#: strings the scan passes over.
BIG_KEYS, BIG_BOARDS, BIG_QUEUES = 100_000, 250, 30


def fill_big(redis: Redis) -> Tuple[set, set]:
    now = redis.now_ms()
    redis("EVAL", """
        for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'cache:' .. i, 'x') end
        for i = 1, tonumber(ARGV[2]) do redis.call('ZADD', 'gifts:room:' .. i, i, 'viewer') end
        for i = 1, tonumber(ARGV[3]) do redis.call('ZADD', '{q' .. i .. '}', ARGV[4], 'task') end
        """, 0, BIG_KEYS - BIG_BOARDS - BIG_QUEUES, BIG_BOARDS, BIG_QUEUES, now - LAG_MS)
    check(redis("DBSIZE") == str(BIG_KEYS), "100,000 keys")
    return {f"gifts:room:{i}" for i in range(1, BIG_BOARDS + 1)}, {f"{{q{i}}}" for i in range(1, BIG_QUEUES + 1)}


def check_big(redis: Redis, url: str, boards: set, queues: set) -> None:
    """On 100,000 keys: every matching key within the stated bound, the first
    MAX_KEYS of an entry on every later scrape, a later key within two passes."""
    script = SCRIPT.read_text()
    max_keys = script_bound(script, "MAX_KEYS")
    bound = pass_bound(script, BIG_KEYS, BIG_BOARDS - max_keys)
    scrapes = Scrapes(url, "100,000 keys")
    took = scrapes.until_all({"queue": queues, "board": boards}, bound)
    passes = scrapes.until_pass(bound)
    check(1 < passes <= bound, f"a pass over 100,000 keys took {passes} scrapes (bound {bound})")
    check(scrapes.last.get("zkit_exporter_keys_capped") == 1, f"{BIG_BOARDS} boards for one pattern are more than MAX_KEYS")
    # The next pass (it ends where the script's state says its cursor is
    # back at the start): the same MAX_KEYS boards and every queue on each
    # scrape, the boards past them in turn.
    kept = [scrapes.scrape()]
    while redis("HGET", "zkit-exporter:{0}", "cursor") != "0":
        check(len(kept) < bound, f"the next pass ended within {bound} scrapes")
        kept.append(scrapes.scrape())
    stable_boards = set.intersection(*(page["board"] for page in kept))
    check(len(stable_boards) == max_keys and all(page["queue"] == queues for page in kept),
          f"{max_keys} boards and {len(queues)} queues on every scrape of a pass: {len(stable_boards)} boards")
    check(set().union(*(page["board"] for page in kept)) == boards, "every board past MAX_KEYS exported in a pass")
    redis("ZADD", "{late}", redis.now_ms(), "task")
    late = scrapes.until_all({"queue": {"{late}"}}, 2 * passes)
    say(f"100,000 keys: every key exported within {took} scrapes (bound {bound}); a pass takes {passes} scrapes; "
        f"{max_keys} boards and the queues on every scrape, the other boards in turn; a later queue within {late}")


def crc16(data: bytes) -> int:
    """Redis Cluster's key hash (CRC16-XMODEM)."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def key_slot(key: str) -> int:
    start = key.find("{")
    if start >= 0:
        end = key.find("}", start + 1)
        if end > start + 1:
            key = key[start + 1:end]
    return crc16(key.encode()) % 16384


#: The cluster's two masters' slots.
HALVES = [(0, 8191), (8192, 16383)]


def fill_cluster(nodes: List[Redis]) -> List[set]:
    """Queues on both masters, and a few hundred other keys each; the queues
    of each."""
    halves = HALVES
    queues: List[set] = [set(), set()]
    for i in range(60):
        queue = f"{{c{i}}}"
        owner = 0 if key_slot(queue) <= halves[0][1] else 1
        nodes[owner]("ZADD", queue, 1, "task")
        queues[owner].add(queue)
    for n, node in enumerate(nodes):
        node("EVAL", "for i = 1, 400 do local k = 'fill:' .. ARGV[1] .. ':' .. i "
             "if redis.call('CLUSTER', 'KEYSLOT', k) >= tonumber(ARGV[2]) and redis.call('CLUSTER', 'KEYSLOT', k) <= tonumber(ARGV[3]) "
             "then redis.call('SET', k, 'x') end end", 0, n, *halves[n])
    return queues


def check_cluster(nodes: List[Redis], urls: List[str], script: pathlib.Path, queues: List[set]) -> None:
    """Each node of a cluster exports its own queues, once, keeping its place
    across scrapes in a key of its own slots."""
    text = script.read_text()
    for n, (node, url) in enumerate(zip(nodes, urls)):
        keys = int(node("DBSIZE"))
        bound = pass_bound(text, keys, 0)
        scrapes = Scrapes(url, f"cluster node {n + 1}")
        took = scrapes.until_all({"queue": queues[n]}, bound)
        passes = scrapes.until_pass(bound)
        exported = set().union(*(page["queue"] for page in scrapes.pages))
        check(exported == queues[n], f"cluster node {n + 1} exports its own queues only: {sorted(exported - queues[n])[:5]}")
        check(passes > 1, f"cluster node {n + 1}: a pass takes several scrapes")
        state = node("--scan", "--pattern", "zkit-exporter:*").split()
        low, high = HALVES[n]
        check(len(state) == 1 and low <= key_slot(state[0]) <= high, f"cluster node {n + 1} keeps its place in its own slots: {state}")
        say(f"cluster node {n + 1}: its {len(queues[n])} queues exported within {took} scrapes (bound {bound}), "
            f"a pass {passes} scrapes, its place kept in {state[0]}")


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


#: What the workload makes true at once: tasks reach their last delivery.
FIRING_AT_ONCE = {"ZkitDeadLettersGrowing", "ZkitTasksDying"}


def check_prometheus(prometheus: Prometheus, lagging_targets: List[str]) -> None:
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
    for _, expr in rules:
        prometheus.query(expr.strip("|\n "))  # fails unless it parses and runs
    say(
        f"Prometheus: {len(panel_exprs)} panel queries with data, {len(variables)} variables, "
        f"{len(rules)} rules run; {len(named)} metric names, all scraped"
    )

    def lagging() -> set:
        return {
            a["labels"].get("instance")
            for a in prometheus.api("alerts")["alerts"]
            if a["labels"].get("alertname") == "ZkitQueueLagging" and a["labels"].get("queue") == "{jobs}"
        }

    wait("ZkitQueueLagging pending for {jobs} on both masters", lambda: lagging() >= set(lagging_targets), 20)
    alerts = prometheus.api("alerts")["alerts"]
    others = [a["labels"]["alertname"] for a in alerts if a["labels"].get("queue") == "{mail}"]
    check(others == [], f"no alert for the drained queue {{mail}}: {others}")
    # Seconds after Prometheus started, an alert that needs history (every
    # one but those the workload's deaths fire) is pending at most: the
    # expired leases of {jobs} and {idle} among them.
    firing = sorted({a["labels"]["alertname"] for a in alerts if a["state"] == "firing"} - FIRING_AT_ONCE)
    check(firing == [], f"no alert that needs history fires seconds after Prometheus started: {firing}")
    say("Prometheus: ZkitQueueLagging is pending for {jobs} on both masters, nothing for {mail}, "
        "no alert that needs history fires")


def redis_argv(args: argparse.Namespace, work: pathlib.Path, name: str, port: int, *extra: object) -> List[str]:
    folder = work / name
    folder.mkdir()
    return [args.server, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder),
            "--save", "", "--appendonly", "no", *map(str, extra)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", help="folder holding prometheus, promtool, prometheus-redis-exporter")
    parser.add_argument("--module")
    parser.add_argument("--server", default="redis-server")
    args = parser.parse_args()
    if not (args.tools and args.module):
        parser.error("--tools and --module are needed")
    # The exporter's copy of the library (functions/gen.py writes it).
    check(subprocess.run([sys.executable, str(ROOT / "functions" / "gen.py"), "--check"]).returncode == 0,
          f"{SCRIPT.relative_to(ROOT)} holds {LIBRARY.relative_to(ROOT)} as it is (make functions)")
    tools = pathlib.Path(args.tools).resolve()
    module = ["--loadmodule", str(pathlib.Path(args.module).resolve())]
    started = time.monotonic()
    work = pathlib.Path(tempfile.mkdtemp(prefix="zkit-observe."))
    processes = Processes(work)
    try:
        servers = ("master", "replica", "library", "big", "node-1", "node-2")
        ports = {name: free_port() for name in servers + ("bus-1", "bus-2", "prometheus")}
        exporter_ports = {name: free_port() for name in servers}
        processes.start("master", redis_argv(args, work, "master", ports["master"], *module, "--repl-diskless-sync-delay", 0))
        processes.start("replica", redis_argv(args, work, "replica", ports["replica"], *module, "--replicaof", "127.0.0.1", ports["master"]))
        processes.start("library", redis_argv(args, work, "library", ports["library"]))
        processes.start("big", redis_argv(args, work, "big", ports["big"], *module))
        for n in (1, 2):
            processes.start(f"node-{n}", redis_argv(args, work, f"node-{n}", ports[f"node-{n}"], *module, "--cluster-enabled", "yes",
                                                     "--cluster-port", ports[f"bus-{n}"], "--cluster-config-file", work / f"node-{n}.conf"))
        redis = {name: Redis(ports[name], library=name == "library") for name in servers}
        for server in redis.values():
            wait(f"redis on {server.port}", lambda s=server: _pings(s))
        subprocess.run(["redis-cli", "-p", str(ports["library"]), "-x", "FUNCTION", "LOAD"], stdin=LIBRARY.open("rb"),
                       check=True, capture_output=True)
        now = seed(redis["master"])
        library_now = seed(redis["library"])
        wait("the replica in sync", lambda: redis["replica"]("EXISTS", "{jobs}") == "1" and "master_link_status:up" in redis["replica"]("INFO", "replication"))
        # The cluster: two masters, half the slots each.
        nodes = [redis["node-1"], redis["node-2"]]
        for node, (low, high) in zip(nodes, HALVES):
            node("CLUSTER", "ADDSLOTSRANGE", low, high)
        nodes[0]("CLUSTER", "MEET", "127.0.0.1", ports["node-2"], ports["bus-2"])
        wait("the cluster up", lambda: all("cluster_state:ok" in node("CLUSTER", "INFO") for node in nodes))
        cluster_queues = fill_cluster(nodes)
        big_boards, big_queues = fill_big(redis["big"])
        # The script with its bounds shrunk, so that a pass over the nodes'
        # few hundred keys takes several scrapes.
        small_script = work / "zkit-exporter-small.lua"
        small_script.write_text(with_lists(SCRIPT.read_text(), MAX_SCANNED="100", SCAN_COUNT="20"))

        exporter = tools / "prometheus-redis-exporter"
        for name in servers:
            script = small_script if name.startswith("node-") else SCRIPT
            processes.start(f"{name}-exporter", [str(exporter), "-redis.addr", f"redis://127.0.0.1:{ports[name]}",
                                                 "-script", str(script), "-web.listen-address", f"127.0.0.1:{exporter_ports[name]}"])
        urls = {name: f"http://127.0.0.1:{exporter_ports[name]}/metrics" for name in servers}
        for name in servers:
            # Its landing page: /metrics would scrape.
            wait(f"{name}'s exporter answering", lambda n=name: _answers(f"http://127.0.0.1:{exporter_ports[n]}/"))

        # The shipped scrape config, pointed at the exporters of both
        # masters and the replica, scraping and evaluating every second from
        # now on, while the exporters' pages are checked.
        targets = [f"127.0.0.1:{exporter_ports[name]}" for name in ("master", "replica", "library")]
        config = SCRAPE_CONFIG.read_text()
        check('["localhost:9121"]' in config, "the shipped config's target")
        config = config.replace('["localhost:9121"]', json.dumps(targets))
        config = re.sub(r"(scrape_interval|evaluation_interval): 15s", r"\1: 1s", config)
        (work / "prometheus.yml").write_text(config)
        shutil.copy(RULES, work / RULES.name)
        processes.start("prometheus", [str(tools / "prometheus"), f"--config.file={work / 'prometheus.yml'}",
                                       f"--storage.tsdb.path={work / 'tsdb'}", f"--web.listen-address=127.0.0.1:{ports['prometheus']}"],
                        cwd=work)
        prometheus = Prometheus(ports["prometheus"])
        wait("Prometheus ready", lambda: _answers(f"http://127.0.0.1:{ports['prometheus']}/-/ready"))

        check_master_page(redis["master"], http_get(urls["master"]), now)
        check_globs(redis["master"], work)
        check_replica_page(http_get(urls["replica"]))
        check_library_page(redis["library"], http_get(urls["library"]), library_now)
        check_big(redis["big"], urls["big"], big_boards, big_queues)
        check_acl(redis["big"], "100,000 keys", resumes=True)
        check_cluster(nodes, [urls["node-1"], urls["node-2"]], small_script, cluster_queues)

        # Prometheus takes up new targets after a few seconds: the workload
        # starts once all are scraped, and the checks once each was scraped
        # often enough for rate() over a minute.
        def scraped(times: int) -> bool:
            counts = prometheus.query("count_over_time(zkit_module_loaded[1m])")
            return len(counts) == len(targets) and all(float(c["value"][1]) >= times for c in counts)

        wait("every exporter scraped", lambda: scraped(1))
        workload(redis["master"], 4)
        wait("every exporter scraped during the workload", lambda: scraped(4))
        check(prometheus.query('zkit_queue_oldest_due_age_seconds{queue="{jobs}"}') != [], "the relabelled lag in Prometheus")
        check_prometheus(prometheus, [targets[0], targets[2]])
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
