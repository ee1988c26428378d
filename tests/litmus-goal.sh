#!/bin/sh
# tests/litmus-goal.sh -- the goal search (`pagerace litmus --goal`,
# cli/litmus_goal.c): the test cut where a register the exists clause
# fixes gets a value it rejects (TAP).
#
# 1. Sound both ways on the project's own litmus tests under every model:
#    the goal search reaches the condition exactly when the whole search
#    does (column 7 of --brief), and agrees with the same Result: lines.
# 2. A goal witness is a run of the test itself: its trace replays to a
#    final state that satisfies the condition; the cut runs record no
#    final state (IRIW's report lists the witness's alone); the output
#    is deterministic.
# 3. A Never test whose clause fixes registers is decided
#    ("goal-exhaustive") by a goal search that completes.

srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
tap_tmp litmus-goal

echo "1..8"

for m in sc tso weak; do
	"$PAGERACE" litmus -b -m $m --trace-dir "$tmp/tr" "$srcdir"/tests/litmus/*.litmus \
		>"$tmp/full" 2>"$tmp/err"
	"$PAGERACE" litmus -b --goal -m $m --trace-dir "$tmp/tr" \
		"$srcdir"/tests/litmus/*.litmus \
		>"$tmp/goal" 2>>"$tmp/err"
	cut -f1,3,7 "$tmp/full" >"$tmp/a"
	cut -f1,3,7 "$tmp/goal" >"$tmp/b"
	test "$(wc -l <"$tmp/a")" -eq 27 && cmp -s "$tmp/a" "$tmp/b" &&
		grep -q 'goal-exhaustive' "$tmp/goal"
	st=$?
	[ $st -ne 0 ] && diff "$tmp/a" "$tmp/b" | sed 's/^/# /'
	ok $st "$m: the goal search reaches exactly what the whole search does (27 tests)"
done

run 0 "$PAGERACE" litmus --goal -m weak --trace-dir "$tmp/tr" \
	"$srcdir/tests/litmus/IRIW.litmus"
trace=$(sed -n 's/^  witness: *//p' "$tmp/out")
grep -q '^  reached by the goal search (dpor, ' "$tmp/out" && test -f "$trace" &&
	! grep -q '^    ' "$tmp/out" &&
	test "$(grep -c '^  \* ' "$tmp/out")" -eq 1 &&
	! grep -q '^     [^ ]' "$tmp/out"
ok $? "weak: IRIW reached by the goal search, one final state (the witness's), trace $trace"
run 0 "$PAGERACE" replay "$trace"
grep -q 'satisfies exists' "$tmp/out"
ok $? "weak: the goal witness replays on the test itself to the condition"

"$PAGERACE" litmus --goal -m weak --trace-dir "$tmp/tr" \
	"$srcdir"/tests/litmus/*.litmus >"$tmp/a" 2>&1
"$PAGERACE" litmus --goal -m weak --trace-dir "$tmp/tr" \
	"$srcdir"/tests/litmus/*.litmus >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b"
ok $? "--goal twice: the same output, byte for byte"

run 0 "$PAGERACE" litmus -b --goal -m weak --trace-dir "$tmp/tr" \
	"$srcdir/tests/litmus/IRIW+mbs.litmus"
test "$(cut -f3,5,7 "$tmp/out")" = "$(printf 'agree\tgoal-exhaustive\tnot-reached')"
ok $? "weak: IRIW+mbs (Never) decided by a complete goal search"

run 0 "$PAGERACE" litmus -m weak --goal --trace-dir "$tmp/tr" \
	"$srcdir/tests/litmus/IRIW+mbs.litmus"
grep -q 'condition unreachable: decided by the goal search (dpor, .* complete)' "$tmp/out" &&
	grep -q 'agrees with Result: Never (never reached)' "$tmp/out"
ok $? "the text report says what the goal search decided"

tap_done
