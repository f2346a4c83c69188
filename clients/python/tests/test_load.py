"""10,000 calls over 1,000 keys on the cluster: every call reaches the node
that owns its keys on the first try (no MOVED or ASK) and costs no COMMAND
GETKEYS, also for the commands Redis marks movablekeys."""

from __future__ import annotations

from typing import Callable, List

import redis.cluster

import zkit

from conftest import call_stats, k, node_connections, zkit_command_stats

CALLS = 10_000
KEYS = 1_000


def _calls(z: zkit.Zkit) -> List[Callable[[int], object]]:
    """Call makers over key i's own hash tag, the movable-key commands among them."""
    return [
        lambda i: z.rank_gift(k(f"{{u{i}}}:board"), "alice", 1),
        lambda i: z.rank_merge(k(f"{{u{i}}}:week"), [k(f"{{u{i}}}:board")]),
        lambda i: z.vote_cast(k(f"{{u{i}}}:s"), k(f"{{u{i}}}:up"), k(f"{{u{i}}}:down"), "item", f"v{i}", "UP"),
        lambda i: z.delay_poll(k(f"{{u{i}}}:q"), lease=(k(f"{{u{i}}}:inflight"), 60000)),
        lambda i: z.rate_hit(k(f"{{u{i}}}:rate"), 60000, 100),
        lambda i: z.feed_page(k(f"{{u{i}}}:feed")),
        lambda i: z.recent_add(k(f"{{u{i}}}:recent"), "a", cap=5),
        lambda i: z.rank_top(k(f"{{u{i}}}:board"), 3),
        lambda i: z.rank_mgift([k(f"{{u{i}}}:board"), k(f"{{u{i}}}:all")], "bob", 1),
        lambda i: z.delay_ack(f"{{u{i}}}:inflight", "t", deliveries=k(f"{{u{i}}}:deliveries")),
    ]


def test_ten_thousand_calls_route_first_try(cluster: redis.cluster.RedisCluster) -> None:
    z = zkit.Zkit(cluster)
    nodes = node_connections()
    before = [zkit_command_stats([node]) for node in nodes]
    makers = _calls(z)
    pipelined = 0
    for n in range(CALLS - 1_000):
        makers[n % len(makers)](n % KEYS)
    # The last 1,000 in cluster pipelines of 100.
    for start in range(0, 1_000, 100):
        pipe = cluster.pipeline()
        zp = zkit.Zkit(pipe)
        for i in range(start, start + 100):
            _calls(zp)[i % len(makers)](i)
        pipelined += len(pipe.execute())
    assert pipelined == 1_000
    after = [zkit_command_stats([node]) for node in nodes]

    def delta(name: str, node: int) -> int:
        return after[node].get(name, 0) - before[node].get(name, 0)

    zkit_names = set(call_stats(list(zkit.commands.COMMANDS)))
    per_node = [sum(delta(name, node) for name in zkit_names) for node in range(len(nodes))]
    assert sum(per_node) == CALLS, per_node
    assert all(calls > 1_000 for calls in per_node), per_node  # 1,000 keys spread over every master
    for node in range(len(nodes)):
        assert delta("errorstat_MOVED", node) == 0
        assert delta("errorstat_ASK", node) == 0
        assert delta("cmdstat_command|getkeys", node) == 0
