"""Typed replies of zkit commands, and the parsers that build them.

Each reply type is a NamedTuple whose fields follow the order of the
command's reply in docs/commands.md, so it unpacks like the raw reply:
``total, rank = z.rank_gift("board", "alice", 10)``.

Members, tasks and cursors stay what the client returns (``str`` with
``decode_responses=True``, else ``bytes``). Scores are floats: RESP2 sends
them as bulk strings, RESP3 as doubles, and ``float()`` reads both exactly.
"""

from __future__ import annotations

from typing import Any, List, Mapping, NamedTuple, Optional, Tuple, Union

#: A member, task id, voter or cursor as the client returns it.
Text = Union[str, bytes]


class TotalRank(NamedTuple):
    """RANK.GIFT and RANK.SET (one per board for RANK.MGIFT): the member's
    total and its 1-based rank (with ``shared=True``, its competition rank)."""

    total: int
    rank: int

    @property
    def already_applied(self) -> Optional[bool]:
        """With ``idmp``: True when the event id was already applied (nothing
        changed; total and rank are the board's now, rank 0 if the member
        has left it since), False when this call applied it; None without
        ``idmp``. Not a field: the reply still unpacks as ``total, rank``."""
        return _applied_flag(self)


class RankInfo(NamedTuple):
    """RANK.GET (one per member for RANK.MGET): total, rank and when the
    total was reached (unix ms)."""

    total: int
    rank: int
    reached_at_ms: int


class RankEntry(NamedTuple):
    """One row of RANK.TOP and RANK.AROUND."""

    rank: int
    member: Text
    total: int


class MergeStep(NamedTuple):
    """RANK.MERGE with ``step``: the cursor to send next (``b"0"`` or
    ``"0"`` once the merge is done and ``destkey`` replaced) and the members
    merged so far."""

    cursor: Text
    staged: int


class FeedItem(NamedTuple):
    """One item of a FEED.PAGE page."""

    member: Text
    score: float


class FeedPage(NamedTuple):
    """FEED.PAGE: items newest first, the cursors of the first and last
    item (the cursor given, or None, when the page is empty) and whether
    more items remain in the direction asked."""

    items: List[FeedItem]
    top: Optional[Text]
    bottom: Optional[Text]
    more: bool


class Task(NamedTuple):
    """A task claimed by DELAY.POLL or DELAY.BPOLL and the score it was due
    at in the polled key (unix ms; for an in-flight set, its lease's end)."""

    task: Text
    due_ms: float


class RateResult(NamedTuple):
    """RATE.HIT: whether the hit was allowed, the units in the window after
    it, the units left, and the ms until the same hit would pass (-1 when
    allowed)."""

    allowed: bool
    count: int  # type: ignore[assignment]  # the docs' name; shadows tuple.count()
    remaining: int
    retry_after_ms: int

    @property
    def already_applied(self) -> Optional[bool]:
        """With ``idmp``: True when the hit was already counted (it spent
        nothing now, and the counts are the window's now), False when this
        call counted it or refused it (a refused hit is not remembered);
        None without ``idmp``. Not a field: the reply unpacks as before."""
        return _applied_flag(self)


class RateLimitsResult(NamedTuple):
    """RATE.HIT with several limits: ``RateResult``'s fields for the limit
    that binds, and that limit's 1-based position in the limits given (when
    refused, the one that makes the hit wait longest; when allowed, the
    first with the least room left)."""

    allowed: bool
    count: int  # type: ignore[assignment]  # the docs' name; shadows tuple.count()
    remaining: int
    retry_after_ms: int
    binding: int

    @property
    def already_applied(self) -> Optional[bool]:
        """As ``RateResult.already_applied``."""
        return _applied_flag(self)


class VoteResult(NamedTuple):
    """VOTE.CAST: the item's score, the up and down counts, and whether the
    vote changed anything."""

    score: float
    ups: int
    downs: int
    changed: bool


class DelayStats(NamedTuple):
    """DELAY.STATS: a queue's depth and lag at the server's ``now_ms``
    (docs/commands.md, "DELAY.STATS"). The counts of a set not named in the
    call are None."""

    now_ms: int
    tasks: int
    due: int
    oldest_due_age_ms: int
    next_due_ms: Optional[int]
    inflight: Optional[int]
    expired: Optional[int]
    dead: Optional[int]
    redelivered: Optional[int]


class BoardStats(NamedTuple):
    """RANK.STATS: a board's size, the spread of its totals (None on an
    empty board) and its memory."""

    members: int
    top_total: Optional[int]
    p99_total: Optional[int]
    p90_total: Optional[int]
    p50_total: Optional[int]
    bottom_total: Optional[int]
    memory_bytes: int


class RateStats(NamedTuple):
    """RATE.STATS: the entries of a rate log, when the newest was logged,
    and ``(window_ms, entries)`` for each window asked."""

    entries: int
    newest_ms: Optional[int]
    windows: List[Tuple[int, int]]


# Parsers take the raw reply (RESP2 or RESP3) and ``**options`` because
# redis-py calls response callbacks that way.


def parse_int(reply: Any, **options: Any) -> int:
    return int(reply)


def parse_merge(reply: Any, **options: Any) -> Union[int, MergeStep]:
    if isinstance(reply, list):
        cursor, staged = reply
        return MergeStep(cursor, int(staged))
    return int(reply)


def parse_bool(reply: Any, **options: Any) -> bool:
    return bool(reply)


#: The redis-py command option that tells a parser the call gave ``idmp``,
#: so its reply ends with the "already applied" flag.
IDMP_OPTION = "zkit_idmp"


def _applied_flag(reply: Any) -> Optional[bool]:
    return getattr(reply, "_already_applied", None)


class _TotalRankOnce(TotalRank):
    """A TotalRank that carries its call's IDMP flag (``already_applied``)."""

    _already_applied: bool


class _RateResultOnce(RateResult):
    _already_applied: bool


class _RateLimitsResultOnce(RateLimitsResult):
    _already_applied: bool


def _idmp_flag(reply: Any, options: Mapping[str, Any]) -> Tuple[Any, Optional[bool]]:
    """A reply without its IDMP flag, and the flag (None without ``idmp``)."""
    if options.get(IDMP_OPTION):
        return reply[:-1], bool(reply[-1])
    return reply, None


def _total_rank(total: Any, rank: Any, applied: Optional[bool]) -> TotalRank:
    if applied is None:
        return TotalRank(int(total), int(rank))
    once = _TotalRankOnce(int(total), 0 if rank is None else int(rank))
    once._already_applied = applied
    return once


def parse_total_rank(reply: Any, **options: Any) -> TotalRank:
    (total, rank), applied = _idmp_flag(reply, options)
    return _total_rank(total, rank, applied)


def parse_total_ranks(reply: Any, **options: Any) -> List[TotalRank]:
    pairs, applied = _idmp_flag(reply, options)
    return [_total_rank(total, rank, applied) for total, rank in pairs]


def parse_rank_info(reply: Any, **options: Any) -> Optional[RankInfo]:
    if reply is None:
        return None
    total, rank, reached_at_ms = reply
    return RankInfo(int(total), int(rank), int(reached_at_ms))


def parse_rank_infos(reply: Any, **options: Any) -> List[Optional[RankInfo]]:
    return [parse_rank_info(info) for info in reply]


def parse_rank_entries(reply: Any, **options: Any) -> List[RankEntry]:
    return [RankEntry(int(rank), member, int(total)) for rank, member, total in reply]


def parse_feed_page(reply: Any, **options: Any) -> FeedPage:
    flat, top, bottom, more = reply
    items = [FeedItem(flat[i], float(flat[i + 1])) for i in range(0, len(flat), 2)]
    return FeedPage(items, top, bottom, bool(more))


def parse_tasks(reply: Any, **options: Any) -> Optional[List[Task]]:
    # DELAY.BPOLL answers nil on timeout; DELAY.POLL never does.
    if reply is None:
        return None
    return [Task(task, float(due_ms)) for task, due_ms in reply]


def parse_rate(reply: Any, **options: Any) -> Union[RateResult, RateLimitsResult]:
    # One limit: four fields, as in 0.1; several: a fifth, the binding
    # limit; with idmp, the flag last.
    reply, applied = _idmp_flag(reply, options)
    allowed, count, remaining, retry_after_ms = bool(reply[0]), int(reply[1]), int(reply[2]), int(reply[3])
    if len(reply) == 5:
        if applied is None:
            return RateLimitsResult(allowed, count, remaining, retry_after_ms, int(reply[4]))
        several = _RateLimitsResultOnce(allowed, count, remaining, retry_after_ms, int(reply[4]))
        several._already_applied = applied
        return several
    if applied is None:
        return RateResult(allowed, count, remaining, retry_after_ms)
    one = _RateResultOnce(allowed, count, remaining, retry_after_ms)
    one._already_applied = applied
    return one


def parse_vote(reply: Any, **options: Any) -> VoteResult:
    score, ups, downs, changed = reply
    return VoteResult(float(score), int(ups), int(downs), bool(changed))


class _Fields:
    """A field list ``[name, value, ...]`` (or a RESP3 map) read by name,
    names in snake_case; names the reply adds later are ignored."""

    def __init__(self, reply: Any) -> None:
        pairs = reply.items() if isinstance(reply, dict) else zip(reply[::2], reply[1::2])
        self.values = {(name.decode() if isinstance(name, bytes) else name).replace("-", "_"): value for name, value in pairs}

    def number(self, name: str) -> int:
        return int(self.values[name])

    def number_or_none(self, name: str) -> Optional[int]:
        value = self.values.get(name)
        return None if value is None else int(value)


def parse_delay_stats(reply: Any, **options: Any) -> DelayStats:
    f = _Fields(reply)
    return DelayStats(
        f.number("now_ms"),
        f.number("tasks"),
        f.number("due"),
        f.number("oldest_due_age_ms"),
        f.number_or_none("next_due_ms"),
        f.number_or_none("inflight"),
        f.number_or_none("expired"),
        f.number_or_none("dead"),
        f.number_or_none("redelivered"),
    )


def parse_board_stats(reply: Any, **options: Any) -> BoardStats:
    f = _Fields(reply)
    return BoardStats(
        f.number("members"),
        f.number_or_none("top_total"),
        f.number_or_none("p99_total"),
        f.number_or_none("p90_total"),
        f.number_or_none("p50_total"),
        f.number_or_none("bottom_total"),
        f.number("memory_bytes"),
    )


def parse_rate_stats(reply: Any, **options: Any) -> RateStats:
    f = _Fields(reply)
    windows = [(int(window), int(entries)) for window, entries in f.values["windows"]]
    return RateStats(f.number("entries"), f.number_or_none("newest_ms"), windows)
