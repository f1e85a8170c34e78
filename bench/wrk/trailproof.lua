-- wrk script of the neutral-client benchmarks (bench/README.md). One script for every scenario,
-- set by environment variables, so that wrk's own request loop and timing are what is measured:
--   WRK_BODY_FILE   POST this file's bytes as application/json (batch or single-event ingest)
--   WRK_PATHS_FILE  one request path per line; each request takes the next line (from a random start
--                   per thread), e.g. proofs of many events or many different search queries
--   WRK_KEYS_FILE   one Idempotency-Key per line; each request carries the next one (from a random
--                   start per thread): replays of many recorded answers (with WRK_BODY_FILE)
--   otherwise       GET the URL given on the command line
-- At the end it prints one line the load generator parses:
--   WRK requests=N non2xx=N errors=N p50=ms p90=ms p99=ms max=ms

local body_file = os.getenv("WRK_BODY_FILE")
local paths_file = os.getenv("WRK_PATHS_FILE")
local keys_file = os.getenv("WRK_KEYS_FILE")
local paths = nil
local next_path = 1
local keys = nil
local next_key = 1

if body_file then
  local f = assert(io.open(body_file, "rb"))
  wrk.method = "POST"
  wrk.body = f:read("*a")
  wrk.headers["Content-Type"] = "application/json"
  f:close()
end

init = function(args)
  if paths_file then
    paths = {}
    for line in io.lines(paths_file) do
      if #line > 0 then paths[#paths + 1] = line end
    end
    math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
    next_path = math.random(#paths)
  end
  if keys_file then
    keys = {}
    for line in io.lines(keys_file) do
      if #line > 0 then keys[#keys + 1] = line end
    end
    math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
    next_key = math.random(#keys)
  end
end

request = function()
  if keys then
    local headers = {}
    for k, v in pairs(wrk.headers) do headers[k] = v end
    headers["Idempotency-Key"] = keys[next_key]
    next_key = next_key % #keys + 1
    return wrk.format(nil, nil, headers)
  end
  if paths then
    local p = paths[next_path]
    next_path = next_path % #paths + 1
    return wrk.format(nil, p)
  end
  return wrk.format()
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK requests=%d non2xx=%d errors=%d p50=%.3f p90=%.3f p99=%.3f max=%.3f\n",
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
end
