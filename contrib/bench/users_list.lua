-- GET /api/v4/users?per_page=20 on a random page (1..PAGES), as a random one of many
-- users, so that neither one token nor one page of rows stays hot.
--   wrk ... -s users_list.lua URL -- TOKENS-FILE PAGES
local tokens = {}
local pages
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
	pages = tonumber(args[2])
	math.randomseed(os.time() * 1000 + thread_no)
end
function request()
	return wrk.format("GET", "/api/v4/users?per_page=20&page=" .. math.random(pages),
		{["PRIVATE-TOKEN"] = tokens[math.random(#tokens)]})
end
