"""The Lua scripts of the Redis store: the pace on the server's clock, and claims many at a time.

Example: ``connection.register_script(PACE)(keys=[pace_key], args=["reserve", "1050000"])``
-> ``b"0"``: the slot starts now.
"""

from __future__ import annotations

__all__ = [
    "CLAIM",
    "DONE",
    "HELD",
    "MARK",
    "MERGE_HASH",
    "MOVE_KEYS",
    "PACE",
    "PACE_KEEP_MS",
    "REPLACE_JOB",
    "TAKE_OVER",
]

#: How long the pace hash outlives the latest time it records, in milliseconds.
PACE_KEEP_MS = 300_000
DONE = "done"  # a claim's value once released (holder names hold "|": never this)

# -- the pace: one hash, on the server's clock ------------------------------------------------

# State in microseconds of Redis TIME (integers below 2^53: exact in Lua's doubles), written
# with %.0f, as Lua's own number format would round them. ARGV[1]: what is done, in µs:
# 'reserve' (ARGV[2]: the interval), 'defer' (ARGV[2]: how long no slot starts) or 'slow_to'
# (ARGV[2]: the interval, ARGV[3]: how long it holds). Returns the wait for a slot taken, in µs.
PACE = f"""
if redis.replicate_commands then redis.replicate_commands() end -- Redis < 5: TIME, then writes
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local p = redis.call('HMGET', KEYS[1], 'next', 'deferred', 'floor', 'floor_until')
local nxt = tonumber(p[1]) or 0
local deferred = tonumber(p[2]) or 0
local floor = tonumber(p[3]) or 0
local floor_until = tonumber(p[4]) or 0
local arg = tonumber(ARGV[2])
local wait = 0
if ARGV[1] == 'reserve' then
  local slot = math.max(now, nxt, deferred)
  if floor_until > now and floor > arg then arg = floor end
  nxt = slot + arg
  wait = slot - now
elseif ARGV[1] == 'defer' then
  local untl = now + math.max(0, arg)
  nxt = math.max(nxt, untl)
  deferred = math.max(deferred, untl)
elseif floor_until > now and floor >= arg then
  return '0' -- a slower pace is already shared
else
  floor = arg
  floor_until = now + tonumber(ARGV[3])
end
local function us(x) return string.format('%.0f', x) end
redis.call('HSET', KEYS[1], 'next', us(nxt), 'deferred', us(deferred), 'floor', us(floor),
           'floor_until', us(floor_until))
local last = math.max(nxt, deferred, floor_until, now)
redis.call('PEXPIRE', KEYS[1], us(math.floor((last - now) / 1000) + {PACE_KEEP_MS}))
return us(wait)
"""

# -- claims: KEYS are claim keys; ARGV[1] the holder --------------------------------------------

# ARGV[2]: ttl (ms). Per key: 0 MINE, 2 RECHECK, or the other holder's name: BUSY, unless it
# is gone (then TAKE_OVER takes it).
CLAIM = f"""
local out = {{}}
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v and v ~= '{DONE}' and v ~= ARGV[1] then
    out[i] = v
  else
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    if v == '{DONE}' then out[i] = 2 else out[i] = 0 end
  end
end
return out
"""
# ARGV[2]: ttl (ms), ARGV[2 + i]: the holder KEYS[i] was seen held by. Each key still held by
# that one becomes ARGV[1]'s (a compare-and-set). Per key: 1 taken, 0 not.
TAKE_OVER = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[2 + i] then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
# ARGV[2]: what each claim the holder still holds becomes ("": deleted, so the next claimant
# buys at once), ARGV[3]: for how long (ms). Renewed: the holder again; let go of: DONE.
HELD = """
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    if ARGV[2] == '' then redis.call('DEL', key)
    else redis.call('SET', key, ARGV[2], 'PX', ARGV[3]) end
  end
end
return 0
"""
# KEYS[1]: a jobs hash; ARGV: job id, the entry as read, the new entry ("": remove the job).
# 1 when replaced; 0 when the entry is no longer what was read.
REPLACE_JOB = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1])
else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return 1
"""
# -- marks: KEYS are marks (an answer checked, a job change acted on) ----------------------------

# ARGV[1]: when (seconds since the epoch, as text), ARGV[2]: how long the mark is kept (s). A
# later mark already there is kept, its lifetime renewed: a mark never moves back.
MARK = """
local when = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  local v = tonumber(redis.call('GET', key))
  if v and v > when then redis.call('EXPIRE', key, ARGV[2])
  else redis.call('SET', key, ARGV[1], 'EX', ARGV[2]) end
end
return 0
"""

# -- a key's answers, adopted by the team's namespace (see RedisStore's module) -------------------

# KEYS: (from, to) pairs. Each key moves with its TTL (RENAME); where ``to`` already holds an
# answer to the same request, that one is kept and ``from`` is dropped. How many moved.
MOVE_KEYS = """
local moved = 0
for i = 1, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if redis.call('EXISTS', KEYS[i + 1]) == 1 then redis.call('DEL', KEYS[i])
    else redis.call('RENAME', KEYS[i], KEYS[i + 1]); moved = moved + 1 end
  end
end
return moved
"""
# KEYS[1] a hash merged into KEYS[2] (fields already there are kept), then deleted.
MERGE_HASH = """
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do redis.call('HSETNX', KEYS[2], all[i], all[i + 1]) end
redis.call('DEL', KEYS[1])
return #all / 2
"""
