-- The replica bench's write+read row (contrib/bench/run, BENCH_REPLICA): each thread, with
-- one connection (wrk -tN -cN), PUTs a new description to a project as its master, then
-- GETs the project at once with the same token and checks that it reads the description
-- it wrote (a stale answer otherwise); PAUSE-MS between one pair and the next. Thread k
-- takes only the projects whose id % NTHREADS = k - 1, so that no other thread writes
-- them and any other description is stale.
--   wrk -tN -cN -s write_read.lua URL -- PAIRS-FILE NTHREADS PAUSE-MS
-- PAIRS-FILE: lines "TOKEN PROJECT-ID" (the token's user a master of the project).
-- At the end it prints "write_read: puts P put_failed F gets G get_failed X stale S".
local tokens, ids = {}, {}
local n = 0
local threads = {}
local pause
local cur, desc
local get_next = false
puts, put_failed, gets, get_failed, stale = 0, 0, 0, 0, 0

function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
	threads[n] = thread
end

function init(args)
	local nthreads = tonumber(args[2])
	for line in io.lines(args[1]) do
		local token, id = line:match("^(%S+)%s+(%d+)")
		if token and tonumber(id) % nthreads == thread_no - 1 then
			tokens[#tokens + 1] = token
			ids[#ids + 1] = id
		end
	end
	assert(#tokens > 0, "no pairs for thread " .. thread_no .. " in " .. args[1])
	pause = tonumber(args[3])
	math.randomseed(os.time() * 1000 + thread_no)
end

function request()
	if get_next then
		return wrk.format("GET", "/api/v4/projects/" .. ids[cur], {["PRIVATE-TOKEN"] = tokens[cur]})
	end
	cur = math.random(#tokens)
	desc = "rw-" .. thread_no .. "-" .. puts .. "-" .. math.random(1000000)
	return wrk.format("PUT", "/api/v4/projects/" .. ids[cur],
		{["PRIVATE-TOKEN"] = tokens[cur], ["Content-Type"] = "application/x-www-form-urlencoded"},
		"description=" .. desc)
end

-- (the phase moves on a response only: a request sent again after a socket error is the same)
function response(status, headers, body)
	if get_next then
		gets = gets + 1
		if status ~= 200 then
			get_failed = get_failed + 1
		elseif not body:find('"description":"' .. desc .. '"', 1, true) then
			stale = stale + 1
		end
		get_next = false
	else
		puts = puts + 1
		if status == 200 then get_next = true else put_failed = put_failed + 1 end
	end
end

function delay()
	return get_next and 0 or pause
end

function done(summary, latency, requests)
	local t = {puts = 0, put_failed = 0, gets = 0, get_failed = 0, stale = 0}
	for _, th in ipairs(threads) do
		for k in pairs(t) do t[k] = t[k] + (th:get(k) or 0) end
	end
	io.write(string.format("write_read: puts %d put_failed %d gets %d get_failed %d stale %d\n",
		t.puts, t.put_failed, t.gets, t.get_failed, t.stale))
end
