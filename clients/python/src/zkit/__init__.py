"""Python client for zkit, the Redis module of composite-score commands on
native sorted sets: ``Zkit(redis_client)`` adds one method per command,
``AsyncZkit`` the same for ``redis.asyncio``, ``DelayWorker`` runs a DELAY
queue. See docs/commands.md of the zkit repository for every command. The
same methods run zkit's Functions library on servers that refuse modules
(docs/functions.md): ``Zkit(client).load_functions()`` loads it."""

from .client import AsyncZkit, Zkit
from .engine import FUNCTIONS, MODULE, ZkitNotLoaded
from .replies import (
    BoardStats,
    DelayStats,
    FeedItem,
    FeedPage,
    FencedTask,
    GroupState,
    Job,
    JobInfo,
    MergeStep,
    RankEntry,
    RankInfo,
    RateAcquired,
    RateLimitsResult,
    RateResult,
    RateStats,
    RatedJobs,
    RatedTasks,
    Schedule,
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
    "FUNCTIONS",
    "MODULE",
    "FeedItem",
    "FeedPage",
    "FencedTask",
    "GroupState",
    "Job",
    "JobInfo",
    "MergeStep",
    "RankEntry",
    "RankInfo",
    "RateAcquired",
    "RateLimitsResult",
    "RateResult",
    "RateStats",
    "RatedJobs",
    "RatedTasks",
    "Schedule",
    "Task",
    "TotalRank",
    "VoteResult",
    "Zkit",
    "ZkitNotLoaded",
]
