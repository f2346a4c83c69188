-- RANK.SEASON: a day's, an ISO week's or a month's board key in a time
-- zone, and the one before (src/commands/rank_season.rs,
-- src/logic/season.rs). A season starts at the first instant the zone's
-- clock reads its first day and ends where the next one starts; the zone's
-- offsets are the module's (schedules.lua's tables).

local DAY_MS = 86400000
local civil = rt.zones.civil

-- The day count from 1970-01-01 of a civil date (H. Hinnant's algorithm).
local function days_from_civil(year, month, date)
  if month <= 2 then
    year = year - 1
  end
  local era = math.floor(year / 400)
  local yoe = year - era * 400
  local doy = math.floor((153 * ((month + 9) % 12) + 2) / 5) + date - 1
  return era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
end

-- The index of the offset in force at `ms` (the first one also before 0).
local function span_at(zone, ms)
  local starts = zone.starts
  local low, high = 1, #starts
  while low < high do
    local middle = math.floor((low + high + 1) / 2)
    if starts[middle] * 1000 <= ms then
      low = middle
    else
      high = middle - 1
    end
  end
  return low
end

-- The first instant the zone's clock reads `day` (a day count) or later:
-- in each offset's span the clock runs on, so the first span whose clock
-- reaches the day's midnight holds it.
local function day_start(zone, day)
  local wall = day * DAY_MS
  local starts, offsets = zone.starts, zone.offsets
  for k = span_at(zone, wall - DAY_MS), #starts do
    local at = wall - offsets[k] * 1000
    if k > 1 and at < starts[k] * 1000 then
      at = starts[k] * 1000
    end
    if k == #starts or at < starts[k + 1] * 1000 then
      return at
    end
  end
end

local PERIODS = {
  -- first(day): the season's first day; after(first): the next season's.
  {
    first = function(day)
      return day
    end,
    after = function(first)
      return first + 1
    end,
    label = function(first)
      return string.format('%04d-%02d-%02d', civil(first))
    end,
  },
  {
    first = function(day)
      return day - (day + 3) % 7
    end,
    after = function(first)
      return first + 7
    end,
    -- ISO: the week is numbered in the year that holds its Thursday.
    label = function(first)
      local year = civil(first + 3)
      return string.format('%04d-W%02d', year, math.floor((first + 3 - days_from_civil(year, 1, 1)) / 7) + 1)
    end,
  },
  {
    first = function(day)
      local year, month = civil(day)
      return days_from_civil(year, month, 1)
    end,
    after = function(first)
      local year, month = civil(first)
      return month == 12 and days_from_civil(year + 1, 1, 1) or days_from_civil(year, month + 1, 1)
    end,
    label = function(first)
      local year, month = civil(first)
      return string.format('%04d-%02d', year, month)
    end,
  },
}

-- -> `{ label, start, ends }` of the season holding `at_ms`.
local function season_at(period, zone, at_ms)
  local offset = zone.offsets[span_at(zone, at_ms)]
  local first = period.first(math.floor((at_ms + offset * 1000) / DAY_MS))
  local ends = day_start(zone, period.after(first))
  -- A clock set back across midnight reads the old day again after the
  -- new season started: that time is the new season's.
  if ends <= at_ms then
    first = period.after(first)
    ends = day_start(zone, period.after(first))
  end
  return { label = period.label(first), start = day_start(zone, first), ends = ends }
end

-- -> `[[key, starts-at-ms, ends-at-ms(, ttl)], ...]`: the season holding AT
-- (or now), then the season before it.
handlers['rank.season'] = function(v)
  local base, period, name, at, keep = v[1], PERIODS[v[2].choice], v[3], v[4], v[5]
  name = name or 'UTC'
  if not ZONES[name] then
    rt.fail(rt.say(ERRORS.schedule_unknown_zone, { zone = rt.utf8_lossy(name) }))
  end
  local now = rt.now_ms()
  at = at and tonumber(at) or now
  if not (at >= 0 and at <= LIMITS.SEASON_AT_LIMIT_MS) then
    rt.out_of_range('AT', rt.bound.SEASON_AT)
  end
  if keep then
    keep = tonumber(keep)
    if not (keep >= 1 and keep * 1000 <= rt.MAX_DURATION_MS) then
      rt.out_of_range('KEEP', rt.bound.DURATION_S)
    end
  end
  local zone = rt.zones.offsets_of(name)
  local current = season_at(period, zone, at)
  local before = season_at(period, zone, current.start - 1)
  local function row(season)
    local out = { base .. ':' .. season.label, season.start, season.ends }
    if keep then
      local left = season.ends + keep * 1000 - now
      out[4] = left > 0 and math.floor((left + 999) / 1000) or rt.NULL
    end
    return out
  end
  return { row(current), row(before) }
end
