-- The native commands each command may run, with the keys it runs them on.
-- A row names native commands (space-separated) and `on`, the declared
-- argument (a key, or a list of keys: each is meant) or arguments (one key
-- per key of the command: RENAME's two) they run on; a row applies when the
-- call gives its keys, and, with `when` or `unless`, when the call gives (or
-- does not give) that option. Every native of a row must exist, or the call
-- is refused before it runs. A row that says `later` names natives the call
-- may run after its first write: the caller's ACL is asked about each, on
-- each key, just before that write (with `reached = name`, only when the
-- handler said rt.reach(name) before it). The natives of the other rows run
-- before the call's first write, or are that write: the server's ACL
-- refusal of one of them is the call's refusal, and nothing has changed.
-- A command runs a native command on a key only if a row names the two: the
-- test variant of the library (functions/gen.py --test-clock) fails any
-- other native call, and any after the first write that a `later` row did
-- not check.

-- What IDMP looks up, remembers (after the command's own write), and
-- forgets past idmp-max-ids (idmp.lua).
local IDMP_LOOKUP = { 'ZSCORE ZCARD', on = 'seen-key' }
local IDMP_RECORD = { 'ZREMRANGEBYSCORE ZADD', on = 'seen-key', later = true }
local IDMP_EVICT = { 'ZRANGE ZSCORE ZREM', on = 'seen-key', later = true, reached = 'idmp-evicts' }

-- A member's rank after a write: shared (ZCOUNT of higher totals), dense
-- (ZCOUNT of higher totals in the index) or by ZREVRANK (ZRANK with ASC).
local RANK_AFTER = { 'ZREVRANK', on = 'key', unless = { 'ranks', 'asc' }, later = true }
local ASC_RANK_AFTER = { 'ZRANK', on = 'key', when = 'asc', unless = 'ranks', later = true }
local SHARED_RANK_AFTER = { 'ZCOUNT', on = 'key', when = 'shared', later = true }

-- A dense board's index of totals: the new total looked up before the
-- write, entered after it, the old one's holders counted on the board and
-- the total removed when none is left; the index expires with the board.
local DENSE_LOOKUP = { 'ZSCORE', on = 'totals-key' }
local DENSE_KEEP = { 'ZADD ZREM ZCOUNT', on = 'totals-key', later = true }
local DENSE_HELD = { 'ZCOUNT', on = 'key', when = 'totals-key', later = true }
local DENSE_EXPIRE = { 'PEXPIREAT', on = 'totals-key', when = 'seconds', later = true }

-- A board's member data: the hash's type checked before the write, the
-- member's field set after it; the hash expires with the board.
local DATA_LOOKUP = { 'HLEN', on = 'data-key' }
local DATA_SET = { 'HSET', on = 'data-key', later = true }
local DATA_EXPIRE = { 'PEXPIREAT', on = 'data-key', when = 'seconds', later = true }

-- A board's columns (rank_columns.rs), read before anything else.
local COLUMNS_READ = { 'HGETALL', on = 'columns-key' }

natives['rank.gift'] = {
  { 'TIME' },
  { 'ZSCORE ZINCRBY ZADD', on = 'key' },
  DENSE_LOOKUP,
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
  DENSE_HELD,
  DENSE_KEEP,
  DENSE_EXPIRE,
  DATA_LOOKUP,
  DATA_SET,
  DATA_EXPIRE,
  COLUMNS_READ,
  RANK_AFTER,
  ASC_RANK_AFTER,
  SHARED_RANK_AFTER,
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

natives['rank.set'] = {
  { 'TIME' },
  { 'ZSCORE ZADD', on = 'key' },
  DENSE_LOOKUP,
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
  DENSE_HELD,
  DENSE_KEEP,
  DENSE_EXPIRE,
  DATA_LOOKUP,
  DATA_SET,
  DATA_EXPIRE,
  COLUMNS_READ,
  RANK_AFTER,
  ASC_RANK_AFTER,
  SHARED_RANK_AFTER,
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

-- Every board after the first is written after the call's first write.
natives['rank.mgift'] = {
  { 'TIME' },
  { 'ZSCORE', on = 'key' },
  { 'ZINCRBY ZADD', on = 'key', later = true },
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
  DENSE_LOOKUP,
  DENSE_HELD,
  DENSE_KEEP,
  DENSE_EXPIRE,
  RANK_AFTER,
  ASC_RANK_AFTER,
  SHARED_RANK_AFTER,
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

-- The reads write nothing: their natives are all run and refused as they go.
local RANK = { 'ZREVRANK', on = 'key', unless = { 'ranks', 'asc' } }
local ASC_RANK = { 'ZRANK', on = 'key', when = 'asc', unless = 'ranks' }
-- A first-come rank that every call reads, whatever its ranks.
local ANY_RANK = { 'ZREVRANK', on = 'key', unless = 'asc' }
local ANY_ASC_RANK = { 'ZRANK', on = 'key', when = 'asc' }
local SHARED_RANK = { 'ZCOUNT', on = 'key', when = 'shared' }
local DENSE_RANK = { 'ZCOUNT', on = 'totals-key' }
-- Each entry's data (HLEN checks the hash's type when no entry is read).
local DATA_READ = { 'HLEN HMGET', on = 'data-key' }

natives['rank.get'] = {
  { 'ZCARD ZSCORE', on = 'key' },
  RANK,
  ASC_RANK,
  SHARED_RANK,
  DENSE_RANK,
  DATA_READ,
  COLUMNS_READ,
}

natives['rank.mget'] = natives['rank.get']

natives['rank.top'] = {
  { 'ZCARD ZRANGE', on = 'key' },
  SHARED_RANK,
  DENSE_RANK,
  DATA_READ,
  COLUMNS_READ,
}

natives['rank.around'] = {
  { 'ZRANGE', on = 'key' },
  ANY_RANK,
  ANY_ASC_RANK,
  SHARED_RANK,
  DENSE_RANK,
  DATA_READ,
  COLUMNS_READ,
}

natives['rank.stats'] = {
  { 'ZCARD ZRANGE MEMORY', on = 'key' },
}

natives['rank.percentile'] = {
  { 'ZSCORE ZCARD', on = 'key' },
  ANY_RANK,
  ANY_ASC_RANK,
}

natives['rank.quantile'] = {
  { 'ZCARD ZRANGE', on = 'key' },
}

natives['rank.count'] = {
  { 'ZCARD ZCOUNT', on = 'key' },
}

-- A season's keys are computed, not read: no native command runs.
natives['rank.season'] = {}

-- The band's page is RANK.TOP's, with its ranks.
natives['rank.range'] = {
  { 'ZCARD ZCOUNT ZRANGE', on = 'key' },
  DENSE_RANK,
  DATA_READ,
}

natives['rank.among'] = {
  { 'ZSCORE', on = 'key' },
  DATA_READ,
  COLUMNS_READ,
}

-- The columns are read, then written only when the key holds none.
natives['rank.columns'] = {
  { 'HGETALL HSET', on = 'columns-key' },
}

-- The removal is the first write; with DENSE, the scores and the index's
-- type are read before it, and the index is kept after it; with DATA, the
-- hash's type is read before it and the members' data removed after it.
natives['rank.remove'] = {
  { 'ZREM', on = 'key' },
  { 'ZSCORE', on = 'key', when = 'totals-key' },
  { 'ZCARD', on = 'totals-key' },
  { 'ZCOUNT', on = 'key', when = 'totals-key', later = true },
  { 'ZREM', on = 'totals-key', later = true },
  { 'HLEN', on = 'data-key' },
  { 'HDEL', on = 'data-key', later = true },
}

-- The index is replaced after the board is read: UNLINK is the first write.
natives['rank.reindex'] = {
  { 'ZRANGE', on = 'key' },
  { 'ZCARD UNLINK', on = 'totals-key' },
  { 'ZADD', on = 'totals-key', later = true },
}

-- Every step of a run is refused where its last could not rename staging
-- over destkey: the staging rows are checked before a step's first write.
natives['rank.merge'] = {
  { 'ZRANGE', on = 'key' },
  { 'UNLINK', on = 'destkey', unless = 'step' },
  { 'ZADD', on = 'destkey', unless = 'step', later = true },
  { 'TIME', when = 'step', later = true },
  { 'ZCARD ZCOUNT ZSCORE', on = 'key', when = 'step' },
  { 'ZCARD ZRANGE ZSCORE UNLINK ZADD ZREM PEXPIRETIME PERSIST PEXPIREAT', on = 'staging', later = true },
  { 'UNLINK', on = 'destkey', when = 'step', later = true },
  { 'RENAME', on = { 'staging', 'destkey' }, later = true },
}

natives['feed.add'] = {
  { 'ZADD', on = 'key' },
  { 'ZCARD', on = 'key', when = 'n' },
  { 'ZRANGE ZREM', on = 'key', when = 'n', later = true, reached = 'trim' },
}

natives['feed.page'] = {
  { 'ZCARD ZRANGE', on = 'key' },
}

-- A poll that meets dead or expired tasks buries (or drops) them first
-- (its first write), then claims the live ones; with DATA it reads the
-- deadlines before, and writes the tasks' history and holders after.
natives['delay.poll'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZREM', on = 'key' },
  { 'ZREM', on = 'key', later = true, reached = 'burial' },
  { 'ZCARD', on = 'inflight' },
  { 'ZADD', on = 'inflight', later = true },
  { 'ZCARD', on = 'dead' },
  { 'ZADD ZCARD ZRANGE ZREM', on = 'dead', later = true, reached = 'burial' },
  { 'ZCARD ZSCORE', on = 'deliveries' },
  { 'ZINCRBY', on = 'deliveries', later = true },
  { 'ZSCORE ZREM', on = 'deliveries', later = true, reached = 'burial' },
  { 'ZSCORE', on = 'deliveries', when = 'withdata', later = true },
  { 'HLEN HEXISTS HGET', on = 'data' },
  { 'HSET HDEL', on = 'data', later = true },
  { 'HGET', on = 'data', when = 'withdata', later = true },
  -- A claimed occurrence of a repeating job queues the next one
  -- (schedules.lua), in its own lane.
  { 'ZSCORE ZRANGE ZADD', on = 'key', when = 'data', later = true },
  { 'ZSCORE ZADD', on = 'lane', when = 'data', later = true },
  -- The lanes after the first: checked before the first write, claimed
  -- after the lanes before them wrote; the deadlines of their tasks read
  -- then too.
  { 'ZCARD ZRANGE', on = 'lane' },
  { 'ZRANGE ZREM', on = 'lane', later = true },
  { 'HGET', on = 'data', later = true },
  { 'ZSCORE', on = 'deliveries', later = true },
  -- RATE: the window read before the first write, spent after the claim.
  { 'ZCARD ZRANGE ZCOUNT', on = 'log' },
  { 'ZCARD ZRANGE ZCOUNT ZSCORE ZREMRANGEBYSCORE ZADD PEXPIREAT', on = 'log', later = true },
}

-- A group's limits and counts are fields of the DATA hash; the count of
-- capped groups is read after its limits are written.
natives['delay.group'] = {
  { 'ZCARD', on = 'queue' },
  { 'HMGET', on = 'data' },
  { 'HGET HSET HDEL', on = 'data', later = true },
}

natives['delay.groups'] = {
  { 'TIME' },
  { 'ZCARD', on = 'queue' },
  { 'HGETALL', on = 'data' },
}

-- A schedule replaces its pending occurrence (ZREM, its data's HDEL) and
-- queues its first one (schedules.lua).
natives['delay.schedule'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZSCORE ZREM', on = 'queue' },
  { 'ZRANGE ZSCORE ZADD', on = 'queue', later = true },
  { 'HLEN HGET HSET HDEL', on = 'data' },
  { 'HGET HSET HDEL', on = 'data', later = true },
}

natives['delay.unschedule'] = {
  { 'ZCARD ZREM', on = 'queue' },
  { 'HLEN HEXISTS HGET HDEL', on = 'data' },
  { 'HDEL', on = 'data', later = true },
}

natives['delay.schedules'] = {
  { 'ZCARD', on = 'queue' },
  { 'HGETALL HMGET', on = 'data' },
}

-- With DATA, a task's group gets its slot back (HGET, HSET) as its data goes.
natives['delay.ack'] = {
  { 'ZCARD ZSCORE ZREM', on = 'inflight' },
  { 'ZCARD', on = 'deliveries' },
  { 'ZREM', on = 'deliveries', later = true },
  { 'HLEN', on = 'data' },
  { 'HGET HSET HDEL', on = 'data', later = true },
}

natives['delay.nack'] = {
  { 'TIME' },
  { 'ZCARD', on = 'queue' },
  { 'ZADD', on = 'queue', later = true },
  { 'ZCARD ZSCORE ZREM', on = 'inflight' },
  { 'HLEN', on = 'data' },
  { 'HGET HSET HDEL', on = 'data', later = true },
}

natives['delay.touch'] = {
  { 'TIME' },
  { 'ZSCORE ZADD', on = 'inflight' },
}

natives['delay.stats'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT', on = 'queue' },
  { 'ZCARD ZCOUNT', on = 'inflight' },
  { 'ZCARD', on = 'dead' },
  { 'ZCARD ZCOUNT', on = 'deliveries' },
  { 'HLEN HEXISTS HGET', on = 'data' },
}

-- Each task after the first is read and written after the call's first
-- write (the first task's ZADD).
natives['delay.add'] = {
  { 'TIME' },
  { 'ZRANGE ZSCORE', on = 'queue' },
  { 'ZRANGE ZSCORE ZADD', on = 'queue', later = true },
  { 'ZCARD ZSCORE', on = 'inflight' },
  { 'ZSCORE', on = 'inflight', later = true },
  { 'HLEN', on = 'data' },
  { 'HSET HDEL', on = 'data', later = true },
}

natives['delay.job'] = {
  { 'ZSCORE', on = 'queue' },
  { 'ZCARD ZSCORE', on = 'inflight' },
  { 'ZCARD ZSCORE', on = 'dead' },
  { 'ZCARD ZSCORE', on = 'deliveries' },
  { 'HLEN HGET', on = 'data' },
}

natives['delay.retry'] = {
  { 'TIME' },
  { 'ZSCORE', on = 'dead' },
  { 'ZREM', on = 'dead', later = true },
  { 'ZCARD', on = 'queue' },
  { 'ZRANGE ZADD', on = 'queue', later = true },
  { 'HLEN', on = 'data' },
  { 'HDEL', on = 'data', later = true },
}

natives['delay.pause'] = {
  { 'TIME' },
  { 'ZCARD', on = 'queue' },
  { 'HEXISTS HSET', on = 'data' },
}

natives['delay.resume'] = {
  { 'ZCARD', on = 'queue' },
  { 'HEXISTS HDEL', on = 'data' },
}

-- An allowed hit reads all it needs first; its first write drops the hits
-- that left the window.
natives['rate.hit'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT ZSCORE ZREMRANGEBYSCORE', on = 'key' },
  { 'ZADD PEXPIREAT', on = 'key', later = true },
  -- A refund (a negative COST) gives the newest units back after that drop.
  { 'ZREM', on = 'key', later = true, reached = 'refunds' },
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

natives['rate.peek'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT', on = 'key' },
}

-- An acquire reads all it needs first; its first write holds the lease (or,
-- refused, drops the leases that ended).
natives['rate.acquire'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT ZSCORE ZADD', on = 'key' },
  { 'ZREMRANGEBYSCORE PEXPIREAT', on = 'key', later = true },
}

natives['rate.release'] = {
  { 'TIME' },
  { 'ZSCORE ZREM', on = 'key' },
}

natives['rate.stats'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT', on = 'key' },
}

natives['recent.add'] = {
  { 'TIME' },
  { 'ZRANGE ZCARD ZADD', on = 'key' },
  { 'ZRANGE ZREM', on = 'key', when = 'cap', later = true, reached = 'trim' },
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
}

natives['vote.cast'] = {
  { 'SCARD SADD SREM', on = 'upvoters' },
  { 'SCARD', on = 'downvoters' },
  { 'SADD', on = 'downvoters', later = true, reached = 'down-joins' },
  { 'SREM', on = 'downvoters', later = true, reached = 'down-leaves' },
  { 'ZCARD ZSCORE', on = 'scores' },
  { 'ZINCRBY', on = 'scores', later = true },
  { 'TIME', when = 'window' },
  { 'ZSCORE', on = 'times' },
}

natives['vote.state'] = {
  { 'SISMEMBER', on = 'upvoters' },
  { 'SISMEMBER', on = 'downvoters' },
}
