-- What a user writes instead of FEED.PAGE (seed 000) for the first page and
-- pull-up: newest first from a (score, member) cursor, exclusive, stepping
-- over the members of the cursor's score that were already shown, with one
-- look-ahead item for "more" and the top and bottom cursors as "score member".
-- KEYS[1] feed, ARGV[1] count, ARGV[2] cursor score and ARGV[3] cursor member
-- (both absent for the first page).
local count = tonumber(ARGV[1])
local max, after = '+inf', nil
if ARGV[2] then max, after = ARGV[2], tonumber(ARGV[2]) end
local items, offset = {}, 0
while #items < 2 * (count + 1) do
  local batch = redis.call('ZREVRANGEBYSCORE', KEYS[1], max, '-inf', 'WITHSCORES',
    'LIMIT', offset, count + 1)
  if #batch == 0 then break end
  for i = 1, #batch, 2 do
    local member, score = batch[i], batch[i + 1]
    if after and tonumber(score) == after and member >= ARGV[3] then
      -- at the cursor's score, not older than the cursor: shown already
    elseif #items < 2 * (count + 1) then
      after = nil
      items[#items + 1] = member
      items[#items + 1] = score
    end
  end
  offset = offset + count + 1
end
local more = 0
if #items > 2 * count then
  more = 1
  items[#items] = nil
  items[#items] = nil
end
if #items == 0 then return {items, false, false, more} end
return {items, items[2] .. ' ' .. items[1], items[#items] .. ' ' .. items[#items - 1], more}
