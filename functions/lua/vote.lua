-- VOTE: up and down votes counted once per voter (src/commands/vote.rs,
-- src/logic/vote.rs).

local function weights(given)
  if given == false then
    return 1, 1
  end
  local up, down = given[1], given[2]
  local function valid(w)
    return w == w and w ~= math.huge and w ~= -math.huge and w >= 0
  end
  if not valid(up) or not valid(down) then
    rt.fail(ERRORS.invalid_weight)
  end
  local sum = up + down
  if sum == math.huge then
    rt.fail(ERRORS.weights_too_large)
  end
  -- `+ 0` turns -0 into 0, so no vote leaves a -0 score behind.
  return up + 0, down + 0
end

local function contribution(in_up, in_down, up, down)
  return (in_up and up or 0) - (in_down and down or 0)
end

-- Makes `voter` a member of `set` (of `size` members) or not; whether it
-- was one before.
local function place_voter(set, size, voter, member)
  if size == 0 and not member then
    return false
  end
  local changed = rt.call(member and 'SADD' or 'SREM', set, voter) == 1
  return member ~= changed
end

-- -> `[score, ups, downs, changed]`.
handlers['vote.cast'] = function(v)
  local scores, upvoters, downvoters, item, voter = v[1], v[2], v[3], v[4], v[5]
  local direction, given_weights, window = v[6].choice, v[7], v[8]
  local up, down = weights(given_weights)
  local window_s
  if window ~= false then
    window_s = rt.non_negative(window[2], 'window seconds')
  end
  if scores == upvoters or scores == downvoters or upvoters == downvoters then
    rt.fail(ERRORS.vote_shared_key)
  end
  local ups_before = rt.scard(upvoters)
  local downs_before = rt.scard(downvoters)
  rt.zcard(scores)
  if window ~= false then
    local posted_at_s = rt.zscore(window[1], item)
    if posted_at_s == nil then
      rt.fail(ERRORS.no_post_time)
    end
    local closes_at_ms = (posted_at_s + window_s) * 1000
    if not (rt.now_ms() <= closes_at_ms) then
      rt.fail(rt.say(ERRORS.voting_closed, { posted_at_s = rt.rust_display(posted_at_s), window_s = window[2] }))
    end
  end
  local want_up, want_down = direction == 1, direction == 2
  -- The downvoters are written after the upvoters: checked before them.
  if want_down then
    rt.reach('down-joins')
  elseif downs_before > 0 then
    rt.reach('down-leaves')
  end
  local in_up = place_voter(upvoters, ups_before, voter, want_up)
  local in_down = place_voter(downvoters, downs_before, voter, want_down)
  local changed = in_up ~= want_up or in_down ~= want_down
  local score
  if changed then
    local delta = contribution(want_up, want_down, up, down) - contribution(in_up, in_down, up, down)
    score = tonumber(rt.call('ZINCRBY', scores, delta, item))
  else
    score = rt.zscore(scores, item) or 0
  end
  local function size_after(before, was, is)
    return before + (is and 1 or 0) - (was and 1 or 0)
  end
  return {
    rt.double(score),
    size_after(ups_before, in_up, want_up),
    size_after(downs_before, in_down, want_down),
    changed and 1 or 0,
  }
end

-- -> 1 up, -1 down, 0 none.
handlers['vote.state'] = function(v)
  local upvoters, downvoters, voter = v[1], v[2], v[3]
  -- SISMEMBER refuses a key of another type as SCARD would.
  local in_up = rt.call('SISMEMBER', upvoters, voter) == 1
  local in_down = rt.call('SISMEMBER', downvoters, voter) == 1
  if in_up and in_down then
    rt.fail(ERRORS.voter_in_both_sets)
  end
  return in_up and 1 or (in_down and -1 or 0)
end
