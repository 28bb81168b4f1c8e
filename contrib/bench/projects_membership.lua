-- GET /api/v4/projects?membership=true&per_page=20 (the first page: the projects the
-- caller is a member of, newest first) as a random one of the users of TOKENS-FILE.
--   wrk ... -s projects_membership.lua URL -- TOKENS-FILE
local tokens = {}
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
	math.randomseed(os.time() * 1000 + thread_no)
end
function request()
	return wrk.format("GET", "/api/v4/projects?membership=true&per_page=20",
		{["PRIVATE-TOKEN"] = tokens[math.random(#tokens)]})
end
