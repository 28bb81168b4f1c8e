-- POST /api/v4/jobs/request with no pending job, as gitlab-runner 10 polls it: a random
-- one of many registered runners (no single row flatters the result), the JSON body the
-- runner sends.  wrk ... -s runner_request.lua URL -- RUNNER-TOKENS-FILE
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
	assert(#tokens > 0, "no runner tokens in " .. args[1])
	math.randomseed(os.time() * 1000 + thread_no)
end
local info = '{"name":"gitlab-runner","version":"10.0.0","revision":"c7fe4d5c",'
	.. '"platform":"linux","architecture":"amd64","executor":"shell"}'
function request()
	local body = '{"info":' .. info .. ',"token":"' .. tokens[math.random(#tokens)]
		.. '","last_update":""}'
	return wrk.format("POST", "/api/v4/jobs/request",
		{["Content-Type"] = "application/json"}, body)
end
