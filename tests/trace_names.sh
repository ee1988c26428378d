#!/bin/sh
# tests/trace_names.sh -- no command loses a trace (TAP).
#
# A trace folder's file is never replaced: another knob set, protocol,
# memory model or exploration writing into the same folder at the same
# time gets a "-2", "-3", ... name, the same run made again reuses its
# identical file, and every "trace:" line of a summary names a file that
# holds that exploration's run.  An output that is one of a command's
# inputs is refused, a --first-run that would wrap is refused, and a
# trace folder that fills up stops -j 1 and -j 2 at the same run with the
# same counts.
#
# radix-rcu-free under pct (seed 1): run 36 is a use-after-free with the
# scenario's knobs and a NULL dereference with -K none (F1 back); the
# runs are read back from the summaries, not assumed.

. "$(dirname "$0")/tap.sh"
tap_tmp names
scn=$abs_top_srcdir/scenarios/radix-rcu-free.scn
cd "$tmp" || exit 1

trace_of() {	# trace_of FILE: the first trace a summary names
	sed -n 's/^  trace: *//p' "$1" | head -n 1
}
echo "1..13"

"$PAGERACE" explore -q -s pct --trace-dir tr "$scn" >a.out 2>err
a=$(trace_of a.out)
cp "$a" a.copy
"$PAGERACE" explore -q -s pct -K none --trace-dir tr "$scn" >b.out 2>err
b=$(trace_of b.out)
test -n "$a" && test -n "$b" && test "$a" != "$b" && cmp -s "$a" a.copy &&
	grep -q '^verdict-kind use-after-free' "$a" &&
	grep -q '^verdict-kind null-deref' "$b"
ok $? "-K none's failure does not replace the first trace ($a, $b)"

run 1 "$PAGERACE" replay "$a"
grep -q 'use-after-free' out
ok $? "the first trace still replays its use-after-free (exit $rc)"

"$PAGERACE" explore -q -s pct --trace-dir tr "$scn" >c.out 2>err
test "$(trace_of c.out)" = "$a" && test "$(ls tr | wc -l)" -eq 2
ok $? "the same run made again reuses its identical file ($(ls tr | wc -l) files)"

"$PAGERACE" explore -q -s pct --memory tso --trace-dir tr "$scn" >d.out 2>err
case $(trace_of d.out) in
tr/radix-rcu-free-tso-seed1-run*.trace) ok 0 "--memory tso names its trace $(trace_of d.out)" ;;
*) ok 1 "--memory tso names its trace '$(trace_of d.out)'" ;;
esac

# Two explorations into one folder at once, failing at many of the same
# run indices: each announces only files holding its own runs.
"$PAGERACE" explore -q -k -s pct -n 3000 --trace-dir both "$scn" >v2.out 2>err &
"$PAGERACE" explore -q -k -s pct -n 3000 -p merged -K radix-rcu-free \
	--trace-dir both "$scn" >merged.out 2>err2
wait
bad=0
for f in $(sed -n 's/^  trace: *//p' v2.out); do
	grep -q '^option protocol v2$' "$f" || bad=$((bad + 1))
done
for f in $(sed -n 's/^  trace: *//p' merged.out); do
	grep -q '^option protocol merged$' "$f" || bad=$((bad + 1))
done
nv=$(grep -c '^  trace:' v2.out)
nm=$(grep -c '^  trace:' merged.out)
test "$bad" -eq 0 && test "$nv" -gt 10 && test "$nm" -gt 10 &&
	test "$(ls both | wc -l)" -eq $((nv + nm))
ok $? "two explorations in one folder: $nv + $nm traces, $(ls both | wc -l) files, $bad holding the other's run"

# An output that is an input.
cp "$a" keep.trace
cp "$a" t.trace
run 2 "$PAGERACE" show -o t.trace t.trace &&
	cmp -s t.trace keep.trace && grep -q 'the trace being shown' err
ok $? "show -o TRACE TRACE: refused (exit $rc), the trace unchanged"

ln -s t.trace alias.trace
run 2 "$PAGERACE" minimize -q -o alias.trace t.trace &&
	cmp -s t.trace keep.trace && test -L alias.trace
ok $? "minimize -o LINK-TO-TRACE TRACE: refused (exit $rc), the trace unchanged"

cp "$scn" s.scn
run 2 "$PAGERACE" explore -q -s pct -o s.scn s.scn &&
	cmp -s s.scn "$scn"
ok $? "explore -o SCENARIO SCENARIO: refused (exit $rc), the scenario unchanged"

mkdir pagerace-traces
echo "another trace" >pagerace-traces/t.min.trace
run 1 "$PAGERACE" minimize -q t.trace &&
	test "$(cat pagerace-traces/t.min.trace)" = "another trace" &&
	grep -q '^strategy guided' pagerace-traces/t.min-2.trace
ok $? "minimize's default output never replaces a different file (exit $rc)"

run 2 "$PAGERACE" explore -q -s pct --first-run 18446744073709551615 "$scn" &&
	grep -q 'first-run' err && ! grep -q FAILED out
ok $? "--first-run 2^64-1: refused (exit $rc), no wrapped run"

run 2 "$PAGERACE" explore -q -n 0 "$scn" &&
	grep -q 'at least 1' err
ok $? "--runs 0: the message says what it needs (exit $rc)"

run 0 "$PAGERACE" explore -q -s pct -n 10 -m tso lost-update-fixed &&
	grep -q 'memory tso' out
ok $? "explore -m tso is --memory tso (exit $rc)"

# A trace folder that fills up: a 60 KiB tmpfs in a mount namespace of
# our own, where the system allows one.
cat >full.sh <<EOF
mount -t tmpfs -o size=60k tmpfs m1 && mount -t tmpfs -o size=60k tmpfs m2 || exit 77
"$PAGERACE" explore -q -k -s pct -n 3000 --no-timing --trace-dir m1/t "$scn" >j1.out 2>j1.err
"$PAGERACE" explore -q -k -j 2 -s pct -n 3000 --no-timing --trace-dir m2/t "$scn" >j2.out 2>j2.err
echo \$? >j2.rc
EOF
mkdir m1 m2
if command -v unshare >/dev/null 2>&1 && unshare -rm sh full.sh 2>/dev/null; then
	sed 's|m2/|m1/|g' j2.out >j2.same
	cmp -s j1.out j2.same && test "$(cat j2.rc)" -eq 2 &&
		grep -q 'No space left' j2.err
	ok $? "a full trace folder: -j 1 and -j 2 stop alike ($(sed -n 's/^coverage: sampled: \([0-9]*\) runs.*/\1/p' j1.out) runs)"
else
	skip "no mount namespace for a small tmpfs here"
fi

tap_done
