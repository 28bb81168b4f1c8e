-- The search rows (GitLab 10.8's search API), a random line of FILE ("TOKEN" or
-- "TOKEN PROJECT-ID ...": tokens, tracker, mrs or repos of run):
--   wrk ... -s search.lua URL -- FILE issues WORD
--       GET /projects/:id/search?scope=issues&search=WORD (the project's first page of 20)
--   wrk ... -s search.lua URL -- FILE merge_requests WORD
--       GET /projects/:id/search?scope=merge_requests&search=WORD
--   wrk ... -s search.lua URL -- FILE blobs WORD
--       GET /projects/:id/search?scope=blobs&search=WORD (the default branch's files)
--   wrk ... -s search.lua URL -- FILE projects WORD
--       GET /search?scope=projects&search=WORD (every project the token's user sees)
local tokens, ids = {}, {}
local scope, word
local n = 0
function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
end

function init(args)
	for line in io.lines(args[1]) do
		local token, id = line:match("^(%S+)%s*(%d*)")
		if token then
			tokens[#tokens + 1] = token
			ids[#ids + 1] = id
		end
	end
	assert(#tokens > 0, "no tokens in " .. args[1])
	scope, word = args[2], args[3]
	assert(scope == "issues" or scope == "merge_requests" or scope == "blobs" or
		scope == "projects", "scope: issues, merge_requests, blobs or projects")
	assert(word and word:match("^[%w_]+$"), "a word to search for")
	math.randomseed(os.time() * 1000 + thread_no)
end

function request()
	local i = math.random(#tokens)
	local h = {["PRIVATE-TOKEN"] = tokens[i]}
	if scope == "projects" then
		return wrk.format("GET", "/api/v4/search?scope=projects&search=" .. word, h)
	end
	return wrk.format("GET", "/api/v4/projects/" .. ids[i] .. "/search?scope=" .. scope ..
		"&search=" .. word, h)
end
