#!/bin/sh
# tests/merged_long.sh -- make regtest: the 2.6.27 protocol ("merged",
# the 2.6.27 radix tree and lookups) stays clean on every clean workload,
# far past the budgets of make check: every built-in page-cache program
# of `pagerace list` and every "expect pass" scenario, under random and
# PCT depth 3 and 5, RUNS runs each (default 1000000), plus the two
# 2.6.27 knob scenarios with their knob taken out.  TAP.
#
# Measured 2026-12-04 (2 shared CPUs): 63 TAP lines (9 programs, 10 clean scenarios,
# 2 knob scenarios, 3 strategies), 1000000 runs each, all clean, in
# 11 min 50 s wall, 4 min 8 s CPU (`sh tests/merged_long.sh`).

srcdir=${top_srcdir:-.}
RUNS=${RUNS:-1000000}
. "$(dirname "$0")/tap.sh"
tap_tmp merged

programs=$("$PAGERACE" list | sed -n 's/^\(pc-[a-z-]*\) .*/\1/p')
scenarios=$(cd "$srcdir" && grep -l '^expect pass' scenarios/*.scn | LC_ALL=C sort)
total=$(( ($(echo "$programs" | wc -w) + $(echo "$scenarios" | wc -w) + 2) * 3 ))
echo "1..$total"
run() {	# run WHAT OPTS...: one explore, one TAP line
	what=$1
	shift
	n=$((n + 1))
	if "$PAGERACE" explore -q --trace-dir "$tmp/tr" -p merged -n "$RUNS" \
		"$@" "$what" >"$tmp/out" 2>&1; then
		echo "ok $n - $what merged $*: $RUNS runs clean"
	else
		echo "not ok $n - $what merged $*"
		sed 's/^/# /' "$tmp/out" | head -10
		failed=$((failed + 1))
	fi
}
for w in $programs; do
	for st in "-s random" "-s pct -d 3" "-s pct -d 5"; do
		run "$w" $st
	done
done
for s in $scenarios scenarios/shrink-stale-slot.scn scenarios/deref-slot-plain.scn; do
	for st in "-s random" "-s pct -d 3" "-s pct -d 5"; do
		run "$srcdir/$s" -K none $st
	done
done
tap_done
