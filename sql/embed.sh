#!/bin/sh
# Writes a C file holding every sql/NNNN_*.sql migration as a string, in order.
set -e
dir=$1
echo '/* generated from sql/ by sql/embed.sh: do not edit */'
echo '#include "db/db.h"'
echo 'const struct migration migrations[] = {'
for f in $(ls "$dir"/[0-9]*.sql | sort); do
	name=$(basename "$f" .sql)
	printf '\t{"%s",\n' "$name"
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t "/' -e 's/$/\\n"/' "$f"
	printf '\t},\n'
done
echo '};'
echo 'const int migrations_count = sizeof(migrations) / sizeof(migrations[0]);'
