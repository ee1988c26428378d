#!/bin/sh
# tests/interrupt.sh -- SIGINT and SIGTERM during a long explore, a
# litmus run of many tests and a stress run (TAP; minimize's stop is
# tests/report_minimize_stop).
#
# 20 times for SIGINT, 3 for each other case (fast: each explore is
# first traces, so the signal lands while traces are being written), for
# one process and for --jobs 2 (the signal going to the parent and its
# workers, as Ctrl-C on a terminal does): the explore stops at the end of
# its current run, prints the summary of the runs done and a line saying
# it was interrupted (--json: "interrupted":true), exits 130 (SIGINT) or
# 143 (SIGTERM), and leaves no *.tmp.* file in its trace folder.

# Job control: a background command then has its own process group and
# SIGINT as its default (without it the shell starts it with SIGINT
# ignored, and pagerace rightly keeps it ignored: the last check).
set -m
. "$(dirname "$0")/tap.sh"
tap_tmp int

# stop SIGNAL JOBS JSON DIR: start a -k explore of lost-update (a failing
# run every few runs, so traces are being written all the time), wait for
# its first traces, send SIGNAL; print "rc leftovers"; output in DIR.
stop() {
	sig=$1 jobs=$2 json=$3 d=$4
	mkdir -p "$d"
	"$PAGERACE" explore -q -k -n 100000000 -j "$jobs" $json \
		--trace-dir "$d/tr" lost-update >"$d/out" 2>"$d/err" &
	pid=$!
	i=0
	# Until a few traces are there (at most 10 s).
	while [ "$(ls "$d/tr" 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 1000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	kids=$(ps -o pid= --ppid "$pid" 2>/dev/null)
	kill -s "$sig" "$pid" $kids 2>/dev/null
	# It must stop promptly: give it 20 s, then kill it.
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 2000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" $kids 2>/dev/null
	wait "$pid"
	rc=$?
	echo "$rc $(ls "$d/tr" | grep -c '\.tmp\.')"
}

check() {	# check TRIES SIGNAL JOBS JSON WANT-RC: one TAP line
	TRIES=$1
	shift
	bad=0 left=0
	for t in $(seq 1 "$TRIES"); do
		d="$tmp/$1-$2-$t"
		set -- "$1" "$2" "$3" "$4"
		r=$(stop "$1" "$2" "$3" "$d")
		rc=${r% *}
		left=$((left + ${r#* }))
		if [ -n "$3" ]; then
			grep -q '"interrupted":true' "$d/out" &&
				grep -q "\"signal\":\"SIG$1\"" "$d/out" &&
				test "$(wc -l <"$d/out")" -eq 1
		else
			grep -q '^lost-update: [0-9]* runs, [0-9]* failures' "$d/out" &&
				grep -q "^lost-update: interrupted by SIG$1 after [0-9]* of 100000000 runs" "$d/out"
		fi
		st=$?
		if [ "$rc" -ne "$4" ] || [ $st -ne 0 ]; then
			bad=$((bad + 1))
			echo "# try $t: exit $rc (want $4)"
			sed 's/^/#   /' "$d/out" "$d/err" | tail -4
		fi
	done
	test $bad -eq 0 && test $left -eq 0
	ok $? "$1, -j $2 ${3:-text}: $TRIES tries, $bad wrong, exit $4, $left temporary files left"
}
echo "1..8"
check 20 INT 1 "" 130
check 3 TERM 1 "" 143
check 3 INT 2 "" 130
check 3 TERM 2 --json 143
check 3 INT 1 --json 130

# SIGINT ignored on entry (as a shell without job control starts a
# background command, or trap '' INT) stays ignored; SIGTERM still stops.
d=$tmp/ign
mkdir -p "$d"
(trap '' INT; exec "$PAGERACE" explore -q -k -n 100000000 --trace-dir "$d/tr" \
	lost-update >"$d/out" 2>"$d/err") &
pid=$!
i=0
while [ "$(ls "$d/tr" 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -INT "$pid"
sleep 0.5
kill -0 "$pid" 2>/dev/null
alive=$?
kill -TERM "$pid"
wait "$pid"
rc=$?
test $alive -eq 0 && test $rc -eq 143 && grep -q 'interrupted by SIGTERM' "$d/out"
ok $? "SIGINT ignored on entry stays ignored; SIGTERM then stops it (exit $rc)"

# litmus: the test under way stops at the end of its run, the rest are
# not run, stderr says how many were; every test run printed its verdict
# line.  80 rounds of the project's own tests under weak.
d=$tmp/lit
mkdir -p "$d"
srcdir=${srcdir:-.}
set --
for r in $(seq 1 80); do
	set -- "$@" "$srcdir"/tests/litmus/*.litmus
done
total=$#
"$PAGERACE" litmus -m weak --trace-dir "$d/tr" "$@" >"$d/out" 2>"$d/err" &
pid=$!
i=0
# (Until its output file exists and holds three verdicts, at most 10 s.)
while v=$(grep -c '\.litmus: ' "$d/out" 2>/dev/null); [ "${v:-0}" -lt 3 ] &&
	[ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -INT "$pid"
wait "$pid"
rc=$?
done_n=$(sed -n "s/.* litmus: interrupted by SIGINT: \([0-9]*\) of $total tests run.*/\1/p" "$d/err")
test $rc -eq 130 && test -n "$done_n" && test "$done_n" -lt "$total" &&
	test "$(grep -c '\.litmus: ' "$d/out")" -eq "$done_n"
ok $? "litmus, SIGINT: exit $rc, ${done_n:-?} of $total tests run, each with its verdict"

# stress: the histogram of the iterations done, then a line saying so.
d=$tmp/stress
mkdir -p "$d"
"$PAGERACE" stress -t 60 lost-update >"$d/out" 2>"$d/err" &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
test $rc -eq 130 && grep -q '^lost-update: [0-9]* iterations in' "$d/out" &&
	grep -q '^lost-update: interrupted by SIGINT after [0-9]* iterations' "$d/out"
ok $? "stress, SIGINT: exit $rc, the histogram of the iterations done"

tap_done
