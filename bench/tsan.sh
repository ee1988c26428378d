#!/bin/sh
# bench/tsan.sh -- pagerace-tsan beside pagerace (make bench; doc/tsan.md):
# CPU time per run of the same exploration in both flavours and their
# ratio, then pagerace-tsan's peak RSS after RUNS and 10 x RUNS runs with
# its worker process replaced every 5000 runs (the default) and without
# (--worker-runs 0).  Skipped when configure built no TSan flavour or GNU
# time (/usr/bin/time, for CPU time and max RSS) is missing.
#
# Usage: bench/tsan.sh [RUNS]   (default 2000)
# The exploration: explore -q -k --no-timing -p locked pc-mixed (random,
# seed 1: no failure, every run to its end).

PAGERACE=${PAGERACE:-src/pagerace}
PAGERACE_TSAN=${PAGERACE_TSAN:-src/pagerace-tsan}
TIME=${TIME:-/usr/bin/time}
runs=${1:-2000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-bench-tsan.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! test -x "$PAGERACE_TSAN" || ! test -x "$TIME"; then
	echo "bench/tsan.sh: skipped (no $PAGERACE_TSAN or no $TIME)"
	exit 0
fi

# measure BINARY RUNS ARGS...: "CPU-SECONDS MAX-RSS-KB" of one exploration
measure() {
	bin=$1 n=$2
	shift 2
	"$TIME" -f "%U %S %M" -o "$tmp/t" "$bin" explore -q -k --no-timing \
		-n "$n" "$@" -p locked pc-mixed >/dev/null 2>&1
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$tmp/t"
}

# The plain build makes 50 times the runs: GNU time counts 10 ms ticks.
echo "== CPU per run of explore -p locked pc-mixed (user + system, one process)"
set -- $(measure "$PAGERACE" $((runs * 50)) --worker-runs 0)
plain=$1
set -- $(measure "$PAGERACE_TSAN" "$runs" --worker-runs 0)
tsan=$1
awk -v p="$plain" -v t="$tsan" -v n="$runs" 'BEGIN {
	printf "pagerace       %7.2f s for %d runs  %8.1f us/run\n", p, n * 50, p * 1e6 / (n * 50)
	printf "pagerace-tsan  %7.2f s for %d runs  %8.1f us/run\n", t, n, t * 1e6 / n
	if (p > 0) printf "ratio          %7.0fx\n", t * 50 / p
}'

echo "== pagerace-tsan peak RSS (KB)"
for n in "$runs" $((runs * 10)); do
	set -- $(measure "$PAGERACE_TSAN" "$n")
	a=$2
	set -- $(measure "$PAGERACE_TSAN" "$n" --worker-runs 0)
	echo "$n runs: $a (a worker every 5000 runs), $2 (one process)"
done
