#!/usr/bin/env python3
"""The chaos suite (`make chaos`): exactly-once gifts and leased tasks on a
replicated Redis Cluster while masters die, fail over and lose slots.

A 3-master cluster with one replica each runs on loopback with the release
module. Producers send RANK.GIFT ... IDMP with a fresh event id and retry
every failed or timed-out call with the same id until the gift is
acknowledged and WAIT-confirmed (a replica holds it). DELAY workers poll
due tasks with a lease and acknowledge them. Meanwhile a seeded scheduler
SIGKILLs a master (its replica is promoted, the killed node comes back as a
replica), runs CLUSTER FAILOVER on a replica, and moves the busiest board's
slot to another master, several times in a reproducible order. A merger
meanwhile runs stepped RANK.MERGEs (STEP) of each room's daily boards into
its weekly board, in the room's slot, advancing its cursor only once a step
is WAIT-confirmed and sending the same cursor again otherwise.

At the end it checks, and prints:
- every WAIT-confirmed gift is counted, and every board total is exactly the
  sum of the gifts whose event ids its seen-key holds (none counted twice,
  none counted without being remembered, no id that no producer sent);
- every WAIT-confirmed task was delivered at least once, and never to two
  workers inside one WAIT-confirmed lease;
- every weekly board a stepped merge finished equals the one-shot merge of
  its daily boards (a run that a step refused is abandoned and counted);
- no server aborted (logs scanned for assertions, crash reports, panics);
- every server's INFO zkit counters, and a summary line.

Exit status 0 when every check holds. Standard library only: a small RESP
client with its own cluster routing, so every timeout, MOVED, ASK and retry
is visible here.
"""

import argparse
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

# ---- RESP -----------------------------------------------------------------


class ReplyError(Exception):
    """An error reply (MOVED, ASK, TRYAGAIN, CLUSTERDOWN, ...)."""


class Conn:
    """One connection to one server; every call has a timeout."""

    def __init__(self, port, timeout=5.0):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.buf = b""

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2 :]
        return data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return ReplyError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n).decode()
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ConnectionError(f"unexpected reply {line!r}")

    def pipeline(self, commands):
        """Sends every command at once; returns the replies, errors included."""
        out = bytearray()
        for command in commands:
            out += b"*%d\r\n" % len(command)
            for word in command:
                word = str(word).encode()
                out += b"$%d\r\n%s\r\n" % (len(word), word)
        self.sock.sendall(out)
        return [self._reply() for _ in commands]

    def call(self, *command):
        reply = self.pipeline([command])[0]
        if isinstance(reply, ReplyError):
            raise reply
        return reply


def crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def key_slot(key):
    start = key.find("{")
    if start >= 0:
        end = key.find("}", start + 1)
        if end > start + 1:
            key = key[start + 1 : end]
    return crc16(key.encode()) % 16384


# ---- the cluster ----------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    def __init__(self, index, server, module, root):
        self.index = index
        self.server = server
        self.module = module
        self.dir = os.path.join(root, f"node{index}")
        os.makedirs(self.dir)
        self.port = free_port()
        self.bus_port = free_port()
        self.proc = None
        self.id = None

    def start(self):
        args = [
            self.server, "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", self.dir, "--logfile", "server.log", "--save", "",
            "--daemonize", "no",
            "--appendonly", "yes", "--appendfsync", "always",
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "3000", "--cluster-port", str(self.bus_port),
            # A replica may always take over; replicas never wander off.
            "--cluster-replica-validity-factor", "0",
            "--cluster-allow-replica-migration", "no",
            "--loadmodule", self.module,
        ]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(30, f"node {self.index} answers PING", lambda: self.ping())

    def ping(self):
        try:
            c = Conn(self.port, 1.0)
            try:
                return c.call("PING") == "PONG"
            finally:
                c.close()
        except (OSError, ReplyError):
            return False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def call(self, *command, timeout=10.0):
        c = Conn(self.port, timeout)
        try:
            return c.call(*command)
        finally:
            c.close()

    def log(self):
        try:
            with open(os.path.join(self.dir, "server.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""


def wait_until(seconds, what, condition, interval=0.1):
    deadline = time.monotonic() + seconds
    while True:
        try:
            if condition():
                return
        except (OSError, ReplyError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {seconds} s waiting until {what}")
        time.sleep(interval)


def cluster_nodes(node):
    """CLUSTER NODES as dicts (id, port, flags, master, link, slots)."""
    out = []
    for line in node.call("CLUSTER", "NODES").splitlines():
        fields = line.split()
        slots = []
        for field in fields[8:]:
            if field.startswith("["):
                continue
            lo, _, hi = field.partition("-")
            slots.append((int(lo), int(hi or lo)))
        out.append({
            "id": fields[0],
            "port": int(fields[1].split(":")[1].split("@")[0]),
            "flags": set(fields[2].split(",")),
            "master": fields[3],
            "link": fields[7],
            "slots": slots,
        })
    return out


class Cluster:
    def __init__(self, server, cli, module, root):
        self.nodes = [Node(i, server, module, root) for i in range(6)]
        self.cli = cli
        for node in self.nodes:
            node.start()
        subprocess.run(
            [cli, "--cluster", "create"]
            + [f"127.0.0.1:{n.port}" for n in self.nodes]
            + ["--cluster-replicas", "1", "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for node in self.nodes:
            node.id = node.call("CLUSTER", "MYID")
        self.wait_healthy("the cluster forms")

    def by_port(self, port):
        return next(n for n in self.nodes if n.port == port)

    def live(self):
        return [n for n in self.nodes if n.alive()]

    def topology(self):
        """(masters, replicas) as every live node agrees, sorted by index."""
        view = cluster_nodes(self.live()[0])
        masters = sorted(
            (self.by_port(e["port"]) for e in view
             if "master" in e["flags"] and "fail" not in e["flags"] and e["slots"]),
            key=lambda n: n.index,
        )
        replicas = sorted(
            (self.by_port(e["port"]) for e in view
             if "slave" in e["flags"] and "fail" not in e["flags"]),
            key=lambda n: n.index,
        )
        return masters, replicas

    def healthy(self):
        """Every live node says ok and sees 3 masters owning all slots, each
        with one replica whose link is up."""
        views = []
        for node in self.live():
            if "cluster_state:ok" not in node.call("CLUSTER", "INFO"):
                return False
            views.append(cluster_nodes(node))
        for view in views:
            masters = [e for e in view if "master" in e["flags"] and e["slots"]
                       and not e["flags"] & {"fail", "fail?"}]
            if len(masters) != 3 or sum(hi - lo + 1 for m in masters for lo, hi in m["slots"]) != 16384:
                return False
            for m in masters:
                replicas = [e for e in view if e["master"] == m["id"] and "slave" in e["flags"]
                            and not e["flags"] & {"fail", "fail?"}]
                if len(replicas) != 1:
                    return False
        for node in self.live():
            info = node.call("INFO", "replication")
            if "role:slave" in info and "master_link_status:up" not in info:
                return False
        # Every live node agrees on who owns what.
        owners = [sorted((e["id"], tuple(e["slots"])) for e in v if "master" in e["flags"] and e["slots"])
                  for v in views]
        return all(o == owners[0] for o in owners)

    def wait_healthy(self, what, seconds=90):
        wait_until(seconds, f"{what} (cluster healthy)", self.healthy, interval=0.2)

    def stop(self):
        for node in self.nodes:
            node.stop()


class Router:
    """A client's view of the cluster: slot -> port, refreshed on errors."""

    def __init__(self, cluster, timeout=5.0):
        self.cluster = cluster
        self.timeout = timeout
        self.slots = [None] * 16384
        self.conns = {}

    def refresh(self):
        for node in self.cluster.nodes:
            try:
                c = self.conn(node.port)
                layout = c.call("CLUSTER", "SLOTS")
            except (OSError, ReplyError):
                self.drop(node.port)
                continue
            if layout:
                for entry in layout:
                    for slot in range(entry[0], entry[1] + 1):
                        self.slots[slot] = int(entry[2][1])
                return

    def conn(self, port):
        if port not in self.conns:
            self.conns[port] = Conn(port, self.timeout)
        return self.conns[port]

    def drop(self, port):
        conn = self.conns.pop(port, None)
        if conn:
            conn.close()

    def run(self, key, commands):
        """Runs `commands` on the node serving `key`'s slot, following one
        MOVED or ASK; raises on connection errors and other error replies to
        the first command (the caller retries)."""
        slot = key_slot(key)
        if self.slots[slot] is None:
            self.refresh()
        port = self.slots[slot]
        if port is None:
            raise ConnectionError("no node serves the slot")
        for _ in range(3):
            try:
                replies = self.conn(port).pipeline(commands)
            except OSError:
                self.drop(port)
                raise
            first = replies[0]
            if isinstance(first, ReplyError):
                text = str(first)
                if text.startswith("MOVED "):
                    port = int(text.split()[2].rsplit(":", 1)[1])
                    self.slots[slot] = port
                    continue
                if text.startswith("ASK "):
                    target = int(text.split()[2].rsplit(":", 1)[1])
                    # ASKING lets the one command after it through.
                    asking = [c for command in commands for c in (["ASKING"], command)]
                    try:
                        replies = self.conn(target).pipeline(asking)[1::2]
                    except OSError:
                        self.drop(target)
                        raise
                    if isinstance(replies[0], ReplyError):
                        raise replies[0]
                    return replies
                raise first
            return replies
        raise ReplyError("too many redirections")

    def close(self):
        for port in list(self.conns):
            self.drop(port)


# ---- the workload ---------------------------------------------------------

ROOMS = 12
MEMBERS = 8
QUEUES = 4
LEASE_MS = 3000


def board(room):
    return f"{{room:{room}}}:board"


def seen_key(room):
    return f"{{room:{room}}}:seen"


def confirmed(router, key, command, wait_ms=2000):
    """Runs a write, then WAIT 1 on the same connection: (reply, replicas).
    A write in the key's slot first moves the connection's replication
    offset to the end of the stream, so WAIT confirms everything the master
    held at the call, a repeat's earlier write included."""
    tag = key[: key.index("}") + 1]
    reply, _, acked = router.run(key, [command, ["INCR", f"{tag}:chaos-offset"], ["WAIT", 1, wait_ms]])
    if isinstance(reply, ReplyError):
        raise reply
    return reply, acked if isinstance(acked, int) else 0


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}

    def add(self, name, n=1):
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + n

    def get(self, name):
        return self.counts.get(name, 0)


class Producer(threading.Thread):
    """Gifts with IDMP; every failed, timed-out or unconfirmed call is sent
    again with the same event id until a replica holds it."""

    def __init__(self, number, seed, cluster, stop, drain_deadline, stats):
        super().__init__(daemon=True)
        self.number = number
        self.rng = random.Random(seed * 1000 + number)
        self.router = Router(cluster)
        self.stop = stop
        self.drain_deadline = drain_deadline
        self.stats = stats
        self.events = []  # (event id, room, member, amount, confirmed)
        self.error = None

    def run(self):
        try:
            seq = 0
            while not self.stop.is_set():
                seq += 1
                event = (f"p{self.number}-{seq}", self.rng.randrange(ROOMS),
                         f"m{self.rng.randrange(MEMBERS)}", self.rng.randint(1, 1000))
                self.events.append(event + (self.send(*event),))
        except Exception as e:  # reported by the main thread
            self.error = repr(e)
        finally:
            self.router.close()

    def send(self, event_id, room, member, amount):
        attempt = 0
        while time.monotonic() < self.drain_deadline[0]:
            attempt += 1
            if attempt > 1:
                self.stats.add("retries")
            try:
                reply, acked = confirmed(
                    self.router, board(room),
                    ["RANK.GIFT", board(room), member, amount, "IDMP", seen_key(room), event_id])
                if reply[-1] == 1:
                    self.stats.add("duplicates_refused")
                if acked >= 1:
                    self.stats.add("gifts_confirmed")
                    return True
                self.stats.add("unconfirmed_waits")
            except (OSError, ReplyError) as e:
                self.stats.add("error " + error_kind(e))
                time.sleep(0.05 + 0.05 * self.rng.random())
                self.router.refresh()
        return False


def error_kind(e):
    if isinstance(e, ReplyError):
        return str(e).split()[0]
    return type(e).__name__


class Worker(threading.Thread):
    """Polls due tasks with a lease (WAIT-confirmed when a replica holds the
    lease) and acknowledges them; polls the in-flight sets too, which hand
    out tasks whose lease ended."""

    def __init__(self, number, seed, cluster, stop, stats, deliveries, lock):
        super().__init__(daemon=True)
        self.number = number
        self.rng = random.Random(seed * 7919 + number)
        self.router = Router(cluster)
        self.stop = stop
        self.stats = stats
        self.deliveries = deliveries
        self.lock = lock
        self.error = None

    def run(self):
        try:
            while not self.stop.is_set():
                q = self.rng.randrange(QUEUES)
                source = queue_key(q) if self.rng.random() < 0.8 else inflight_key(q)
                self.poll(q, source)
        except Exception as e:
            self.error = repr(e)
        finally:
            self.router.close()

    def poll(self, q, source):
        sent = time.time() * 1000
        try:
            tasks, acked = confirmed(
                self.router, source,
                ["DELAY.POLL", source, "COUNT", 5, "LEASE", inflight_key(q), LEASE_MS], wait_ms=1000)
        except (OSError, ReplyError) as e:
            self.stats.add("error " + error_kind(e))
            time.sleep(0.05)
            self.router.refresh()
            return
        received = time.time() * 1000
        if not tasks:
            time.sleep(0.02)
            return
        names = [task[0] for task in tasks]
        with self.lock:
            for name in names:
                self.deliveries.append((name, self.number, sent, received, acked >= 1))
        self.stats.add("deliveries", len(names))
        # A worker that dies mid-task never acks: 1 task in 30 is left to
        # its lease, so the in-flight polls hand it out again.
        dropped = [name for name in names if self.rng.random() < 1 / 30]
        self.stats.add("acks_skipped", len(dropped))
        names = [name for name in names if name not in dropped]
        if not names:
            return
        for _ in range(5):
            try:
                self.router.run(inflight_key(q), [["DELAY.ACK", inflight_key(q), "TASKS"] + names])
                return
            except (OSError, ReplyError) as e:
                self.stats.add("error " + error_kind(e))
                time.sleep(0.05)
                self.router.refresh()
        self.stats.add("acks_lost")


def queue_key(q):
    return f"{{jobs:{q}}}"


def inflight_key(q):
    return f"{{jobs:{q}}}:inflight"


def enqueue_tasks(cluster, count, start_ms, span_ms):
    """Schedules every task before the chaos starts, each WAIT-confirmed:
    retrying a ZADD after its task was delivered would schedule it again, so
    tasks are never enqueued during the chaos."""
    router = Router(cluster)
    tasks = []
    for n in range(count):
        q = n % QUEUES
        name = f"t{n}"
        due = start_ms + (n * span_ms) // count
        key = queue_key(q)
        wait_until(30, f"{name} is enqueued", lambda: confirmed(router, key, ["ZADD", key, due, name])[1] >= 1)
        tasks.append(name)
    router.close()
    return tasks


# ---- stepped merges -------------------------------------------------------

DAYS = 3
MERGE_WEIGHTS = [2, -1, 3]


def day_board(room, day):
    return f"{{room:{room}}}:day:{day}"


def week_board(room):
    return f"{{room:{room}}}:week"


def merge_staging(room):
    return f"{{room:{room}}}:week:staging"


def merge_call(room, count):
    days = [day_board(room, d) for d in range(DAYS)]
    return (["RANK.MERGE", week_board(room), DAYS] + days + ["WEIGHTS"] + MERGE_WEIGHTS
            + ["STEP", count, merge_staging(room)])


def fill_days(cluster, seed):
    """Daily boards that no longer change: every room's merge must end with
    their one-shot merge. Negative amounts and a negative weight; equal
    times, so that ties are ordered by when totals were reached."""
    rng = random.Random(seed * 31)
    router = Router(cluster)
    epoch = 1_704_067_200_000
    for room in range(ROOMS):
        for day in range(DAYS):
            key = day_board(room, day)
            for m in range(40):
                command = ["RANK.GIFT", key, f"m{rng.randrange(60)}", rng.randint(-500, 1000),
                           "AT", epoch + rng.randrange(4) * 60_000]
                wait_until(30, f"{key} is filled", lambda: confirmed(router, key, command)[1] >= 1)
    router.close()


class Merger(threading.Thread):
    """Runs stepped merges of each room's daily boards, room after room.
    Each run starts with a cursor of its own (`m2:<id>:0`), so every step,
    the first included, may be sent again: a step whose reply was lost or
    not WAIT-confirmed is sent again with the same cursor until a replica
    holds it. A step refused for what the run is (its staging key lost or
    taken, an old cursor) abandons the run: its staging key is deleted."""

    def __init__(self, seed, cluster, stop, stats):
        super().__init__(daemon=True)
        self.number = 0
        self.rng = random.Random(seed * 104729)
        self.router = Router(cluster)
        self.stop = stop
        self.stats = stats
        self.finished = set()  # rooms whose weekly board a run finished
        self.error = None

    def run(self):
        try:
            room = 0
            while not self.stop.is_set():
                self.merge(room)
                room = (room + 1) % ROOMS
        except Exception as e:
            self.error = repr(e)
        finally:
            self.router.close()

    def merge(self, room):
        cursor = "m2:%032x:0" % self.rng.getrandbits(128)
        while not self.stop.is_set():
            call = merge_call(room, self.rng.randint(1, 12))
            try:
                reply, acked = confirmed(self.router, week_board(room), call + [cursor])
            except (OSError, ReplyError) as e:
                kind = error_kind(e)
                self.stats.add("error " + kind)
                if kind == "ERR":
                    # Refused for what the run is: abandoned, cleanly.
                    self.stats.add("merge_runs_refused")
                    self.abandon(room)
                    return
                time.sleep(0.05)
                self.router.refresh()
                continue
            if acked < 1:
                self.stats.add("merge_steps_resent")
                continue
            self.stats.add("merge_steps")
            if reply[0] == "0":
                self.stats.add("merge_runs_finished")
                self.finished.add(room)
                return
            cursor = reply[0]

    def abandon(self, room):
        for _ in range(50):
            try:
                self.router.run(merge_staging(room), [["DEL", merge_staging(room)]])
                return
            except (OSError, ReplyError):
                time.sleep(0.1)
                self.router.refresh()


def check_merges(cluster, merger, failures):
    router = Router(cluster)
    for room in range(ROOMS):
        if room not in merger.finished:
            continue
        expected_key = f"{{room:{room}}}:week:expected"
        days = [day_board(room, d) for d in range(DAYS)]
        read_all(router, expected_key,
                 ["RANK.MERGE", expected_key, DAYS] + days + ["WEIGHTS"] + MERGE_WEIGHTS)
        expected = read_all(router, expected_key, ["ZRANGE", expected_key, 0, -1, "WITHSCORES"])
        merged = read_all(router, week_board(room), ["ZRANGE", week_board(room), 0, -1, "WITHSCORES"])
        if merged != expected:
            failures.append(f"room {room}: the stepped merge's board differs from the one-shot merge "
                            f"({len(merged or []) // 2} vs {len(expected or []) // 2} members)")
    router.close()
    return len(merger.finished)


# ---- the scheduler --------------------------------------------------------


class Scheduler:
    def __init__(self, cluster, rng, stats, producers, log):
        self.cluster = cluster
        self.rng = rng
        self.stats = stats
        self.producers = producers
        self.say = log
        self.reshards = 0

    def kill_master(self):
        masters, _ = self.cluster.topology()
        victim = masters[self.rng.randrange(len(masters))]
        self.say(f"SIGKILL master node{victim.index} (port {victim.port})")
        victim.kill()
        # Its replica takes over once the others agree the master failed.
        wait_until(60, f"node{victim.index}'s slots move to its replica",
                   lambda: all(e["port"] != victim.port or not e["slots"]
                               for e in cluster_nodes(self.cluster.live()[0])), interval=0.2)
        self.stats.add("failovers")
        self.stats.add("kills")
        victim.start()
        self.say(f"node{victim.index} restarted, rejoins as a replica")
        self.cluster.wait_healthy(f"node{victim.index} is a synced replica")

    def manual_failover(self):
        _, replicas = self.cluster.topology()
        replica = replicas[self.rng.randrange(len(replicas))]
        self.say(f"CLUSTER FAILOVER on replica node{replica.index} (port {replica.port})")
        replica.call("CLUSTER", "FAILOVER")
        wait_until(60, f"node{replica.index} is a master",
                   lambda: "role:master" in replica.call("INFO", "replication"), interval=0.2)
        self.stats.add("failovers")
        self.cluster.wait_healthy(f"the failover to node{replica.index} settles")

    def reshard(self):
        # The busiest board's slot so far moves to another master.
        counts = {}
        for producer in self.producers:
            for event in list(producer.events):
                counts[event[1]] = counts.get(event[1], 0) + 1
        room = max(sorted(counts), key=lambda r: counts[r]) if counts else 0
        slot = key_slot(board(room))
        masters, _ = self.cluster.topology()
        view = cluster_nodes(masters[0])
        owner_id = next(e["id"] for e in view
                        if "master" in e["flags"] and any(lo <= slot <= hi for lo, hi in e["slots"]))
        source = next(m for m in masters if m.id == owner_id)
        others = [m for m in masters if m is not source]
        target = others[self.rng.randrange(len(others))]
        self.reshards += 1
        # Where the server offers atomic slot migration (Valkey 9), every
        # other move uses it; the others move keys with MIGRATE.
        if self.reshards % 2 == 1 and self.atomic_migration(source):
            self.say(f"reshard slot {slot} (room {room}) from node{source.index} to node{target.index}, "
                     "atomic (CLUSTER MIGRATESLOTS)")
            try:
                source.call("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", slot, slot, "NODE", target.id)
            except ReplyError as e:
                # Valkey refuses it while a loaded module has not declared
                # that it handles atomic slot migration (zkit has not yet).
                if "does not support atomic slot migrations" not in str(e):
                    raise
                self.say(f"atomic migration refused ({e}); moving the slot with MIGRATE")
                self.stats.add("atomic_refused")
                self.legacy_move(slot, source, target, masters)
                return
            try:
                wait_until(60, f"slot {slot} is served by node{target.index}",
                           lambda: self.owner_port(source, slot) == target.port, interval=0.2)
            except TimeoutError as e:
                raise TimeoutError(f"{e}; migrations: {source.call('CLUSTER', 'GETSLOTMIGRATIONS')}") from e
            self.stats.add("reshards")
            self.stats.add("atomic_reshards")
            self.cluster.wait_healthy(f"slot {slot} settles on node{target.index}")
            return
        self.say(f"reshard slot {slot} (room {room}) from node{source.index} to node{target.index}")
        self.legacy_move(slot, source, target, masters)

    def legacy_move(self, slot, source, target, masters):
        """SETSLOT IMPORTING/MIGRATING, MIGRATE of every key, SETSLOT NODE."""
        target.call("CLUSTER", "SETSLOT", slot, "IMPORTING", source.id)
        source.call("CLUSTER", "SETSLOT", slot, "MIGRATING", target.id)
        moved = 0
        while True:
            keys = source.call("CLUSTER", "GETKEYSINSLOT", slot, 10)
            if not keys:
                break
            source.call("MIGRATE", "127.0.0.1", target.port, "", 0, 10000, "KEYS", *keys, timeout=30)
            moved += len(keys)
        for node in [target, source] + [m for m in masters if m not in (source, target)]:
            node.call("CLUSTER", "SETSLOT", slot, "NODE", target.id)
        self.say(f"slot {slot}: {moved} keys moved")
        self.stats.add("reshards")
        self.cluster.wait_healthy(f"slot {slot} settles on node{target.index}")

    @staticmethod
    def atomic_migration(node):
        try:
            return node.call("COMMAND", "INFO", "CLUSTER|MIGRATESLOTS") != [None]
        except ReplyError:
            return False

    @staticmethod
    def owner_port(node, slot):
        for entry in cluster_nodes(node):
            if "master" in entry["flags"] and any(lo <= slot <= hi for lo, hi in entry["slots"]):
                return entry["port"]
        return None

    def plan(self, rounds):
        actions = ["kill", "failover", "reshard"] * rounds
        self.rng.shuffle(actions)
        return actions

    def run(self, actions, pause):
        for action in actions:
            time.sleep(pause[0] + self.rng.random() * pause[1])
            {"kill": self.kill_master, "failover": self.manual_failover, "reshard": self.reshard}[action]()


# ---- checks ---------------------------------------------------------------

ABORT_PATTERNS = re.compile(
    r"BUG REPORT|ASSERTION|Guru Meditation|crashed by signal|panicked|zkit: bug", re.IGNORECASE)


def read_all(router, key, command):
    for _ in range(50):
        try:
            return router.run(key, [command])[0]
        except (OSError, ReplyError):
            time.sleep(0.2)
            router.refresh()
    raise TimeoutError(f"could not read {key}")


def check_gifts(cluster, producers, failures):
    router = Router(cluster)
    events = [e for p in producers for e in p.events]
    by_id = {e[0]: e for e in events}
    seen = {}
    for room in range(ROOMS):
        ids = read_all(router, seen_key(room), ["ZRANGE", seen_key(room), 0, -1])
        seen[room] = set(ids or [])
    unknown = [i for ids in seen.values() for i in ids if i not in by_id]
    if unknown:
        failures.append(f"{len(unknown)} remembered ids no producer sent: {unknown[:5]}")
    lost = [e[0] for e in events if e[4] and e[0] not in seen[e[1]]]
    if lost:
        failures.append(f"{len(lost)} WAIT-confirmed gifts are not counted: {lost[:5]}")
    wrong = []
    for room in range(ROOMS):
        for m in range(MEMBERS):
            member = f"m{m}"
            expected = sum(e[3] for e in events if e[1] == room and e[2] == member and e[0] in seen[room])
            entry = read_all(router, board(room), ["RANK.GET", board(room), member])
            total = entry[0] if entry else 0
            if total != expected:
                wrong.append((room, member, total, expected))
    if wrong:
        failures.append(f"{len(wrong)} totals differ from the sum of their remembered gifts "
                        f"(room, member, total, expected): {wrong[:5]}")
    router.close()
    return len(events), sum(1 for e in events if e[4])


def check_tasks(tasks, deliveries, failures):
    delivered = {}
    for d in deliveries:
        delivered.setdefault(d[0], []).append(d)
    missing = [t for t in tasks if t not in delivered]
    if missing:
        failures.append(f"{len(missing)} WAIT-confirmed tasks never delivered: {missing[:5]}")
    overlaps = []
    redelivered = 0
    for task, ds in delivered.items():
        redelivered += len(ds) - 1
        for first in ds:
            if not first[4]:
                continue
            for other in ds:
                # The lease ends at the server's clock + LEASE_MS, read after
                # `first` was sent; `other` was handed out before it came back.
                if other is not first and other[1] != first[1] and other[2] >= first[2] \
                        and other[3] < first[2] + LEASE_MS:
                    overlaps.append((task, first[1], other[1]))
    if overlaps:
        failures.append(f"{len(overlaps)} tasks delivered to two workers inside one lease: {overlaps[:5]}")
    return redelivered


def zkit_info(node):
    info = node.call("INFO", "zkit")
    return {k: v for k, _, v in (line.partition(":") for line in info.splitlines())
            if k.startswith("zkit_") and k != "zkit_version"}


# ---- main -----------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="redis-server")
    parser.add_argument("--cli", default="redis-cli")
    parser.add_argument("--module", required=True)
    parser.add_argument("--name", default="redis-server")
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=2, help="each action this many times")
    parser.add_argument("--producers", type=int, default=4)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=1200)
    args = parser.parse_args()

    started = time.monotonic()
    name = args.name

    def say(text):
        print(f"chaos[{name}] {time.monotonic() - started:6.1f}s {text}", flush=True)

    root = tempfile.mkdtemp(prefix="zkit-chaos-")
    cluster = None
    failures = []
    stats = Stats()
    try:
        cluster = Cluster(args.server, args.cli, os.path.abspath(args.module), root)
        say(f"cluster up: ports {[n.port for n in cluster.nodes]}, seed {args.seed}")
        rng = random.Random(args.seed)
        now_ms = int(time.time() * 1000)
        # Tasks fall due over the first minute of chaos.
        tasks = enqueue_tasks(cluster, args.tasks, now_ms + 2000, 60_000)
        say(f"{len(tasks)} tasks enqueued and WAIT-confirmed")
        fill_days(cluster, args.seed)
        say(f"{ROOMS * DAYS} daily boards filled for the stepped merges")

        stop = threading.Event()
        drain_deadline = [float("inf")]
        producers = [Producer(i, args.seed, cluster, stop, drain_deadline, stats)
                     for i in range(args.producers)]
        deliveries, lock = [], threading.Lock()
        worker_stop = threading.Event()
        workers = [Worker(i, args.seed, cluster, worker_stop, stats, deliveries, lock)
                   for i in range(args.workers)]
        merger = Merger(args.seed, cluster, stop, stats)
        for thread in producers + workers + [merger]:
            thread.start()

        scheduler = Scheduler(cluster, rng, stats, producers, say)
        actions = scheduler.plan(args.rounds)
        say(f"plan: {', '.join(actions)}")
        scheduler.run(actions, pause=(2.0, 3.0))
        time.sleep(2)
        stop.set()
        drain_deadline[0] = time.monotonic() + 60
        for producer in producers:
            producer.join(90)
        merger.join(90)
        say("producers and the merger stopped")
        # Workers run until every task was delivered (all fell due) or 90 s.
        wait_until(90, "every task is delivered",
                   lambda: len({d[0] for d in deliveries}) >= len(tasks) and time.time() * 1000 > now_ms + 62_000,
                   interval=0.5)
        worker_stop.set()
        for worker in workers:
            worker.join(60)
        cluster.wait_healthy("the chaos ends")

        for thread in producers + workers + [merger]:
            if thread.is_alive():
                failures.append(f"{type(thread).__name__} {thread.number} did not stop")
            if thread.error:
                failures.append(f"{type(thread).__name__} {thread.number} failed: {thread.error}")
        events, confirmed_gifts = check_gifts(cluster, producers, failures)
        redelivered = check_tasks(tasks, list(deliveries), failures)
        merged_rooms = check_merges(cluster, merger, failures)
        if not stats.get("merge_runs_finished"):
            failures.append("no stepped merge finished")

        refused_by_servers = 0
        for node in cluster.nodes:
            if not node.alive():
                failures.append(f"node{node.index} is down at the end")
                continue
            counters = zkit_info(node)
            refused_by_servers += int(counters.get("zkit_idmp_repeats_refused", 0))
            say(f"node{node.index} INFO zkit: " + " ".join(f"{k[5:]}={v}" for k, v in counters.items()))
        for node in cluster.nodes:
            for line in node.log().splitlines():
                if ABORT_PATTERNS.search(line):
                    failures.append(f"node{node.index} log: {line.strip()}")
                    break

        errors = " ".join(f"{k[6:]}={v}" for k, v in sorted(stats.counts.items()) if k.startswith("error "))
        say(f"client errors seen and retried: {errors or 'none'}")
        summary = (
            f"chaos summary [{name}]: events={events} confirmed={confirmed_gifts} "
            f"retries={stats.get('retries')} duplicates_refused={stats.get('duplicates_refused')} "
            f"(servers counted {refused_by_servers}) failovers={stats.get('failovers')} "
            f"(sigkill {stats.get('kills')}) reshards={stats.get('reshards')} (atomic {stats.get('atomic_reshards')}, "
            f"atomic refused {stats.get('atomic_refused')}) "
            f"tasks={len(tasks)} deliveries={stats.get('deliveries')} redelivered={redelivered} "
            f"acks_skipped={stats.get('acks_skipped')} acks_lost={stats.get('acks_lost')} "
            f"merges={stats.get('merge_runs_finished')} (rooms checked {merged_rooms}, steps "
            f"{stats.get('merge_steps')}, resent {stats.get('merge_steps_resent')}, refused runs "
            f"{stats.get('merge_runs_refused')}) seconds={time.monotonic() - started:.0f} "
            f"result={'FAILED' if failures else 'ok'}"
        )
        print(summary, flush=True)
    except Exception as e:
        failures.append(f"the run stopped: {e!r}")
    finally:
        if cluster:
            cluster.stop()
    for failure in failures:
        print(f"chaos[{name}] FAILED: {failure}", flush=True)
    if failures:
        print(f"chaos[{name}] data kept in {root}", flush=True)
        sys.exit(1)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
