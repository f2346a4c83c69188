-- What a user writes instead of RANK.AMONG: the given members that are on
-- the board, best first, each with its rank among them.
-- KEYS[1] board, ARGV the members
local scores = redis.call('ZMSCORE', KEYS[1], unpack(ARGV))
local found, seen = {}, {}
for i, score in ipairs(scores) do
  if score and not seen[ARGV[i]] then
    seen[ARGV[i]] = true
    found[#found + 1] = {ARGV[i], tonumber(score)}
  end
end
table.sort(found, function(a, b) return a[2] > b[2] end)
local out = {}
for i, member in ipairs(found) do
  out[i] = {i, member[1], math.floor(member[2])}
end
return out
