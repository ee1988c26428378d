#!/bin/sh
# tests/tsan_workers.sh -- explore's worker processes give the output of
# one process (TAP; doc/tsan.md "Memory", explore --worker-runs).
#
# pagerace-tsan explores random and pct runs in a worker process that is
# replaced every --worker-runs runs (ThreadSanitizer never frees a dead
# fiber's thread context).  A worker forked from a pagerace-tsan process
# with live fibers would see no data race at all: TSan counts live fibers
# as threads, and a child of a "multi-threaded" process ignores every
# access (pr_run_before_fork destroys them first).
#
# 1. pagerace-tsan, pct, a scenario full of data races: one process,
#    a worker replaced every 30 runs, and two workers (-j 2) print the
#    same JSON summary and save the same traces, data races among them.
# 2. The workers really were replaced: the TSan reports come from at
#    least three processes.
# 3. The plain build, lost-update -k: the same with --worker-runs 37.

PAGERACE_TSAN=${PAGERACE_TSAN:-src/pagerace-tsan}
. "$(dirname "$0")/tap.sh"
tap_tmp workers

# explore BINARY NAME ARGS...: JSON summary in $tmp/NAME.json (trace paths
# made relative to the trace folder), traces in $tmp/NAME/, stderr in
# $tmp/NAME.err.
explore() {
	bin=$1 name=$2
	shift 2
	"$bin" explore -q -k --no-timing --json --trace-dir "$tmp/$name" "$@" \
		>"$tmp/$name.raw" 2>"$tmp/$name.err"
	sed "s|$tmp/$name/||g" "$tmp/$name.raw" >"$tmp/$name.json"
}

same() {	# same A B: summaries and traces identical
	cmp -s "$tmp/$1.json" "$tmp/$2.json" &&
		diff -r "$tmp/$1" "$tmp/$2" >/dev/null
}

if test -x "$PAGERACE_TSAN"; then
	echo "1..3"
	set -- -s pct -K spec-free-check -n 120 pc-mixed
	explore "$PAGERACE_TSAN" one --worker-runs 0 "$@"
	# TSan's own text (with its pid) only where a log_path sends it.
	(TSAN_OPTIONS=log_path=stderr; export TSAN_OPTIONS
	 explore "$PAGERACE_TSAN" replaced --worker-runs 30 "$@")
	explore "$PAGERACE_TSAN" two --worker-runs 0 -j 2 "$@"
	races=$(grep -o '"kind":"data-race"' "$tmp/one.json" | wc -l)
	same one replaced && same one two && [ "$races" -ge 10 ]
	ok $? "pct pc-mixed spec-free-check: one process = a worker every 30 runs = -j 2 ($races data races)"
	pids=$(sed -n 's/.*ThreadSanitizer: data race (pid=\([0-9]*\)).*/\1/p' \
		"$tmp/replaced.err" | sort -u | wc -l)
	[ "$pids" -ge 3 ]
	ok $? "--worker-runs 30 over 120 runs: reports from $pids worker processes"
else
	echo "1..1"
fi

explore "$PAGERACE" plain1 --worker-runs 0 -n 400 lost-update
explore "$PAGERACE" plain2 --worker-runs 37 -n 400 lost-update
fails=$(sed -n 's/.*"failures":\([0-9]*\).*/\1/p' "$tmp/plain1.json")
same plain1 plain2 && [ "${fails:-0}" -gt 0 ]
ok $? "pagerace lost-update -k: one process = a worker every 37 runs ($fails failures)"
