#!/bin/sh
# bench/samplers.sh -- runs to the first failure of every sampler on every
# shipped failing scenario (make bench).
#
# For each scenario in scenarios/ whose expect is a failure, and each
# sampler, explore seeds 1..SEEDS and note the first run that fails with
# the scenario's expected verdict (runs counted from 1).  Every sampler
# gets a sampler's budget and PCT depth for the scenario (the table
# below): pct runs at that depth, the portfolio's pct member too.  Beside
# them, the scenario's own explore line as it is now (dpor with a
# preemption bound: deterministic, one number for every seed).  A failure of
# another kind first (a workload may hold more than one bug: the seeds'
# F3 double free hides in several, doc/findings.md) does not count: the
# exploration resumes after it (--first-run), and the row says in how many
# seeds that happened ("other").  pct uses the scenario's own explore line (its
# depth; depth 3 where the line names random); every strategy gets the
# same budget: the scenario's own runs, capped at CAP.  A seed that finds
# nothing within the budget counts as a miss (infinitely late), so a
# median or p95 that falls on a miss prints as ">budget".
#
# Usage: bench/samplers.sh [SEEDS [CAP]]      (defaults 20, 300000)
# Environment: STRATEGIES (default "random pct pos surw portfolio"),
# SCENARIOS (file names; default every failing scenario), JOBS (scenarios
# explored side by side, default 1), PAGERACE (default src/pagerace),
# NO_CONTROL (leave out spec-free-check-noknob, below).
#
# Prints one markdown row per scenario and strategy: found/SEEDS, median,
# p95 (nearest rank: the 19th of 20), the budget, and "other": seeds where
# a failure of another kind came first.

PAGERACE=${PAGERACE:-src/pagerace}
srcdir=${abs_top_srcdir:-.}
seeds=${1:-20}
cap=${2:-300000}
strategies=${STRATEGIES:-random pct pos surw portfolio}
jobs=${JOBS:-1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-samplers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if [ -z "$SCENARIOS" ]; then
	for f in "$srcdir"/scenarios/*.scn; do
		grep -q '^expect pass' "$f" || SCENARIOS="$SCENARIOS $f"
	done
fi

# The samplers' budgets: NAME DEPTH RUNS.
# A scenario not listed uses its line's depth (3 if none) and runs.
legacy() {
	case $1 in
	add-after-insert|f1-lookup-slot-reread|no-recheck|radix-rcu-free)
				echo 3 2000 ;;
	deref-slot-plain|shrink-stale-slot)	echo 3 3000 ;;
	f2-release-leak)	echo 4 150000 ;;
	f4-gang-lookup-spin)	echo 3 15000 ;;
	f8-add-lookup-grow)	echo 3 5000 ;;
	f8-lookup-slot-grow)	echo 2 2000 ;;
	f9-release-lru-isolate)	echo 6 300000 ;;
	lock-no-recheck|no-freeing-flag)	echo 3 2000 ;;
	spec-free-check*)	echo 5 500000 ;;
	spec-irq)		echo 3 100000 ;;
	esac
}

# one SCENARIO: every strategy and seed; rows to $tmp/<name>.rows
one() {
	scn=$1
	name=$(basename "$scn" .scn)
	runs=$(sed -n 's/^explore.* runs \([0-9]*\).*/\1/p' "$scn")
	depth=$(sed -n 's/^explore.* depth \([0-9]*\).*/\1/p' "$scn")
	set -- $(legacy "$name")
	[ $# -eq 2 ] && depth=$1 runs=$2
	depth=${depth:-3}
	expect=$(sed -n 's/^expect \([a-z-]*\).*/\1/p' "$scn")
	budget=${runs:-10000}
	: >"$tmp/$name.rows"
	[ "$budget" -gt "$cap" ] && budget=$cap
	for s in $strategies; do
		: >"$tmp/$name.$s"
		other=0
		i=1
		while [ $i -le "$seeds" ]; do
			from=0 res=miss seen=0
			while [ $from -lt "$budget" ]; do
				nice "$PAGERACE" explore -q --json --no-timing -s "$s" \
					-d "$depth" -n $((budget - from)) --first-run $from --seed $i \
					--trace-dir "$tmp/tr-$name" "$scn" >"$tmp/$name.j" 2>/dev/null
				f=$(sed -n 's/.*"failures":\([0-9]*\).*/\1/p' "$tmp/$name.j")
				if [ -z "$f" ]; then
					echo "samplers: $name -s $s --seed $i: no summary" >&2
					exit 1
				fi
				[ "$f" -gt 0 ] || break
				run=$(sed -n 's/.*"first_failure":{"run":\([0-9]*\),"kind":"\([a-z-]*\)".*/\1/p' "$tmp/$name.j")
				kind=$(sed -n 's/.*"first_failure":{"run":\([0-9]*\),"kind":"\([a-z-]*\)".*/\2/p' "$tmp/$name.j")
				if [ "$kind" = "$expect" ]; then
					res=$((run + 1))
					break
				fi
				seen=1
				from=$((run + 1))
			done
			other=$((other + seen))
			echo "$res" >>"$tmp/$name.$s"
			i=$((i + 1))
		done
		awk -v name="$name" -v s="$s" -v b="$budget" -v other=$other '
		{ v[NR] = ($1 == "miss") ? -1 : $1 + 0; found += ($1 != "miss") }
		function rank(k,   i, j, x, n, a) {
			n = 0
			for (i = 1; i <= NR; i++) if (v[i] >= 0) a[++n] = v[i]
			for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return k <= n ? a[k] : -1
		}
		function show(x) { return x < 0 ? ">" b : x }
		END {
			m = rank(int((NR + 1) / 2)); p = rank(int(NR * 0.95 + 0.999))
			printf "| %-22s | %-9s | %2d/%-2d | %9s | %9s | %7d | %5d |\n",
			       name, s, found, NR, show(m), show(p), b, other
		}' "$tmp/$name.$s" >>"$tmp/$name.rows"
	done
	# The explore line as it is (dpor and its bound, if it says so).
	line=$(sed -n 's/^explore strategy \([a-z]*\).*/\1/p' "$scn")
	case $line in dfs|dpor)
		nice "$PAGERACE" explore -q --json --no-timing \
			--trace-dir "$tmp/tr-$name" "$scn" >"$tmp/$name.j" 2>/dev/null
		f=$(sed -n 's/.*"failures":\([0-9]*\).*/\1/p' "$tmp/$name.j")
		r=$(sed -n 's/.*"first_failure":{"run":\([0-9]*\),"kind":"'"$expect"'".*/\1/p' "$tmp/$name.j")
		n=$(sed -n 's/.*"runs":\([0-9]*\).*/\1/p' "$tmp/$name.j")
		bound=$(sed -n 's/^explore.* bound \([0-9]*\).*/\1/p' "$scn")
		if [ -n "$r" ]; then r=$((r + 1)); f=all; else r=">$n"; f=none; fi
		printf "| %-22s | %-9s | %5s | %9s | %9s | %7s | %5s |\n" \
			"$name" "$line b=${bound:-none}" "$f" "$r" "$r" "line" "-" >>"$tmp/$name.rows"
	esac
}

# The control: spec-free-check without its own knob.  The workload still
# holds the seeds' F3 (the PageFree window, doc/findings.md), whose
# verdict is the same put-free-page: a sampler that finds this row about
# as fast as the scenario's finds F3 there, not the planted race.
if [ -z "$NO_CONTROL" ] && echo "$SCENARIOS" | grep -q 'spec-free-check'; then
	sed 's/^knobs spec-free-check, /knobs /' "$srcdir/scenarios/spec-free-check.scn" \
		>"$tmp/spec-free-check-noknob.scn"
	mkdir -p "$tmp/tr-spec-free-check-noknob"
	SCENARIOS="$SCENARIOS $tmp/spec-free-check-noknob.scn"
fi

echo "Runs to the first failure, seeds 1..$seeds, budget = the scenario's runs capped at $cap."
echo
echo "| scenario               | strategy  | found | median    | p95       | budget  | other |"
echo "|------------------------|-----------|-------|-----------|-----------|---------|-------|"
if [ "$jobs" -gt 1 ]; then
	for scn in $SCENARIOS; do
		one "$scn" &
		while [ "$(jobs -p | wc -l)" -ge "$jobs" ]; do sleep 1; done
	done
	wait
else
	for scn in $SCENARIOS; do one "$scn"; done
fi
for scn in $SCENARIOS; do
	cat "$tmp/$(basename "$scn" .scn).rows"
done
