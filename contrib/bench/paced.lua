-- Any of the bench's scripts at a fixed rate (the replica rows of contrib/bench/run,
-- BENCH_REPLICA): the script of BENCH_PACE_SCRIPT, each thread sending BENCH_PACE_RATE
-- requests/s (a thread's connections take the next slot of one schedule, a slot every
-- 1/rate s; a thread that falls behind starts its schedule again from now rather than
-- catching up in a burst), so that two instances are compared at the same load rather
-- than at their own saturation.
--   BENCH_PACE_SCRIPT=project_show.lua BENCH_PACE_RATE=200 wrk -t2 -c32 -s paced.lua URL -- ARGS
dofile(assert(os.getenv("BENCH_PACE_SCRIPT"), "BENCH_PACE_SCRIPT unset"))

local step = 1000 / assert(tonumber(os.getenv("BENCH_PACE_RATE")), "BENCH_PACE_RATE unset")
local ffi = require("ffi")
pcall(ffi.cdef, "typedef struct { long tv_sec; long tv_nsec; } bench_timespec;"
	.. " int clock_gettime(int clk, bench_timespec *ts);")
local ts = ffi.new("bench_timespec")
local slot

local function now_ms()
	ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
	return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

function delay()
	local t = now_ms()
	slot = slot and math.max(slot + step, t) or t
	return math.floor(slot - t + 0.5)
end
