#!/bin/sh
# v1_own_knob.sh -- the cover letter's three v1 races (spec-free-check,
# spec-irq, radix-rcu-free) are found with only their own knob, without
# the fixes for the seeds' own bugs that their scenario files turn on.
#
# Each scenario file adds radix-single-read, release-no-recheck and
# gang-empty-exit so that the seeds' own bugs (F1/F8, F2, F4 in
# doc/findings.md) cannot end a run first.  Here those are off (-K none
# -K KNOB) and exploration keeps going past failures (-k): the planted
# race's verdict must be among them.  Budgets are per race; spec-free-check
# needs the most, because F2's leak ("invariant") ends most of the runs
# that get near it.  A race counts as found only with its own verdict,
# and the same budget with no knob at all must not show that verdict.
srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
tap_tmp v1
echo "1..6"
explore() {	# explore SCENARIO STRATEGY DEPTH RUNS [KNOB]
	rm -rf "$tmp/tr"
	"$PAGERACE" explore -q -k --no-timing --trace-dir "$tmp/tr" -K none \
		${5:+-K "$5"} -s "$2" -d "$3" -n "$4" \
		"$srcdir/scenarios/$1.scn" >"$tmp/out" 2>&1
}
check() {	# check SCENARIO KIND STRATEGY DEPTH RUNS
	n=$((n + 1))
	explore "$1" "$3" "$4" "$5" "$1"
	found=$(grep -c "verdict:  $2 " "$tmp/out")
	others=$(grep "verdict: " "$tmp/out" | grep -vc "verdict:  $2 ")
	if [ "$found" -gt 0 ]; then
		echo "ok $n - $1 with only -K $1 ($3, depth $4, $5 runs): $found x $2 ($others other failures)"
	else
		echo "not ok $n - $1 with only -K $1 ($3, depth $4, $5 runs): no $2 ($others other failures)"
		sed 's/^/# /' "$tmp/out" | grep "verdict" | sort | uniq -c | head -5
	fi
	n=$((n + 1))
	explore "$1" "$3" "$4" "$5"
	found=$(grep -c "verdict:  $2 " "$tmp/out")
	if [ "$found" -eq 0 ]; then
		echo "ok $n - $1 with no knob, same budget: no $2"
	else
		echo "not ok $n - $1 with no knob, same budget: $found x $2"
	fi
}
check spec-free-check put-free-page pct 7 200000
check spec-irq livelock pct 3 30000
check radix-rcu-free use-after-free pct 3 2000
