-- The tracker's rows, a random triple of TRACKER-FILE (lines "TOKEN PROJECT-ID IID":
-- an issue that is not confidential, in a private project of which the token's user is
-- a reporter or more; written by gen_tracker.sql):
--   wrk ... -s tracker.lua URL -- TRACKER-FILE issues
--       GET /projects/:id/issues?per_page=20 (the first page: newest first)
--   wrk ... -s tracker.lua URL -- TRACKER-FILE all
--       GET /issues?scope=all&state=opened&per_page=20 (every issue the token's user sees)
--   wrk ... -s tracker.lua URL -- TRACKER-FILE notes
--       GET /projects/:id/issues/:iid/notes (the first page of 20: newest first)
--   wrk ... -s tracker.lua URL -- TRACKER-FILE note
--       POST /projects/:id/issues/:iid/notes, a new body each time
local tokens, ids, iids = {}, {}, {}
local kind
local n = 0
local count = 0
function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
end

function init(args)
	for line in io.lines(args[1]) do
		local token, id, iid = line:match("^(%S+)%s+(%d+)%s+(%d+)")
		if token then
			tokens[#tokens + 1] = token
			ids[#ids + 1] = id
			iids[#iids + 1] = iid
		end
	end
	assert(#tokens > 0, "no issues in " .. args[1])
	kind = args[2]
	assert(kind == "issues" or kind == "all" or kind == "notes" or kind == "note",
		"kind: issues, all, notes or note")
	math.randomseed(os.time() * 1000 + thread_no)
end

function request()
	local i = math.random(#tokens)
	local h = {["PRIVATE-TOKEN"] = tokens[i]}
	if kind == "issues" then
		return wrk.format("GET", "/api/v4/projects/" .. ids[i] .. "/issues?per_page=20", h)
	elseif kind == "all" then
		return wrk.format("GET", "/api/v4/issues?scope=all&state=opened&per_page=20", h)
	end
	local path = "/api/v4/projects/" .. ids[i] .. "/issues/" .. iids[i] .. "/notes"
	if kind == "notes" then
		return wrk.format("GET", path, h)
	end
	count = count + 1
	h["Content-Type"] = "application/x-www-form-urlencoded"
	return wrk.format("POST", path, h,
		"body=Seen+again+" .. thread_no .. "+" .. count .. "+" .. math.random(1000000))
end
