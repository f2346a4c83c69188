-- What a user writes instead of RANK.GET ... DENSE: the member's total and
-- its dense rank, 1 + the distinct totals above it in the board's index of
-- totals. Decoding reached-at is left out, which only spares the script
-- work.
-- KEYS[1] board, KEYS[2] totals index, ARGV[1] member
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return false end
local total = math.floor(tonumber(score))
return {total, redis.call('ZCOUNT', KEYS[2], total + 1, '+inf') + 1}
