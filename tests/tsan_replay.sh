#!/bin/sh
# tests/tsan_replay.sh -- every trace pagerace-tsan saves replays in
# pagerace-tsan: the same verdict at the same step (replay exits 1 with
# "reproduced"), and `show` renders it (TAP; doc/tsan.md).  Skipped when
# configure built no TSan flavour.
#
# Fresh traces come from several scenarios, seeds and both strategies
# (explore -k), up to $PR_TSAN_TRACES of them (20 in make check;
# tests/tsan_replay_long.sh asks for 200 in make regtest).  The replay
# recorder and the decisions replay makes at every step run out of
# ThreadSanitizer's sight (pr_tsan_hide_begin); without that, about one
# trace in three diverged, the recorder's own accesses reported as races
# or the model's race evicted from the shadow by them.

PAGERACE_TSAN=${PAGERACE_TSAN:-src/pagerace-tsan}
srcdir=${top_srcdir:-.}
want=${PR_TSAN_TRACES:-20}
. "$(dirname "$0")/tap.sh"
tap_tmp tsanrp

if ! test -x "$PAGERACE_TSAN"; then
	echo "1..0 # SKIP no ThreadSanitizer flavour (configure found no -fsanitize=thread)"
	exit 0
fi

# scenario strategy seed runs: each line explores with -k until $want
# traces are in.  Racy under TSan: the knobs' scenarios and mixed.
cat >"$tmp/plan" <<EOF
mixed pct 1 120
swap-cache pct 1 150
add-after-insert pct 1 250
insert-lookup random 2 250
reclaim-lookup pct 3 500
mixed random 4 150
spec-free-check pct 6 8000
swap-cache random 5 200
add-after-insert random 7 300
insert-lookup pct 8 300
mixed pct 9 400
swap-cache pct 10 400
reclaim-lookup random 11 1500
add-after-insert pct 12 800
insert-lookup pct 13 800
mixed random 14 800
swap-cache random 15 800
mixed pct 16 2000
swap-cache pct 17 2000
add-after-insert pct 18 2000
EOF

got=0
while read -r scn strat seed runs; do
	test "$got" -ge "$want" && break
	d="$tmp/$scn-$strat-$seed"
	"$PAGERACE_TSAN" explore -q -k --no-timing -s "$strat" --seed "$seed" \
		-n "$runs" --trace-dir "$d" "$srcdir/scenarios/$scn.scn" \
		</dev/null >/dev/null 2>&1
	for t in "$d"/*.trace; do
		test -f "$t" || continue
		test "$got" -ge "$want" && break
		echo "$t" >>"$tmp/list"
		got=$((got + 1))
	done
done <"$tmp/plan"

echo "1..5"

test "$got" -ge "$want"
ok $? "explore saved $got fresh traces (wanted $want)"

rp=0 sh=0 races=0
while read -r t; do
	grep -q '^verdict-kind data-race$' "$t" && races=$((races + 1))
	"$PAGERACE_TSAN" replay -q "$t" </dev/null >/dev/null 2>"$tmp/err"
	if [ $? -eq 1 ]; then
		rp=$((rp + 1))
	else
		echo "# replay: $t"
		grep -v '^ \|^$\|^===\|WARNING\|SUMMARY\|ThreadSanitizer' "$tmp/err" |
			sed 's/^/#   /' | head -4
	fi
	"$PAGERACE_TSAN" show -o "$tmp/show.txt" "$t" </dev/null >/dev/null 2>"$tmp/err"
	if [ $? -eq 1 ] && grep -q 'BUG' "$tmp/show.txt"; then
		sh=$((sh + 1))
	else
		echo "# show: $t"
	fi
done <"$tmp/list"
echo "# $got traces ($races data races): replay reproduced $rp, show rendered $sh"
test "$rp" -eq "$got"
ok $? "replay: $rp/$got reproduce the recorded verdict at the recorded step"
test "$sh" -eq "$got"
ok $? "show: $sh/$got render the failure"

# ---- the trace says which flavour made it; plain pagerace names the
# command for a data race instead of reporting a divergence
t=$(grep -l '^verdict-kind data-race$' $(cat "$tmp/list") | head -n 1)
test -n "$t" && test "$(cat $(cat "$tmp/list") | grep -c '^flavour tsan$')" -eq "$got"
ok $? "every trace records 'flavour tsan'"
"$PAGERACE" replay "$t" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
sed 's/^/# /' "$tmp/err"
test $rc -eq 2 && ! grep -q divergence "$tmp/err" &&
	grep -q "error: this trace's data race was found by pagerace-tsan .*: pagerace-tsan replay $t\$" "$tmp/err"
ok $? "plain pagerace on a data-race trace: exit 2, names pagerace-tsan replay"
