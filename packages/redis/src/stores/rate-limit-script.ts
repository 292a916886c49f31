import { luaScript } from '../client/run-script.js';

// A port of core's takeFrom (rate-limit-store.ts), line for line, so a Redis bucket and an
// in-memory one give the same answers (the conformance test compares them). Numbers are kept
// as %.17g strings: Lua's tostring keeps 14 digits, which would drift the token counts.
// The state is one string "last,tokens1,tokens2,...", kept for the time the fullest bucket
// takes to refill, plus a minute: once that has passed it would read full anyway.
/** @internal */
export const takeScript = luaScript(`
local now = tonumber(ARGV[1])
local ttl = ARGV[2]
local count = (#ARGV - 2) / 2
local last = now
local tokens = {}
local raw = redis.call('GET', KEYS[1])
if raw then
  local i = 0
  for part in string.gmatch(raw, '[^,]+') do
    if i == 0 then last = tonumber(part) else tokens[i] = tonumber(part) end
    i = i + 1
  end
end
local elapsed = 0
if now > last then elapsed = now - last end
last = math.max(now, last)
local wait = 0
for i = 1, count do
  local capacity = tonumber(ARGV[1 + 2 * i])
  local refill = tonumber(ARGV[2 + 2 * i])
  local available = tokens[i]
  if available == nil then available = capacity end
  available = math.min(capacity, available + elapsed * refill)
  tokens[i] = available
  if available < 1 then
    local needed = (1 - available) / refill
    if needed > wait then wait = needed end
  end
end
local result = 0
if wait > 0 then
  result = math.max(1, math.ceil(wait - 1e-6))
else
  for i = 1, count do tokens[i] = tokens[i] - 1 end
end
local parts = { string.format('%.17g', last) }
for i = 1, #tokens do parts[#parts + 1] = string.format('%.17g', tokens[i]) end
redis.call('SET', KEYS[1], table.concat(parts, ','), 'PX', ttl)
return string.format('%.17g', result)
`);
