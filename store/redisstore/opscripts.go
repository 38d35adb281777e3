package redisstore

import "github.com/redis/go-redis/v9"

// opLib is shared by the operation scripts: it reads a record of the ops
// hash (see keys.ops), drops a record expired at now (µs), and extends the
// three keys' expiry to ms (Unix ms; 0 keeps them for ever).
const opLib = `
local function parse(rec)
  if not rec then return nil end
  local b, q, s, st, h, f, k, n, r, e, tool = string.match(rec,
    '^(%x+)|(%x+)|(%d)|(%d+)|(%d+)|(%d+)|(%d)|(%d+)|(%d+)|(%d+)|(.*)$')
  if not b then return redis.error_reply('unreadable operation record') end
  return {b = b, q = q, s = s, st = st, h = h, f = f, k = k, n = n, r = r, e = e, tool = tool}
end
local function put(key, o)
  redis.call('HSET', KEYS[1], key, o.b .. '|' .. o.q .. '|' .. o.s .. '|' .. o.st .. '|' .. o.h .. '|' ..
    o.f .. '|' .. o.k .. '|' .. o.n .. '|' .. o.r .. '|' .. o.e .. '|' .. o.tool)
end
local function drop(key)
  local len = redis.call('HSTRLEN', KEYS[2], key)
  redis.call('HDEL', KEYS[1], key)
  redis.call('HDEL', KEYS[2], key)
  if len > 0 then redis.call('DECRBY', KEYS[3], len) end
end
local function live(key, now)
  local o = parse(redis.call('HGET', KEYS[1], key))
  if o and o.e ~= '0' and now > tonumber(o.e) then
    drop(key)
    return nil
  end
  return o
end
local function expire(ms)
  for i = 1, 3 do
    if ms == '0' then
      redis.call('PERSIST', KEYS[i])
    else
      local ttl = redis.call('PTTL', KEYS[i])
      local t = redis.call('TIME')
      local at = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + ttl
      if ttl == -2 or (ttl >= 0 and tonumber(ms) > at) then redis.call('PEXPIREAT', KEYS[i], ms) end
    end
  end
end
`

// startOpScript is StartOperation. KEYS: keys.ops. ARGV: key, binding,
// request, tool, now, hold, expires (µs), expiry (ms), MaxFamilyOperations.
// It returns {claim, record, result}, claim as guard.DecideStart decides.
var startOpScript = redis.NewScript(opLib + `
local key, now = ARGV[1], tonumber(ARGV[5])
local o = live(key, now)
if o and (o.s == '3' or o.s == '4') then
  drop(key)
  o = nil
end
if not o then
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[9]) then return {7, '', ''} end
  o = {b = ARGV[2], q = ARGV[3], s = '1', st = ARGV[5], h = ARGV[6], f = '0', k = '0', n = '0', r = '0', e = ARGV[7], tool = ARGV[4]}
  put(key, o)
  redis.call('SET', KEYS[3], '0', 'NX')
  expire(ARGV[8])
  return {1, redis.call('HGET', KEYS[1], key), ''}
end
local rec = redis.call('HGET', KEYS[1], key)
if o.b ~= ARGV[2] then return {4, rec, ''} end
if o.s == '1' then
  if now <= tonumber(o.h) then return {2, rec, ''} end
  return {3, rec, ''}
end
if o.k ~= '1' then return {6, rec, ''} end
o.n = tostring(tonumber(o.n) + 1)
o.r = ARGV[5]
put(key, o)
return {5, redis.call('HGET', KEYS[1], key), redis.call('HGET', KEYS[2], key) or ''}
`)

// finishOpScript is FinishOperation. KEYS: keys.ops. ARGV: key, request,
// now (µs), result, MaxOperationResult, MaxFamilyResults. It returns 1
// (kept), 0 (not kept) or -1 (no running operation of the request).
var finishOpScript = redis.NewScript(opLib + `
local key = ARGV[1]
local o = live(key, tonumber(ARGV[3]))
if not o or o.s ~= '1' or o.q ~= ARGV[2] then return -1 end
local size = tonumber(redis.call('GET', KEYS[3]) or '0')
local n = string.len(ARGV[4])
o.s, o.f = '2', ARGV[3]
if n <= tonumber(ARGV[5]) and size + n <= tonumber(ARGV[6]) then
  o.k = '1'
  redis.call('HSET', KEYS[2], key, ARGV[4])
  redis.call('INCRBY', KEYS[3], n)
end
put(key, o)
return tonumber(o.k)
`)

// dropOpScript is DropOperation: the record's state becomes ARGV[3] (3
// released, 4 waiting). KEYS: keys.ops. ARGV: key, request, state. It
// returns 1, or -1 when no running operation of the request has the key.
var dropOpScript = redis.NewScript(opLib + `
local o = parse(redis.call('HGET', KEYS[1], ARGV[1]))
if not o or o.s ~= '1' or o.q ~= ARGV[2] then return -1 end
o.s = ARGV[3]
put(ARGV[1], o)
return 1
`)
