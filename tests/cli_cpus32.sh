#!/bin/sh
# tests/cli_cpus32.sh -- a 32-CPU scenario runs (TAP).
#
# 32 CPUs (plus the RCU daemon: 33 contexts) and 16 interrupts, each CPU
# looking up and putting a page of its own, truncate racing on CPU 31:
# every strategy explores it, the failure a planted bug gives is found
# and replays, and one CPU or interrupt more than the limits is bad input
# with its location.  What bounds the numbers: runtime/context.h.

. "$(dirname "$0")/tap.sh"
tap_tmp cpus32

# scenario CPUS IRQS [KNOB]: CPU i looks up page i twice; the last CPU
# truncates page 0; interrupt j (on CPU j) looks up the keeper, page 40.
scenario() {
	{
		echo "scenario cpus$1"
		echo "protocol v2"
		echo "knobs radix-single-read, release-no-recheck, gang-empty-exit${3:+, $3}"
		echo "pages 48"
		echo "init {"
		echo "    m0[40]"
		i=0
		# 31 pages at most: SCN_MAX_INIT is 32, the keeper included
		while [ $i -lt $(($1 - 1)) ] && [ $i -lt 31 ]; do
			echo "    m0[$i]"
			i=$((i + 1))
		done
		echo "}"
		i=0
		while [ $i -lt "$1" ]; do
			echo "cpu $i {"
			if [ $i -eq $(($1 - 1)) ]; then
				echo "    r0 = remove m0 0"
			else
				echo "    loop 2 {"
				echo "        r0 = find_get_page m0 $i"
				echo "        put r0"
				echo "    }"
			fi
			echo "}"
			i=$((i + 1))
		done
		i=0
		while [ $i -lt "$2" ]; do
			echo "irq $i count 1 {"
			echo "    r0 = find_get_page m0 40"
			echo "    assert r0 != null \"the keeper is always there\""
			echo "    put r0"
			echo "}"
			i=$((i + 1))
		done
		echo "forbidden m0[0] != null \"index 0 survived truncate\""
	}
}
echo "1..9"

scenario 32 16 >"$tmp/c32.scn"
run 0 "$PAGERACE" check "$tmp/c32.scn"
ok $? "a 32-CPU scenario with 16 interrupts is accepted"

for s in random pct; do
	run 0 "$PAGERACE" explore -q -s $s -n 300 --trace-dir "$tmp/tr" "$tmp/c32.scn"
	ok $? "$s: 300 runs of 32 CPUs, no failure"
done
run 0 "$PAGERACE" explore -q -s dpor -n 50 --trace-dir "$tmp/tr" "$tmp/c32.scn"
ok $? "dpor: 50 executions of 32 CPUs, no failure"

# The planted bug (no-recheck: a lookup of a page being freed keeps it)
# is found with 32 CPUs too, and its trace replays.
scenario 32 0 no-recheck >"$tmp/bug.scn"
run 1 "$PAGERACE" explore -q -s pct -d 3 -n 200000 -o "$tmp/bug.trace" \
	--trace-dir "$tmp/tr" "$tmp/bug.scn"
ok $? "pct finds no-recheck among 32 CPUs"
run 1 "$PAGERACE" replay "$tmp/bug.trace"
ok $? "... and its trace replays (exit 1)"

scenario 33 0 >"$tmp/c33.scn"
run 2 "$PAGERACE" check "$tmp/c33.scn"
rc=$?
grep -q "c33.scn:[0-9]*:[0-9]*: error: .*cpu" "$tmp/err" || rc=1
ok $rc "33 CPUs: a located error, exit 2"

scenario 2 17 >"$tmp/i17.scn"
run 2 "$PAGERACE" check "$tmp/i17.scn"
rc=$?
grep -q "i17.scn:[0-9]*:[0-9]*: error: too many irq handlers" "$tmp/err" || rc=1
ok $rc "17 interrupts: a located error, exit 2"

# pagerace-tsan schedules 32 CPUs alike (PCT ranks the contexts past 16
# on a stream of its own: the same in both flavours).
if [ -x "${PAGERACE_TSAN:-}" ]; then
	for b in "$PAGERACE" "$PAGERACE_TSAN"; do
		"$b" explore --json --no-timing -q -k -s pct -n 2000 \
			--trace-dir "$tmp/x" "$tmp/bug.scn" 2>&1
	done | sed 's/-tsan-/-/g' >"$tmp/out"	# trace names say the flavour
	test "$(sort -u "$tmp/out" | wc -l)" -eq 1 &&
		grep -q '"failures":[1-9]' "$tmp/out"
	ok $? "pagerace-tsan's pct schedules 32 CPUs as pagerace's (same failing runs, outcome counts)"
else
	n=$((n + 1))
	echo "ok $n # SKIP pagerace-tsan not built"
fi

tap_done
