import { luaScript } from '../client/run-script.js';

// core's MemoryCostLedger (cost-ledger.ts), one operation per call (ARGV[1]), atomic, plus
// what a shared ledger needs that a process's memory does not: a reservation whose process
// died is never settled, so each one has a deadline (ARGV[3] ms after it was made), and the
// first operation on the session after it settles the reservation at the amount held (the
// spend is kept: the call may have run). A settle or release arriving after that (a call that
// outlived the deadline) still corrects the spend once, from the 'lapsed' hash.
// KEYS: 1 the session (spent, reserved, calls, next), 2 held (id -> amount), 3 deadlines
// (zset id by ms), 4 lapsed (id -> amount). Amounts are numbers kept as %.17g strings.
// ARGV: op, now, reservation deadline (ms), lapsed TTL (ms), session TTL (ms, '' for none:
// each write then expires the session's keys that long after it), then the operation's own.
// Reservation ids start at the server's clock in microseconds when the session is first made
// (or made again after a reset), so an id from before a reset never names a later reservation.
// Replies: { ok, exceeded, spent, reserved, calls, id }.
/** @internal */
export const ledgerScript = luaScript(`
local op = ARGV[1]
local now = tonumber(ARGV[2])
local function fmt(x) return string.format('%.17g', x) end
local v = redis.call('HMGET', KEYS[1], 'spent', 'reserved', 'calls', 'next')
local s = { spent = tonumber(v[1]) or 0, reserved = tonumber(v[2]) or 0, calls = tonumber(v[3]) or 0, next = tonumber(v[4]) }
if s.next == nil then
  local t = redis.call('TIME')
  s.next = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local changed = false
local lapsedTtl = ARGV[4]
local sessionTtl = ARGV[5]
local due = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', fmt(now), 'LIMIT', 0, 1000)
for _, id in ipairs(due) do
  local amount = redis.call('HGET', KEYS[2], id)
  if amount then
    s.reserved = s.reserved - tonumber(amount)
    s.spent = s.spent + tonumber(amount)
    redis.call('HDEL', KEYS[2], id)
    redis.call('HSET', KEYS[4], id, amount)
    redis.call('PEXPIRE', KEYS[4], lapsedTtl)
  end
  redis.call('ZREM', KEYS[3], id)
  changed = true
end
local function reply(ok, exceeded, id)
  if changed then
    redis.call('HSET', KEYS[1], 'spent', fmt(s.spent), 'reserved', fmt(s.reserved), 'calls', fmt(s.calls), 'next', fmt(s.next))
    if sessionTtl ~= '' then
      redis.call('PEXPIRE', KEYS[1], sessionTtl)
      redis.call('PEXPIRE', KEYS[2], sessionTtl)
      redis.call('PEXPIRE', KEYS[3], sessionTtl)
    end
  end
  return { ok, exceeded, fmt(s.spent), fmt(s.reserved), fmt(s.calls), id }
end
if op == 'reserve' then
  local ttl = tonumber(ARGV[3])
  local amount = tonumber(ARGV[6])
  local maxCost = tonumber(ARGV[7])
  local maxCalls = tonumber(ARGV[8])
  local force = ARGV[9] == '1'
  local exceeded = ''
  if maxCalls and s.calls + 1 > maxCalls then
    exceeded = 'session_calls'
  elseif maxCost and s.spent + s.reserved + amount > maxCost then
    exceeded = 'session_cost'
  end
  if exceeded ~= '' and not force then return reply(0, exceeded, '') end
  s.reserved = s.reserved + amount
  s.calls = s.calls + 1
  s.next = s.next + 1
  local id = fmt(s.next)
  redis.call('HSET', KEYS[2], id, ARGV[6])
  redis.call('ZADD', KEYS[3], fmt(now + ttl), id)
  changed = true
  return reply(1, exceeded, id)
end
if op == 'settle' or op == 'release' then
  local id = ARGV[6]
  local held = redis.call('HGET', KEYS[2], id)
  if held then
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    s.reserved = s.reserved - tonumber(held)
    if op == 'settle' then s.spent = s.spent + tonumber(ARGV[7]) else s.calls = s.calls - 1 end
    changed = true
  else
    local lapsed = redis.call('HGET', KEYS[4], id)
    if lapsed then
      redis.call('HDEL', KEYS[4], id)
      -- the deadline spent the held amount: replace it by the actual one, or give it back
      if op == 'settle' then
        s.spent = s.spent + tonumber(ARGV[7]) - tonumber(lapsed)
      else
        s.spent = s.spent - tonumber(lapsed)
        s.calls = s.calls - 1
      end
      changed = true
    end
  end
  return reply(1, '', '')
end
if op == 'spent' then return reply(1, '', '') end
return redis.error_reply('unknown operation ' .. tostring(op))
`);
