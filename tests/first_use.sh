#!/bin/sh
# tests/first_use.sh -- the README's two commands, in order (TAP).
#
# The README's first command explores scenarios/spec-irq.scn from the top
# of the source tree; the second runs make check.  The first must not
# leave anything the second trips on: explore saves its trace in
# ./pagerace-traces/, never in the fixture folder traces/, and the
# regression suite (replay/traces.sh) replays the traces traces/local.am
# lists, not whatever lies in traces/.

srcdir=${abs_top_srcdir:-$(pwd)}
. "$(dirname "$0")/tap.sh"
tap_tmp first

echo "1..4"

# A copy of the source tree's scenario and fixtures, as a clone has them.
mkdir "$tmp/tree" && cp -R "$srcdir/scenarios" "$srcdir/traces" \
	"$srcdir/replay" "$tmp/tree/" && chmod -R u+w "$tmp/tree" ||
	exit 1
before=$(cd "$tmp/tree" && find traces -type f | LC_ALL=C sort)

# 1. The README's first command (after ./bootstrap), from the tree's top.
(cd "$tmp/tree" && "$PAGERACE" explore scenarios/spec-irq.scn) \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
# The run it fails at is the one of the shipped trace (traces/local.am).
want=$(grep -o 'spec-irq-[a-z0-9]*-run[0-9]*\.trace' "$srcdir/traces/local.am" | head -n 1)
test $rc -eq 1 && test -n "$want" && test -f "$tmp/tree/pagerace-traces/$want" &&
	grep -q "trace:    pagerace-traces/$want" "$tmp/out"
ok $? "explore scenarios/spec-irq.scn: exit 1, trace in ./pagerace-traces/ (exit $rc)"

after=$(cd "$tmp/tree" && find traces -type f | LC_ALL=C sort)
test "$before" = "$after"
ok $? "the fixture folder traces/ is as the clone had it"

# 2. Even a trace a user saves in traces/ on purpose is not a fixture.
(cd "$tmp/tree" && "$PAGERACE" explore --trace-dir traces -q \
	scenarios/spec-irq.scn) >"$tmp/out" 2>"$tmp/err"
test -f "$tmp/tree/traces/$want"
ok $? "explore --trace-dir traces saves there when asked"

top_srcdir="$tmp/tree" PAGERACE="$PAGERACE" \
	sh "$srcdir/replay/traces.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
listed=$(grep -v '^[[:space:]]*#' "$srcdir/traces/local.am" |
	 grep -o 'traces/[A-Za-z0-9_./+-]*\.trace' | sort -u | wc -l)
test $rc -eq 0 && grep -q "^1\.\.$listed\$" "$tmp/out" &&
	! grep -q "traces/$want" "$tmp/out"
ok $? "replay/traces.sh replays the $listed shipped traces only, passes (exit $rc)"

tap_done
