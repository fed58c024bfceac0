"""The Redis store's Lua scripts: each write, and the search, runs atomically on the server.

Every key a script touches is passed in ``KEYS`` or built from a prefix passed in ``ARGV``
(the per-term posting keys); all of them share the namespace's hash slot, so the scripts stay
legal on Redis Cluster. Key names are in :class:`chatfold.stores.redis.RedisKeys`.
"""

from __future__ import annotations

__all__ = ["ACQUIRE", "APPEND", "DELETE", "RELEASE", "SAVE_STATE", "SEARCH"]

APPEND = """
local n = redis.call('LLEN', KEYS[2])
redis.call('SADD', KEYS[1], ARGV[1])
local count = tonumber(ARGV[3])
for i = 4, 3 + count, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, 3 + count)))
end
local pos = 4 + count
local total = 0
for j = 1, count do
  local seq = n + j
  local k = tonumber(ARGV[pos])
  pos = pos + 1
  redis.call('SETRANGE', KEYS[3], (seq - 1) * 5, string.format('%05d', math.min(k, 99999)))
  local tag = string.format('%010d', seq)
  for t = pos, pos + k - 1 do
    redis.call('APPEND', ARGV[2] .. ARGV[t], tag)
  end
  for t = pos, pos + k - 1, 1000 do
    redis.call('SADD', KEYS[4], unpack(ARGV, t, math.min(t + 999, pos + k - 1)))
  end
  pos = pos + k
  total = total + k
end
redis.call('HINCRBY', KEYS[5], 'docs', count)
redis.call('HINCRBY', KEYS[5], 'length', total)
return n + count
"""
"""KEYS: index, log, doclen, termset, search stats. ARGV: id, posting-key prefix, n, the n
entries, then per entry its term count k and k terms. Returns the log's new length (the last
seq). The entries and their index entries are written by one script, so concurrent writers
can never leave the index out of step with the log. LLEN comes first: a log key of the wrong
type fails the script before it writes anything."""

SEARCH = """
local out = {redis.call('HGET', KEYS[2], 'docs') or '0',
             redis.call('HGET', KEYS[2], 'length') or '0'}
local through = tonumber(ARGV[2])
local maxdf = tonumber(ARGV[3])
for i = 4, #ARGV do
  local key = ARGV[1] .. ARGV[i]
  local lo, hi = 0, redis.call('STRLEN', key) / 10
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if tonumber(redis.call('GETRANGE', key, mid * 10, mid * 10 + 9)) <= through then
      lo = mid + 1
    else
      hi = mid
    end
  end
  if lo > maxdf then
    out[#out + 1] = 'c'
    out[#out + 1] = ''
  else
    local seqs = ''
    local lens = {}
    if lo > 0 then
      seqs = redis.call('GETRANGE', key, 0, lo * 10 - 1)
      for j = 0, lo - 1 do
        local seq = tonumber(string.sub(seqs, j * 10 + 1, j * 10 + 10))
        lens[#lens + 1] = redis.call('GETRANGE', KEYS[1], (seq - 1) * 5, seq * 5 - 1)
      end
    end
    out[#out + 1] = seqs
    out[#out + 1] = table.concat(lens)
  end
end
return out
"""
"""KEYS: doclen, search stats. ARGV: posting-key prefix, through_seq, max_df, terms...
Returns docs, length, then per term: its seqs <= through_seq (10 digits each) and their
lengths (5 digits each), or 'c' and '' for a term held by more than max_df of them. A binary
search finds the cut, so a common term costs O(log df), not a read of its list."""

SAVE_STATE = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return -2 end
local actual = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if actual ~= tonumber(ARGV[2]) then return actual end
redis.call('HSET', KEYS[2], 'version', ARGV[3], 'state', ARGV[4])
return -1
"""
"""KEYS: index, state. ARGV: id, expected, new version, state JSON.
Returns -1 saved, -2 no such conversation, else the actual version (conflict)."""

ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""
"""KEYS: lease. ARGV: owner, ttl ms. Returns 1 when held by owner afterwards."""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""

DELETE = """
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('SREM', KEYS[1], ARGV[1])
local terms = redis.call('SMEMBERS', KEYS[6])
for i = 1, #terms, 1000 do
  local batch = {}
  for j = i, math.min(i + 999, #terms) do batch[#batch + 1] = ARGV[2] .. terms[j] end
  redis.call('DEL', unpack(batch))
end
redis.call('DEL', KEYS[5], KEYS[6], KEYS[7])
return 0
"""
"""KEYS: index, log, state, lease, doclen, termset, search stats. ARGV: id, posting prefix."""
