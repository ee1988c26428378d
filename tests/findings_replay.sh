#!/bin/sh
# findings_replay.sh - every trace of doc/findings.md still replays to the
# failure it records (exit 1, "reproduced"), step for step.
set -u
# The shipped ones (traces/local.am), not whatever else lies in the folder.
srcdir="${top_srcdir:-.}"
list=$(grep -v '^[[:space:]]*#' "$srcdir/traces/local.am" |
       grep -o 'traces/findings/[A-Za-z0-9_.+-]*\.trace' | LC_ALL=C sort -u)
n=$(echo "$list" | grep -c .)
echo "1..$n"
i=0
for t in $list; do
	t="$srcdir/$t"
	i=$((i + 1))
	out=$("$PAGERACE" replay -q "$t" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ]; then
		echo "ok $i - $(basename "$t") reproduces"
	else
		echo "not ok $i - $(basename "$t"): exit $rc"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
done
