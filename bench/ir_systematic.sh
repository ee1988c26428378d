#!/bin/sh
# bench/ir_systematic.sh -- instructions per step of dpor beside random on
# bench_systematic's programs (the goal: dpor <= 3x random per step), the
# load-proof twin of its timed ratios: Ir per step = (Ir(N) - Ir(0)) /
# steps(N) under valgrind's cachegrind without cache simulation, so
# start-up cancels and per-run set-up counts (as in bench_systematic).
# B: bench_systematic (default bench/bench_systematic; run on a stripped
# copy, as valgrind 3.19 cannot read clang's DWARF 5); N: runs (default
# 5000; a dpor tree smaller than N is run whole).  Needs valgrind.
command -v valgrind >/dev/null 2>&1 || {
	echo "ir_systematic.sh: valgrind not installed, skipped"
	exit 0
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-irs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
strip -o "$tmp/bench_systematic" "${B:-bench/bench_systematic}" || exit 1
B=$tmp/bench_systematic
N=${N:-5000}
ir() {	# ir PROG STRAT RUNS -> "Ir steps"
	out=$(valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$B" --one "$1" "$2" "$3" 2>&1)
	i=$(printf '%s\n' "$out" | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
	st=$(printf '%s\n' "$out" | sed -n 's/^runs [0-9]* steps \([0-9]*\)$/\1/p')
	echo "$i $st"
}
echo "| program | random Ir/step | dpor Ir/step | dpor / random |"
echo "|---|---|---|---|"
for p in message-passing-fixed pc-lookup-truncate pc-add-lookup \
	 pc-reclaim-lookup pc-mixed; do
	set -- $(ir $p random 0); r0=$1
	set -- $(ir $p random "$N"); r1=$1 rs=$2
	set -- $(ir $p dpor 0); d0=$1
	set -- $(ir $p dpor "$N"); d1=$1 ds=$2
	awk -v p=$p -v r0=$r0 -v r1=$r1 -v rs=$rs -v d0=$d0 -v d1=$d1 -v ds=$ds \
		'BEGIN { r = (r1 - r0) / rs; d = (d1 - d0) / ds;
			 printf "| %s | %.1f | %.1f | %.2fx |\n", p, r, d, d / r }'
done
