"""Python client for zkit, the Redis module of composite-score commands on
native sorted sets: ``Zkit(redis_client)`` adds one method per command,
``AsyncZkit`` the same for ``redis.asyncio``, ``DelayWorker`` runs a DELAY
queue. See docs/commands.md of the zkit repository for every command. The
same methods run zkit's Functions library on servers that refuse modules
(docs/functions.md): ``Zkit(client).load_functions()`` loads it."""

from .client import AsyncZkit, Zkit
from .engine import FUNCTIONS, MODULE, ZkitNotLoaded
from . import replies
from .replies import *  # noqa: F403 (every reply type: replies.__all__, generated)
from .routing import CrossSlotError
from .worker import DelayWorker

__all__ = [
    "AsyncZkit",
    "CrossSlotError",
    "DelayWorker",
    "FUNCTIONS",
    "MODULE",
    "Zkit",
    "ZkitNotLoaded",
]
__all__ += replies.__all__
