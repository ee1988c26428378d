#!/bin/sh
# bench/model.sh -- the model's speed (make bench): for every failing
# built-in page-cache workload with its knob (strategy and depth of
# tests/model_knobs.c, and the default strategy, the portfolio) and every shipped
# failing scenario (its own explore line), the runs and the time to the
# first detection over seeds 1..20 (median, min, max; elapsed_s of
# `explore --json`, which leaves out process start-up and PCT's
# calibration), and runs/s over those explorations.  Then runs/s of a clean
# 3-CPU scenario, peak RSS of 100k vs 1M runs, and the --jobs 2 speed-up.
#
# Usage: bench/model.sh [SEEDS]   (default 20)
# Targets: median <= 50 ms with the default strategy; >= 200k runs/s per
# core on a 3-CPU scenario; RSS flat in the runs; --jobs 2 >= 1.8x.

PAGERACE=${PAGERACE:-src/pagerace}
srcdir=${abs_top_srcdir:-.}
seeds=${1:-20}
budget=300000
rbudget=100000	# the default strategy (the portfolio)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
FIXES="-K radix-single-read -K release-no-recheck -K gang-empty-exit"

# field KEY: a number from the one-line JSON summary on stdin
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }

# detect LABEL EXPLORE-ARGS...: seeds 1..$seeds, first failure each
detect() {
	label=$1
	shift
	: >"$tmp/d"
	i=1
	while [ $i -le "$seeds" ]; do
		"$PAGERACE" explore --json -n ${n:-$budget} --seed $i \
			--trace-dir "$tmp/tr" "$@" >"$tmp/j" 2>/dev/null
		runs=$(field runs <"$tmp/j")
		ms=$(field elapsed_s <"$tmp/j")
		f=$(field failures <"$tmp/j")
		echo "$runs $ms $f" >>"$tmp/d"
		i=$((i + 1))
	done
	awk -v label="$label" '
	{ r[NR] = $1; t[NR] = $2 * 1000; f += ($3 > 0); R += $1; T += $2 }
	function med(a, n,   i, j, x, s) {
		for (i = 1; i <= n; i++) s[i] = a[i]
		for (i = 2; i <= n; i++) { x = s[i]; for (j = i - 1; j >= 1 && s[j] > x; j--) s[j + 1] = s[j]; s[j + 1] = x }
		lo = s[1]; hi = s[n]
		return n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
	}
	END {
		n = NR
		mr = med(r, n); rlo = lo; rhi = hi
		mt = med(t, n); tlo = lo; thi = hi
		printf "| %-44s | %2d/%-2d | %8.0f | %6d-%-8d | %6.1f | %5.1f-%-6.1f | %6.0fk |\n",
		       label, f, n, mr, rlo, rhi, mt, tlo, thi, (T > 0 ? R / T / 1000 : 0)
	}' "$tmp/d"
}

echo "Runs and milliseconds to the first failure over $seeds seeds (budget $budget runs; $rbudget for the default strategy)."
echo
echo "| workload (strategy)                          | found | runs med | runs min-max    | ms med | ms min-max   | runs/s  |"
echo "|----------------------------------------------|-------|----------|-----------------|--------|--------------|---------|"
while read prog knob strat depth; do
	[ -n "$prog" ] || continue
	n=$rbudget
	detect "$prog +$knob (default: portfolio)" $FIXES -K $knob "$prog"
	n=
	[ "$strat" = pct ] &&
		detect "$prog +$knob (pct d=$depth)" -s pct -d $depth $FIXES -K $knob "$prog"
done <<EOT
pc-lookup-truncate spec-free-check pct 7
pc-walk-free radix-rcu-free pct 3
pc-irq-alloc spec-irq pct 2
pc-add-lookup add-after-insert pct 3
pc-reclaim-lookup no-freeing-flag pct 3
pc-lookup-reuse no-recheck pct 3
pc-lock-truncate lock-no-recheck random 0
EOT
for f in "$srcdir"/scenarios/*.scn; do
	grep -q '^expect pass' "$f" && continue
	detect "$(basename "$f") (its explore line)" "$f"
done

echo
echo "Clean 3-CPU scenario (lookup-truncate.scn, 2 lookups vs truncate), 300k runs, one core:"
for s in random pct; do
	"$PAGERACE" explore --json -s $s -n 300000 --trace-dir "$tmp/tr" \
		"$srcdir/scenarios/lookup-truncate.scn" >"$tmp/j"
	r=$(field runs <"$tmp/j"); e=$(field elapsed_s <"$tmp/j")
	awk -v s=$s -v r="$r" -v e="$e" 'BEGIN { printf "  %-6s %d runs in %.3f s: %.0f runs/s\n", s, r, e, r / e }'
done

echo
if [ -x /usr/bin/time ]; then
	echo "Peak RSS (/usr/bin/time -v), lookup-truncate.scn, random:"
	for n in 100000 1000000; do
		/usr/bin/time -v "$PAGERACE" explore -q -n $n --trace-dir "$tmp/tr" \
			"$srcdir/scenarios/lookup-truncate.scn" >/dev/null 2>"$tmp/t"
		echo "  $n runs: $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/t") kB"
	done
else
	echo "Peak RSS: skipped (/usr/bin/time is not installed: apt-get install time)"
fi

echo
echo "--jobs speed-up, lookup-truncate.scn, its explore line (pct d=3), 1M runs (nproc: $(nproc 2>/dev/null || echo ?)):"
for j in 1 2; do
	"$PAGERACE" explore --json -j $j -n 1000000 --trace-dir "$tmp/tr" \
		"$srcdir/scenarios/lookup-truncate.scn" >"$tmp/j$j"
	r=$(field runs <"$tmp/j$j"); e=$(field elapsed_s <"$tmp/j$j")
	awk -v j=$j -v r="$r" -v e="$e" 'BEGIN { printf "  --jobs %d: %.3f s, %.0f runs/s\n", j, e, r / e }'
done
awk -v a="$(field elapsed_s <"$tmp/j1")" -v b="$(field elapsed_s <"$tmp/j2")" \
	'BEGIN { printf "  speed-up: %.2fx (target >= 1.8x)\n", a / b }'
