"""Python client for zkit, the Redis module of composite-score commands on
native sorted sets: ``Zkit(redis_client)`` adds one method per command,
``AsyncZkit`` the same for ``redis.asyncio``, ``DelayWorker`` runs a DELAY
queue. See docs/commands.md of the zkit repository for every command."""

from .client import AsyncZkit, Zkit
from .replies import (
    BoardStats,
    DelayStats,
    FeedItem,
    FeedPage,
    MergeStep,
    RankEntry,
    RankInfo,
    RateLimitsResult,
    RateResult,
    RateStats,
    Task,
    TotalRank,
    VoteResult,
)
from .routing import CrossSlotError
from .worker import DelayWorker

__all__ = [
    "AsyncZkit",
    "BoardStats",
    "CrossSlotError",
    "DelayStats",
    "DelayWorker",
    "FeedItem",
    "FeedPage",
    "MergeStep",
    "RankEntry",
    "RankInfo",
    "RateLimitsResult",
    "RateResult",
    "RateStats",
    "Task",
    "TotalRank",
    "VoteResult",
    "Zkit",
]
