#!/usr/bin/env bash
# doc/endpoints.md is `collabd routes`: the endpoints the route tables serve. A route
# added, removed or changed without the file made again fails here (make endpoints-doc).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
if ! ./collabd routes | diff -u "$src/doc/endpoints.md" -; then
	echo "doc/endpoints.md differs from the route tables: run make endpoints-doc"
	exit 1
fi
