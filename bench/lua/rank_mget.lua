-- What a user writes instead of RANK.MGET: each member's total and rank
-- (nil when absent); decoding reached-at is left out, which only spares the
-- script work.
-- KEYS[1] board, ARGV the members
local replies = {}
for i, member in ipairs(ARGV) do
  local score = redis.call('ZSCORE', KEYS[1], member)
  if score then
    replies[i] = {math.floor(tonumber(score)), redis.call('ZREVRANK', KEYS[1], member) + 1}
  else
    replies[i] = false
  end
end
return replies
