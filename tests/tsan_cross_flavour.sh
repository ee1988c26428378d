#!/bin/sh
# tests/tsan_cross_flavour.sh -- pagerace and pagerace-tsan schedule
# alike (TAP; doc/tsan.md): the same scenario, seed and strategy give the
# same schedules in both binaries until a run's verdict differs.
# Skipped when configure built no TSan flavour.
#
# 1. PCT's k: calibration runs under pagerace-tsan are blind to
#    ThreadSanitizer, so a data race cannot cut one short (seeds 17 and
#    21 of pc-mixed with spec-free-check are the runs where it would:
#    a k of 245/244 and 249/246, and every PCT schedule with it).
# 2. Every run's decisions: --max-steps makes every run end (livelock) and
#    save its trace, in both binaries; a run that pagerace-tsan ends early
#    on a data race must have followed the plain run's schedule up to
#    there, and every other run the same schedule exactly.

PAGERACE_TSAN=${PAGERACE_TSAN:-src/pagerace-tsan}
srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
tap_tmp xflav

if ! test -x "$PAGERACE_TSAN"; then
	echo "1..0 # SKIP no ThreadSanitizer flavour (configure found no -fsanitize=thread)"
	exit 0
fi

echo "1..2"

# ---- 1. the same k
kdiff=0 kn=0
for cfg in "pc-mixed -K spec-free-check --seed 17" \
	   "pc-mixed -K spec-free-check --seed 21" \
	   "$srcdir/scenarios/mixed.scn --seed 2" \
	   "$srcdir/scenarios/add-after-insert.scn --seed 5" \
	   "$srcdir/scenarios/swap-cache.scn --seed 9"; do
	# shellcheck disable=SC2086
	a=$("$PAGERACE" explore -q --no-timing -s pct -n 1 --trace-dir "$tmp/k" $cfg </dev/null 2>/dev/null |
		sed -n 's/.*(strategy pct,.*, k \([0-9]*\))$/\1/p')
	# shellcheck disable=SC2086
	b=$("$PAGERACE_TSAN" explore -q --no-timing -s pct -n 1 --trace-dir "$tmp/k" $cfg </dev/null 2>/dev/null |
		sed -n 's/.*(strategy pct,.*, k \([0-9]*\))$/\1/p')
	kn=$((kn + 1))
	if [ -z "$a" ] || [ "$a" != "$b" ]; then
		echo "# $cfg: k $a (pagerace) vs $b (pagerace-tsan)"
		kdiff=$((kdiff + 1))
	fi
done
test $kdiff -eq 0
ok $? "PCT calibration: the same k in both flavours ($((kn - kdiff))/$kn)"

# ---- 2. the same decisions, run by run
# The per-step context sequence of a trace's schedule, one line.
steps() {
	sed -n '/^schedule /,/^program-text\|^end$/p' "$1" |
		sed '1d;/^program-text/d;/^end$/d' | tr ' ' '\n' |
		awk -F'[*@]' 'NF >= 2 { for (i = 0; i < $2; i++) printf "%s ", $1 } END { print "" }'
}
same=0 prefix=0 bad=0 total=0
# scenario strategy seed max-steps (below the shortest run, about 60% of k)
for cfg in "mixed pct 3 150" "mixed random 4 150" "add-after-insert pct 5 35" \
	   "swap-cache pct 6 80" "insert-lookup random 7 32" "reclaim-lookup pct 8 38"; do
	set -- $cfg
	for b in plain tsan; do
		bin=$PAGERACE
		test $b = tsan && bin=$PAGERACE_TSAN
		"$bin" explore -q -k --no-timing -n 30 --max-steps "$4" -s "$2" \
			--seed "$3" --trace-dir "$tmp/$b-$1-$2" \
			"$srcdir/scenarios/$1.scn" </dev/null >/dev/null 2>&1
	done
	for t in "$tmp/tsan-$1-$2"/*.trace; do
		test -f "$t" || continue
		# The same run's plain trace: its name without "-tsan".
		p="$tmp/plain-$1-$2/$(basename "$t" | sed 's/-tsan-/-/')"
		total=$((total + 1))
		if ! test -f "$p"; then
			echo "# no plain trace for $(basename "$t")"
			bad=$((bad + 1))
			continue
		fi
		st=$(steps "$t") sp=$(steps "$p")
		if [ "$st" = "$sp" ]; then
			same=$((same + 1))
		elif grep -q '^verdict-kind data-race$' "$t" &&
		     case "$sp" in "$st"*) true ;; *) false ;; esac; then
			prefix=$((prefix + 1))
		else
			echo "# $(basename "$t"): the schedules differ"
			bad=$((bad + 1))
		fi
	done
done
echo "# $total runs: $same identical schedules, $prefix data races on a prefix of the plain schedule, $bad different"
test $bad -eq 0 && test $total -ge 150 && test $same -gt 0
ok $? "schedules: pagerace-tsan's follow pagerace's run by run ($((same + prefix))/$total)"
