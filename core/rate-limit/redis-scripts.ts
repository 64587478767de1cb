/**
 * Lua run inside Redis, so each call is one atomic step however many Rampart processes
 * share the counters. The bucket arithmetic mirrors core/rate-limit/token-bucket.ts
 * (integer ticks, 60000 per token, `perMinute` ticks per ms); keep the two in step.
 *
 * Clock: ARGV now >= 0 is used as given (tests inject it); otherwise the script reads
 * Redis TIME, so every process measures refill on the same clock.
 */

const NOW = `
local now = tonumber(ARGV[1])
if now == nil or now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * KEYS: bucket hashes {t = ticks, at = epoch ms}. ARGV: now, cost, then per key its
 * capacity in ticks and its perMinute. Returns {allowed 0|1, now, ticks per key}.
 */
export const TAKE_SCRIPT = `${NOW}
local cost = tonumber(ARGV[2]) * 60000
local n = #KEYS
local ticks, ats, ok = {}, {}, 1
for i = 1, n do
  local cap = tonumber(ARGV[1 + 2 * i])
  local rate = tonumber(ARGV[2 + 2 * i])
  local s = redis.call('HMGET', KEYS[i], 't', 'at')
  local t, at = cap, now
  if s[1] then
    at = tonumber(s[2])
    local elapsed = now - at
    if elapsed < 0 then elapsed = 0 end
    t = math.min(cap, tonumber(s[1]) + elapsed * rate)
    if at < now then at = now end
  end
  ticks[i] = t
  ats[i] = at
  if t < cost then ok = 0 end
end
if ok == 1 and cost > 0 then
  for i = 1, n do
    local cap = tonumber(ARGV[1 + 2 * i])
    local rate = tonumber(ARGV[2 + 2 * i])
    ticks[i] = ticks[i] - cost
    redis.call('HSET', KEYS[i], 't', ticks[i], 'at', ats[i])
    redis.call('PEXPIRE', KEYS[i], math.ceil((cap - ticks[i]) / rate) + 1000)
  end
end
local out = {ok, now}
for i = 1, n do out[2 + i] = ticks[i] end
return out
`;

/**
 * KEYS[1]: sorted set of slot members scored by expiry (epoch ms). ARGV: now, max,
 * ttl ms, member. Expired members (their process died) are dropped first.
 * Returns {acquired 0|1, members in use}.
 */
export const ACQUIRE_SLOT_SCRIPT = `${NOW}
local max = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
if n >= max then return {0, n} end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
return {1, n + 1}
`;

/**
 * KEYS: slot sets; ARGV: now, ttl ms, then one member per key. Pushes out the expiry of
 * members still present (XX), so a renewal racing a release never resurrects a slot.
 */
export const RENEW_SLOTS_SCRIPT = `${NOW}
local ttl = tonumber(ARGV[2])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + ttl, ARGV[2 + i])
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return #KEYS
`;
