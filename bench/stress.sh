#!/bin/sh
# bench/stress.sh -- lookups per second of find_get_page in `pagerace
# stress` (real threads, no scheduler, every detector on) for the locked
# protocol against v2, on 1 and 2 CPUs: the seeds' argument that lookups
# no longer contend on tree_lock.
#
# bench/stress-lookups-1.scn has one CPU look up a page 500 times per
# iteration; bench/stress-lookups-2.scn two CPUs 250 times each, each its
# own page, so what they share is the tree (and tree_lock under locked).
# An iteration also pays a fixed start-up (thread barriers, the harness's
# per-iteration reset), so each scenario runs twice: as shipped and with
# its loop a tenth as long.  The difference is the lookups alone:
#     lookups/s = CPUs x (L - L/10) x iterations / (T(L) - T(L/10))
# Times are the median of 5, the configurations alternated, measured in
# this script around the whole process.
#
# Usage: bench/stress.sh [ITERATIONS]   (default 4000)

PAGERACE=${PAGERACE:-src/pagerace}
srcdir=${abs_top_srcdir:-.}
iters=${1:-4000}
reps=5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-stress.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! "$PAGERACE" stress --help >/dev/null 2>&1; then
	echo "stress: $PAGERACE has no stress command" >&2
	exit 1
fi

# The long and the short version of each scenario (loop L and L/10).
for n in 1 2; do
	f=$srcdir/bench/stress-lookups-$n.scn
	L=$(sed -n 's/^[ 	]*loop \([0-9]*\).*/\1/p' "$f" | head -n 1)
	[ -n "$L" ] || { echo "stress: no loop in $f" >&2; exit 1; }
	cp "$f" "$tmp/long-$n.scn"
	sed "s/loop $L /loop $((L / 10)) /" "$f" >"$tmp/short-$n.scn"
	eval "loop_$n=$L"
done

# ms: run one configuration, print its wall time in milliseconds
ms() {
	t0=$(date +%s%N)
	"$PAGERACE" stress -n "$iters" -p "$1" "$2" >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out" >&2; echo "stress: $1 $2 failed" >&2; exit 1; }
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

median() { sort -n | sed -n "$(((reps + 1) / 2))p"; }

r=1
while [ $r -le $reps ]; do
	for n in 1 2; do
		for p in locked v2; do
			for v in long short; do
				ms $p "$tmp/$v-$n.scn" >>"$tmp/t-$p-$n-$v" || exit 1
			done
		done
	done
	r=$((r + 1))
done

echo "stress: find_get_page + put, $iters iterations, median of $reps, $(nproc) cores"
printf '%-7s %4s %10s %10s %14s %14s\n' protocol CPUs "T(L) ms" "T(L/10) ms" "lookups/s" "incl. setup"
for n in 1 2; do
	for p in locked v2; do
		tl=$(median <"$tmp/t-$p-$n-long")
		ts=$(median <"$tmp/t-$p-$n-short")
		eval "L=\$loop_$n"
		awk -v n=$n -v L=$L -v it=$iters -v tl=$tl -v ts=$ts -v p=$p 'BEGIN {
			d = tl - ts; if (d < 1) d = 1
			printf "%-7s %4d %10d %10d %14.0f %14.0f\n", p, n, tl, ts,
			       n * (L - int(L / 10)) * it / (d / 1000.0),
			       n * L * it / (tl / 1000.0)
		}' | tee -a "$tmp/rows"
	done
done
awk '{ r[$1 "-" $2] = $5 } END {
	printf "v2/locked: %.2fx on 1 CPU, %.2fx on 2 CPUs\n",
	       r["v2-1"] / r["locked-1"], r["v2-2"] / r["locked-2"]
	printf "2 CPUs / 1 CPU: locked %.2fx, v2 %.2fx\n",
	       r["locked-2"] / r["locked-1"], r["v2-2"] / r["v2-1"]
}' "$tmp/rows"
