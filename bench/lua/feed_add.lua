-- What a user writes instead of FEED.ADD ... CAP (seed 000: "use ZCARD, and
-- if the feed is too large delete some first"), made atomic in a script.
-- KEYS[1] feed, ARGV[1] cap, ARGV[2] score, ARGV[3] member
local added = redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
if excess > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1) end
return added
