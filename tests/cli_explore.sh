#!/bin/sh
# tests/cli_explore.sh -- the pagerace command line, end to end (TAP).
#
# explore finds each classic bug (exit 1), saves its trace and prints the
# replay command; replay reproduces it (exit 1); fixed twins exit 0; --json
# is one object with the expected keys; bad input exits 2 with one clear
# line; an edited schedule is a divergence (exit 2); the same seed twice
# writes byte-identical traces.

. "$(dirname "$0")/tap.sh"
tap_tmp cli

# run EXPECTED-STATUS CMD...: output in $tmp/out, $tmp/err; status in $rc
# one_line: stderr is exactly one line mentioning "error"
one_line() {
	test "$(wc -l <"$tmp/err")" -eq 1 && grep -q 'error' "$tmp/err"
}
show() { sed 's/^/# /' "$tmp/out" "$tmp/err"; }
echo "1..48"

# ---- each bug is found, saved, replayed; each fixed twin passes
for p in lost-update abba message-passing spin-livelock null-deref; do
	d="$tmp/tr-$p"
	run 1 "$PAGERACE" explore -q --trace-dir "$d" "$p"
	st=$?
	trace=$(sed -n 's/^  trace: *//p' "$tmp/out")
	test $st -eq 0 && test -n "$trace" && test -f "$trace" &&
		grep -q "replay:.* replay $trace\$" "$tmp/out"
	ok $? "explore $p: exit 1, trace $trace saved, replay command printed"
	[ $st -eq 0 ] || show
	run 1 "$PAGERACE" replay "$trace" && grep -q "reproduced" "$tmp/out"
	ok $? "replay $p: reproduced, exit 1"
	run 0 "$PAGERACE" explore -q -n 2000 --trace-dir "$d" "$p-fixed"
	ok $? "explore $p-fixed: 2000 runs, exit 0"
done

# ---- -o, pct, --json
run 1 "$PAGERACE" explore -q -s pct -o "$tmp/mp.trace" message-passing &&
	test -f "$tmp/mp.trace" && grep -q "trace: *$tmp/mp.trace" "$tmp/out"
ok $? "explore -s pct -o FILE writes FILE"
run 1 "$PAGERACE" replay -q "$tmp/mp.trace" && test ! -s "$tmp/out"
ok $? "replay -q of a pct trace: exit 1, silent"
run 1 "$PAGERACE" explore --json --trace-dir "$tmp/j" lost-update
st=$?
test $st -eq 0 && test "$(wc -l <"$tmp/out")" -eq 1 &&
	grep -q '^{.*}$' "$tmp/out" &&
	(for k in program strategy seed first_run runs failures elapsed_s \
		  first_failure run kind step message trace; do
		grep -q "\"$k\":" "$tmp/out" || exit 1
	done)
ok $? "explore --json: one object with every key, exit 1"
grep -q '"kind":"lost-update"' "$tmp/out"
ok $? "explore --json: kind lost-update"
run 0 "$PAGERACE" explore --json -s pct -n 500 --trace-dir "$tmp/j" abba-fixed &&
	grep -q '"failures":0' "$tmp/out" && grep -q '"pct_depth":3' "$tmp/out" &&
	grep -q '"pct_steps":' "$tmp/out" && ! grep -q first_failure "$tmp/out"
ok $? "explore --json -s pct on a fixed twin: failures 0, pct keys, exit 0"
run 0 "$PAGERACE" list &&
	(for p in lost-update abba message-passing spin-livelock null-deref; do
		grep -q "^$p " "$tmp/out" && grep -q "^$p-fixed " "$tmp/out" ||
			exit 1
	done)
ok $? "list: the 10 classic programs"

# ---- determinism: the same seed twice, byte-identical traces
for s in random pct; do
	run 1 "$PAGERACE" explore -q -s $s --seed 42 -o "$tmp/a-$s.trace" spin-livelock &&
	run 1 "$PAGERACE" explore -q -s $s --seed 42 -o "$tmp/b-$s.trace" spin-livelock &&
	cmp -s "$tmp/a-$s.trace" "$tmp/b-$s.trace"
	ok $? "explore -s $s --seed 42 twice: byte-identical traces"
done
run 1 "$PAGERACE" explore -q --seed 42 -k -n 300 --trace-dir "$tmp/k1" null-deref &&
run 1 "$PAGERACE" explore -q --seed 42 -k -n 300 --trace-dir "$tmp/k2" null-deref &&
	test "$(ls "$tmp/k1" | wc -l)" -gt 1 &&
	(cd "$tmp/k1" && for f in *; do cmp -s "$f" "../k2/$f" || exit 1; done)
ok $? "explore -k --seed 42 twice: the same set of byte-identical traces ($(ls "$tmp/k1" 2>/dev/null | wc -l) files)"

# ---- bad input: exit 2, one line
run 2 "$PAGERACE" explore --bogus lost-update && one_line
ok $? "explore --bogus: exit 2, one line"
run 2 "$PAGERACE" explore no-such-program && one_line &&
	grep -q "unknown program or scenario 'no-such-program'" "$tmp/err"
ok $? "explore of an unknown program: exit 2, one line"
run 2 "$PAGERACE" explore -n abc lost-update && one_line
ok $? "explore -n abc: exit 2, one line"
run 2 "$PAGERACE" explore -s dfs-unknown lost-update && one_line
ok $? "explore -s of an unknown strategy: exit 2, one line"
run 2 "$PAGERACE" replay "$tmp/no-such.trace" && one_line &&
	grep -q "no-such.trace" "$tmp/err"
ok $? "replay of a missing file: exit 2, one line naming it"
run 2 "$PAGERACE" replay --bogus "$tmp/mp.trace" && one_line
ok $? "replay --bogus: exit 2, one line"

good="$tmp/mp.trace"
head -c 150 "$good" >"$tmp/trunc.trace"
run 2 "$PAGERACE" replay "$tmp/trunc.trace" && one_line &&
	grep -q "trunc.trace:[0-9]*:[0-9]*: error" "$tmp/err"
ok $? "replay of a truncated trace: exit 2, FILE:LINE:COL: error"
sed '$d' "$good" >"$tmp/noend.trace"
run 2 "$PAGERACE" replay "$tmp/noend.trace" && one_line
ok $? "replay of a trace without its end line: exit 2, one line"
sed 's/^schedule \([0-9]*\)$/schedule x\1/' "$good" >"$tmp/corrupt.trace"
run 2 "$PAGERACE" replay "$tmp/corrupt.trace" && one_line &&
	grep -q "corrupt.trace:[0-9]*:[0-9]*: error" "$tmp/err"
ok $? "replay of a corrupted trace: exit 2, FILE:LINE:COL: error"
sed 's/^verdict-step .*/verdict-step -3/' "$good" >"$tmp/corrupt2.trace"
run 2 "$PAGERACE" replay "$tmp/corrupt2.trace" && one_line
ok $? "replay of a trace with a negative step: exit 2, one line"
sed '1s/^pagerace-trace 2$/pagerace-trace 5/' "$good" >"$tmp/v5.trace"
run 2 "$PAGERACE" replay "$tmp/v5.trace" && one_line &&
	grep -q "version" "$tmp/err"
ok $? "replay of format version 5 (newer than this pagerace): exit 2, one line about the version"
sed 's/^program .*/program no-such-program/' "$good" >"$tmp/prog.trace"
run 2 "$PAGERACE" replay "$tmp/prog.trace" && one_line
ok $? "replay of a trace of an unknown program: exit 2, one line"

# ---- an edited trace is noticed: the check covers the header
# and the schedule, only pagerace-version is informational
for edit in 's/^seed .*/seed 999/' 's/^run \(.*\)/run 1\1/' \
	    's/^option max-steps .*/option max-steps 99/' \
	    's/^verdict-step \(.*\)/verdict-step 1\1/'; do
	sed "$edit" "$good" >"$tmp/edited.trace"
	! cmp -s "$good" "$tmp/edited.trace" &&
		run 2 "$PAGERACE" replay "$tmp/edited.trace" && one_line &&
		grep -q "edited.trace:[0-9]*:7: error: check mismatch" "$tmp/err"
	ok $? "replay of a trace edited with '$edit': exit 2, check mismatch"
done
sed 's/^pagerace-version .*/pagerace-version 9.9-edited/' "$good" >"$tmp/ver.trace"
run 1 "$PAGERACE" replay -q "$tmp/ver.trace"
ok $? "replay of a trace whose pagerace-version was edited: reproduced"

# ---- an edited schedule diverges (replay's own check, on the version 1
# form of the trace, which carries no check line)
good1="$tmp/mp1.trace"
sed -e '1s/^pagerace-trace 2$/pagerace-trace 1/' -e '/^flavour /d' \
    -e '/^check /d' "$good" >"$good1"
run 1 "$PAGERACE" replay -q "$good1"
ok $? "the version 1 form of the trace replays"
good=$good1
# Add one step to the first segment ("cC*N@S" -> "cC*(N+1)@S").
awk 'sched == 1 && !done {
	     if (match($0, /^c[0-9]+\*[0-9]+/)) {
		     head = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
		     i = index(head, "*")
		     $0 = substr(head, 1, i) (substr(head, i + 1) + 1) rest
		     done = 1
	     }
     }
     /^schedule / { sched = 1 }
     { print }' "$good" >"$tmp/steps.trace"
! cmp -s "$good" "$tmp/steps.trace" &&
	run 2 "$PAGERACE" replay "$tmp/steps.trace" &&
	grep -q "divergence" "$tmp/err"
ok $? "replay of a schedule with a step count changed: exit 2, divergence"
[ $rc -eq 2 ] || { diff "$good" "$tmp/steps.trace" | sed 's/^/# /'; show; }
# Swap the contexts of the first segment.
awk 'sched == 1 && !done { sub(/^c0/, "cX"); sub(/^c1/, "c0"); sub(/^cX/, "c1"); done = 1 }
     /^schedule / { sched = 1 }
     { print }' "$good" >"$tmp/code.trace"
run 2 "$PAGERACE" replay "$tmp/code.trace" && grep -q "divergence" "$tmp/err"
ok $? "replay of a schedule with a choice changed: exit 2, divergence"
sed 's/^verdict-step \(.*\)/verdict-step 1\1/' "$good" >"$tmp/vstep.trace"
run 2 "$PAGERACE" replay "$tmp/vstep.trace" && grep -q "divergence" "$tmp/err"
ok $? "replay of a trace whose verdict step was edited: exit 2, divergence"

# ---- help and exit 0
run 0 "$PAGERACE" explore --help && grep -q -- '--trace-dir' "$tmp/out"
ok $? "explore --help: exit 0"
run 0 "$PAGERACE" replay --help && grep -q -- '--quiet' "$tmp/out"
ok $? "replay --help: exit 0"
run 2 "$PAGERACE"
ok $? "no command: exit 2"

tap_done
