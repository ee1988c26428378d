#!/bin/sh
# bench/scaling.sh -- instructions per step as CPUs grow, under callgrind.
#
# For each workload (model, bare), strategy (random, pct) and number of
# CPUs, bench/bench_scaling --one runs R and then 2R runs under
# `valgrind --tool=callgrind`; instructions per step is
# (Ir(2R) - Ir(R)) / (steps(2R) - steps(R)), so start-up and the
# scenario's parse cancel out.  Instruction counts are exact and do not
# care how busy the machine is; the timed figures (bench/bench_scaling)
# do.  Skipped when valgrind is not installed.
#
# Usage: bench/scaling.sh [BENCH_SCALING_BINARY]
set -eu
bin=${1:-bench/bench_scaling}
command -v valgrind >/dev/null 2>&1 || {
	echo "scaling.sh: valgrind not installed, skipped"
	exit 0
}
[ -x "$bin" ] || { echo "scaling.sh: $bin not built" >&2; exit 1; }
# valgrind 3.19 gives up on clang 14's DWARF 5: count a stripped copy.
tmp=$(mktemp "${TMPDIR:-/tmp}/scaling.XXXXXX")
trap 'rm -f "$tmp"' EXIT
strip -o "$tmp" "$bin"
chmod +x "$tmp"
bin=$tmp

# ir WORK STRAT CPUS RUNS -> "IR STEPS" (STEPS "-": size not supported)
ir() {
	out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin" --one "$1" "$2" "$3" "$4" 2>&1)
	steps=$(printf '%s\n' "$out" | sed -n 's/^steps \([-0-9]*\).*/\1/p')
	coll=$(printf '%s\n' "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
	echo "$coll $steps"
}

printf '%-6s %-7s %5s %10s %9s\n' work strat cpus Ir/step "vs 2 cpus"
for work in model bare; do
	for strat in random pct; do
		base=
		for n in 2 3 4 6 8 16 32; do
			r=$((3200 / n))
			set -- $(ir $work $strat $n $r)
			i1=$1 s1=$2
			if [ "$s1" = - ]; then
				printf '%-6s %-7s %5d %10s\n' $work $strat $n -
				continue
			fi
			set -- $(ir $work $strat $n $((2 * r)))
			i2=$1 s2=$2
			per=$(awk -v a=$i1 -v b=$i2 -v x=$s1 -v y=$s2 \
				'BEGIN { printf "%.1f", (b - a) / (y - x) }')
			[ -n "$base" ] || base=$per
			printf '%-6s %-7s %5d %10s %8sx\n' $work $strat $n $per \
				$(awk -v p=$per -v b=$base 'BEGIN { printf "%.2f", p / b }')
		done
	done
done
