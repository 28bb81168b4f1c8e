-- The CI rows, a random pair of CI-FILE (lines "TOKEN PROJECT-ID": a private project with
-- pipelines of which the token's user is a reporter or more; written by gen_ci.sql):
--   wrk ... -s ci_list.lua URL -- CI-FILE pipelines
--       GET /projects/:id/pipelines?per_page=20 (the first page: newest first)
--   wrk ... -s ci_list.lua URL -- CI-FILE jobs
--       GET /projects/:id/jobs?per_page=20 (the first page: newest first)
local tokens, ids = {}, {}
local kind
local n = 0
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
	kind = args[2]
	assert(kind == "pipelines" or kind == "jobs", "kind: pipelines or jobs")
	math.randomseed(os.time() * 1000 + thread_no)
end

function request()
	local i = math.random(#tokens)
	return wrk.format("GET", "/api/v4/projects/" .. ids[i] .. "/" .. kind .. "?per_page=20",
		{["PRIVATE-TOKEN"] = tokens[i]})
end
