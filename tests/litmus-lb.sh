#!/bin/sh
# tests/litmus-lb.sh -- load buffering under weak (src/litmus/reorder.c),
# TAP.
#
# 1. tests/litmus-lb/: LB shapes with LKMM's verdicts under sc, tso and
#    weak.  Sometimes ones (no ordering from the load to the store on at
#    least one side: plain, smp_wmb, a release or smp_mb on one
#    side, RCU readers without a grace period, a three-CPU ring, a store
#    after an if on the loaded value, which LKMM does not order) are
#    reached under weak only; Never ones (a data, address or control
#    dependency on each side, one through the CPU's own store and
#    reload, smp_mb, release/acquire, one lock, a grace period against a
#    reader, coherence) under none.  LB+rmbs (LKMM: Sometimes) is not
#    reached: pagerace keeps a store after smp_rmb (reorder.c says why).
#    Every search is exhaustive.
# 2. The same under weak with dfs instead of dpor.
# 3. LB annotated Never (a planted wrong annotation) is a disagreement
#    under weak only, with a trace that replays and shows the state: the
#    weakness comes from the early stores, not from an oracle.

srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/litmus_expect.sh"
tap_tmp litmus-lb

echo "1..9"

# name         sc            tso           weak
expected='
CoRW           agree         agree         agree
LB+acqs        agree         agree         agree
LB+addrs       agree         agree         agree
LB+ctrl+o      unreached     unreached     agree:r
LB+ctrl-past-if unreached    unreached     agree:r
LB+ctrls       agree         agree         agree
LB+data-rfi    agree         agree         agree
LB+datas       agree         agree         agree
LB+locks       agree         agree         agree
LB+mb+o        unreached     unreached     agree:r
LB+mbs         agree         agree         agree
LB+rcu-sync    agree         agree         agree
LB+rcus        unreached     unreached     agree:r
LB+rel+acq     agree         agree         agree
LB+rel+o       unreached     unreached     agree:r
LB+rels        agree         agree         agree
LB+rmbs        unreached     unreached     unreached
LB+wmbs        unreached     unreached     agree:r
LB3            unreached     unreached     agree:r
'
count=$(echo "$expected" | grep -c .)

check() {	# check MODEL STRATEGY
	m=$1
	run 0 "$PAGERACE" litmus -b -m "$m" -s "$2" "$srcdir"/tests/litmus-lb/*.litmus
	st=$?
	litmus_expect $m "$expected" && test $st -eq 0 &&
		test "$(wc -l <"$tmp/out")" -eq "$count"
	st=$?
	[ $st -ne 0 ] && cat "$tmp/cmp"
	ok $st "tests/litmus-lb under $m ($2): $count tests, every verdict as expected, exhaustive"
}

# ---- 1, 2
for m in sc tso weak; do
	check $m dpor
done
check weak dfs

# ---- 3. LB annotated Never: reached under weak only, replayed, shown
sed -e 's/Result: Sometimes/Result: Never/' "$srcdir/tests/litmus/LB.litmus" \
	>"$tmp/LB-never.litmus"
run 0 "$PAGERACE" litmus -m tso "$tmp/LB-never.litmus"
grep -q 'agrees with Result: Never (never reached)' "$tmp/out"
ok $? "tso: LB annotated Never is never reached (x86 forbids load buffering)"
run 1 "$PAGERACE" litmus -m weak --trace-dir "$tmp/tw" "$tmp/LB-never.litmus"
trace=$(sed -n 's/^  trace: *//p' "$tmp/out")
grep -q 'DISAGREES with Result: Never: litmus-never' "$tmp/out" &&
	test -f "$trace"
ok $? "weak: LB annotated Never is reached: a disagreement with its trace"
run 1 "$PAGERACE" replay "$trace"
grep -q 'reproduced litmus-never' "$tmp/out"
ok $? "weak: replay reproduces it"
run 1 "$PAGERACE" show "$trace"
grep -q 'final state 0:r0=1; 1:r0=1 satisfies' "$tmp/out"
ok $? "weak: show explains the final state"
"$PAGERACE" litmus -m weak "$srcdir"/tests/litmus-lb/*.litmus >"$tmp/a" 2>&1
"$PAGERACE" litmus -m weak "$srcdir"/tests/litmus-lb/*.litmus >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b"
ok $? "the same tests twice: the same output, byte for byte"

tap_done
