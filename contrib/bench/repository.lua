-- The repository endpoints of a random seeded project with the token of a user who may
-- read its code (REPOS-FILE: lines "TOKEN PROJECT-ID FULL-PATH HASH", written by run):
--   wrk ... -s repository.lua URL -- REPOS-FILE branch BRANCHES-FILE
--       GET /projects/:id/repository/branches/:branch, a random branch
--   wrk ... -s repository.lua URL -- REPOS-FILE commits
--       GET /projects/:id/repository/commits?per_page=20 (the default branch)
--   wrk ... -s repository.lua URL -- REPOS-FILE file REFS-FILE FILES-FILE
--       GET /projects/:id/repository/files/:file_path?ref=:ref, a random file of a random
--       branch or tag (every file of FILES-FILE is on every ref of REFS-FILE)
local tokens, ids, names, files = {}, {}, {}, {}
local kind
local n = 0
function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
end

local function lines(path, into)
	for line in io.lines(path) do
		if #line > 0 then into[#into + 1] = line end
	end
	assert(#into > 0, "nothing in " .. path)
end

local function escape(s)
	return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", c:byte()) end))
end

function init(args)
	for line in io.lines(args[1]) do
		local token, id = line:match("^(%S+)%s+(%d+)")
		if token then
			tokens[#tokens + 1] = token
			ids[#ids + 1] = id
		end
	end
	assert(#tokens > 0, "no repositories in " .. args[1])
	kind = args[2]
	if kind == "branch" then
		lines(args[3], names)
	elseif kind == "file" then
		lines(args[3], names)
		lines(args[4], files)
	else
		assert(kind == "commits", "kind: branch, commits or file")
	end
	for i = 1, #names do names[i] = escape(names[i]) end
	for i = 1, #files do files[i] = escape(files[i]) end
	math.randomseed(os.time() * 1000 + thread_no)
end

function request()
	local i = math.random(#tokens)
	local path = "/api/v4/projects/" .. ids[i] .. "/repository/"
	if kind == "branch" then
		path = path .. "branches/" .. names[math.random(#names)]
	elseif kind == "file" then
		path = path .. "files/" .. files[math.random(#files)] .. "?ref=" .. names[math.random(#names)]
	else
		path = path .. "commits?per_page=20"
	end
	return wrk.format("GET", path, {["PRIVATE-TOKEN"] = tokens[i]})
end
