-- PUT /api/v4/projects/:id with a new description each time, as a master of the project:
-- a random pair of PAIRS-FILE (lines "TOKEN PROJECT-ID", written by contrib/bench/run).
--   wrk ... -s project_update.lua URL -- PAIRS-FILE
local tokens, ids = {}, {}
local n = 0
local count = 0
function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
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
end
function request()
	local i = math.random(#tokens)
	count = count + 1
	return wrk.format("PUT", "/api/v4/projects/" .. ids[i],
		{["PRIVATE-TOKEN"] = tokens[i], ["Content-Type"] = "application/x-www-form-urlencoded"},
		"description=bench+" .. thread_no .. "+" .. count .. "+" .. math.random(1000000))
end
