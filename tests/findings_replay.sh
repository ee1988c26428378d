#!/bin/sh
# findings_replay.sh - every trace of doc/findings.md still replays to the
# failure it records (exit 1, "reproduced"), step for step.
set -u
dir="${top_srcdir:-.}/traces/findings"
n=0
for t in "$dir"/*.trace; do n=$((n + 1)); done
echo "1..$n"
i=0
for t in "$dir"/*.trace; do
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
