import { luaScript } from '../client/run-script.js';

// The state machine of core's MemoryCircuitBreakerStore (circuit-breaker-store.ts), one
// operation per call (ARGV[1]), atomic. A breaker is a hash: s (state), f (failures),
// sc (successes), p (probes in flight), o (opened at, ms), g (generation), pd (when the
// latest probe's lease ends, ms). The generation is bumped on every transition, so the outcome
// of a call admitted in an earlier state is ignored; a new breaker (first use, or after reset
// deleted it) starts at the server's clock in microseconds, past any generation an earlier
// breaker of the key handed out.
// Unlike in memory, a probe's process can die (or lose Redis) before it reports: a half-open
// breaker whose every probe slot is taken and whose latest probe is past its lease (ARGV[5], ms)
// frees the slots in a new generation (the lapsed probes' late outcomes are then ignored),
// instead of refusing every call of the fleet until a reset.
// Replies: { allowed, probe, state, generation, from, to, at, reason } ('' when no transition).
/** @internal */
export const breakerScript = luaScript(`
local key = KEYS[1]
local op = ARGV[1]
local v = redis.call('HMGET', key, 's', 'f', 'sc', 'p', 'o', 'g', 'pd')
if op == 'state' then
  if not v[1] then return 'closed' end
  if v[1] == 'open' and tonumber(ARGV[3]) - tonumber(v[5]) >= tonumber(ARGV[2]) then return 'half_open' end
  return v[1]
end
local b
if v[1] then
  b = { s = v[1], f = tonumber(v[2]), sc = tonumber(v[3]), p = tonumber(v[4]), o = tonumber(v[5]), g = tonumber(v[6]), pd = tonumber(v[7]) }
else
  local t = redis.call('TIME')
  b = { s = 'closed', f = 0, sc = 0, p = 0, o = 0, g = tonumber(t[1]) * 1000000 + tonumber(t[2]), pd = 0 }
end
local function fmt(x) return string.format('%.17g', x) end
local function save()
  redis.call('HSET', key, 's', b.s, 'f', fmt(b.f), 'sc', fmt(b.sc), 'p', fmt(b.p), 'o', fmt(b.o), 'g', fmt(b.g), 'pd', fmt(b.pd or 0))
end
local moved = { '', '', '', '' }
local function move(to, at, reason)
  moved = { b.s, to, fmt(at), reason }
  b.s = to
  b.g = b.g + 1
  b.f = 0
  b.sc = 0
  b.p = 0
  if to == 'open' then b.o = at end
end
if op == 'acquire' then
  local recovery = tonumber(ARGV[2])
  local successThreshold = tonumber(ARGV[3])
  local now = tonumber(ARGV[4])
  local lease = tonumber(ARGV[5])
  if not v[1] then save() end
  if b.s == 'closed' then return { 1, 0, 'closed', fmt(b.g), '', '', '', '' } end
  if b.s == 'open' then
    if now - b.o < recovery then return { 0, 0, 'open', fmt(b.g), '', '', '', '' } end
    move('half_open', now, 'recovery_timeout')
  end
  if b.p >= successThreshold - b.sc then
    -- probes admitted by a version that kept no lease: theirs starts now
    if not b.pd then b.pd = now + lease end
    if b.p > 0 and now >= b.pd then
      -- every probe in flight is past its lease: their slots are free again
      b.g = b.g + 1
      b.p = 0
    else
      save()
      return { 0, 0, 'half_open', fmt(b.g), moved[1], moved[2], moved[3], moved[4] }
    end
  end
  b.p = b.p + 1
  b.pd = now + lease
  save()
  return { 1, 1, 'half_open', fmt(b.g), moved[1], moved[2], moved[3], moved[4] }
end
if op == 'record' then
  local failureThreshold = tonumber(ARGV[2])
  local successThreshold = tonumber(ARGV[3])
  local generation = ARGV[4]
  local probe = ARGV[5] == '1'
  local outcome = ARGV[6]
  local now = tonumber(ARGV[7])
  if not v[1] or fmt(b.g) ~= generation then return { '', '', '', '' } end
  if b.s == 'closed' then
    if outcome == 'success' then
      if b.f ~= 0 then b.f = 0 save() end
    elseif outcome == 'failure' then
      b.f = b.f + 1
      if b.f >= failureThreshold then move('open', now, 'failure_threshold') end
      save()
    end
    return moved
  end
  if b.s ~= 'half_open' or not probe then return moved end
  b.p = b.p - 1
  if outcome == 'failure' then
    move('open', now, 'probe_failed')
  elseif outcome == 'success' then
    b.sc = b.sc + 1
    if b.sc >= successThreshold then move('closed', now, 'probes_succeeded') end
  end
  save()
  return moved
end
return redis.error_reply('unknown operation ' .. tostring(op))
`);
