#!/bin/sh
# tests/litmus.sh -- `pagerace litmus` (TAP).
#
# 1. The project's own litmus tests (tests/litmus/, classic shapes with
#    LKMM's verdicts) under sc, tso and weak: each agrees with its
#    Result: line, and reaches exactly what the model allows (the
#    expected table below follows from src/memory/memory.h's description
#    of each model: SB needs a store buffer, MP and 2+2W store reordering,
#    WRC, IRIW and RCU-nolock loads that read older values (weak), LB a
#    store performed before an earlier load (weak: src/litmus/reorder.c);
#    RCU-resection a grace period begun between two read-side sections
#    of one CPU (a section begins at a step of its own: litmus/prims.c);
#    RCU-unlock-LB a store after a section's end performed inside it,
#    before the section's load (weak: litmus/reorder.c, rule 4));
#    flush-order an older value readable only in one order of two
#    flushes nothing else orders (weak: dpor's observer rule,
#    strategy/dpor_race.c); RCU-stale-tick loads that read older values
#    around a grace period (weak; its goal search guards dpor's rule for
#    skipping older values, tests/litmus-goal.sh)).
# 2. Planted wrong annotations are disagreements (exit 1) whose traces
#    replay and show the final state: the check cannot be removed unseen.
# 3. Bad input: file:line:col: error: ..., unsupported constructs named,
#    exit 2; a bad pointer at run time is an error (exit 1), not a crash.
# 4. When the paulmckrcu/litmus corpus is there ($LITMUS_DIR, else
#    ../shared/litmus beside the source tree), a fixed fast subset under
#    every model: nothing disagrees.  Skipped, not failed, without it.

srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/litmus_expect.sh"
tap_tmp litmus

echo "1..37"

# ---- 1. the classic shapes: verdict and reached/not-reached per model.
# name      sc            tso           weak
expected='
SB          unreached     agree:r       agree:r
SB+mbs      agree         agree         agree
MP          unreached     unreached     agree:r
MP+wmb+rmb  agree         agree         agree
MP+rel+acq  agree         agree         agree
LB          unreached     unreached     agree:r
LB+ctrl+data agree        agree         agree
WRC         unreached     unreached     agree:r
WRC+rel+rmb agree         agree         agree
IRIW        unreached     unreached     agree:r
IRIW+mbs    agree         agree         agree
2+2W        unreached     unreached     agree:r
2+2W+mbs    agree         agree         agree
RCU-sync    agree         agree         agree
RCU-nolock  unreached     unreached     agree:r
RCU-publish agree         agree         agree
RCU-resection agree:r     agree:r       agree:r
RCU-unlock-LB unreached   unreached     agree:r
RCU-unlock-LB+1 agree     agree         agree
lock-inc    agree         agree         agree
nolock-inc  agree:r       agree:r       agree:r
lock-MP     agree         agree         agree
atomic-inc  agree:r       agree:r       agree:r
cmpxchg-once agree        agree         agree
xchg-SB     agree         agree         agree
flush-order unreached     unreached     agree:r
RCU-stale-tick unreached  unreached     agree:r
'
col=2
for m in sc tso weak; do
	run 0 "$PAGERACE" litmus -b -m $m "$srcdir"/tests/litmus/*.litmus
	st=$?
	litmus_expect $m "$expected" && test $st -eq 0 &&
		test "$(wc -l <"$tmp/out")" -eq 27
	st=$?
	[ $st -ne 0 ] && cat "$tmp/cmp"
	ok $st "tests/litmus under $m: 27 tests, every verdict as expected, exhaustive"
	col=$((col + 1))
done

run 0 "$PAGERACE" litmus -m weak "$srcdir/tests/litmus/MP.litmus"
grep -q '^  exhaustive: [0-9]* executions (dpor), memory weak$' "$tmp/out" &&
	grep -q '^  \* 1:r0=1; 1:r1=0 ' "$tmp/out" &&
	grep -q 'agrees with Result: Sometimes (reached)' "$tmp/out"
ok $? "the text report: coverage statement, final states, the verdict"
run 0 "$PAGERACE" litmus "$srcdir/tests/litmus/SB.litmus"
grep -q 'not reached under sc (allowed by LKMM' "$tmp/out"
ok $? "a Sometimes not reached under sc is no disagreement, and says so"
run 0 "$PAGERACE" litmus -s dfs -m tso "$srcdir/tests/litmus/SB.litmus"
grep -q 'exhaustive: [0-9]* executions (dfs), memory tso' "$tmp/out" &&
	grep -q 'agrees with Result: Sometimes (reached)' "$tmp/out"
ok $? "dfs reaches the same under tso"
"$PAGERACE" litmus -m weak "$srcdir"/tests/litmus/*.litmus >"$tmp/a" 2>&1
"$PAGERACE" litmus -m weak "$srcdir"/tests/litmus/*.litmus >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b"
ok $? "the same tests twice: the same output, byte for byte"

# ---- 2. planted disagreements: found, saved, replayed, shown
for m in sc weak; do
	run 1 "$PAGERACE" litmus -m $m --trace-dir "$tmp/t$m" \
		"$srcdir/tests/litmus-bad/wrong-never.litmus"
	trace=$(sed -n 's/^  trace: *//p' "$tmp/out")
	grep -q 'DISAGREES with Result: Never: litmus-never' "$tmp/out" &&
		test -f "$trace"
	ok $? "$m: a Never reached is a disagreement (exit 1), trace $trace"
	run 1 "$PAGERACE" replay "$trace"
	grep -q 'reproduced litmus-never' "$tmp/out"
	ok $? "$m: replay reproduces it (exit 1)"
	run 0 "$PAGERACE" show "$trace"
	grep -q 'final state x=1 satisfies exists (x=1)' "$tmp/out"
	ok $? "$m: show explains the final state"
done
run 1 "$PAGERACE" litmus --trace-dir "$tmp/ta" \
	"$srcdir/tests/litmus-bad/wrong-always.litmus"
grep -q 'DISAGREES with Result: Always: litmus-always' "$tmp/out" &&
	grep -q 'final state 1:r0=0 does not satisfy' "$tmp/out"
ok $? "an Always missed is a disagreement"
run 1 "$PAGERACE" litmus -b "$srcdir/tests/litmus/SB.litmus" \
	"$srcdir/tests/litmus-bad/wrong-never.litmus" --trace-dir "$tmp/tb"
test "$(cut -f3 "$tmp/out" | tr '\n' ' ')" = "unreached disagree "
ok $? "--brief: one line per test; the worst exit status wins"

# ---- 3. bad input
chk() {	# file, expected "line:col: error: message" prefix
	run 2 "$PAGERACE" litmus "$srcdir/tests/litmus-bad/$1.litmus"
	grep -q "^$srcdir/tests/litmus-bad/$1.litmus:$2" "$tmp/err" &&
		! test -s "$tmp/out"
	ok $? "$1: $2 (exit 2)"
}
chk unsupported-loop "9:2: error: unsupported loop"
chk unsupported-prim "7:2: error: unsupported primitive kfree"
chk syntax "8:1: error: expected ';', found '}'"
chk arch "1:1: error: unsupported architecture 'X86'"
chk unknown-reg "12:11: error: P0 has no register 'r9'"
chk misspelt-result "4:12: error: unknown Result 'Nevr'"
printf 'C nul\n{\n}\nab\0c\n' >"$tmp/nul.litmus"
run 2 "$PAGERACE" litmus "$tmp/nul.litmus"
grep -q "^$tmp/nul.litmus:4:3: error: not a text file (a NUL byte)" "$tmp/err"
ok $? "a NUL byte: where it is (found by tests/fuzz_litmus)"
run 1 "$PAGERACE" litmus --trace-dir "$tmp/tp" \
	"$srcdir/tests/litmus-bad/bad-pointer.litmus"
grep -q 'ERROR with Result: Never: litmus-bad-pointer' "$tmp/out"
ok $? "a load through a non-pointer is an error verdict, not a crash"
run 2 "$PAGERACE" litmus -m pso "$srcdir/tests/litmus/SB.litmus"
grep -q "unknown memory model 'pso'" "$tmp/err"
ok $? "an unknown memory model is bad input"
run 2 "$PAGERACE" litmus "$srcdir/tests/litmus/none.litmus"
ok $? "a missing file is bad input"

# ---- 4. a fast subset of the paulmckrcu/litmus corpus, when present
corpus=${LITMUS_DIR:-$srcdir/../shared/litmus}
subset='
manual/demo/C-RR-R+WW-G.litmus
manual/deps/LB-ctls-sameval.litmus
manual/kernel/C-Jakub-listen.litmus
manual/kernel/C-ManfredSpraul-L1G1xchgnr.litmus
manual/kernel/C-PaulEMcKenney-MP+o-r+a-o.litmus
manual/kernel/C-PaulEMcKenney-psc+sr-mbonce.litmus
manual/kernel/C-llist-add-atomic.litmus
manual/oota/C-AS-OOTA-2.litmus
manual/oota/C-JO-OOTA-5.litmus
manual/plain/C-RR-rcuderef.litmus
manual/plain/C-no-race.litmus
auto/C-LB-GRR+OB-OB.litmus
auto/C-LB-LRW+R-Oc+R-Ok.litmus
auto/C-LB-LRW+O-O+OB-O+OB-O+OB-OB.litmus
auto/C-RR-G+RR-R+RR-R.litmus
auto/C-RR-GR+RR-R.litmus
auto/C-RW-G+RW-R.litmus
auto/C-WW-G+WW-R.litmus
'
if [ -d "$corpus/auto" ] && [ -d "$corpus/manual" ]; then
	files=
	for f in $subset; do
		[ -f "$corpus/$f" ] && files="$files $corpus/$f"
	done
	for m in sc tso weak; do
		"$PAGERACE" litmus -b -m $m -n 100000 $files >"$tmp/out" 2>"$tmp/err"
		rc=$?
		test -n "$files" && test $rc -eq 0 &&
			! cut -f3 "$tmp/out" | grep -q 'disagree\|error\|bad-input'
		ok $? "corpus subset under $m ($(echo $files | wc -w) tests): no disagreement"
	done
else
	for m in sc tso weak; do
		skip "corpus subset under $m: no corpus at $corpus (set LITMUS_DIR)"
	done
fi

# ---- 5. weak's stale reads in a trace (format 4): MP+wmb without smp_rmb
# annotated Never (a planted wrong annotation) is reached only by a load
# reading an older value; its trace is version 4 with an r segment,
# replays, and a stale read in a trace of another model is bad input.
sed -e 's/smp_rmb();//' "$srcdir/tests/litmus/MP+wmb+rmb.litmus" >"$tmp/MPw.litmus"
run 1 "$PAGERACE" litmus -m weak --trace-dir "$tmp/tw4" "$tmp/MPw.litmus"
trace=$(sed -n 's/^  trace: *//p' "$tmp/out")
test -n "$trace" && head -1 "$trace" | grep -qx 'pagerace-trace 4' &&
	grep -q '^schedule' "$trace" && grep -A1 '^schedule' "$trace" | grep -q ' r[0-9]'
ok $? "weak: MP+wmb without smp_rmb is reached by a stale read; its trace is version 4 with an r segment"
run 1 "$PAGERACE" show "$trace"
grep -q 'read an older value although the newer one was in memory' "$tmp/out" &&
	grep -q "P1 read x = 0 at step [0-9]*, an older value: P0's store of 0x1" "$tmp/out"
ok $? "weak: show tells the stale read in words"
run 1 "$PAGERACE" show -f html "$trace" && grep -q 'class="older"' "$tmp/out" &&
	run 1 "$PAGERACE" show -f chrome "$trace" &&
	grep -q '"cat":"stale","name":"read older x = 0' "$tmp/out"
ok $? "weak: show -f html and -f chrome mark the stale read"
sed 's/^memory weak/memory tso/' "$trace" >"$tmp/tso4.trace"
run 2 "$PAGERACE" replay "$tmp/tso4.trace" &&
	grep -q 'error: a stale read in a trace whose memory model is not weak' "$tmp/err"
ok $? "a stale read in a tso trace: FILE:LINE:COL: error, exit 2"

# ---- 6. with a time budget under tso/weak, what an unfinished search
# leaves of it samples: a reached Sometimes is a witness even when the
# search cannot finish (here it may run one execution); a Never stays
# incomplete.  Where the exists clause fixes registers, the goal search
# (cli/litmus_goal.c; tests/litmus-goal.sh) comes first and decides:
# MP reached, MP+wmb+rmb (Never) unreachable; 2+2W and 2+2W+mbs fix
# only final values, so the witness sampler and random runs are left.
run 0 "$PAGERACE" litmus -m weak -t 1 -n 1 --trace-dir "$tmp/tw" \
	"$srcdir/tests/litmus/2+2W.litmus" &&
	grep -q 'reached by sampling (witness, run [0-9]*); search incomplete' "$tmp/out" &&
	grep -q 'agrees with Result: Sometimes (reached)' "$tmp/out"
ok $? "weak, -t 1 -n 1: 2+2W reached by sampling (witness), said so, agrees"
trace=$(sed -n 's/^  witness: *//p' "$tmp/out")
test -f "$trace" && run 0 "$PAGERACE" replay "$trace" &&
	grep -q 'no failure (as recorded)' "$tmp/out" &&
	grep -q 'final state x=1; y=1 satisfies exists' "$tmp/out"
ok $? "the witness run is saved; replay re-executes it and reaches the condition"
run 0 "$PAGERACE" litmus -b -m weak -t 0.2 -n 1 "$srcdir/tests/litmus/2+2W+mbs.litmus" &&
	test "$(cut -f3,5,7 "$tmp/out")" = "incomplete	incomplete	not-reached"
ok $? "weak, -t 0.2 -n 1: a Never test sampled and cut stays incomplete, never 'agree'"
run 0 "$PAGERACE" litmus -m weak -t 1 -n 1 --trace-dir "$tmp/tg" \
	"$srcdir/tests/litmus/MP.litmus" &&
	grep -q '^  reached by the goal search (dpor, .*); final-state search incomplete after 1 executions' "$tmp/out" &&
	grep -q 'agrees with Result: Sometimes (reached)' "$tmp/out"
ok $? "weak, -t 1 -n 1: MP reached by the goal search after the cut search, said so, agrees"
run 0 "$PAGERACE" litmus -b -m weak -t 0.2 -n 1 "$srcdir/tests/litmus/MP+wmb+rmb.litmus" &&
	test "$(cut -f3,5,7 "$tmp/out")" = "agree	goal-exhaustive	not-reached"
ok $? "weak, -t 0.2 -n 1: a Never test decided by a complete goal search agrees (goal-exhaustive)"

tap_done
