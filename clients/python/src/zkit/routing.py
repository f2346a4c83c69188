"""Cluster routing: the slot of a call's keys, checked before sending.

redis-py's ``RedisCluster`` finds keys from ``COMMAND`` metadata; for
commands Redis marks ``movablekeys`` (RANK.MERGE, RANK.MGIFT, VOTE.CAST,
DELAY.POLL, DELAY.BPOLL, DELAY.ACK) that costs a ``COMMAND GETKEYS`` round
trip per call. zkit knows its keys from its own table, so it computes the
slot here and passes the owning primary as ``target_nodes``, redis-py's
public way to name the node of a call (also in cluster pipelines).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from redis.crc import key_slot
from redis.exceptions import RedisClusterException


class CrossSlotError(RedisClusterException):
    """The keys of one call hash to different cluster slots. Raised before
    anything is sent; give keys used together one hash tag
    (``{room42}:day``, ``{room42}:week``)."""


def encode_key(key: Any) -> bytes:
    """The bytes Redis hashes for a key, encoded as redis-py sends it."""
    if isinstance(key, bytes):
        return key
    if isinstance(key, memoryview):
        return key.tobytes()
    if isinstance(key, (int, float)) and not isinstance(key, bool):
        return repr(key).encode()
    if isinstance(key, str):
        return key.encode()
    raise TypeError(f"a key must be str, bytes, int or float, not {type(key).__name__}")


def slot_of(command: str, keys: Sequence[Any]) -> Optional[int]:
    """The one slot of all ``keys``; CrossSlotError naming them otherwise;
    None for a call without keys (RANK.SEASON), which any node serves."""
    slots = [key_slot(encode_key(key)) for key in keys]
    if len(set(slots)) > 1:
        listed = ", ".join(f"{key!r} (slot {slot})" for key, slot in zip(keys, slots))
        raise CrossSlotError(
            f"{command}: keys must share a hash slot, but {listed} do not; "
            "give them one hash tag, e.g. {tag}:a and {tag}:b"
        )
    return slots[0] if slots else None
