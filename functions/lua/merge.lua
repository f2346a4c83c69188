-- RANK.MERGE: stores the sum of several boards (times integer weights) in
-- destkey, first-come order kept: a merged entry reached its total when its
-- last contributor did (src/commands/rank.rs, `merge_at_once`).

local rank = rt.rank

-- Members of a merge being built: total so far and latest reached-at, in
-- the order they were first read.
local function merged_board()
  return { index = {}, entries = {} }
end

local function merge_add(board, member, total, reached_at, weight)
  local weighted = rank.check_total(total * weight)
  local i = board.index[member]
  if i == nil then
    board.entries[#board.entries + 1] = { member, weighted, reached_at }
    board.index[member] = #board.entries
    return
  end
  local entry = board.entries[i]
  entry[2] = rank.add_totals(entry[2], weighted)
  if reached_at > entry[3] then
    entry[3] = reached_at
  end
end

local function merged_scores(board)
  local scored = {}
  for i, entry in ipairs(board.entries) do
    scored[i] = { entry[1], rank.encode(entry[2], entry[3]) }
  end
  return scored
end

local function merge_at_once(dest, sources, weights)
  local board = merged_board()
  for i, source in ipairs(sources) do
    local members = rt.pairs_of(rt.call('ZRANGE', source, '0', '-1', 'WITHSCORES'))
    for _, item in ipairs(members) do
      local total, reached_at = rank.decode(item[2])
      merge_add(board, item[1], total, reached_at, weights[i])
    end
  end
  local scored = merged_scores(board)
  rt.call('UNLINK', dest)
  rt.zadd_pairs(dest, scored)
  return #scored
end

-- -> the members of the merged board.
handlers['rank.merge'] = function(v)
  local dest, sources, given_weights, step = v[1], v[3], v[4], v[5]
  local weights = {}
  for i = 1, #sources do
    weights[i] = given_weights ~= false and tonumber(given_weights[i]) or 1
  end
  if step ~= false then
    rt.fail('ERR zkit library: RANK.MERGE STEP is not in this version of the library')
  end
  return merge_at_once(dest, sources, weights)
end
