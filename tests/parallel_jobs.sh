#!/bin/sh
# tests/parallel_jobs.sh -- explore --jobs N gives the output of one
# process (TAP): the same stdout (timing left out with --no-timing), the
# same trace files, byte for byte, for N = 1, 2, 3; with --keep-going and
# when stopping at the first failure; with scenario outcome counts; and
# bad --jobs values exit 2 with one line.

case $PAGERACE in /*) ;; *) PAGERACE=$(pwd)/$PAGERACE ;; esac
srcdir=${abs_top_srcdir:-$(pwd)}
. "$(dirname "$0")/tap.sh"
tap_tmp jobs

# same_for_jobs NAME EXPECTED-STATUS EXPLORE-ARGS...: run with -j 1, 2, 3,
# each in its own directory; compare stdout and the pagerace-traces/ directories.
same_for_jobs() {
	name=$1 want=$2
	shift 2
	st=0
	for j in 1 2 3; do
		d="$tmp/$name-$j"
		mkdir -p "$d"
		(cd "$d" && "$PAGERACE" explore -q --no-timing -j $j "$@" \
			>stdout 2>stderr)
		rc=$?
		[ $rc -eq "$want" ] || { echo "# -j $j: exit $rc, want $want"; sed 's/^/# /' "$d/stderr"; st=1; }
	done
	for j in 2 3; do
		cmp -s "$tmp/$name-1/stdout" "$tmp/$name-$j/stdout" ||
			{ echo "# -j $j: stdout differs"; diff "$tmp/$name-1/stdout" "$tmp/$name-$j/stdout" | head -5 | sed 's/^/# /'; st=1; }
		if [ -d "$tmp/$name-1/pagerace-traces" ]; then
			diff -r "$tmp/$name-1/pagerace-traces" "$tmp/$name-$j/pagerace-traces" >/dev/null ||
				{ echo "# -j $j: traces differ"; st=1; }
		else
			[ ! -d "$tmp/$name-$j/pagerace-traces" ] || st=1
		fi
	done
	return $st
}
echo "1..9"

same_for_jobs lu-k 1 -k -n 3000 lost-update
ok $? "lost-update -k -n 3000: same stdout and traces for -j 1, 2, 3"
test "$(ls "$tmp/lu-k-1/pagerace-traces" | wc -l)" -gt 100 &&
	grep -q '3000 runs' "$tmp/lu-k-2/stdout"
ok $? "lost-update -k: hundreds of failing traces, 3000 runs counted"

same_for_jobs mp-pct 1 -s pct -n 5000 message-passing
ok $? "message-passing pct, stop at the first failure: same for -j 1, 2, 3"
test "$(ls "$tmp/mp-pct-3/pagerace-traces" | wc -l)" -eq 1
ok $? "stop at the first failure: -j 3 leaves one trace, the lowest run's"

same_for_jobs scn 1 -s pct -d 5 -n 120000 "$srcdir/scenarios/spec-free-check.scn"
ok $? "spec-free-check.scn pct (fails late): same runs, outcome counts, trace"

same_for_jobs clean 0 -n 4000 "$srcdir/scenarios/insert-lookup.scn"
ok $? "insert-lookup.scn, no failure: same outcome counts for -j 1, 2, 3"

same_for_jobs json 1 --json -k -n 2000 abba
ok $? "--json -k abba: the same summary for -j 1, 2, 3"

(cd "$tmp/lu-k-2" && "$PAGERACE" replay -q "$(ls pagerace-traces/* | tail -1)")
[ $? -eq 1 ]
ok $? "a trace written by -j 2 replays (exit 1)"

st=0
for bad in 0 257 x -1; do
	"$PAGERACE" explore -j "$bad" abba >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q 'error.*--jobs' "$tmp/err" || st=1
done
ok $st "bad --jobs values: exit 2, one error line"
