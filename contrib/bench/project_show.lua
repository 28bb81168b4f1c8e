-- GET /api/v4/projects/:id of a private project, with the token of one of its members:
-- a random pair of PAIRS-FILE (lines "TOKEN PROJECT-ID HOW", written by gen.sql).
--   wrk ... -s project_show.lua URL -- PAIRS-FILE [limit=N done=DIR] [timeline=FILE]
-- limit=N: each thread stops after N responses and then creates DIR/<thread number>,
-- so that the runner knows when to stop wrk (wrk itself waits for the end of its -d).
-- timeline=FILE: the responses per tenth of a second, written at the end as lines
-- "EPOCH-TENTHS 2XX OTHER" (the chaos run).
local tokens, ids = {}, {}
local limit, done_dir, timeline
local count = 0
local threads = {}
local n = 0
function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
	threads[n] = thread
end

local function options(args)
	local o = {}
	for i = 2, #args do
		local k, v = args[i]:match("^(%w+)=(.*)$")
		if k then o[k] = v end
	end
	return o
end

function init(args)
	for line in io.lines(args[1]) do
		local token, id = line:match("^(%S+)%s+(%d+)")
		if token then
			tokens[#tokens + 1] = token
			ids[#ids + 1] = id
		end
	end
	assert(#tokens > 0, "no pairs in " .. args[1])
	math.randomseed(os.time() * 1000 + thread_no)
	local o = options(args)
	limit, done_dir, timeline = tonumber(o.limit), o.done, o.timeline
	bench_timeline = timeline -- a global: done() runs in another Lua state and reads it
	if limit or timeline then
		local ffi = require("ffi")
		pcall(ffi.cdef, "typedef struct { long tv_sec; long tv_nsec; } bench_timespec;"
			.. " int clock_gettime(int clk, bench_timespec *ts);")
		local ts = ffi.new("bench_timespec")
		ok_at, bad_at = {}, {}
		response = function(status)
			if timeline then
				ffi.C.clock_gettime(0, ts)
				local b = tonumber(ts.tv_sec) * 10 + math.floor(tonumber(ts.tv_nsec) / 100000000)
				local t = (status >= 200 and status < 300) and ok_at or bad_at
				t[b] = (t[b] or 0) + 1
			end
			count = count + 1
			if limit and count == limit then
				local f = io.open(done_dir .. "/" .. thread_no, "w")
				if f then f:close() end
				wrk.thread:stop()
			end
		end
	end
end

function request()
	local i = math.random(#tokens)
	return wrk.format("GET", "/api/v4/projects/" .. ids[i], {["PRIVATE-TOKEN"] = tokens[i]})
end

function done(summary, latency, requests)
	local timeline = threads[1] and threads[1]:get("bench_timeline")
	if not timeline then return end
	local ok, bad, keys = {}, {}, {}
	for _, t in ipairs(threads) do
		for b, c in pairs(t:get("ok_at") or {}) do ok[b] = (ok[b] or 0) + c; keys[b] = true end
		for b, c in pairs(t:get("bad_at") or {}) do bad[b] = (bad[b] or 0) + c; keys[b] = true end
	end
	local list = {}
	for b in pairs(keys) do list[#list + 1] = b end
	table.sort(list)
	local f = assert(io.open(timeline, "w"))
	for _, b in ipairs(list) do
		f:write(string.format("%d %d %d\n", b, ok[b] or 0, bad[b] or 0))
	end
	f:close()
end
