-- What a user writes instead of DELAY.JOB (no DATA hash): where a task is,
-- looked up in the queue, then the in-flight set, then the dead set, and
-- its score there.
-- KEYS[1] queue, KEYS[2] in-flight set, KEYS[3] dead set, ARGV[1] task
local states = {'queued', 'inflight', 'dead'}
for i = 1, 3 do
  local score = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if score then
    return {'state', states[i], 'score', score}
  end
end
return {'state', false, 'score', false}
