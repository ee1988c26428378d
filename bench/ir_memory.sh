#!/bin/sh
# bench/ir_memory.sh -- instructions per step under sc, tso and weak
# (bench/RESULTS.md, "Memory models per step"):
# (Ir(2N) - Ir(N)) / (steps(2N) - steps(N)) under valgrind's cachegrind
# without cache simulation, which cancels start-up.  B: bench_memory
# (default bench/bench_memory; run on a stripped copy, as valgrind 3.19
# cannot read clang's DWARF 5); N: runs (default 300).  Needs valgrind, bc.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-ir.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
strip -o "$tmp/bench_memory" "${B:-bench/bench_memory}" || exit 1
B=$tmp/bench_memory
N=${N:-300}
ir() {	# ir MODEL PROG RUNS -> "Ir steps"
	out=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$B" --one "$1" "$2" "$3" 2>&1)
	i=$(printf '%s\n' "$out" | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
	st=$(printf '%s\n' "$out" | sed -n 's/.* steps \([0-9]*\)$/\1/p')
	echo "$i $st"
}
echo "| workload | model | Ir/step | vs sc |"
echo "|---|---|---|---|"
for p in pc-mixed pc-lookup-truncate pc-add-lookup pc-reclaim-lookup; do
	base=""
	for m in sc tso weak; do
		set -- $(ir $m $p $N); i1=$1 s1=$2
		set -- $(ir $m $p $((2 * N))); i2=$1 s2=$2
		per=$(echo "scale=1; ($i2 - $i1) / ($s2 - $s1)" | bc)
		[ -z "$base" ] && base=$per
		r=$(echo "scale=2; $per / $base" | bc)
		echo "| $p | $m | $per | ${r}x |"
	done
done
