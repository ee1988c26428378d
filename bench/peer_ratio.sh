#!/bin/sh
# bench/peer_ratio.sh -- pagerace / Relacy runs/s on the speculative-get
# twin (fixed protocol, random scheduler), taken side by side.
#
# PAIRS pairs, each pagerace then Relacy (ABAB), RUNS runs each; the
# figure is the median of the per-pair ratios, with their range: load on
# the shared machine falls on both members of a pair alike.  Then the
# same under callgrind: instructions per run ((Ir(2R) - Ir(R)) / R, so
# start-up cancels), which no load moves.  Needs relacy/relacy.hpp
# (Debian: relacy-dev); skipped with a note otherwise.  Target
# pagerace >= 3x Relacy.
#
# Usage: bench/peer_ratio.sh [PAIRS [RUNS]]   (defaults 11, 300000)
# Environment: BASE_MICRO, another build's bench/spec_micro_pagerace: each
# round then runs it too (pagerace, base, Relacy), and the script adds
# pagerace / base, timed and in instructions -- what a change bought,
# measured under the same load.
set -eu
pairs=${1:-11}
runs=${2:-300000}
srcdir=${abs_top_srcdir:-.}
CXX=${CXX_FOR_BENCH:-g++}
pr=bench/spec_micro_pagerace

[ -x "$pr" ] || { echo "peer_ratio.sh: $pr not built" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-peer-ratio.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! printf '#include <relacy/relacy.hpp>\nint main() { return 0; }\n' |
	"$CXX" -x c++ -fsyntax-only - >/dev/null 2>&1; then
	echo "peer_ratio: skipped (relacy/relacy.hpp not installed: apt-get install relacy-dev)"
	exit 0
fi
"$CXX" -std=c++11 -O2 -w -o "$tmp/relacy" "$srcdir/bench/spec_micro_relacy.cpp"

rate() { "$@" | sed -n 's/^runs\/s \([0-9]*\).*/\1/p'; }

: >"$tmp/ratios"
: >"$tmp/base"
i=0
while [ $i -lt "$pairs" ]; do
	a=$(rate "$pr" --rate "$runs")
	if [ -n "${BASE_MICRO:-}" ]; then
		c=$(rate "$BASE_MICRO" --rate "$runs")
		echo "$a $c" | awk '{ printf "%.3f %d %d\n", $1 / $2, $1, $2 }' >>"$tmp/base"
	fi
	b=$(rate "$tmp/relacy" --rate "$runs")
	echo "$a $b" | awk '{ printf "%.3f %d %d\n", $1 / $2, $1, $2 }' >>"$tmp/ratios"
	i=$((i + 1))
done
if [ -n "${BASE_MICRO:-}" ]; then
	sort -n "$tmp/base" | awk -v n="$pairs" '
		{ r[NR] = $1 }
		END {
			m = int((n + 1) / 2)
			printf "pagerace / base runs/s, %d rounds: median %.2fx (range %.2f-%.2fx)\n", n, r[m], r[1], r[n]
		}'
fi
sort -n "$tmp/ratios" | awk -v n="$pairs" '
	{ r[NR] = $1; p[NR] = $2; q[NR] = $3 }
	END {
		m = int((n + 1) / 2)
		printf "pagerace / Relacy runs/s, %d pairs: median %.2fx (range %.2f-%.2fx); ", n, r[m], r[1], r[n]
		printf "median pair: pagerace %d, Relacy %d runs/s\n", p[m], q[m]
	}'

if command -v valgrind >/dev/null 2>&1; then
	# valgrind 3.19 cannot read clang 14's DWARF 5: count stripped copies.
	strip -o "$tmp/pr" "$pr"
	strip -o "$tmp/rl" "$tmp/relacy"
	chmod +x "$tmp/pr" "$tmp/rl"
	ir() {
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
			sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
	}
	r=20000
	p1=$(ir "$tmp/pr" --rate $r); p2=$(ir "$tmp/pr" --rate $((2 * r)))
	q1=$(ir "$tmp/rl" --rate $r); q2=$(ir "$tmp/rl" --rate $((2 * r)))
	if [ -n "${BASE_MICRO:-}" ]; then
		strip -o "$tmp/bs" "$BASE_MICRO"
		chmod +x "$tmp/bs"
		b1=$(ir "$tmp/bs" --rate $r); b2=$(ir "$tmp/bs" --rate $((2 * r)))
		awk -v p1="$p1" -v p2="$p2" -v b1="$b1" -v b2="$b2" -v r=$r 'BEGIN {
			printf "instructions per run (callgrind): base %.0f, pagerace %.0f: base / pagerace %.2fx\n", (b2 - b1) / r, (p2 - p1) / r, (b2 - b1) / (p2 - p1)
		}'
	fi
	awk -v p1="$p1" -v p2="$p2" -v q1="$q1" -v q2="$q2" -v r=$r 'BEGIN {
		a = (p2 - p1) / r; b = (q2 - q1) / r
		printf "instructions per run (callgrind): pagerace %.0f, Relacy %.0f: Relacy / pagerace %.2fx\n", a, b, b / a
	}'
fi
