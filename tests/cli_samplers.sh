#!/bin/sh
# tests/cli_samplers.sh -- pos, surw and portfolio from the command line
# (TAP): each finds a shipped scenario's bug, the saved trace replays it
# (exit 1, "reproduced" with the same verdict), an explore line may name
# them, and the
# portfolio's first failure is the same run with --jobs 2 and over two
# --shard halves as in one process.

case $PAGERACE in /*) ;; *) PAGERACE=$(pwd)/$PAGERACE ;; esac
srcdir=${abs_top_srcdir:-$(pwd)}
. "$(dirname "$0")/tap.sh"
tap_tmp samplers

# first RESULT-JSON: the first failing run, or "none"
first() { sed -n 's/.*"first_failure":{"run":\([0-9]*\).*/\1/p' "$1" | grep . || echo none; }
echo "1..16"

scn="$srcdir/scenarios/f2-release-leak.scn"
for s in pos surw portfolio; do
	"$PAGERACE" explore -q --json --no-timing -s $s --seed 3 -n 20000 \
		-o "$tmp/$s.trace" "$scn" >"$tmp/$s.json" 2>"$tmp/$s.err"
	rc=$?
	# The leak (invariant), or the seeds' F3 double free the same
	# workload holds (doc/findings.md), which surw reaches quickly.
	kind=$(sed -n 's/.*"first_failure":{"run":[0-9]*,"kind":"\([a-z-]*\)".*/\1/p' "$tmp/$s.json")
	[ $rc -eq 1 ] && { [ "$kind" = invariant ] || [ "$kind" = double-free ] || [ "$kind" = put-free-page ]; }
	ok $? "f2-release-leak -s $s: a failure within 20000 runs (exit $rc, $kind at run $(first "$tmp/$s.json"))"
	grep -q "^strategy $s\$" "$tmp/$s.trace"
	ok $? "-s $s: the trace names its strategy"
	"$PAGERACE" replay "$tmp/$s.trace" >"$tmp/$s.replay" 2>&1
	rc=$?
	[ $rc -eq 1 ] && grep -q "reproduced $kind" "$tmp/$s.replay"
	ok $? "-s $s: the trace replays the failure (exit $rc)"
done

# The same seed twice: the same first failure (pos and surw are functions
# of seed and run; surw's trial runs too).
"$PAGERACE" explore -q --json --no-timing -s surw --seed 3 -n 20000 \
	--trace-dir "$tmp/again" "$scn" >"$tmp/again.json" 2>/dev/null
[ "$(first "$tmp/again.json")" = "$(first "$tmp/surw.json")" ] &&
	[ "$(first "$tmp/surw.json")" != none ]
ok $? "surw: the same seed finds the same first failing run again"

# Portfolio under --jobs 2 and --shard: the same first failing run.
scn="$srcdir/scenarios/spec-free-check.scn"
"$PAGERACE" explore -q --json --no-timing -s portfolio --seed 2 -n 40000 \
	--trace-dir "$tmp/p1" "$scn" >"$tmp/p1.json" 2>/dev/null
"$PAGERACE" explore -q --json --no-timing -s portfolio --seed 2 -n 40000 \
	-j 2 --trace-dir "$tmp/p2" "$scn" >"$tmp/p2.json" 2>/dev/null
one=$(first "$tmp/p1.json")
two=$(first "$tmp/p2.json")
[ "$one" != none ] && [ "$one" = "$two" ] &&
	cmp -s "$tmp/p1/$(ls "$tmp/p1")" "$tmp/p2/$(ls "$tmp/p2")"
ok $? "portfolio spec-free-check: --jobs 2 finds the same first failure as one process (run $one / $two) and saves the same trace"
lo=none
for i in 0 1; do
	"$PAGERACE" explore -q --json --no-timing -s portfolio --seed 2 \
		-n 40000 --shard $i/2 --trace-dir "$tmp/s$i" "$scn" \
		>"$tmp/s$i.json" 2>/dev/null
	f=$(first "$tmp/s$i.json")
	[ "$lo" = none ] && lo=$f
done
[ "$lo" = "$one" ]
ok $? "portfolio: the first failure over --shard 0/2 and 1/2 is the same run ($lo)"

# An explore line may name the new samplers.
sed 's/^explore .*/explore strategy pos runs 3000 seed 1/' \
	"$srcdir/scenarios/f4-gang-lookup-spin.scn" >"$tmp/pos.scn"
"$PAGERACE" explore -q "$tmp/pos.scn" --trace-dir "$tmp/t" >"$tmp/line.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "strategy pos" "$tmp/line.out"
ok $? "an explore line 'strategy pos' is honoured (exit $rc)"

"$PAGERACE" explore -s nosuch abba >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "pos, surw, portfolio" "$tmp/err"
ok $? "an unknown strategy: exit 2, the list names pos, surw, portfolio"

# The default sampler is the portfolio (bench/samplers.sh, bench/RESULTS.md).
"$PAGERACE" explore -q --no-timing -n 300 message-passing-fixed >"$tmp/def" 2>&1
grep -q "strategy portfolio" "$tmp/def" &&
	grep -q "sampled: 300 runs (portfolio: surw, pos, pct d=3)" "$tmp/def"
ok $? "explore without -s runs the portfolio and says so"

# Both flavours schedule alike (doc/tsan.md): surw's trial runs, pos's
# dependence and the portfolio's members give the same first failure.
PAGERACE_TSAN=${PAGERACE_TSAN:-$(dirname "$PAGERACE")/pagerace-tsan}
if test -x "$PAGERACE_TSAN"; then
	st=0
	for s in pos surw portfolio; do
		a=$("$PAGERACE" explore -q --json --no-timing -s $s --seed 2 -n 5000 \
			--trace-dir "$tmp/xp" "$srcdir/scenarios/radix-rcu-free.scn" 2>/dev/null |
			sed -n 's/.*"first_failure":{"run":\([0-9]*\),"kind":"\([a-z-]*\)".*/\1 \2/p')
		b=$("$PAGERACE_TSAN" explore -q --json --no-timing -s $s --seed 2 -n 5000 \
			--trace-dir "$tmp/xt" "$srcdir/scenarios/radix-rcu-free.scn" 2>/dev/null |
			sed -n 's/.*"first_failure":{"run":\([0-9]*\),"kind":"\([a-z-]*\)".*/\1 \2/p')
		[ -n "$a" ] && [ "$a" = "$b" ] || { echo "# $s: plain '$a', tsan '$b'"; st=1; }
	done
	ok $st "pagerace-tsan: pos, surw and portfolio find the same first failure as pagerace"
else
	n=$((n + 1))
	echo "ok $n # SKIP no ThreadSanitizer flavour"
fi
