-- GET of the URL's path as is, no credentials (/hello, /ref). The request is built per
-- call, like in the other scripts, so that wrk spends the same work per request on each.
local path
function init(args)
	path = wrk.path
end
function request()
	return wrk.format("GET", path)
end
