#!/bin/sh
# replay/traces.sh -- the regression suite, part 1 (TAP): every trace the
# project ships -- the ones traces/local.am lists, never whatever else lies
# in traces/ (a user's explore may have saved one there) -- replays exactly
# (replay's own check: same schedule, same verdict at the same step, exit 1
# for a recorded failure) and prints the report stored in replay/expected/
# (record equals replay).
#
# Reports are compared without source positions and backtrace frames,
# which move with unrelated edits and with the compiler's inlining; what
# is compared is the verdict, the steps, the accesses and their values.
# To refresh one after an intended change:
#   src/pagerace replay TRACE | replay/traces.sh --filter > replay/expected/...

filter() {
	sed -E -e 's/ \((src|tests)\/[^)]*:[0-9]+\)//g' \
	       -e '/^ +[A-Za-z_][A-Za-z0-9_.]*$/d'
}
if [ "${1:-}" = --filter ]; then
	filter
	exit 0
fi

PAGERACE=${PAGERACE:-src/pagerace}
srcdir=${top_srcdir:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-replay.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The shipped traces: the EXTRA_DIST entries of traces/local.am.
traces=$(grep -v '^[[:space:]]*#' "$srcdir/traces/local.am" |
	 grep -o 'traces/[A-Za-z0-9_./+-]*\.trace' | LC_ALL=C sort -u)
n=0
failed=0
if [ -z "$traces" ]; then
	echo "1..1"
	echo "not ok 1 - no trace listed in $srcdir/traces/local.am"
	exit 1
fi
echo "1..$(echo "$traces" | wc -l)"
for t in $traces; do
	n=$((n + 1))
	exp="$srcdir/replay/expected/${t#traces/}"
	exp="${exp%.trace}.report"
	"$PAGERACE" replay "$srcdir/$t" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	filter <"$tmp/out" >"$tmp/got"
	if [ $rc -ne 1 ]; then
		echo "not ok $n - $t: replay exit $rc, expected 1 (reproduced)"
		sed 's/^/# /' "$tmp/err" | head -20
		failed=$((failed + 1))
	elif [ ! -f "$exp" ]; then
		echo "not ok $n - $t: no expected report $exp"
		failed=$((failed + 1))
	elif ! diff -u "$exp" "$tmp/got" >"$tmp/diff"; then
		echo "not ok $n - $t: report differs from $exp"
		sed 's/^/# /' "$tmp/diff" | head -40
		failed=$((failed + 1))
	else
		echo "ok $n - $t replays and prints its expected report"
	fi
done
[ $failed -eq 0 ]
