#!/bin/sh
# tests/cli_systematic.sh -- dfs and dpor from the command line (TAP).
#
# A failure found by dpor or dfs is an ordinary trace: replay reproduces
# it, show renders it, minimize shrinks it.  Every summary says what it
# covered, and a search that ran out of budget never says "exhaustive".
# Scenario explore lines name the strategies and the bound; the options
# that do not combine with them are bad input.  Run with PAGERACE (and
# PAGERACE_TSAN when built: the same searches, the same statements).

srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
tap_tmp sys

cov() { sed -n 's/^coverage: //p' "$tmp/out"; }
echo "1..34"

# ---- failures are found, saved, replayed, shown and minimised
for s in dpor dfs; do
	run 1 "$PAGERACE" explore -q --no-timing -s $s --trace-dir "$tmp/$s" \
		message-passing
	st=$?
	trace=$(sed -n 's/^  trace: *//p' "$tmp/out")
	test $st -eq 0 && test -f "$trace" &&
		case $trace in */message-passing-$s-run*.trace) true ;; *) false ;; esac &&
		cov | grep -q '^incomplete: stopped after [0-9]* executions .*at the first failure'
	ok $? "$s finds message-passing, saves $trace, says the search stopped there"
	run 1 "$PAGERACE" replay "$trace"
	ok $? "$s: the trace replays (exit 1)"
	run 0 "$PAGERACE" show "$trace"
	grep -q 'BUG' "$tmp/out"
	ok $? "$s: show renders it"
	run 1 "$PAGERACE" minimize -o "$tmp/$s.min" "$trace"
	test -f "$tmp/$s.min" && "$PAGERACE" replay "$tmp/$s.min" >/dev/null 2>&1
	test $? -eq 1
	ok $? "$s: minimize keeps the failure"
done

# ---- coverage statements
run 0 "$PAGERACE" explore -q --no-timing -s dpor message-passing-fixed
test "$(cov)" = "exhaustive: 2689 executions (dpor), memory sc, no failure"
ok $? "dpor proves message-passing-fixed: $(cov)"
run 0 "$PAGERACE" explore -q --no-timing -s dfs --preemption-bound 2 \
	message-passing-fixed
cov | grep -q '^bounded: preemption bound 2, [0-9]* executions (dfs), memory sc, no failure$'
ok $? "dfs bound 2: $(cov)"
run 0 "$PAGERACE" explore -q --no-timing -s dfs --preemption-bound 50 \
	lost-update-fixed
cov | grep -q '^exhaustive: 6 executions (dfs; the preemption bound cut nothing)'
ok $? "a bound that cuts nothing is exhaustive: $(cov)"
run 0 "$PAGERACE" explore -q --no-timing -s dpor -n 100 message-passing-fixed
cov | grep -q '^incomplete: stopped after 100 executions (dpor), the execution budget'
ok $? "a budget that runs out is incomplete: $(cov)"
! grep -q exhaustive "$tmp/out"
ok $? "... and never says exhaustive"
run 0 "$PAGERACE" explore -q --no-timing -s random -n 500 message-passing-fixed
test "$(cov)" = "sampled: 500 runs (random), memory sc, no failure"
ok $? "a sampler says sampled: $(cov)"
run 0 "$PAGERACE" explore -q --no-timing -s pct -d 4 -n 300 message-passing-fixed
test "$(cov)" = "sampled: 300 runs (pct d=4), memory sc, no failure"
ok $? "pct too: $(cov)"
run 0 "$PAGERACE" explore --json --no-timing -s dpor message-passing-fixed
grep -q '"coverage":"exhaustive","coverage_statement":"exhaustive: 2689 executions (dpor), memory sc, no failure"' "$tmp/out"
ok $? "--json carries the statement"
run 1 "$PAGERACE" explore -q --no-timing -s dpor -k --trace-dir "$tmp/k" lost-update
cov | grep -q '^exhaustive: 4 executions (dpor), memory sc, failures found$'
ok $? "-k: the whole tree, failures and all: $(cov)"

# ---- scenario explore lines
cat >"$tmp/sys.scn" <<'SCN'
protocol v2
knobs lock-no-recheck
init {
    m0[1]
    m0[0]
}
cpu 0 {
    r0 = find_lock_page m0 0
    unlock r0
    put r0
}
cpu 1 {
    r0 = remove m0 0
}
expect bad-lookup
explore strategy dpor
SCN
run 1 "$PAGERACE" explore -q --no-timing --trace-dir "$tmp/scn" "$tmp/sys.scn"
grep -q 'strategy dpor' "$tmp/out"
ok $? "a scenario's explore line names dpor"
sed -e 's/^knobs .*/knobs none/' -e 's/^expect .*/expect pass/' \
	-e 's/^explore .*/explore strategy dfs bound 1/' "$tmp/sys.scn" >"$tmp/b.scn"
run 0 "$PAGERACE" explore -q --no-timing "$tmp/b.scn"
cov | grep -q '^bounded: preemption bound 1, [0-9]* executions (dfs)'
ok $? "... and dfs with a bound: $(cov)"
run 0 "$PAGERACE" check "$tmp/b.scn"
ok $? "check accepts it"
sed -e 's/^explore .*/explore strategy dpr/' "$tmp/sys.scn" >"$tmp/c.scn"
run 2 "$PAGERACE" check "$tmp/c.scn"
grep -q "c.scn:16:18: error: unknown strategy 'dpr'" "$tmp/err"
ok $? "a misspelt strategy is a located error"

# ---- what does not combine
run 1 "$PAGERACE" explore -q --no-timing -s dpor --preemption-bound 2 \
	--trace-dir "$tmp/t" message-passing
grep -q 'FAILED' "$tmp/out"
ok $? "dpor with bound 2 (BPOR) finds message-passing's bug"
run 0 "$PAGERACE" explore -q --no-timing -s dpor --preemption-bound 1 message-passing
cov | grep -q '^bounded: preemption bound 1, [0-9]* executions (dpor), memory sc, no failure$'
ok $? "... and with bound 1 states what it covered: $(cov)"
sed -e 's/^explore .*/explore strategy dpor bound 0/' "$tmp/sys.scn" >"$tmp/b0.scn"
"$PAGERACE" explore -q --no-timing --trace-dir "$tmp/t" "$tmp/b0.scn" >"$tmp/out0" 2>&1
"$PAGERACE" explore -q --no-timing --trace-dir "$tmp/t" --preemption-bound none \
	"$tmp/b0.scn" >"$tmp/out" 2>"$tmp/err"
grep -q 'preemption bound 0' "$tmp/out0" &&
	cov | grep -q '[0-9]* executions (dpor)' && ! grep -q 'preemption bound' "$tmp/out"
ok $? "--preemption-bound none drops the scenario's bound: $(cov)"
run 2 "$PAGERACE" explore -q -s pct --preemption-bound 2 message-passing
grep -q 'dfs and dpor only' "$tmp/err"
ok $? "a bound with a sampler: exit 2, said why"
run 2 "$PAGERACE" explore -q -s dfs --jobs 2 --shard 0/2 message-passing
grep -q "give --jobs or --shard, not both" "$tmp/err"
ok $? "dfs with --jobs and --shard: exit 2, said why"
run 2 "$PAGERACE" explore -q -s nope message-passing
grep -q "unknown strategy 'nope' (random, pct, pos, surw, portfolio, dfs, dpor)" "$tmp/err"
ok $? "an unknown strategy lists the known ones"

# ---- a split search: dfs's shards add up to the whole tree
total=0
for i in 0 1 2; do
	"$PAGERACE" explore -q --no-timing -s dfs --shard $i/3 message-passing-fixed \
		>"$tmp/out" 2>"$tmp/err"
	e=$(cov | sed -n 's/^exhaustive: \([0-9]*\) executions (dfs, shard [0-9]\/3).*/\1/p')
	total=$((total + ${e:-0}))
done
test "$total" -eq 83396
ok $? "dfs --shard 0/3 1/3 2/3: $total executions in all, as unsplit (83396)"
for i in 0 1 2; do
	"$PAGERACE" explore --json --no-timing -s dpor --shard $i/3 \
		message-passing-fixed >"$tmp/part$i.json" 2>"$tmp/err"
done
run 0 "$PAGERACE" merge "$tmp/part0.json" "$tmp/part1.json" "$tmp/part2.json"
grep -q '"coverage":"exhaustive","coverage_statement":"exhaustive: [0-9]* executions (dpor, 3 shards), memory sc, no failure"' "$tmp/out"
ok $? "merge of dpor's three parts: exhaustive, for the whole tree"
run 2 "$PAGERACE" merge "$tmp/part0.json" "$tmp/part1.json"
ok $? "merge of two parts of three: exit 2"
run 0 "$PAGERACE" explore -q --no-timing -s dfs --jobs 3 message-passing-fixed
test "$(cov)" = "exhaustive: 83396 executions (dfs, 3 shards), memory sc, no failure"
ok $? "dfs --jobs 3: one statement for the whole tree: $(cov)"
run 1 "$PAGERACE" explore -q --no-timing -s dpor --jobs 2 -k --trace-dir "$tmp/j" lost-update
"$PAGERACE" explore -q --no-timing -s dpor --jobs 2 -k --trace-dir "$tmp/j2" lost-update >"$tmp/again" 2>&1
sed "s|$tmp/j2|$tmp/j|g" "$tmp/again" | cmp -s - "$tmp/out" &&
	test "$(ls "$tmp/j" | wc -l)" -eq "$(grep -c '^  trace:' "$tmp/out")"
ok $? "dpor --jobs 2 -k: the same output twice, a trace per failure, none overwritten"
run 0 "$PAGERACE" explore -q --no-timing -s dpor --preemption-bound 1 --jobs 2 \
	"$srcdir/scenarios/merged-retry.scn"
e=$(cov | sed -n 's/^bounded: preemption bound 1, \([0-9]*\) executions (dpor, 2 shards).*/\1/p')
seen=$(sed -n 's/^  acceptable *\([0-9]*\) .*/\1/p' "$tmp/out")
test -n "$e" && test "${seen:-0}" -eq "$e"
ok $? "dpor --jobs 2: the workers' outcome counts add up to the executions ($seen of $e)"

# ---- both flavours search alike, on a program ThreadSanitizer finds no
# race in (lost-update's plain accesses race in every run: a data-race
# verdict ends each run earlier under pagerace-tsan, so its tree is
# legitimately smaller; both flavours schedule alike only until a run's
# verdict differs, doc/tsan.md)
if [ -x "${PAGERACE_TSAN:-}" ]; then
	scn="${top_srcdir:-.}/scenarios/lookup-truncate.scn"
	"$PAGERACE" explore -q --no-timing -s dpor -k -n 300 -K none --trace-dir "$tmp/k" "$scn" >"$tmp/a" 2>&1
	"$PAGERACE_TSAN" explore -q --no-timing -s dpor -k -n 300 -K none --trace-dir "$tmp/k2" "$scn" >"$tmp/b" 2>&1
	grep '^coverage' "$tmp/a" >"$tmp/a.c"
	grep '^coverage' "$tmp/b" >"$tmp/b.c"
	cmp -s "$tmp/a.c" "$tmp/b.c" && test -s "$tmp/a.c"
	ok $? "pagerace-tsan's dpor says the same: $(cat "$tmp/b.c")"
else
	n=$((n + 1))
	echo "ok $n # SKIP pagerace-tsan not built"
fi

tap_done
