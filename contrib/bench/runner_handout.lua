-- POST /api/v4/jobs/request with jobs pending (gen_ci_pending.sql's): runner_request.lua's
-- requests (a random registered runner each), and the answers counted: the run's last
-- line is "handout: N201 N204 OTHER SECONDS" (201: a job given, 204: none).
--   wrk ... -s runner_handout.lua URL -- RUNNER-TOKENS-FILE
local tokens = {}
local threads = {}
local n = 0
c201, c204, cother = 0, 0, 0
function setup(thread)
	n = n + 1
	thread:set("thread_no", n)
	threads[#threads + 1] = thread
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
function response(status, headers, body)
	if status == 201 then c201 = c201 + 1
	elseif status == 204 then c204 = c204 + 1
	else cother = cother + 1 end
end
function done(summary, latency, requests)
	local a, b, c = 0, 0, 0
	for _, t in ipairs(threads) do
		a = a + t:get("c201"); b = b + t:get("c204"); c = c + t:get("cother")
	end
	io.write(string.format("handout: %d %d %d %.3f\n", a, b, c, summary.duration / 1e6))
end
