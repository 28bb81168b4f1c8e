-- The merge requests' rows (files written by gen_mrs.sql):
--   wrk ... -s mrs.lua URL -- LIST-FILE list
--       GET /projects/:id/merge_requests?state=opened&per_page=20, a random line
--       "TOKEN PROJECT-ID" (a private project of which the token's user is a reporter or
--       more)
--   wrk ... -s mrs.lua URL -- CHANGES-FILE changes
--       GET /projects/:id/merge_requests/:iid/changes, a random line "TOKEN PROJECT-ID
--       IID" (the request of a 20-file change in a seeded repository)
--   wrk ... -s mrs.lua URL -- MERGES-FILE merge CLAIM-DIR
--       PUT /projects/:id/merge_requests/:iid/merge, the lines "TOKEN PROJECT-ID IID" in
--       order (consecutive lines name different projects), each merged once: the file is
--       cut in slices of SLICE lines, and each thread of each wrk run (the warm-up is
--       another) takes the next slice nobody took, claimed by creating CLAIM-DIR/<slice>
--       (mkdir is atomic). Once every slice is taken, requests go to a path that answers
--       404, counted as non-2xx.
local tokens, ids, iids = {}, {}, {}
local kind, claims
local n = 0
local SLICE = 200
local next_i, last = 1, 0
function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
end

function init(args)
	for line in io.lines(args[1]) do
		local token, id, iid = line:match("^(%S+)%s+(%d+)%s*(%d*)")
		if token then
			tokens[#tokens + 1] = token
			ids[#ids + 1] = id
			iids[#iids + 1] = iid
		end
	end
	assert(#tokens > 0, "nothing in " .. args[1])
	kind = args[2]
	assert(kind == "list" or kind == "changes" or kind == "merge", "kind: list, changes or merge")
	if kind == "merge" then
		claims = args[3]
		assert(claims, "merge: CLAIM-DIR")
	end
	math.randomseed(os.time() * 1000 + thread_no)
end

-- The next slice nobody claimed: [next_i, last] and true, or false when none is left.
local function claim()
	local k = 0
	while k * SLICE < #tokens do
		local ok = os.execute("mkdir '" .. claims .. "/" .. k .. "' 2>/dev/null")
		if ok == 0 or ok == true then
			next_i, last = k * SLICE + 1, math.min((k + 1) * SLICE, #tokens)
			return true
		end
		k = k + 1
	end
	return false
end

function request()
	if kind == "merge" then
		if next_i > last and not claim() then
			return wrk.format("GET", "/api/v4/bench-merges-exhausted")
		end
		local i = next_i
		next_i = next_i + 1
		return wrk.format("PUT", "/api/v4/projects/" .. ids[i] .. "/merge_requests/" .. iids[i] .. "/merge",
			{["PRIVATE-TOKEN"] = tokens[i]})
	end
	local i = math.random(#tokens)
	local h = {["PRIVATE-TOKEN"] = tokens[i]}
	if kind == "list" then
		return wrk.format("GET", "/api/v4/projects/" .. ids[i] .. "/merge_requests?state=opened&per_page=20", h)
	end
	return wrk.format("GET", "/api/v4/projects/" .. ids[i] .. "/merge_requests/" .. iids[i] .. "/changes", h)
end
