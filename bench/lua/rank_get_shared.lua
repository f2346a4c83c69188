-- What a user writes instead of RANK.GET ... SHARED: the member's total and
-- its competition rank, 1 + the members with a higher total (those scored at
-- total + 1 or more). Decoding reached-at is left out, which only spares the
-- script work.
-- KEYS[1] board, ARGV[1] member
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return false end
local total = math.floor(tonumber(score))
return {total, redis.call('ZCOUNT', KEYS[1], total + 1, '+inf') + 1}
