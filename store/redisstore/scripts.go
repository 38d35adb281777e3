package redisstore

import "github.com/redis/go-redis/v9"

// The scripts. Each runs atomically on the server (a Lua script is one
// step for Redis), declares every key it touches, and touches the keys of
// one family only (one hash tag, one cluster slot).
//
// Numbers: counts, limits and costs are at most 2^53 (guard.MaxCount), so
// tonumber reads them exactly and "spent > limit - amount" compares
// exactly; amounts are written back from their ARGV strings, never
// formatted by Lua (whose tostring and .. keep 14 significant digits). Times are the caller's, in µs (below 2^53
// until the year 2255); key expiries are Unix ms for PEXPIREAT/PXAT, the
// server's clock, with the configured skew added.

// A request's record is one string, DIGEST|REASON|INDEX|STATE|HOLD|KEEP|CHARGES,
// CHARGES being "COUNTERKEY AMOUNT\n" lines while the reservation is held
// (what a release gives back) and empty otherwise. One string, unlike a
// hash, costs one command to read and one to write.

// admitScript is Admit. KEYS: the request, the revocation key of every
// block and used discharge (nb of them), the replay key, then one
// counter per charge. ARGV: nb, digest, now, has replay, replay until, replay expiry, counter
// expiry (0: never), state if admitted, hold until, keep, request expiry,
// charges text, then (limit, amount, mismatch) per charge. It returns
// {reason, index, repeated} with reason -1 for a conflicting request id.
var admitScript = redis.NewScript(`
local nb = tonumber(ARGV[1])
local now = tonumber(ARGV[3])
local rec = redis.call('GET', KEYS[1])
if rec then
  local d, r, i, k = string.match(rec, '^(%x+)|(%-?%d+)|(%-?%d+)|%d|%d+|(%d+)|')
  if not d then return redis.error_reply('unreadable request record') end
  if tonumber(k) >= now then
    if d ~= ARGV[2] then return {-1, -1, 1} end
    return {tonumber(r), tonumber(i), 1}
  end
end
local reason, idx = 0, -1
if redis.call('EXISTS', unpack(KEYS, 2, 1 + nb)) > 0 then
  for i = 1, nb do
    if redis.call('EXISTS', KEYS[1 + i]) == 1 then
      reason, idx = 1, i - 1
      break
    end
  end
end
local jti = KEYS[2 + nb]
if reason == 0 and ARGV[4] == '1' then
  local u = redis.call('GET', jti)
  if u and tonumber(u) >= now then reason = 2 end
end
local nc = #KEYS - 2 - nb
local olde = {}
if reason == 0 then
  for j = 1, nc do
    local a = 13 + 3 * (j - 1)
    local lim, amt = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    local h = redis.call('HMGET', KEYS[2 + nb + j], 'n', 'e')
    local spent = tonumber(h[1] or '0')
    olde[j] = h[2]
    if ARGV[a + 2] == '1' or amt > lim or spent > lim - amt then
      reason, idx = 3, j - 1
      break
    end
  end
end
local state, charges = '2', ''
if reason == 0 then
  state, charges = ARGV[8], ARGV[12]
  if ARGV[4] == '1' and tonumber(ARGV[5]) >= now then
    redis.call('SET', jti, ARGV[5], 'PXAT', ARGV[6])
  end
  local e = ARGV[7]
  for j = 1, nc do
    local k, old = KEYS[2 + nb + j], olde[j]
    redis.call('HINCRBY', k, 'n', ARGV[13 + 3 * (j - 1) + 1])
    if not old then
      redis.call('HSET', k, 'e', e)
      if e ~= '0' then redis.call('PEXPIREAT', k, e) end
    elseif old ~= '0' then
      if e == '0' then
        redis.call('HSET', k, 'e', '0')
        redis.call('PERSIST', k)
      elseif tonumber(e) > tonumber(old) then
        redis.call('HSET', k, 'e', e)
        redis.call('PEXPIREAT', k, e)
      end
    end
  end
end
redis.call('SET', KEYS[1], ARGV[2] .. '|' .. reason .. '|' .. idx .. '|' .. state .. '|' ..
  ARGV[9] .. '|' .. ARGV[10] .. '|' .. charges, 'PXAT', ARGV[11])
return {reason, idx, 0}
`)

// settleScript is Settle. KEYS: the request, then (for a release) the
// counters its charges name, in order. ARGV: outcome (1 capture, 2
// release), now, and (for a release) the charges text the caller read,
// which must still be the request's. States are guard.HoldState: 1 held,
// 2 captured, 3 released. It returns ok, none, settled or changed.
var settleScript = redis.NewScript(`
local rec = redis.call('GET', KEYS[1])
if not rec then return 'none' end
local d, r, i, s, h, k, c = string.match(rec, '^(%x+)|(%-?%d+)|(%-?%d+)|(%d)|(%d+)|(%d+)|(.*)$')
if not d then return redis.error_reply('unreadable request record') end
local now = tonumber(ARGV[2])
if r ~= '0' or tonumber(k) < now then return 'none' end
local function put(state)
  redis.call('SET', KEYS[1], d .. '|' .. r .. '|' .. i .. '|' .. state .. '|' .. h .. '|' .. k .. '|' .. c, 'KEEPTTL')
end
if ARGV[1] == '1' then
  if s == '3' then return 'settled' end
  if s == '1' then put('2') end
  return 'ok'
end
if s == '3' then return 'ok' end
if s == '2' then return 'settled' end
if now > tonumber(h) then
  put('2')
  return 'settled'
end
if c ~= ARGV[3] then return 'changed' end
local j = 2
for amt in string.gmatch(c, ' (%d+)\n') do
  local n = redis.call('HGET', KEYS[j], 'n')
  if n then
    if tonumber(n) <= tonumber(amt) then
      redis.call('HSET', KEYS[j], 'n', '0')
    else
      redis.call('HINCRBY', KEYS[j], 'n', '-' .. amt)
    end
  end
  j = j + 1
end
put('3')
return 'ok'
`)

// revokeScript is Revoke. KEYS: a revocation key per block. ARGV: the
// expiry (Unix ms, or 0 for never); a key already kept longer keeps its
// expiry.
var revokeScript = redis.NewScript(`
local e = ARGV[1]
for i = 1, #KEYS do
  local old = redis.call('GET', KEYS[i])
  if not old or (old ~= '0' and (e == '0' or tonumber(e) > tonumber(old))) then
    if e == '0' then
      redis.call('SET', KEYS[i], '0')
    else
      redis.call('SET', KEYS[i], e, 'PXAT', e)
    end
  end
end
return 'ok'
`)
