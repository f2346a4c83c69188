#!/usr/bin/env python3
"""make perf-guard: server instructions per call of a representative set of
zkit calls, and of the native commands each replaces, counted under
valgrind's callgrind, against the baseline committed in bench/guard-baseline.tsv.

Each case runs a fixed sequence of calls through one connection, 16
requests per pipelined batch, after a warm-up of the same calls on the same
data, on a server whose seeds are fixed (bench/guard-seed.c) and whose reply
buffers keep their size, so a run counts what the last one counted, to
within half a percent. A case's zkit call and its natives each work on their
own copy of the data, built with native commands before counting starts.
Two counts per call:

- command: instructions inside the server's `processCommand` (the command,
  its replies into the client's buffer, its effects, propagation, keyspace
  events), the number the guard compares: reading the socket and the event
  loop are left out, so it moves only when the command's own work moves;
- request: every instruction of the server during the run, divided by the
  calls (what `make bench` with BENCH_MEASURE=instructions reports, with
  one client instead of 50).

The guard fails when a zkit call's command count is more than --threshold
percent (default 3) above the baseline, or when a native command's count
moved by twice that either way: then the server binary is not the one the
baseline was taken on, and its numbers say nothing about zkit (a case
over either limit is measured twice more first, and keeps its lowest
counts: the server's timer only adds work to the calls it falls among). A call
cheaper than its baseline by more than the threshold is reported, not
failed: update the baseline in a commit that says why (--update).

Ratios are native instructions over zkit's (higher is better: 1.00x is as
cheap as the natives giving the same answer), with each case's target.

Then the Functions library's cases (bench/guard-baseline-library.tsv):
every command the library has, at 100 and 10,000 members, its function on a
server without the module, beside the script a team would write for it
(bench/lua) and the module's command; the library's count is guarded as
zkit's is, the ratios are the library's over the script's and the module's
(lower is better; targets 1.3x and 3x, per request). A check measures the
library alone and reads the other two from the baseline.

usage: bench/guard.py [--module target/release/libzkit.so] [--server redis-server]
         [--cases RANK.GIFT,...] [--sizes 10,10000] [--calls 256] [--threshold 3]
         [--syntax 0.3|0.2] [--update REASON] [--baseline bench/guard-baseline.tsv]
         [--out .bench/guard] [--profiles] [--compare NAME=TABLE ...]
         [--library with|only|without] [--library-calls 64] [--library-all]
         [--library-file functions/zkit.lua] [--library-baseline bench/guard-baseline-library.tsv]
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import spare_ports  # noqa: E402  (scripts/spare_ports.py)

ROOT = Path(__file__).resolve().parent.parent
BATCH = 16  # requests per pipelined write

# ---- a RESP client: one connection, pipelined batches --------------------------


def encode(argv):
    out = [b"*%d\r\n" % len(argv)]
    for word in argv:
        if not isinstance(word, bytes):
            word = str(word).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(word), word))
    return b"".join(out)


class ReplyError(Exception):
    pass


class Connection:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.at = 0

    def _line(self):
        while True:
            end = self.buf.find(b"\r\n", self.at)
            if end >= 0:
                line = self.buf[self.at : end]
                self.at = end + 2
                return line
            self._more()

    def _more(self):
        self.buf = self.buf[self.at :]
        self.at = 0
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buf += chunk

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            return ReplyError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) - self.at < n + 2:
                self._more()
            value = self.buf[self.at : self.at + n]
            self.at += n + 2
            return value
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise ConnectionError(f"unexpected reply line {line[:40]!r}")

    def pipeline(self, calls, paced=False):
        """Sends `calls` in batches of BATCH requests (paced: one at a time,
        each after the clock's next millisecond); returns every reply."""
        if paced:
            replies = []
            for call in calls:
                replies.extend(self.pipeline([call]))
                time.sleep(0.002)
            return replies
        replies = []
        for start in range(0, len(calls), BATCH):
            batch = calls[start : start + BATCH]
            self.sock.sendall(b"".join(encode(c) for c in batch))
            replies.extend(self.reply() for _ in batch)
        return replies

    def call(self, *argv):
        reply = self.pipeline([argv])[0]
        if isinstance(reply, ReplyError):
            raise reply
        return reply


# ---- the cases ---------------------------------------------------------------------


def spread(i, size, salt=0):
    """The i-th of a fixed sequence spread over 0..size-1 (a multiplicative
    hash: every run calls the same members in the same order)."""
    return ((i + salt) * 2654435761 + 40503) % (1 << 32) % size


def fill_lua(key, count, score, member, first="0"):
    """Lua that adds to the key `key` (a Lua expression) members
    string.format(member, i) scored `score` (a Lua expression of i), for i =
    first .. first + count - 1 (first: a Lua expression), 1000 per ZADD."""
    return f"""
      do
        local first = {first}
        local last = first + {count} - 1
        for s = first, last, 1000 do
          local args = {{}}
          for i = s, math.min(s + 999, last) do
            args[#args + 1] = {score}
            args[#args + 1] = string.format('{member}', i)
          end
          if #args > 0 then redis.call('ZADD', {key}, unpack(args)) end
        end
      end"""


def build(conn, lua):
    conn.call("EVAL", lua, 0)


class Case:
    """One measured call at one size: its data, its zkit call, the natives
    that give the same answer, and its 0.2 spelling where 0.2 had it.

    `zkit(i, prefix)` is the i-th call's argv; `native(i, prefix)` the
    argvs of the natives that give its answer; `v02` True when 0.2 spelled
    the call the same, or a function like `zkit`. `data(conn, prefix, calls)`
    builds a variant's data under its key prefix, `native_data` the
    natives' (default: the same). `check(reply)` says a zkit reply is what
    the case means to measure (a poll that claimed a task). `target`: the
    least natives / zkit ratio the issue asks for. `calls`: how many calls
    the case measures, when not --calls (for calls that cost millions).
    `paced`: each call goes alone, in a millisecond of its own, for a call
    whose work depends on the clock (hits at one millisecond share a name's
    count, so how many of a batch share one would move the count)."""

    def __init__(self, name, size, data, zkit, native=None, v02=None, native_data=None,
                 check=None, target=None, calls=None, paced=False):
        self.name, self.size = name, size
        self.data, self.zkit, self.native = data, zkit, native
        self.v02 = v02
        self.native_data = native_data or data
        self.check = check
        self.target = target
        self.calls = calls
        self.paced = paced

    @property
    def label(self):
        return f"{self.name} @{self.size}"


# A rank score as RANK.GIFT writes it: a total and a tie-break fraction.
BOARD_SCORE = "(i % 1000) + 0.5 + (i % 997) / 2048"


def board(n, *names, integer=False):
    """Boards of n members m:0.. (the natives' with integer totals)."""
    score = "(i % 1000)" if integer else BOARD_SCORE

    def data(conn, p, calls):
        for name in names or ("b",):
            build(conn, fill_lua(f"'{p}{name}'", n, score, "m:%d"))

    return data


def zset(n, name, score, member):
    return lambda conn, p, calls: build(conn, fill_lua(f"'{p}{name}'", n, score, member))


def per_key(n):
    """Calls served by one key of a case that uses its key up (a poll, an
    ack): the key stays about n large while it serves them."""
    return max(1, n // 10)


def tasks(n, name, later, each_score, each_member, held=None):
    """Keys `name`:k of n tasks held until 2096 (`later`: their names)
    and per_key(n) more (each_member % i, scored each_score) that the calls
    use up, as many keys as the calls need; call i uses task i of key
    i // per_key(n). With `held`, an in-flight set `held`:k of n leased
    tasks beside each."""

    def data(conn, p, calls):
        each = per_key(n)
        keys = -(-calls // each)
        inflight = fill_lua(f"'{p}{held}:' .. k", n, "4000000000000", "leased:%d") if held else ""
        build(conn, f"""
          for k = 0, {keys - 1} do
            local key = '{p}{name}:' .. k
            {fill_lua("key", n, "4000000000000", later)}
            {fill_lua("key", each, each_score, each_member, first=f"k * {each}")}
            {inflight}
          end""")

    return data


def seen_ids(count, call):
    """A seen-key that already remembers `count` event ids, written by the
    variant's own calls (`call(i)`: the argv of the i-th), so the calls
    counted find it at a steady size."""

    def data(conn, p, calls):
        argvs = [call(-1 - i, p) for i in range(count)]
        build(conn, "for _, argv in ipairs(cjson.decode(ARGV[1])) do redis.call(unpack(argv)) end"
              .replace("ARGV[1]", repr(json.dumps(argvs))))

    return data


def both(*builders):
    def data(conn, p, calls):
        for builder in builders:
            builder(conn, p, calls)

    return data


def key_of(p, i, n, name):
    return f"{p}{name}:{i // per_key(n)}"


def feed_cursor(score, member):
    return "f1:" + struct.pack(">d", float(score)).hex() + ":" + member.encode().hex()


def claimed(reply):
    return isinstance(reply, list) and len(reply) == 1


def m(i, n, salt=0):
    return f"m:{spread(i, n, salt)}"


# Each family of cases, with the sizes it runs at by default.
FAMILIES = []


def family(*sizes):
    def register(make):
        FAMILIES.append((make, sizes))
        return make

    return register


@family(10, 100, 1000, 10000, 1000000)
def rank_gift(n):
    return Case("RANK.GIFT", n, board(n),
                zkit=lambda i, p: ["RANK.GIFT", p + "b", m(i, n), 5],
                native=lambda i, p: [["ZINCRBY", p + "b", 5, m(i, n)], ["ZREVRANK", p + "b", m(i, n)]],
                native_data=board(n, integer=True), v02=True, target=1.0)


# Event ids a seen-key remembers before the calls counted (a day's
# retention at a few calls a second): past the server's small layout.
SEEN = 500


@family(10000)
def rank_gift_idmp(n):
    # The natives: is the event id there, the gift, its rank, remember the id.
    def zkit(i, p):
        return ["RANK.GIFT", p + "b", m(i, n), 5, "IDMP", p + "seen", f"e:{i}"]

    def remember(i, p):
        return ["ZADD", p + "seen", 4000000000000, f"e:{i}"]

    return Case("RANK.GIFT IDMP", n, both(board(n), seen_ids(SEEN, zkit)), zkit=zkit,
                native=lambda i, p: [["ZSCORE", p + "seen", f"e:{i}"], ["ZINCRBY", p + "b", 5, m(i, n)],
                                     ["ZREVRANK", p + "b", m(i, n)], remember(i, p)],
                native_data=both(board(n, integer=True), seen_ids(SEEN, remember)))


@family(10000)
def rank_gift_shared(n):
    # A shared rank is 1 + the members of a higher total: ZCOUNT above a
    # total of the board.
    return Case("RANK.GIFT SHARED", n, board(n),
                zkit=lambda i, p: ["RANK.GIFT", p + "b", m(i, n), 5, "SHARED"],
                native=lambda i, p: [["ZINCRBY", p + "b", 5, m(i, n)],
                                     ["ZCOUNT", p + "b", f"({spread(i, min(n, 1000), 7)}", "+inf"]],
                native_data=board(n, integer=True), v02=True, target=1.0)


@family(100, 10000)
def rank_get(n):
    return Case("RANK.GET", n, board(n),
                zkit=lambda i, p: ["RANK.GET", p + "b", m(i, n)],
                native=lambda i, p: [["ZSCORE", p + "b", m(i, n)], ["ZREVRANK", p + "b", m(i, n)]],
                native_data=board(n, integer=True), v02=True, target=1.0)


@family(10000)
def rank_top(n):
    return Case("RANK.TOP 10", n, board(n),
                zkit=lambda i, p: ["RANK.TOP", p + "b", 10, "OFFSET", spread(i, n - 10)],
                native=lambda i, p: [["ZREVRANGE", p + "b", spread(i, n - 10), spread(i, n - 10) + 9,
                                      "WITHSCORES"]],
                native_data=board(n, integer=True), v02=True, target=1.0)


@family(10000)
def rank_top_head(n):
    # A leaderboard's first page, the usual read.
    return Case("RANK.TOP 10 head", n, board(n),
                zkit=lambda i, p: ["RANK.TOP", p + "b", 10],
                native=lambda i, p: [["ZREVRANGE", p + "b", 0, 9, "WITHSCORES"]],
                native_data=board(n, integer=True), v02=True, target=1.0)


@family(10000)
def rank_around(n):
    # The natives: the member's rank, then the page around it.
    return Case("RANK.AROUND 5", n, board(n),
                zkit=lambda i, p: ["RANK.AROUND", p + "b", m(i, n), 5],
                native=lambda i, p: [["ZREVRANK", p + "b", m(i, n)],
                                     ["ZREVRANGE", p + "b", max(0, spread(i, n) - 5), spread(i, n) + 5,
                                      "WITHSCORES"]],
                native_data=board(n, integer=True), v02=True, target=1.0)


@family(10000)
def rank_mgift(n):
    keys = ("day", "week", "all")
    return Case("RANK.MGIFT 3 boards", n, board(n, *keys),
                zkit=lambda i, p: ["RANK.MGIFT", 3, *(p + k for k in keys), m(i, n), 5],
                native=lambda i, p: [c for k in keys for c in (["ZINCRBY", p + k, 5, m(i, n)],
                                                               ["ZREVRANK", p + k, m(i, n)])],
                native_data=board(n, *keys, integer=True), v02=True, target=1.0)


@family(10000)
def rank_mget(n):
    def members(i):
        return [m(i * 10 + j, n) for j in range(10)]

    return Case("RANK.MGET 10", n, board(n),
                zkit=lambda i, p: ["RANK.MGET", p + "b", "MEMBERS", *members(i)],
                native=lambda i, p: [["ZMSCORE", p + "b", *members(i)]]
                + [["ZREVRANK", p + "b", member] for member in members(i)],
                native_data=board(n, integer=True),
                v02=lambda i, p: ["RANK.MGET", p + "b", *members(i)], target=1.0)


@family(100)
def rank_merge(n):
    return Case("RANK.MERGE 2 boards", n, board(n, "a", "c"),
                zkit=lambda i, p: ["RANK.MERGE", p + "d", 2, p + "a", p + "c"],
                native=lambda i, p: [["ZUNIONSTORE", p + "d", 2, p + "a", p + "c"]], v02=True, calls=32)


@family(10, 100, 10000)
def feed_page(n):
    # A page of 20 from the middle of a feed scored 0..n-1.
    cursor = feed_cursor(n // 2, f"m:{n // 2}")
    return Case("FEED.PAGE OLDER 20", n, zset(n, "f", "i", "m:%d"),
                zkit=lambda i, p: ["FEED.PAGE", p + "f", "COUNT", 20, "OLDER", cursor],
                native=lambda i, p: [["ZREVRANGEBYSCORE", p + "f", f"({n // 2}", "-inf", "WITHSCORES",
                                      "LIMIT", 0, 20]], v02=True, target=1.5)


@family(100, 10000)
def feed_add(n):
    # Each add is newer than the feed and trims its oldest item; the natives
    # re-score an item (separate commands cannot add and trim in turn), then
    # ZCARD tells the caller whether to trim.
    return Case("FEED.ADD CAP", n, zset(n, "f", "i", "m:%d"),
                zkit=lambda i, p: ["FEED.ADD", p + "f", "CAP", n, n + i, f"new:{i}"],
                native=lambda i, p: [["ZADD", p + "f", n + i, m(i, n)], ["ZCARD", p + "f"]],
                v02=True, target=1.0)


@family(10000)
def vote_cast(n):
    def keys(i, p):
        return p + "s", f"{p}up:{spread(i, n)}", f"{p}down:{spread(i, n)}", f"i:{spread(i, n)}", \
            f"u:{spread(i, n, 3)}"

    def natives(i, p):
        scores, up, down, item, voter = keys(i, p)
        return [["SISMEMBER", up, voter], ["SISMEMBER", down, voter], ["SADD", up, voter],
                ["ZINCRBY", scores, 432, item], ["SCARD", up], ["SCARD", down]]

    return Case("VOTE.CAST", n, zset(n, "s", "1000000000 + i", "i:%d"),
                zkit=lambda i, p: ["VOTE.CAST", *keys(i, p), "UP", "WEIGHT", 432, 432],
                native=natives, v02=True, target=1.0)


@family(10, 10000)
def delay_poll(n):
    # Queues of n tasks due in 2096 and the due tasks the calls claim.
    return Case("DELAY.POLL", n, tasks(n, "q", "later:%d", "i", "due:%d"),
                zkit=lambda i, p: ["DELAY.POLL", key_of(p, i, n, "q")],
                native=lambda i, p: [["ZPOPMIN", key_of(p, i, n, "q")]],
                v02=True, check=claimed, target=1.0)


@family(10, 10000)
def delay_poll_lease(n):
    # Each queue has its in-flight set, holding n leased tasks.
    return Case("DELAY.POLL LEASE", n, tasks(n, "q", "later:%d", "i", "due:%d", held="held"),
                zkit=lambda i, p: ["DELAY.POLL", key_of(p, i, n, "q"), "LEASE", key_of(p, i, n, "held"), 600000],
                native=lambda i, p: [["ZPOPMIN", key_of(p, i, n, "q")],
                                     ["ZADD", key_of(p, i, n, "held"), 4000000000000, f"due:{i}"]],
                v02=True, check=claimed, target=1.0)


@family(10, 10000)
def delay_ack(n):
    # In-flight sets of n tasks held until 2096 and the done tasks acked.
    return Case("DELAY.ACK", n, tasks(n, "held", "t:%d", "4000000000000", "done:%d"),
                zkit=lambda i, p: ["DELAY.ACK", key_of(p, i, n, "held"), "TASKS", f"done:{i}"],
                native=lambda i, p: [["ZREM", key_of(p, i, n, "held"), f"done:{i}"]],
                v02=lambda i, p: ["DELAY.ACK", key_of(p, i, n, "held"), f"done:{i}"],
                check=lambda reply: reply == 1, target=0.8)


def held_tasks(n):
    """An in-flight set of n tasks held:0.. leased until 2096, used by every
    call: NACK and TOUCH leave each task held, so the set keeps its size."""
    return zset(n, "held", "4000000000000", "held:%d")


@family(100, 10000)
def delay_nack(n):
    # The in-flight set is its own queue (a visibility timeout): a NACK
    # moves a held task to a day from now; the natives move it to a time
    # later than every task they moved before, as the clock does.
    return Case("DELAY.NACK", n, held_tasks(n),
                zkit=lambda i, p: ["DELAY.NACK", p + "held", p + "held", f"held:{i % n}", 86400000],
                native=lambda i, p: [["ZSCORE", p + "held", f"held:{i % n}"],
                                     ["ZADD", p + "held", 1700000000000 + i, f"held:{i % n}"]],
                v02=True, check=lambda reply: reply == 1, target=1.0)


@family(100, 10000)
def delay_touch(n):
    # A TOUCH extends a held task's lease by a day.
    return Case("DELAY.TOUCH", n, held_tasks(n),
                zkit=lambda i, p: ["DELAY.TOUCH", p + "held", f"held:{i % n}", 86400000],
                native=lambda i, p: [["ZSCORE", p + "held", f"held:{i % n}"],
                                     ["ZADD", p + "held", 1700000000000 + i, f"held:{i % n}"]],
                v02=True, check=lambda reply: reply == 1, target=1.0)


def rate_log(n):
    # A log at its limit n over ~30 years: every hit is refused.
    return zset(n, "r", "1700000000000", "1700000000000-%d")


RATE_NATIVES = [["ZREMRANGEBYSCORE", "{r}", "-inf", 0], ["ZCARD", "{r}"], ["ZRANGE", "{r}", 0, 0, "WITHSCORES"]]


@family(100, 10000)
def rate_hit(n):
    return Case("RATE.HIT refused", n, rate_log(n),
                zkit=lambda i, p: ["RATE.HIT", p + "r", 1000000000000, n],
                native=lambda i, p: [[w.replace("{r}", p + "r") if isinstance(w, str) else w for w in c]
                                     for c in RATE_NATIVES], v02=True, target=1.0)


@family(90)
def rate_hit_allowed(n):
    # A log of n entries well inside a limit it never reaches: every hit is
    # allowed, and added with one lookup (ZADD NX). Few calls, so the log
    # stays a listpack (at most 128 entries), where a lookup walks it. Paced:
    # each hit is the first of its millisecond.
    return Case("RATE.HIT allowed", n, rate_log(n), calls=24, paced=True,
                zkit=lambda i, p: ["RATE.HIT", p + "r", 1000000000000, 1000000],
                native=lambda i, p: [["ZREMRANGEBYSCORE", p + "r", "-inf", 0], ["ZCARD", p + "r"],
                                     ["ZADD", p + "r", 1800000000000 + i, f"h:{i}"],
                                     ["PEXPIREAT", p + "r", 4000000000000]], v02=True)


@family(100)
def rate_hit_idmp(n):
    def zkit(i, p):
        return ["RATE.HIT", p + "r", "IDMP", p + "seen", f"e:{i}", 1000000000000, n]

    def remember(i, p):
        return ["ZADD", p + "seen", 4000000000000, f"e:{i}"]

    return Case("RATE.HIT IDMP", n, both(rate_log(n), seen_ids(SEEN, zkit)), zkit=zkit,
                native=lambda i, p: [["ZSCORE", p + "seen", f"e:{i}"]]
                + [[w.replace("{r}", p + "r") if isinstance(w, str) else w for w in c] for c in RATE_NATIVES]
                + [remember(i, p)],
                native_data=both(rate_log(n), seen_ids(SEEN, remember)))


@family(100)
def recent_add(n):
    # Views of items out of 2n on a list at its cap n: half move an item to
    # the front, half add one and trim the oldest.
    return Case("RECENT.ADD", n, zset(n, "v", "1700000000000 + i", "m:%d"),
                zkit=lambda i, p: ["RECENT.ADD", p + "v", "CAP", n, "TTL", 2592000, "ITEMS", m(i, 2 * n)],
                native=lambda i, p: [["ZINCRBY", p + "v", 10000000000000, m(i, n)],
                                     ["ZREMRANGEBYRANK", p + "v", 0, -(n + 1)], ["EXPIRE", p + "v", 2592000]],
                v02=lambda i, p: ["RECENT.ADD", p + "v", m(i, 2 * n), "CAP", n, "TTL", 2592000], target=1.0)


def cases(sizes=None):
    """Every case, at its family's sizes or at `sizes`."""
    return [make(n) for make, default in FAMILIES for n in (sizes or default)]


# ---- the Functions library, the script a team writes, the module -----------------
#
# Every command the library has, at 100 and 10,000 members: the library's
# function (FCALL) and the script a team would write for it (bench/lua,
# EVALSHA) on a server without the module, and the module's command on the
# guard's server, each on its own copy of the same data. The library's
# count is held to bench/guard-baseline-library.tsv as zkit's is to its
# baseline; the script's and the module's tell its ratios (targets: at most
# 1.3x the script and 3x the module, in requests' instructions).

LIBRARY_BASELINE = ROOT / "bench/guard-baseline-library.tsv"
LIBRARY_SIZES = (100, 10000)
LIBRARY_TARGETS = {"script": 1.3, "module": 3.0}


class LibraryCase:
    """One command at one size: its data, the module's argv (`zkit(i, p)`),
    the call's keys (`keys(i, p)`, what FCALL declares), and the script
    (a file of bench/lua) with its arguments (`script_args(i, p)`, after
    the same keys unless `script_keys(i, p)` says others); `paced` as for
    a `Case`."""

    def __init__(self, name, size, data, zkit, keys, script, script_args, script_keys=None, calls=None,
                 check=None, paced=False):
        self.name, self.size, self.data, self.zkit, self.keys = name, size, data, zkit, keys
        self.script, self.script_args = script, script_args
        self.script_keys = script_keys or keys
        self.calls, self.check, self.paced = calls, check, paced

    @property
    def label(self):
        return f"{self.name} @{self.size}"


def fcall_of(argv, keys):
    return ["FCALL", "zkit_" + argv[0].lower().replace(".", "_"), len(keys), *keys, *argv[1:]]


def library_cases(sizes=LIBRARY_SIZES):
    out = []
    b = lambda p: [p + "b"]  # noqa: E731
    for n in sizes:
        out += [
            LibraryCase("RANK.GIFT", n, board(n), lambda i, p, n=n: ["RANK.GIFT", p + "b", m(i, n), 5],
                        lambda i, p: b(p), "rank_gift.lua", lambda i, p, n=n: [m(i, n), 5]),
            # Each set beats the member's best: a new best every call.
            LibraryCase("RANK.SET GT", n, board(n),
                        lambda i, p, n=n: ["RANK.SET", p + "b", m(i, n), 1000 + i, "GT"],
                        lambda i, p: b(p), "rank_set_gt.lua", lambda i, p, n=n: [m(i, n), 1000 + i]),
            LibraryCase("RANK.MGIFT 3 boards", n, board(n, "day", "week", "all"),
                        lambda i, p, n=n: ["RANK.MGIFT", 3, p + "day", p + "week", p + "all", m(i, n), 5],
                        lambda i, p: [p + "day", p + "week", p + "all"], "rank_mgift.lua",
                        lambda i, p, n=n: [m(i, n), 5]),
            LibraryCase("RANK.GET", n, board(n), lambda i, p, n=n: ["RANK.GET", p + "b", m(i, n)],
                        lambda i, p: b(p), "rank_get.lua", lambda i, p, n=n: [m(i, n)]),
            LibraryCase("RANK.MGET 10", n, board(n),
                        lambda i, p, n=n: ["RANK.MGET", p + "b", "MEMBERS", *(m(i * 10 + j, n) for j in range(10))],
                        lambda i, p: b(p), "rank_mget.lua", lambda i, p, n=n: [m(i * 10 + j, n) for j in range(10)]),
            LibraryCase("RANK.TOP 10", n, board(n),
                        lambda i, p, n=n: ["RANK.TOP", p + "b", 10, "OFFSET", spread(i, n - 10)],
                        lambda i, p: b(p), "rank_page.lua", lambda i, p, n=n: [10, spread(i, n - 10)]),
            LibraryCase("RANK.AROUND 5", n, board(n), lambda i, p, n=n: ["RANK.AROUND", p + "b", m(i, n), 5],
                        lambda i, p: b(p), "rank_around.lua", lambda i, p, n=n: [m(i, n), 5]),
            LibraryCase("RANK.STATS", n, board(n), lambda i, p: ["RANK.STATS", p + "b"],
                        lambda i, p: b(p), "rank_stats.lua", lambda i, p: []),
            # Two boards into a third, whole: every member read and written.
            LibraryCase("RANK.MERGE 2 boards", n, board(n, "a", "c"),
                        lambda i, p: ["RANK.MERGE", p + "d", 2, p + "a", p + "c"],
                        lambda i, p: [p + "d", p + "a", p + "c"], "rank_merge.lua", lambda i, p: [],
                        calls=max(2, 3200 // n)),
            LibraryCase("FEED.ADD CAP", n, zset(n, "f", "i", "m:%d"),
                        lambda i, p, n=n: ["FEED.ADD", p + "f", "CAP", n, n + i, f"new:{i}"],
                        lambda i, p: [p + "f"], "feed_add.lua", lambda i, p, n=n: [n, n + i, f"new:{i}"]),
            LibraryCase("FEED.PAGE OLDER 20", n, zset(n, "f", "i", "m:%d"),
                        lambda i, p, n=n: ["FEED.PAGE", p + "f", "COUNT", 20, "OLDER",
                                           feed_cursor(n // 2, f"m:{n // 2}")],
                        lambda i, p: [p + "f"], "feed_page.lua", lambda i, p, n=n: [20, n // 2, f"m:{n // 2}"]),
            LibraryCase("DELAY.POLL LEASE", n, tasks(n, "q", "later:%d", "i", "due:%d", held="held"),
                        lambda i, p, n=n: ["DELAY.POLL", key_of(p, i, n, "q"), "LEASE", key_of(p, i, n, "held"),
                                           600000],
                        lambda i, p, n=n: [key_of(p, i, n, "q"), key_of(p, i, n, "held")], "delay_poll.lua",
                        lambda i, p: [1, 600000], check=claimed),
            LibraryCase("DELAY.ACK", n, tasks(n, "held", "t:%d", "4000000000000", "done:%d"),
                        lambda i, p, n=n: ["DELAY.ACK", key_of(p, i, n, "held"), "TASKS", f"done:{i}"],
                        lambda i, p, n=n: [key_of(p, i, n, "held")], "delay_ack.lua", lambda i, p: [f"done:{i}"],
                        check=lambda reply: reply == 1),
            LibraryCase("DELAY.NACK", n, held_tasks(n),
                        lambda i, p, n=n: ["DELAY.NACK", p + "held", p + "held", f"held:{i % n}", 86400000],
                        lambda i, p: [p + "held", p + "held"], "delay_nack.lua",
                        lambda i, p, n=n: [f"held:{i % n}", 86400000], check=lambda reply: reply == 1),
            LibraryCase("DELAY.TOUCH", n, held_tasks(n),
                        lambda i, p, n=n: ["DELAY.TOUCH", p + "held", f"held:{i % n}", 86400000],
                        lambda i, p: [p + "held"], "delay_touch.lua", lambda i, p, n=n: [f"held:{i % n}", 86400000],
                        check=lambda reply: reply == 1),
            LibraryCase("DELAY.STATS", n, both(zset(n, "q", "i * 1000000000", "t:%d"), held_tasks(n)),
                        lambda i, p: ["DELAY.STATS", p + "q", "INFLIGHT", p + "held"],
                        lambda i, p: [p + "q", p + "held"], "delay_stats.lua", lambda i, p: []),
            LibraryCase("RATE.HIT refused", n, rate_log(n), lambda i, p, n=n: ["RATE.HIT", p + "r", 1000000000000, n],
                        lambda i, p: [p + "r"], "rate_hit.lua", lambda i, p, n=n: [1000000000000, n]),
            LibraryCase("RATE.STATS", n, rate_log(n),
                        lambda i, p: ["RATE.STATS", p + "r", "WINDOWS", 60000, 1000000000000],
                        lambda i, p: [p + "r"], "rate_stats.lua", lambda i, p: [60000, 1000000000000]),
            LibraryCase("RECENT.ADD CAP TTL", n, zset(n, "v", "1700000000000 + i", "m:%d"),
                        lambda i, p, n=n: ["RECENT.ADD", p + "v", "CAP", n, "TTL", 2592000, "ITEMS", m(i, 2 * n)],
                        lambda i, p: [p + "v"], "recent_add_zset.lua", lambda i, p, n=n: [m(i, 2 * n), n, 2592000]),
            LibraryCase("VOTE.CAST", n, zset(n, "s", "1000000000 + i", "i:%d"),
                        lambda i, p, n=n: ["VOTE.CAST", p + "s", f"{p}up:{spread(i, n)}", f"{p}down:{spread(i, n)}",
                                           f"i:{spread(i, n)}", f"u:{spread(i, n, 3)}", "UP", "WEIGHT", 432, 432],
                        lambda i, p, n=n: [p + "s", f"{p}up:{spread(i, n)}", f"{p}down:{spread(i, n)}"],
                        "vote_cast.lua",
                        lambda i, p, n=n: [f"i:{spread(i, n)}", f"u:{spread(i, n, 3)}", "UP", 432, 432]),
            LibraryCase("VOTE.STATE", n, voters(n),
                        lambda i, p, n=n: ["VOTE.STATE", p + "up", p + "down", f"u:{spread(i, 2 * n)}"],
                        lambda i, p: [p + "up", p + "down"], "vote_state.lua", lambda i, p, n=n: [f"u:{spread(i, 2 * n)}"]),
        ]
    return out


def voters(n):
    """n upvoters u:0.. and n downvoters u:n..: a call asks about one of them."""
    def data(conn, p, calls):
        build(conn, f"""
          for s = 0, {n - 1}, 1000 do
            local up, down = {{}}, {{}}
            for i = s, math.min(s + 999, {n - 1}) do
              up[#up + 1] = 'u:' .. i
              down[#down + 1] = 'u:' .. (i + {n})
            end
            redis.call('SADD', '{p}up', unpack(up))
            redis.call('SADD', '{p}down', unpack(down))
          end""")

    return data


# A function that runs a full garbage collection in the functions' Lua state.
GARBAGE_COLLECTOR = """#!lua name=guard
redis.register_function{function_name = 'guard_collect_garbage', flags = {'no-writes'},
  callback = function() collectgarbage('collect') return 1 end}
"""


def run_library_case(server, case, variant, calls, scripts):
    """Builds the variant's data, warms up and measures; per-call (command,
    request)."""
    prefix = f"{variant}:{case.name.replace(' ', '_')}:{case.size}:"
    calls = case.calls or calls
    if variant == "module":
        per_call = case.zkit
    elif variant == "library":
        per_call = lambda i, p: fcall_of(case.zkit(i, p), case.keys(i, p))  # noqa: E731
    else:
        per_call = lambda i, p: ["EVALSHA", scripts[case.script], len(case.script_keys(i, p)),  # noqa: E731
                                 *case.script_keys(i, p), *case.script_args(i, p)]
    warm = max(1, calls // 4)
    server.control("-i", "off")
    case.data(server.conn, prefix, warm + calls)
    # Each measurement starts from a Lua state with no garbage: how much its
    # collector works in a call depends on what the state ran before. EVAL's
    # state is made anew by SCRIPT FLUSH; the functions' state lives on, so
    # a full collection empties it.
    if variant == "library":
        server.conn.call("FUNCTION", "FLUSH", "SYNC")
        server.conn.call("FUNCTION", "LOAD", scripts[None])
        server.conn.call("FUNCTION", "LOAD", GARBAGE_COLLECTOR)
        server.conn.call("FCALL", "guard_collect_garbage", 0)
    elif variant == "script":
        server.conn.call("SCRIPT", "FLUSH", "SYNC")
        server.conn.call("SCRIPT", "LOAD", (ROOT / "bench/lua" / case.script).read_text())
    server.control("-i", "on")
    for reply in server.conn.pipeline([per_call(i, prefix) for i in range(warm)], case.paced):
        if isinstance(reply, ReplyError):
            raise SystemExit(f"guard: {case.label} ({variant}) warm-up: {reply}")
    measured = [per_call(i, prefix) for i in range(warm, warm + calls)]
    command, total, replies = server.measure(measured, f"{case.name.replace(' ', '_')}-{case.size}-{variant}",
                                             case.paced)
    if variant != "script" and case.check:
        bad = [r for r in replies if not case.check(r)]
        if bad:
            raise SystemExit(f"guard: {case.label} ({variant}): {len(bad)} replies are not what the case "
                             f"measures, e.g. {bad[0]!r}")
    server.conn.call("FLUSHALL")
    return command / calls, total / calls


def library_guard(args, module_server, out, started, server_version):
    """Measures the library's cases (--library); returns what fails."""
    only = {c for c in args.cases.split(",") if c}
    sizes = [int(s) for s in args.sizes.split(",") if s] or LIBRARY_SIZES
    selected = [c for c in library_cases(sizes) if not only or c.name in only]
    if not selected:
        return []
    plain = Server(args.server, None, out, free_port(args.port and args.port + 500))
    results = {}
    try:
        scripts = {c.script: plain.conn.call("SCRIPT", "LOAD", (ROOT / "bench/lua" / c.script).read_text()).decode()
                   for c in selected}
        scripts[None] = Path(args.library_file).read_text()
        if args.profiles:
            plain.keep = module_server.keep
        # A check measures the library alone and reads the script's and the
        # module's counts from the baseline (the module's own cases guard
        # the module; a server binary that moved shows in their natives):
        # a third of the time. --update and --library-all measure all three,
        # the library's cases first, so that its server has run what a
        # check's has run before each (its allocator's and keyspace's state
        # moves the counts by a few percent).
        variants = [("library", plain)]
        if args.update or args.library_all:
            variants += [("script", plain), ("module", module_server)]
        # A check measures a case over the limit twice more and keeps the
        # lowest counts, as the module's cases do (main).
        check = not args.update
        baseline = read_baseline(Path(args.library_baseline))[0] if check else {}
        limit = args.threshold / 100
        for variant, server in variants:
            for case in selected:
                key = (case.name, case.size, variant)
                base = baseline.get(key) if variant == "library" else None
                for attempt in range(3 if base else 1):
                    got = run_library_case(server, case, variant, args.library_calls, scripts)
                    if key in results:
                        got = tuple(map(min, results[key], got))
                    results[key] = got
                    print(f"guard: {case.label:28} {variant:7} command {got[0]:9.0f}  request {got[1]:9.0f}"
                          f"  ({time.time() - started:.0f} s)" + (f" (lowest of {attempt + 1})" if attempt else ""),
                          file=sys.stderr, flush=True)
                    if not base or got[0] / base[0] - 1 <= limit:
                        break
    finally:
        plain.stop()
    baseline_path = Path(args.library_baseline)
    if args.update:
        kept, _ = read_baseline(baseline_path)
        write_baseline(baseline_path, results, server_version, args.update, keep=kept)
    baseline, meta = read_baseline(baseline_path)
    write_baseline(out / "table-library.tsv", results, server_version, f"run of {time.strftime('%Y-%m-%d %H:%M')}")
    for case in selected:
        for variant in ("script", "module"):
            key = (case.name, case.size, variant)
            if key not in results and key in baseline:
                results[key] = baseline[key]
    return library_report(selected, results, baseline, meta, server_version, args)


def library_report(selected, results, baseline, meta, server_version, args):
    """Prints the library's table; returns what fails the guard."""
    check = not args.update
    limit = args.threshold / 100
    failures = []
    if check and meta.get("server") != server_version:
        failures.append(f"the library's baseline was taken on server {meta.get('server')}, this is {server_version}")
    print("\n| case | size | library: command | baseline | change | script | module | library / script "
          "| library / module | per request: / script | / module |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")

    def ratio(lib, other, column, target):
        if other is None:
            return "-"
        value = lib[column] / other[column]
        return f"{value:.2f}x" + ("" if target is None else (" ok" if value <= target else " **miss**"))

    for case in selected:
        lib, script, module = (results.get((case.name, case.size, v)) for v in ("library", "script", "module"))
        base = baseline.get((case.name, case.size, "library"))
        change = "-"
        if check and base is None:
            failures.append(f"{case.label} (library): not in the baseline (add it with --update)")
        elif check:
            delta = lib[0] / base[0] - 1
            change = f"{delta:+.1%}"
            if delta > limit:
                failures.append(f"{case.label} (library): {lib[0]:.0f} instructions per call, {delta:+.1%} "
                                f"over the baseline's {base[0]:.0f}")
            elif delta < -limit:
                change += " (cheaper: update the baseline)"
            sbase = baseline.get((case.name, case.size, "script"))
            if sbase and script and abs(script[0] / sbase[0] - 1) > 2 * limit:
                failures.append(f"{case.label}: the script moved {script[0] / sbase[0] - 1:+.1%} from the "
                                f"baseline: is this the server the baseline was taken on?")

        print("| " + " | ".join([
            case.name, str(case.size), f"{lib[0]:.0f}", f"{base[0]:.0f}" if base else "-", change,
            f"{script[0]:.0f}" if script else "-", f"{module[0]:.0f}" if module else "-",
            ratio(lib, script, 0, None), ratio(lib, module, 0, None),
            ratio(lib, script, 1, LIBRARY_TARGETS["script"]), ratio(lib, module, 1, LIBRARY_TARGETS["module"]),
        ]) + " |")
    return failures


# ---- the server under callgrind ----------------------------------------------------


class Server:
    def __init__(self, server, module, workdir, port):
        self.dir = Path(tempfile.mkdtemp(prefix="server.", dir=workdir))
        self.port = port
        # Instrumentation starts off: data is built at valgrind's plain speed
        # and only the measured calls are instrumented. hz 1: valgrind slows
        # the server, not its timers.
        argv = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--log-file={self.dir}/valgrind.log", f"--callgrind-out-file={self.dir}/callgrind.out",
                server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                "--save", "", "--appendonly", "no", "--hz", "1", "--logfile", "server.log",
                # A call slowed past 10 ms by a loaded machine would be logged,
                # at the cost of a copy of its arguments.
                "--slowlog-log-slower-than", "-1",
                "--enable-debug-command", "local", "--jemalloc-bg-thread", "no"]
        if module:
            argv += ["--loadmodule", str(module)]
        # Fixed seeds (bench/guard-seed.c): the same skiplist levels and
        # hash tables on every run.
        seed = Path(workdir) / "guard-seed.so"
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(seed), str(ROOT / "bench/guard-seed.c"),
                        "-ldl"], check=True)
        # The allocator returns freed pages on a timer (its background thread,
        # its decay): how much of that falls inside a measured run would
        # depend on the machine's load. It keeps them.
        env = dict(os.environ, LD_PRELOAD=str(seed), MALLOC_CONF="dirty_decay_ms:-1,muzzy_decay_ms:-1")
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True, env=env)
        deadline = time.time() + 120
        while True:
            try:
                self.conn = Connection(port)
                self.conn.call("PING")
                break
            except (OSError, ConnectionError):
                if self.proc.poll() is not None or time.time() > deadline:
                    log = (self.dir / "server.log")
                    tail = log.read_text()[-400:] if log.exists() else ""
                    sys.exit(f"guard: the server did not start: {tail}")
                time.sleep(0.1)
        # The server's timer shrinks a client's reply buffer to what it used
        # lately, so whether a batch's replies fit in it would depend on when
        # the timer ran: keep it whole.
        self.conn.call("DEBUG", "REPLYBUFFER", "RESIZING", 0)
        self.dumps = 0
        self.keep = None

    def control(self, *args):
        subprocess.run(["callgrind_control", *args, str(self.proc.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def measure(self, calls, label, paced=False):
        """Runs `calls` (the warm-up done) and returns the instructions of the
        whole run: (inside processCommand, the whole server), and the replies."""
        self.control("-z")
        replies = self.conn.pipeline(calls, paced)
        for reply in replies:
            if isinstance(reply, ReplyError):
                raise reply
        self.control("-d")
        self.dumps += 1
        dump = self.dir / f"callgrind.out.{self.dumps}"
        deadline = time.time() + 60
        while not dump.exists() or "totals:" not in dump.read_text()[-4096:]:
            if time.time() > deadline:
                sys.exit(f"guard: callgrind wrote no {dump}")
            time.sleep(0.05)
        total, command = read_dump(dump)
        if self.keep:
            dump.rename(self.keep / f"{label}.callgrind")
        else:
            dump.unlink()
        return command, total, replies

    def stop(self):
        try:
            self.conn.call("SHUTDOWN", "NOSAVE")
        except (ConnectionError, OSError, ReplyError):
            pass
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def read_dump(path):
    """(every instruction, the instructions inside processCommand) of one
    callgrind dump."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(path)],
                         check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        match = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(?:\?\?\?:)?(\S+)", line)
        if match:
            found.setdefault(match.group(2), int(match.group(1).replace(",", "")))
    if "PROGRAM" not in found or "processCommand" not in found:
        sys.exit(f"guard: no totals or processCommand in {path}")
    # The server's timer (once a second with hz 1) runs whenever it falls in
    # the run: not part of any request.
    return found["PROGRAM"] - found.get("serverCron", 0), found["processCommand"]


# ---- the run ------------------------------------------------------------------------


def free_port(given=None):
    """The port --port gave, else a spare one (scripts/spare_ports.py)."""
    return given if given is not None else spare_ports.free_port()


def run_case(server, case, variant, calls, syntax):
    """Builds the variant's data, warms up and measures; returns per-call
    (command, request) or None when the variant does not exist."""
    prefix = f"{variant}:{case.name.replace(' ', '_')}:{case.size}:"
    calls = case.calls or calls
    if variant == "zkit":
        make = case.zkit
        if syntax == "0.2":
            if not case.v02:
                return None
            if callable(case.v02):
                make = case.v02
        data = case.data
        per_call = lambda i, p: [make(i, p)]
    else:
        if not case.native:
            return None
        data = case.native_data
        per_call = case.native
    warm = calls // 4
    server.control("-i", "off")
    data(server.conn, prefix, warm + calls)
    server.control("-i", "on")
    warmup = [c for i in range(warm) for c in per_call(i, prefix)]
    for reply in server.conn.pipeline(warmup, case.paced):
        if isinstance(reply, ReplyError):
            raise SystemExit(f"guard: {case.label} ({variant}) warm-up: {reply}")
    measured = [c for i in range(warm, warm + calls) for c in per_call(i, prefix)]
    command, total, replies = server.measure(measured, f"{case.name.replace(' ', '_')}-{case.size}-{variant}",
                                             case.paced)
    if variant == "zkit" and case.check:
        bad = [r for r in replies if not case.check(r)]
        if bad:
            raise SystemExit(f"guard: {case.label}: {len(bad)} replies are not what the case measures, "
                             f"e.g. {bad[0]!r}")
    server.conn.call("FLUSHALL")
    return command / calls, total / calls


def read_baseline(path):
    rows = {}
    meta = {}
    if not path.exists():
        return rows, meta
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            m = re.match(r"#\s*(\w+):\s*(.*)$", line)
            if m:
                meta[m.group(1)] = m.group(2).strip()
            continue
        if not line.strip():
            continue
        name, size, variant, command, request = line.split("\t")
        rows[(name, int(size), variant)] = (float(command), float(request))
    return rows, meta


def write_baseline(path, results, server_version, reason, keep=None):
    """Writes `results` (and the rows of `keep` it does not measure)."""
    results = {**(keep or {}), **results}
    lines = [
        "# The perf guard's baseline (bench/guard.py, make perf-guard): server instructions",
        "# per call, command = inside processCommand, request = the whole server.",
        "# Change it only in a commit that says why the numbers moved.",
        f"# server: {server_version}",
        f"# reason: {reason}",
        "# case\tsize\tvariant\tcommand\trequest",
    ]
    for (name, size, variant), (command, request) in results.items():
        lines.append(f"{name}\t{size}\t{variant}\t{command:.0f}\t{request:.0f}")
    path.write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", default=str(ROOT / "target/release/libzkit.so"))
    parser.add_argument("--server", default="redis-server")
    parser.add_argument("--baseline", default=str(ROOT / "bench/guard-baseline.tsv"))
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--sizes", default="", help="comma-separated sizes (default: each case's)")
    parser.add_argument("--calls", type=int, default=256)
    parser.add_argument("--threshold", type=float, default=3.0, help="percent")
    parser.add_argument("--syntax", choices=["0.3", "0.2"], default="0.3",
                        help="0.2: run only the cases 0.2.0 had, in its syntax (no baseline check)")
    parser.add_argument("--update", metavar="REASON", help="write the baseline from this run")
    parser.add_argument("--out", default=str(ROOT / ".bench/guard"))
    parser.add_argument("--port", type=int, help="the server's port (the script's: 500 above); default: spare ones")
    parser.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                        help="CONFIG SET before the run (e.g. zkit.hot-set-writes=1000000000: small "
                             "boards stay listpacks; zkit.hot-board-writes before 0.5.0)")
    parser.add_argument("--profiles", action="store_true",
                        help="keep each measurement's callgrind profile in OUT/profiles (callgrind_annotate)")
    parser.add_argument("--library", choices=["with", "only", "without"], default="with",
                        help="the Functions library's cases (bench/guard-baseline-library.tsv): beside zkit's "
                             "(default), alone, or not at all")
    parser.add_argument("--library-calls", type=int, default=64, help="calls per library case")
    parser.add_argument("--library-all", action="store_true",
                        help="measure the script and the module beside the library too (--update does)")
    parser.add_argument("--library-baseline", default=str(LIBRARY_BASELINE))
    parser.add_argument("--library-file", default=str(ROOT / "functions/zkit.lua"),
                        help="the library measured (e.g. another build's, to compare)")
    parser.add_argument("--compare", action="append", default=[], metavar="NAME=TABLE",
                        help="add a column of another run's table (e.g. 0.2.0=.bench/guard/table-0.2.tsv)")
    args = parser.parse_args()

    module = Path(args.module)
    if not module.exists():
        sys.exit(f"guard: no module at {module} (cargo build --release)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # The server loads a copy: a build during the run cannot change it.
    loaded = out / ("libzkit-" + args.syntax + ".so")
    shutil.copy(module, loaded)
    version = subprocess.run([args.server, "--version"], capture_output=True, text=True).stdout
    server_version = re.search(r"v=(\S+)", version).group(1)
    only = {c for c in args.cases.split(",") if c}
    sizes = [int(s) for s in args.sizes.split(",") if s]
    selected = [c for c in cases(sizes) if not only or c.name in only] if args.library != "only" else []

    started = time.time()
    server = Server(args.server, loaded, out, free_port(args.port))
    for setting in args.config:
        name, _, value = setting.partition("=")
        server.conn.call("CONFIG", "SET", name, value)
    if args.profiles:
        server.keep = out / "profiles"
        server.keep.mkdir(exist_ok=True)
    results = {}
    check = args.syntax == "0.3" and not args.update
    baseline = read_baseline(Path(args.baseline))[0] if check else {}
    try:
        for case in selected:
            # Work the server's timer starts (a table it shrinks, which the
            # next commands rehash; a page it frees) can fall inside the
            # measured calls on a loaded machine and only ever adds: a case
            # over the guard's limits is measured again, up to twice, and
            # keeps each count's lowest.
            for attempt in range(1 + 2 * check):
                for variant in ("zkit", "native"):
                    got = run_case(server, case, variant, args.calls, args.syntax)
                    if got is None:
                        continue
                    key = (case.name, case.size, variant)
                    if key in results:
                        got = tuple(map(min, results[key], got))
                    results[key] = got
                    print(f"guard: {case.label:28} {variant:6} command {got[0]:9.0f}  request {got[1]:9.0f}"
                          f"  ({time.time() - started:.0f} s)" + (f" (lowest of {attempt + 1})" if attempt else ""),
                          file=sys.stderr, flush=True)
                if not over_limits(case, results, baseline, args.threshold / 100):
                    break
        library_failures = []
        if args.library != "without" and args.syntax == "0.3":
            library_failures = library_guard(args, server, out, started, server_version)
    finally:
        server.stop()

    baseline_path = Path(args.baseline)
    if args.update and results:
        kept, _ = read_baseline(baseline_path)
        write_baseline(baseline_path, results, server_version, args.update, keep=kept)
    baseline, meta = read_baseline(baseline_path) if args.syntax == "0.3" else ({}, {})
    table = out / f"table-{args.syntax}.tsv"
    write_baseline(table, results, server_version, f"run of {time.strftime('%Y-%m-%d %H:%M')}")
    failures = report(selected, results, baseline, meta, server_version, args) if selected else []
    failures += library_failures
    print(f"\nguard: {len(results)} measurements in {time.time() - started:.0f} s; table in {table}")
    if failures:
        print("\nguard: FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)


def over_limits(case, results, baseline, limit):
    """Whether a case's counts fail the guard: zkit's over the baseline by more
    than `limit`, or the natives' moved by more than twice it either way."""
    z = results.get((case.name, case.size, "zkit"))
    n = results.get((case.name, case.size, "native"))
    base = baseline.get((case.name, case.size, "zkit"))
    nbase = baseline.get((case.name, case.size, "native"))
    return bool((z and base and z[0] / base[0] - 1 > limit)
                or (n and nbase and abs(n[0] / nbase[0] - 1) > 2 * limit))


def report(selected, results, baseline, meta, server_version, args):
    """Prints the table; returns what fails the guard."""
    check = args.syntax == "0.3" and not args.update
    failures = []
    limit = args.threshold / 100
    if check and meta.get("server") != server_version:
        failures.append(f"the baseline was taken on server {meta.get('server')}, this is {server_version}")
    others = []
    for spec in args.compare:
        name, _, path = spec.partition("=")
        others.append((name, read_baseline(Path(path))[0]))
    print("\n| case | size | zkit: command | baseline | change | natives: command | natives / zkit "
          "| same, per request | target |" + "".join(f" {name} | zkit / {name} |" for name, _ in others))
    print("|---|---|---|---|---|---|---|---|---|" + "---|---|" * len(others))
    for case in selected:
        z = results.get((case.name, case.size, "zkit"))
        n = results.get((case.name, case.size, "native"))
        if z is None:
            continue
        base = baseline.get((case.name, case.size, "zkit"))
        change = "-"
        if check and base is None:
            failures.append(f"{case.label}: not in the baseline (add it with --update)")
        elif check:
            delta = z[0] / base[0] - 1
            change = f"{delta:+.1%}"
            if delta > limit:
                failures.append(f"{case.label}: {z[0]:.0f} instructions per call, {delta:+.1%} "
                                f"over the baseline's {base[0]:.0f}")
            elif delta < -limit:
                change += " (cheaper: update the baseline)"
            # The natives' tolerance is twice zkit's: they only tell a
            # different server binary, which moves them far more.
            nbase = baseline.get((case.name, case.size, "native"))
            if n and nbase and abs(n[0] / nbase[0] - 1) > 2 * limit:
                failures.append(f"{case.label}: the natives moved {n[0] / nbase[0] - 1:+.1%} from the "
                                f"baseline: is this the server the baseline was taken on?")
        cells = [case.name, str(case.size), f"{z[0]:.0f}", f"{base[0]:.0f}" if base else "-", change]
        if n:
            ratio = n[0] / z[0]
            cells += [f"{n[0]:.0f}", f"{ratio:.2f}x", f"{n[1] / z[1]:.2f}x"]
            target = "-"
            if case.target:
                target = f">= {case.target:.2f}x " + ("ok" if ratio >= case.target else "**miss**")
            cells.append(target)
        else:
            cells += ["-", "-", "-", "-"]
        for _, table in others:
            other = table.get((case.name, case.size, "zkit"))
            cells += [f"{other[0]:.0f}", f"{z[0] / other[0]:.2f}x"] if other else ["-", "-"]
        print("| " + " | ".join(cells) + " |")
    return failures


if __name__ == "__main__":
    main()
