-- GET /api/v4/users/:id for random ids, as a random one of many users.
--   wrk ... -s user_show.lua URL -- TOKENS-FILE MIN-ID MAX-ID
local tokens = {}
local lo, hi
local n = 0
function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
end
function init(args)
	for line in io.lines(args[1]) do
		if #line > 0 then tokens[#tokens + 1] = line end
	end
	assert(#tokens > 0, "no tokens in " .. args[1])
	lo, hi = tonumber(args[2]), tonumber(args[3])
	math.randomseed(os.time() * 1000 + thread_no)
end
function request()
	return wrk.format("GET", "/api/v4/users/" .. math.random(lo, hi),
		{["PRIVATE-TOKEN"] = tokens[math.random(#tokens)]})
end
