"""The benches' one table of cases: each measured call at a size, with its
data, the module's call, the native commands that give the same answer, the
script a team would write for it (bench/lua) and the keys it declares. The
perf guard (bench/guard.py), `make bench` (bench/bench.py) and the library's
CPU bench (functions/bench.py) all read it, so a case is written once.

A case's calls are functions of the call's index i and the variant's key
prefix p: every run sends the same calls in the same order (members spread
over the board by a fixed hash, not drawn at random), on data each variant
builds under its own prefix with native commands (Lua in the server, fast at
10^7 members too)."""

import json
import struct

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
    conn.check("EVAL", lua, 0)


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


class Case:
    """One measured call at one size.

    `zkit(i, p)` is the i-th call's argv; `native(i, p)` the argvs of the
    natives that give its answer (None: no native does); `data(conn, p,
    calls)` builds a variant's data under its key prefix for `calls` calls,
    `native_data` the natives' (default: the same: a board's natives run on
    integer totals, what a team has today). `keys(i, p)` are the call's
    keys (FCALL declares them); `script` a file of bench/lua and
    `script_args(i, p)` its arguments after `script_keys(i, p)` (default:
    the keys). `v02` True when zkit 0.2 spelled the call the same, or a
    function like `zkit`. `check(reply)` says a zkit reply is what the case
    means to measure (a poll that claimed a task). `target`: the least
    natives / zkit ratio the guard asks for. `calls`: how many calls the
    guard measures, when not its --calls (calls that cost millions).
    `paced`: each call goes alone, in a millisecond of its own, for a call
    whose work depends on the clock (hits at one millisecond share a name's
    count, so how many of a batch share one would move the count)."""

    def __init__(self, name, size, data, zkit, native=None, v02=None, native_data=None, check=None,
                 target=None, calls=None, paced=False, keys=None, script=None, script_args=None,
                 script_keys=None):
        self.name, self.size = name, size
        self.data, self.zkit, self.native = data, zkit, native
        self.v02 = v02
        self.native_data = native_data or data
        self.check = check
        self.target = target
        self.calls = calls
        self.paced = paced
        self.keys = keys
        self.script, self.script_args = script, script_args
        self.script_keys = script_keys or keys

    @property
    def label(self):
        return f"{self.name} @{self.size}"

    def script_call(self, sha, i, p):
        """The i-th call of the script loaded as `sha` (EVALSHA)."""
        keys = self.script_keys(i, p)
        return ["EVALSHA", sha, len(keys), *keys, *self.script_args(i, p)]

    def fcall(self, i, p):
        """The i-th call of the Functions library's function (FCALL)."""
        return fcall_of(self.zkit(i, p), self.keys(i, p))


def fcall_of(argv, keys):
    """The module's call `argv`, with these keys, as the library's FCALL."""
    return ["FCALL", "zkit_" + argv[0].lower().replace(".", "_"), len(keys), *keys, *argv[1:]]


# Every family of cases: (make(n) -> Case, the sizes the guard counts it at,
# the largest size it supports).
FAMILIES = []


def family(*guard_sizes, max_size=None):
    """Registers a family: the module's guard counts it at `guard_sizes`
    (none: only the other benches run it), in the order registered."""

    def register(make):
        FAMILIES.append((make, guard_sizes, max_size))
        return make

    return register


def on(p, *names):
    return [p + name for name in names]


@family(10, 100, 1000, 10000, 1000000)
def rank_gift(n):
    return Case("RANK.GIFT", n, board(n),
                zkit=lambda i, p: ["RANK.GIFT", p + "b", m(i, n), 5],
                native=lambda i, p: [["ZINCRBY", p + "b", 5, m(i, n)], ["ZREVRANK", p + "b", m(i, n)]],
                native_data=board(n, integer=True), v02=True, target=1.0,
                keys=lambda i, p: on(p, "b"), script="rank_gift.lua", script_args=lambda i, p: [m(i, n), 5])


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


def total_above(i, n):
    """A total of the board (totals 0 .. min(n, 1000) - 1) for call i: the
    natives' shared rank is ZCOUNT above it, from a different total each
    call (from one fixed total it would walk the same cached path every
    time, which zkit's counts from each member's total do not)."""
    return f"({spread(i, min(n, 1000), 7)}"


@family(10000)
def rank_gift_shared(n):
    # A shared rank is 1 + the members of a higher total: ZCOUNT above a
    # total of the board.
    return Case("RANK.GIFT SHARED", n, board(n),
                zkit=lambda i, p: ["RANK.GIFT", p + "b", m(i, n), 5, "SHARED"],
                native=lambda i, p: [["ZINCRBY", p + "b", 5, m(i, n)], ["ZCOUNT", p + "b", total_above(i, n), "+inf"]],
                native_data=board(n, integer=True), v02=True, target=1.0,
                keys=lambda i, p: on(p, "b"), script="rank_gift.lua",
                script_args=lambda i, p: [m(i, n), 5, "shared"])


@family()
def rank_set_gt(n):
    # Each set beats the member's best: a new best every call.
    return Case("RANK.SET GT", n, board(n),
                zkit=lambda i, p: ["RANK.SET", p + "b", m(i, n), 1000 + i, "GT"],
                native=lambda i, p: [["ZADD", p + "b", "GT", 1000 + i, m(i, n)], ["ZREVRANK", p + "b", m(i, n)]],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_set_gt.lua", script_args=lambda i, p: [m(i, n), 1000 + i])


@family(100, 10000)
def rank_get(n):
    return Case("RANK.GET", n, board(n),
                zkit=lambda i, p: ["RANK.GET", p + "b", m(i, n)],
                native=lambda i, p: [["ZSCORE", p + "b", m(i, n)], ["ZREVRANK", p + "b", m(i, n)]],
                native_data=board(n, integer=True), v02=True, target=1.0,
                keys=lambda i, p: on(p, "b"), script="rank_get.lua", script_args=lambda i, p: [m(i, n)])


@family()
def rank_get_shared(n):
    return Case("RANK.GET SHARED", n, board(n),
                zkit=lambda i, p: ["RANK.GET", p + "b", m(i, n), "SHARED"],
                native=lambda i, p: [["ZSCORE", p + "b", m(i, n)], ["ZCOUNT", p + "b", total_above(i, n), "+inf"]],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_get_shared.lua", script_args=lambda i, p: [m(i, n)])


def totals_index(n, name="t"):
    """The index of distinct totals of board(n) (totals 0 .. min(n, 1000) -
    1), as RANK's DENSE keeps it: member "<total>" scored with the total."""
    return zset(min(n, 1000), name, "i", "%d")


@family()
def rank_gift_dense(n):
    # The natives: the gift and a position, what a team without dense ranks
    # runs.
    return Case("RANK.GIFT DENSE", n, both(board(n), totals_index(n)),
                zkit=lambda i, p: ["RANK.GIFT", p + "b", m(i, n), 5, "DENSE", p + "t"],
                native=lambda i, p: [["ZINCRBY", p + "b", 5, m(i, n)], ["ZREVRANK", p + "b", m(i, n)]],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b", "t"), script="rank_gift_dense.lua",
                script_args=lambda i, p: [m(i, n), 5])


@family()
def rank_get_dense(n):
    # The natives: the score and the count of totals above in the index.
    return Case("RANK.GET DENSE", n, both(board(n), totals_index(n)),
                zkit=lambda i, p: ["RANK.GET", p + "b", m(i, n), "DENSE", p + "t"],
                native=lambda i, p: [["ZSCORE", p + "b", m(i, n)], ["ZCOUNT", p + "t", total_above(i, n), "+inf"]],
                native_data=both(board(n, integer=True), totals_index(n)),
                keys=lambda i, p: on(p, "b", "t"), script="rank_get_dense.lua", script_args=lambda i, p: [m(i, n)])


def boards_with_leavers(n):
    """Boards `b:k` of n members and per_key(n) more, `gone:i` (call i's,
    on board i // per_key(n)), each at a total the board's members hold,
    beside their totals indexes `t:k`."""

    def data(conn, p, calls):
        each = per_key(n)
        totals = min(n, 1000)
        build(conn, f"""
          for k = 0, {-(-calls // each) - 1} do
            local key = '{p}b:' .. k
            {fill_lua("key", n, BOARD_SCORE, "m:%d")}
            {fill_lua("key", each, f"(i % {totals}) + 0.25", "gone:%d", first=f"k * {each}")}
            {fill_lua(f"'{p}t:' .. k", totals, "i", "%d")}
          end""")

    return data


@family()
def rank_remove_dense(n):
    # The natives: the removal, what a team without dense ranks runs.
    return Case("RANK.REMOVE DENSE", n, boards_with_leavers(n),
                zkit=lambda i, p: ["RANK.REMOVE", key_of(p, i, n, "b"), "DENSE", key_of(p, i, n, "t"),
                                   "MEMBERS", f"gone:{i}"],
                native=lambda i, p: [["ZREM", key_of(p, i, n, "b"), f"gone:{i}"]],
                check=lambda reply: reply == 1,
                keys=lambda i, p: [key_of(p, i, n, "b"), key_of(p, i, n, "t")], script="rank_remove_dense.lua",
                script_args=lambda i, p: [f"gone:{i}"])


def page_start(i, n):
    """Where call i's page of 10 starts: anywhere on the board."""
    return spread(i, max(1, n - 10))


@family(10000)
def rank_top(n):
    return Case("RANK.TOP 10", n, board(n),
                zkit=lambda i, p: ["RANK.TOP", p + "b", 10, "OFFSET", page_start(i, n)],
                native=lambda i, p: [["ZREVRANGE", p + "b", page_start(i, n), page_start(i, n) + 9, "WITHSCORES"]],
                native_data=board(n, integer=True), v02=True, target=1.0,
                keys=lambda i, p: on(p, "b"), script="rank_page.lua", script_args=lambda i, p: [10, page_start(i, n)])


@family()
def rank_top_shared(n):
    # The natives: the page, and the shared rank of its first total.
    return Case("RANK.TOP 10 SHARED", n, board(n),
                zkit=lambda i, p: ["RANK.TOP", p + "b", 10, "OFFSET", page_start(i, n), "SHARED"],
                native=lambda i, p: [["ZREVRANGE", p + "b", page_start(i, n), page_start(i, n) + 9, "WITHSCORES"],
                                     ["ZCOUNT", p + "b", total_above(i, n), "+inf"]],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_page_shared.lua",
                script_args=lambda i, p: [10, page_start(i, n)])


@family(10000)
def rank_top_head(n):
    # A leaderboard's first page, the usual read.
    return Case("RANK.TOP 10 head", n, board(n),
                zkit=lambda i, p: ["RANK.TOP", p + "b", 10],
                native=lambda i, p: [["ZREVRANGE", p + "b", 0, 9, "WITHSCORES"]],
                native_data=board(n, integer=True), v02=True, target=1.0,
                keys=lambda i, p: on(p, "b"), script="rank_page.lua", script_args=lambda i, p: [10, 0])


@family(10000)
def rank_around(n):
    # The natives: the member's rank, then the page around it.
    return Case("RANK.AROUND 5", n, board(n),
                zkit=lambda i, p: ["RANK.AROUND", p + "b", m(i, n), 5],
                native=lambda i, p: [["ZREVRANK", p + "b", m(i, n)],
                                     ["ZREVRANGE", p + "b", max(0, spread(i, n) - 5), spread(i, n) + 5,
                                      "WITHSCORES"]],
                native_data=board(n, integer=True), v02=True, target=1.0,
                keys=lambda i, p: on(p, "b"), script="rank_around.lua", script_args=lambda i, p: [m(i, n), 5])


@family(10000)
def rank_mgift(n):
    boards = ("day", "week", "all")
    return Case("RANK.MGIFT 3 boards", n, board(n, *boards),
                zkit=lambda i, p: ["RANK.MGIFT", 3, *on(p, *boards), m(i, n), 5],
                native=lambda i, p: [c for k in boards for c in (["ZINCRBY", p + k, 5, m(i, n)],
                                                                 ["ZREVRANK", p + k, m(i, n)])],
                native_data=board(n, *boards, integer=True), v02=True, target=1.0,
                keys=lambda i, p: on(p, *boards), script="rank_mgift.lua", script_args=lambda i, p: [m(i, n), 5])


@family(10000)
def rank_mget(n):
    def members(i):
        return [m(i * 10 + j, n) for j in range(10)]

    return Case("RANK.MGET 10", n, board(n),
                zkit=lambda i, p: ["RANK.MGET", p + "b", "MEMBERS", *members(i)],
                native=lambda i, p: [["ZMSCORE", p + "b", *members(i)]]
                + [["ZREVRANK", p + "b", member] for member in members(i)],
                native_data=board(n, integer=True),
                v02=lambda i, p: ["RANK.MGET", p + "b", *members(i)], target=1.0,
                keys=lambda i, p: on(p, "b"), script="rank_mget.lua", script_args=lambda i, p: members(i))


@family()
def rank_stats(n):
    return Case("RANK.STATS", n, board(n), zkit=lambda i, p: ["RANK.STATS", p + "b"],
                keys=lambda i, p: on(p, "b"), script="rank_stats.lua", script_args=lambda i, p: [])


@family()
def rank_percentile(n):
    return Case("RANK.PERCENTILE", n, board(n),
                zkit=lambda i, p: ["RANK.PERCENTILE", p + "b", m(i, n)],
                native=lambda i, p: [["ZREVRANK", p + "b", m(i, n)], ["ZCARD", p + "b"]],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_percentile.lua", script_args=lambda i, p: [m(i, n)])


def percentile(i):
    """Call i's percentile: 0 to 100 in steps of 0.1."""
    return spread(i, 1001, 3) / 10


def positions(i, n):
    """The two ascending positions a quantile reads."""
    index = (n - 1) * percentile(i) / 100
    return int(index), -int(-index // 1)


@family()
def rank_quantile(n):
    return Case("RANK.QUANTILE", n, board(n),
                zkit=lambda i, p: ["RANK.QUANTILE", p + "b", percentile(i)],
                native=lambda i, p: [["ZCARD", p + "b"]]
                + [["ZRANGE", p + "b", at, at, "WITHSCORES"] for at in positions(i, n)],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_quantile.lua", script_args=lambda i, p: [percentile(i)])


def band(i, n):
    """Call i's band of totals: 10 totals of the board's 0 .. min(n, 1000) - 1."""
    low = spread(i, max(1, min(n, 1000) - 9), 4)
    return low, low + 9


@family()
def rank_count(n):
    return Case("RANK.COUNT", n, board(n),
                zkit=lambda i, p: ["RANK.COUNT", p + "b", *band(i, n)],
                native=lambda i, p: [["ZCOUNT", p + "b", *band(i, n)]],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_count.lua", script_args=lambda i, p: list(band(i, n)))


@family()
def rank_range(n):
    # A page of 10 of a band of totals, each with its rank on the board: the
    # natives read the page and count the members above it.
    def natives(i, p):
        low, high = band(i, n)
        return [["ZREVRANGEBYSCORE", p + "b", high, low, "WITHSCORES", "LIMIT", 0, 10],
                ["ZCOUNT", p + "b", f"({high}", "+inf"]]

    return Case("RANK.RANGE", n, board(n),
                zkit=lambda i, p: ["RANK.RANGE", p + "b", band(i, n)[1], band(i, n)[0], "LIMIT", 0, 10],
                native=natives, native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_range.lua",
                script_args=lambda i, p: [band(i, n)[1], band(i, n)[0], 0, 10])


@family()
def rank_among(n):
    # A player among ten friends.
    def friends(i):
        return [m(i * 10 + j, n) for j in range(10)]

    return Case("RANK.AMONG", n, board(n),
                zkit=lambda i, p: ["RANK.AMONG", p + "b", "MEMBERS", *friends(i)],
                native=lambda i, p: [["ZMSCORE", p + "b", *friends(i)]], native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_among.lua", script_args=lambda i, p: friends(i))


@family(100)
def rank_merge(n):
    # Two boards into a third, whole: every member read and written.
    return Case("RANK.MERGE 2 boards", n, board(n, "a", "c"),
                zkit=lambda i, p: ["RANK.MERGE", p + "d", 2, p + "a", p + "c"],
                native=lambda i, p: [["ZUNIONSTORE", p + "d", 2, p + "a", p + "c"]], v02=True,
                calls=max(2, 3200 // n),
                keys=lambda i, p: on(p, "d", "a", "c"), script="rank_merge.lua", script_args=lambda i, p: [])


@family(10, 100, 10000)
def feed_page(n):
    # A page of 20 from the middle of a feed scored 0..n-1.
    cursor = feed_cursor(n // 2, f"m:{n // 2}")
    return Case("FEED.PAGE OLDER 20", n, zset(n, "f", "i", "m:%d"),
                zkit=lambda i, p: ["FEED.PAGE", p + "f", "COUNT", 20, "OLDER", cursor],
                native=lambda i, p: [["ZREVRANGEBYSCORE", p + "f", f"({n // 2}", "-inf", "WITHSCORES",
                                      "LIMIT", 0, 20]], v02=True, target=1.5,
                keys=lambda i, p: on(p, "f"), script="feed_page.lua",
                script_args=lambda i, p: [20, n // 2, f"m:{n // 2}"])


@family(100, 10000)
def feed_add(n):
    # Each add is newer than the feed and trims its oldest item; the natives
    # re-score an item (separate commands cannot add and trim in turn), then
    # ZCARD tells the caller whether to trim.
    return Case("FEED.ADD CAP", n, zset(n, "f", "i", "m:%d"),
                zkit=lambda i, p: ["FEED.ADD", p + "f", "CAP", n, n + i, f"new:{i}"],
                native=lambda i, p: [["ZADD", p + "f", n + i, m(i, n)], ["ZCARD", p + "f"]],
                v02=True, target=1.0,
                keys=lambda i, p: on(p, "f"), script="feed_add.lua", script_args=lambda i, p: [n, n + i, f"new:{i}"])


@family(10000)
def vote_cast(n):
    def keys(i, p):
        return [p + "s", f"{p}up:{spread(i, n)}", f"{p}down:{spread(i, n)}"]

    def item_voter(i):
        return [f"i:{spread(i, n)}", f"u:{spread(i, n, 3)}"]

    def natives(i, p):
        (scores, up, down), (item, voter) = keys(i, p), item_voter(i)
        return [["SISMEMBER", up, voter], ["SISMEMBER", down, voter], ["SADD", up, voter],
                ["ZINCRBY", scores, 432, item], ["SCARD", up], ["SCARD", down]]

    return Case("VOTE.CAST", n, zset(n, "s", "1000000000 + i", "i:%d"),
                zkit=lambda i, p: ["VOTE.CAST", *keys(i, p), *item_voter(i), "UP", "WEIGHT", 432, 432],
                native=natives, v02=True, target=1.0,
                keys=keys, script="vote_cast.lua", script_args=lambda i, p: [*item_voter(i), "UP", 432, 432])


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


@family()
def vote_state(n):
    return Case("VOTE.STATE", n, voters(n),
                zkit=lambda i, p: ["VOTE.STATE", p + "up", p + "down", f"u:{spread(i, 2 * n)}"],
                native=lambda i, p: [["SISMEMBER", p + "up", f"u:{spread(i, 2 * n)}"],
                                     ["SISMEMBER", p + "down", f"u:{spread(i, 2 * n)}"]],
                keys=lambda i, p: on(p, "up", "down"), script="vote_state.lua",
                script_args=lambda i, p: [f"u:{spread(i, 2 * n)}"])


@family(10, 10000)
def delay_poll(n):
    # Queues of n tasks due in 2096 and the due tasks the calls claim.
    return Case("DELAY.POLL", n, tasks(n, "q", "later:%d", "i", "due:%d"),
                zkit=lambda i, p: ["DELAY.POLL", key_of(p, i, n, "q")],
                native=lambda i, p: [["ZPOPMIN", key_of(p, i, n, "q")]],
                v02=True, check=claimed, target=1.0,
                keys=lambda i, p: [key_of(p, i, n, "q")], script="delay_poll.lua", script_args=lambda i, p: [1])


@family(10, 10000)
def delay_poll_lease(n):
    # Each queue has its in-flight set, holding n leased tasks.
    return Case("DELAY.POLL LEASE", n, tasks(n, "q", "later:%d", "i", "due:%d", held="held"),
                zkit=lambda i, p: ["DELAY.POLL", key_of(p, i, n, "q"), "LEASE", key_of(p, i, n, "held"), 600000],
                native=lambda i, p: [["ZPOPMIN", key_of(p, i, n, "q")],
                                     ["ZADD", key_of(p, i, n, "held"), 4000000000000, f"due:{i}"]],
                v02=True, check=claimed, target=1.0,
                keys=lambda i, p: [key_of(p, i, n, "q"), key_of(p, i, n, "held")], script="delay_poll.lua",
                script_args=lambda i, p: [1, 600000])


@family()
def delay_poll_deadletter(n):
    # A leased poll that counts deliveries and moves a task delivered 3
    # times to a dead-letter set.
    def keys(i, p):
        return [key_of(p, i, n, "q"), key_of(p, i, n, "held"), key_of(p, i, n, "dead"),
                key_of(p, i, n, "deliveries")]

    def zkit(i, p):
        q, held, dead, deliveries = keys(i, p)
        return ["DELAY.POLL", q, "LEASE", held, 600000, "DEADLETTER", dead, deliveries, 3]

    return Case("DELAY.POLL DEADLETTER", n, tasks(n, "q", "later:%d", "i", "due:%d", held="held"), zkit=zkit,
                native=lambda i, p: [["ZPOPMIN", key_of(p, i, n, "q")],
                                     ["ZADD", key_of(p, i, n, "held"), 4000000000000, f"due:{i}"],
                                     ["HINCRBY", key_of(p, i, n, "deliveries"), f"due:{i}", 1]],
                check=claimed, keys=keys, script="delay_poll.lua", script_args=lambda i, p: [1, 600000, 3])


@family(10, 10000)
def delay_ack(n):
    # In-flight sets of n tasks held until 2096 and the done tasks acked.
    return Case("DELAY.ACK", n, tasks(n, "held", "t:%d", "4000000000000", "done:%d"),
                zkit=lambda i, p: ["DELAY.ACK", key_of(p, i, n, "held"), "TASKS", f"done:{i}"],
                native=lambda i, p: [["ZREM", key_of(p, i, n, "held"), f"done:{i}"]],
                v02=lambda i, p: ["DELAY.ACK", key_of(p, i, n, "held"), f"done:{i}"],
                check=lambda reply: reply == 1, target=0.8,
                keys=lambda i, p: [key_of(p, i, n, "held")], script="delay_ack.lua",
                script_args=lambda i, p: [f"done:{i}"])


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
                v02=True, check=lambda reply: reply == 1, target=1.0,
                keys=lambda i, p: on(p, "held", "held"), script="delay_nack.lua",
                script_args=lambda i, p: [f"held:{i % n}", 86400000])


@family(100, 10000)
def delay_touch(n):
    # A TOUCH extends a held task's lease by a day.
    return Case("DELAY.TOUCH", n, held_tasks(n),
                zkit=lambda i, p: ["DELAY.TOUCH", p + "held", f"held:{i % n}", 86400000],
                native=lambda i, p: [["ZSCORE", p + "held", f"held:{i % n}"],
                                     ["ZADD", p + "held", 1700000000000 + i, f"held:{i % n}"]],
                v02=True, check=lambda reply: reply == 1, target=1.0,
                keys=lambda i, p: on(p, "held"), script="delay_touch.lua",
                script_args=lambda i, p: [f"held:{i % n}", 86400000])


@family()
def delay_stats(n):
    return Case("DELAY.STATS", n, both(zset(n, "q", "i * 1000000000", "t:%d"), held_tasks(n)),
                zkit=lambda i, p: ["DELAY.STATS", p + "q", "INFLIGHT", p + "held"],
                keys=lambda i, p: on(p, "q", "held"), script="delay_stats.lua", script_args=lambda i, p: [])


def queues(n, name):
    """Keys `name`:k of n tasks later:0.. due in 2096, as many keys as the
    calls need (call i uses key i // per_key(n))."""

    def data(conn, p, calls):
        keys = -(-calls // per_key(n))
        build(conn, f"""
          for k = 0, {keys - 1} do
            local key = '{p}{name}:' .. k
            {fill_lua("key", n, "4000000000000", "later:%d")}
          end""")

    return data


@family()
def delay_add(n):
    # Each call adds a new task, due in 2065 (each in a millisecond of its
    # own), to a queue of about n.
    return Case("DELAY.ADD", n, queues(n, "q"),
                zkit=lambda i, p: ["DELAY.ADD", key_of(p, i, n, "q"), "TASKS", 3000000000000 + i, f"new:{i}"],
                native=lambda i, p: [["ZADD", key_of(p, i, n, "q"), "NX", 3000000000000 + i, f"new:{i}"]],
                check=lambda reply: reply == [1], keys=lambda i, p: [key_of(p, i, n, "q")], script="delay_add.lua",
                script_args=lambda i, p: [3000000000000 + i, f"new:{i}"])


@family()
def delay_job(n):
    # A held task's state: not in its queue, found in flight.
    def keys(i, p):
        return on(p, "q", "held", "dead")

    def zkit(i, p):
        q, held, dead = keys(i, p)
        return ["DELAY.JOB", q, f"held:{i % n}", "INFLIGHT", held, "DEAD", dead]

    return Case("DELAY.JOB", n, both(zset(n, "q", "i * 1000000000", "t:%d"), held_tasks(n),
                                     zset(n, "dead", "1700000000000 + i", "dead:%d")), zkit=zkit,
                native=lambda i, p: [["ZSCORE", p + "q", f"held:{i % n}"], ["ZSCORE", p + "held", f"held:{i % n}"]],
                check=lambda reply: isinstance(reply, list) and reply[1] == b"inflight", keys=keys,
                script="delay_job.lua", script_args=lambda i, p: [f"held:{i % n}"])


@family()
def delay_retry(n):
    # Dead sets of n tasks and the dead tasks the calls send back to a queue
    # of n beside each.
    def keys(i, p):
        return [key_of(p, i, n, "dead"), key_of(p, i, n, "q")]

    return Case("DELAY.RETRY", n, both(tasks(n, "dead", "died:%d", "1700000000000", "retry:%d"), queues(n, "q")),
                zkit=lambda i, p: ["DELAY.RETRY", *keys(i, p), "TASKS", f"retry:{i}"],
                native=lambda i, p: [["ZREM", key_of(p, i, n, "dead"), f"retry:{i}"],
                                     ["ZADD", key_of(p, i, n, "q"), 1700000000000 + i, f"retry:{i}"]],
                check=lambda reply: reply == 1, keys=keys, script="delay_retry.lua",
                script_args=lambda i, p: [f"retry:{i}"])


def paused(calls, name):
    """Hashes `name`:0.. (one per call) of paused queues, as DELAY.PAUSE
    leaves them (the time it paused, under `paused`)."""
    return f"for i = 0, {calls - 1} do redis.call('HSET', '{name}' .. i, 'paused', '1700000000000') end"


@family()
def delay_pause(n):
    # Each call pauses a queue of n tasks that another call has not: its own
    # hash.
    return Case("DELAY.PAUSE", n, zset(n, "q", "i * 1000000000", "t:%d"),
                zkit=lambda i, p: ["DELAY.PAUSE", p + "q", f"{p}d:{i}"],
                native=lambda i, p: [["HSETNX", f"{p}d:{i}", "paused", 1700000000000]],
                check=lambda reply: reply == 1, keys=lambda i, p: [p + "q", f"{p}d:{i}"],
                script="delay_pause.lua", script_args=lambda i, p: [])


@family()
def delay_resume(n):
    # Each call resumes a paused queue of n tasks (its own hash).
    def data(conn, p, calls):
        zset(n, "q", "i * 1000000000", "t:%d")(conn, p, calls)
        build(conn, paused(calls, p + "d:"))

    return Case("DELAY.RESUME", n, data,
                zkit=lambda i, p: ["DELAY.RESUME", p + "q", f"{p}d:{i}"],
                native=lambda i, p: [["HDEL", f"{p}d:{i}", "paused"]],
                check=lambda reply: reply == 1, keys=lambda i, p: [p + "q", f"{p}d:{i}"],
                script="delay_resume.lua", script_args=lambda i, p: [])


@family()
def delay_group(n):
    # Each call caps a new group of a queue of n tasks at 2 in flight.
    return Case("DELAY.GROUP CAP", n, zset(n, "q", "i * 1000000000", "t:%d"),
                zkit=lambda i, p: ["DELAY.GROUP", p + "q", p + "d", f"g:{i}", "CAP", 2],
                native=lambda i, p: [["HSET", p + "d", f"cap:g:{i}", 2]],
                check=lambda reply: reply == 1, keys=lambda i, p: on(p, "q", "d"),
                script="delay_group.lua", script_args=lambda i, p: [f"g:{i}", 2])


# A schedule's first occurrence, as the schedule cases write it: in 2065,
# so it is due then (not now) and every call's reply is the same time.
SCHEDULE_START = 3000000000000


def schedules_lua(p, count, first=0):
    """Lua that writes `count` schedules s<first>.. of a queue `p`q beside
    its hash `p`d, as DELAY.SCHEDULE ... EVERY 60000 START 2065 PAYLOAD job
    leaves them: the rule, the payload, the pending occurrence in the queue
    and its payload beside it."""
    return f"""
      for i = {first}, {first + count - 1} do
        local id = 's' .. i
        local task = id .. '@{SCHEDULE_START}'
        redis.call('HSET', '{p}d', 's:' .. id, 'every 60000', 't:' .. id, 'job', 'n:' .. id, '{SCHEDULE_START}',
          'p:' .. task, 'job')
        redis.call('ZADD', '{p}q', {SCHEDULE_START}, task)
      end"""


@family()
def delay_schedule(n):
    # Each call adds a new schedule, every minute from 2065, to a queue of n
    # tasks: its rule and payload, and its first occurrence with the payload.
    def natives(i, p):
        task = f"s{i}@{SCHEDULE_START}"
        return [["HGET", p + "d", f"n:s{i}"],
                ["HSET", p + "d", f"s:s{i}", "every 60000", f"t:s{i}", "job", f"n:s{i}", SCHEDULE_START,
                 f"p:{task}", "job"],
                ["ZADD", p + "q", "NX", SCHEDULE_START, task]]

    return Case("DELAY.SCHEDULE", n, zset(n, "q", "i * 1000000000", "t:%d"),
                zkit=lambda i, p: ["DELAY.SCHEDULE", p + "q", p + "d", f"s{i}", "EVERY", 60000,
                                   "START", SCHEDULE_START, "PAYLOAD", "job"],
                native=natives, check=lambda reply: reply == SCHEDULE_START, keys=lambda i, p: on(p, "q", "d"),
                script="delay_schedule.lua", script_args=lambda i, p: [f"s{i}", 60000, SCHEDULE_START, "job"])


@family()
def delay_unschedule(n):
    # Each call cancels a schedule of its own, whose pending occurrence
    # waits in a queue of about n tasks.
    def data(conn, p, calls):
        zset(n, "q", "i * 1000000000", "t:%d")(conn, p, calls)
        build(conn, schedules_lua(p, calls))

    def natives(i, p):
        task = f"s{i}@{SCHEDULE_START}"
        return [["HGET", p + "d", f"n:s{i}"], ["ZREM", p + "q", task],
                ["HDEL", p + "d", f"s:s{i}", f"t:s{i}", f"n:s{i}", f"p:{task}"]]

    return Case("DELAY.UNSCHEDULE", n, data,
                zkit=lambda i, p: ["DELAY.UNSCHEDULE", p + "q", p + "d", f"s{i}"],
                native=natives, check=lambda reply: reply == 1, keys=lambda i, p: on(p, "q", "d"),
                script="delay_unschedule.lua", script_args=lambda i, p: [f"s{i}"])


# The schedules a listed queue has, beside its jobs' data.
LISTED_SCHEDULES = 10


@family()
def delay_schedules(n):
    # A queue of n jobs (each with its payload in the hash) and ten
    # schedules: the listing reads the whole hash.
    def data(conn, p, calls):
        build(conn, f"""
          for i = 0, {n - 1} do
            redis.call('ZADD', '{p}q', i * 1000000000, 't:' .. i)
            redis.call('HSET', '{p}d', 'p:t:' .. i, 'job')
          end""")
        build(conn, schedules_lua(p, LISTED_SCHEDULES))

    return Case("DELAY.SCHEDULES", n, data,
                zkit=lambda i, p: ["DELAY.SCHEDULES", p + "q", p + "d"],
                native=lambda i, p: [["HGETALL", p + "d"]],
                check=lambda reply: isinstance(reply, list) and len(reply) == LISTED_SCHEDULES,
                keys=lambda i, p: on(p, "q", "d"), script="delay_schedules.lua", script_args=lambda i, p: [])


# The groups a listed queue has, beside its jobs' data: each capped at 2
# with 1 in flight, and rated 5 a minute with 3 claims in its log (in 2065,
# so the window keeps them whenever the guard runs).
LISTED_GROUPS = 10


@family()
def delay_groups(n):
    # A queue of n jobs (each with its payload in the hash) and ten groups:
    # the listing reads the whole hash.
    def data(conn, p, calls):
        build(conn, f"""
          for i = 0, {n - 1} do
            redis.call('ZADD', '{p}q', i * 1000000000, 't:' .. i)
            redis.call('HSET', '{p}d', 'p:t:' .. i, 'job')
          end
          for i = 0, {LISTED_GROUPS - 1} do
            redis.call('HSET', '{p}d', 'c:g' .. i, '2 5 60000', 'i:g' .. i, '1',
              'h:g' .. i, '3000000000000 3000000000001 3000000000002')
          end""")

    return Case("DELAY.GROUPS", n, data,
                zkit=lambda i, p: ["DELAY.GROUPS", p + "q", p + "d"],
                native=lambda i, p: [["HGETALL", p + "d"]],
                check=lambda reply: isinstance(reply, list) and len(reply) == LISTED_GROUPS,
                keys=lambda i, p: on(p, "q", "d"), script="delay_groups.lua", script_args=lambda i, p: [])


def rate_log(n):
    # A log at its limit n over ~30 years: every hit is refused.
    return zset(n, "r", "1700000000000", "1700000000000-%d")


def rate_natives(p):
    return [["ZREMRANGEBYSCORE", p + "r", "-inf", 0], ["ZCARD", p + "r"], ["ZRANGE", p + "r", 0, 0, "WITHSCORES"]]


@family(100, 10000, max_size=1000000)  # RATE.HIT's largest limit
def rate_hit(n):
    return Case("RATE.HIT refused", n, rate_log(n),
                zkit=lambda i, p: ["RATE.HIT", p + "r", 1000000000000, n],
                native=lambda i, p: rate_natives(p), v02=True, target=1.0,
                keys=lambda i, p: on(p, "r"), script="rate_hit.lua", script_args=lambda i, p: [1000000000000, n])


@family(max_size=1000000)  # RATE.HIT's largest limit
def rate_peek(n):
    # What a hit would answer on the log at its limit: refused, nothing written.
    return Case("RATE.PEEK", n, rate_log(n),
                zkit=lambda i, p: ["RATE.PEEK", p + "r", 1000000000000, n],
                native=lambda i, p: [["ZCOUNT", p + "r", "(0", "+inf"],
                                     ["ZRANGEBYSCORE", p + "r", "(0", "+inf", "WITHSCORES", "LIMIT", 0, 1]],
                keys=lambda i, p: on(p, "r"), script="rate_peek.lua", script_args=lambda i, p: [1000000000000, n])


@family(90, max_size=128)
def rate_hit_allowed(n):
    # A log of n entries well inside a limit it never reaches: every hit is
    # allowed, and added with one lookup (ZADD NX). Few calls, so the log
    # stays a listpack (at most 128 entries), where a lookup walks it. Paced:
    # each hit is the first of its millisecond.
    return Case("RATE.HIT allowed", n, rate_log(n), calls=24, paced=True,
                zkit=lambda i, p: ["RATE.HIT", p + "r", 1000000000000, 1000000],
                native=lambda i, p: [["ZREMRANGEBYSCORE", p + "r", "-inf", 0], ["ZCARD", p + "r"],
                                     ["ZADD", p + "r", 1800000000000 + i, f"h:{i}"],
                                     ["PEXPIREAT", p + "r", 4000000000000]], v02=True,
                keys=lambda i, p: on(p, "r"), script="rate_hit.lua", script_args=lambda i, p: [1000000000000, 1000000])


@family(100)
def rate_hit_idmp(n):
    def zkit(i, p):
        return ["RATE.HIT", p + "r", "IDMP", p + "seen", f"e:{i}", 1000000000000, n]

    def remember(i, p):
        return ["ZADD", p + "seen", 4000000000000, f"e:{i}"]

    return Case("RATE.HIT IDMP", n, both(rate_log(n), seen_ids(SEEN, zkit)), zkit=zkit,
                native=lambda i, p: [["ZSCORE", p + "seen", f"e:{i}"], *rate_natives(p), remember(i, p)],
                native_data=both(rate_log(n), seen_ids(SEEN, remember)))


@family(max_size=100000)
def rate_hit_limits(n):
    # Two limits on one log at its size n (n in ~30 years, n/2 in ~15):
    # every hit is refused by both, the second waiting for an entry n/2
    # deep. The script finds it with ZRANGEBYSCORE ... LIMIT offset, which
    # walks the offset: 10^6 would take most of an hour and is left out.
    return Case("RATE.HIT 2 limits", n, rate_log(n),
                zkit=lambda i, p: ["RATE.HIT", p + "r", 1000000000000, n, 500000000000, n // 2],
                native=lambda i, p: [["ZREMRANGEBYSCORE", p + "r", "-inf", 0], ["ZCOUNT", p + "r", 0, "+inf"],
                                     ["ZCOUNT", p + "r", 1000000000000, "+inf"],
                                     ["ZRANGE", p + "r", 0, 0, "WITHSCORES"]],
                keys=lambda i, p: on(p, "r"), script="rate_hit_limits.lua",
                script_args=lambda i, p: [1000000000000, n, 500000000000, n // 2])


@family()
def rate_stats(n):
    return Case("RATE.STATS", n, rate_log(n),
                zkit=lambda i, p: ["RATE.STATS", p + "r", "WINDOWS", 60000, 1000000000000],
                keys=lambda i, p: on(p, "r"), script="rate_stats.lua", script_args=lambda i, p: [60000, 1000000000000])


def holders(n):
    # A concurrency limit of n, all n slots held until 2096.
    return zset(n, "s", "4000000000000", "h:%d")


@family()
def rate_acquire(n):
    # A holder renews its lease (10 minutes from now) on a limit whose n
    # slots are all held.
    return Case("RATE.ACQUIRE renew", n, holders(n),
                zkit=lambda i, p: ["RATE.ACQUIRE", p + "s", f"h:{i % n}", 600000, n],
                native=lambda i, p: [["ZREMRANGEBYSCORE", p + "s", "-inf", 1700000000000],
                                     ["ZSCORE", p + "s", f"h:{i % n}"],
                                     ["ZADD", p + "s", 1700000600000 + i, f"h:{i % n}"],
                                     ["ZRANGE", p + "s", -1, -1, "WITHSCORES"],
                                     ["PEXPIREAT", p + "s", 4000000000000]],
                check=lambda reply: isinstance(reply, list) and reply[0] == 1, keys=lambda i, p: on(p, "s"),
                script="rate_acquire.lua", script_args=lambda i, p: [f"h:{i % n}", 600000, n])


@family()
def rate_release(n):
    # Limits of n slots held until 2096 and the held slots the calls give
    # back.
    return Case("RATE.RELEASE", n, tasks(n, "s", "h:%d", "4000000000000", "gone:%d"),
                zkit=lambda i, p: ["RATE.RELEASE", key_of(p, i, n, "s"), f"gone:{i}"],
                native=lambda i, p: [["ZSCORE", key_of(p, i, n, "s"), f"gone:{i}"],
                                     ["ZREM", key_of(p, i, n, "s"), f"gone:{i}"]],
                check=lambda reply: reply == 1, keys=lambda i, p: [key_of(p, i, n, "s")],
                script="rate_release.lua", script_args=lambda i, p: [f"gone:{i}"])


@family(100)
def recent_add(n):
    # Views of items out of 2n on a list at its cap n: half move an item to
    # the front, half add one and trim the oldest.
    return Case("RECENT.ADD CAP TTL", n, zset(n, "v", "1700000000000 + i", "m:%d"),
                zkit=lambda i, p: ["RECENT.ADD", p + "v", "CAP", n, "TTL", 2592000, "ITEMS", m(i, 2 * n)],
                native=lambda i, p: [["ZINCRBY", p + "v", 10000000000000, m(i, n)],
                                     ["ZREMRANGEBYRANK", p + "v", 0, -(n + 1)], ["EXPIRE", p + "v", 2592000]],
                v02=lambda i, p: ["RECENT.ADD", p + "v", m(i, 2 * n), "CAP", n, "TTL", 2592000], target=1.0,
                keys=lambda i, p: on(p, "v"), script="recent_add_zset.lua",
                script_args=lambda i, p: [m(i, 2 * n), n, 2592000])


@family(100, 10000)
def rank_set_lt_asc(n):
    # A lap board (ASC: the lowest total first): each set beats the member's
    # best, a new best every call. Registered last, so the cases before it
    # run in the state their baselines were taken in.
    return Case("RANK.SET LT ASC", n, board(n),
                zkit=lambda i, p: ["RANK.SET", p + "b", m(i, n), -1 - i, "LT", "ASC"],
                native=lambda i, p: [["ZADD", p + "b", "LT", -1 - i, m(i, n)], ["ZRANK", p + "b", m(i, n)]],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b"), script="rank_set_lt_asc.lua",
                script_args=lambda i, p: [m(i, n), -1 - i])


@family(100, 10000)
def rank_set_gt_columns(n):
    # A match board by kills, then the lowest time (RANK.COLUMNS' hash
    # beside the board): each set brings a member one more kill than its
    # last, a new best every call. The natives write the total a client
    # packs itself. Registered last, as RANK.SET LT ASC.
    columns = "redis.call('HSET', '{p}cols', 'columns', '2', '1', '1000 0 kills', '2', '0 3600 time')"

    def data(conn, p, calls):
        board(n)(conn, p, calls)
        build(conn, columns.format(p=p))

    kills = lambda i: 1 + i // n
    time = lambda i: i % 3601
    return Case("RANK.SET GT COLUMNS", n, data,
                zkit=lambda i, p: ["RANK.SET", p + "b", m(i, n), kills(i), "GT", "COLUMNS", p + "cols",
                                   "THEN", time(i)],
                native=lambda i, p: [["ZADD", p + "b", "GT", kills(i) * 3601 + 3600 - time(i), m(i, n)],
                                     ["ZREVRANK", p + "b", m(i, n)]],
                native_data=board(n, integer=True),
                keys=lambda i, p: on(p, "b", "cols"), script="rank_set_gt_columns.lua",
                script_keys=lambda i, p: on(p, "b"), script_args=lambda i, p: [m(i, n), kills(i), time(i)])


def cases(sizes=None):
    """The module guard's cases: every family it counts, at its sizes or at
    `sizes`."""
    return [make(n) for make, default, _ in FAMILIES if default for n in (sizes or default)]


# The library's cases: every command the library has, at 100 and 10,000
# members, its function beside the script a team would write for it and the
# module's command; in the order the guard runs them, which its baseline was
# taken in (a count moves a little with the state the cases before it leave).
LIBRARY_SIZES = (100, 10000)
LIBRARY_CASES = (
    ("RANK.GIFT", "RANK.SET GT", "RANK.MGIFT 3 boards", "RANK.GET", "RANK.MGET 10", "RANK.TOP 10", "RANK.AROUND 5",
     "RANK.STATS", "RANK.MERGE 2 boards", "FEED.ADD CAP", "FEED.PAGE OLDER 20", "DELAY.POLL LEASE", "DELAY.ACK",
     "DELAY.NACK", "DELAY.TOUCH", "DELAY.STATS", "RATE.HIT refused", "RATE.STATS", "RECENT.ADD CAP TTL", "VOTE.CAST",
     "VOTE.STATE"),
    # Each group added since runs after the groups before it, at every
    # size: the cases before it run in the state they were measured in.
    ("RANK.PERCENTILE", "RANK.QUANTILE", "RANK.COUNT", "RANK.RANGE", "RANK.AMONG"),
    ("RATE.PEEK",),
    ("DELAY.ADD", "DELAY.JOB", "DELAY.RETRY", "RATE.ACQUIRE renew", "RATE.RELEASE"),
    ("DELAY.PAUSE", "DELAY.RESUME", "DELAY.GROUP CAP"),
    ("RANK.GIFT DENSE", "RANK.GET DENSE", "RANK.REMOVE DENSE"),
    ("DELAY.SCHEDULE", "DELAY.UNSCHEDULE", "DELAY.SCHEDULES"),
    ("DELAY.GROUPS",),
    ("RANK.SET LT ASC",),
    ("RANK.SET GT COLUMNS",),
)


def library_cases(sizes=LIBRARY_SIZES):
    out = []
    for names in LIBRARY_CASES:
        for n in sizes:
            named = {case.name: case for case in (make(n) for make, _, _ in FAMILIES)}
            out += [named[name] for name in names]
    return out


def every_case(size):
    """Every family at `size` (the ones that support it), for `make bench`."""
    return [make(size) for make, _, largest in FAMILIES if largest is None or size <= largest]
