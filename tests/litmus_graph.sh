#!/bin/sh
# tests/litmus_graph.sh -- `pagerace litmus -m lkmm` and `--engine graph`
# (TAP): the execution-graph engine (src/memory/graph.h, lkmm.c;
# src/litmus/graph_*.c).
#
# 1. lkmm is exact, so every Result: line of tests/litmus/ is a strict
#    oracle: a Sometimes not reached is a disagreement too.  Each test
#    agrees, exhaustively.
# 2. The graph engine under sc and tso lists exactly the final states
#    the run engine's exhaustive search reaches under the same model
#    (two implementations of one model, checked against each other).
# 3. Shapes only LKMM's weakness gives (IRIW, LB, 2+2W+wmb) are reached
#    under lkmm and not under sc; planted wrong annotations disagree.
# 4. Bad input: engine and model that do not go together, exit 2.
# 5. With the corpus ($LITMUS_DIR, else ../shared/litmus): a fixed
#    subset of tests, each agreeing with herd7's recorded Result:.
#    herd7 itself is compared by tools/litmus-herd.sh (make litmus-herd).
# 6. Optimality: N CPUs doing cmpxchg(x, i, i+1) on one location (N = 3..6)
#    have 5, 14, 43, 144 executions, one per coherence order the model
#    allows, and one location leaves nothing for a weaker model to add:
#    sc, tso and lkmm count the same.  No search of tests/litmus repeats
#    a graph (each execution's graph signature is compared).

srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
tap_tmp litmus-graph

echo "1..13"

states() {	# states FILE: the final-state lines of a report
	awk '/final states \(/ { on = 1; next }
	     on && !/^  [ *] / { exit }
	     on { s = substr($0, 5); sub(/ +[0-9]+$/, "", s); print s }' "$1" |
		LC_ALL=C sort
}

# ---- 1.
run 0 "$PAGERACE" litmus -b -m lkmm "$srcdir"/tests/litmus/*.litmus
test "$(cut -f3,5 "$tmp/out" | sort -u)" = "agree	exhaustive" &&
	test "$(wc -l <"$tmp/out")" -eq 27
ok $? "lkmm: the 27 tests of tests/litmus agree with Result:, exhaustive"
run 0 "$PAGERACE" litmus -m lkmm "$srcdir/tests/litmus/SB.litmus"
grep -q '^  exhaustive: 4 executions (graph: [0-9]* paths, [0-9]* candidates), memory lkmm$' "$tmp/out" &&
	grep -q '^  \* 0:r0=0; 1:r0=0 ' "$tmp/out" &&
	grep -q 'agrees with Result: Sometimes (reached)' "$tmp/out"
ok $? "the report: coverage statement with the execution count, final states, verdict"
"$PAGERACE" litmus -m lkmm "$srcdir"/tests/litmus/*.litmus >"$tmp/a" 2>&1
"$PAGERACE" litmus -m lkmm "$srcdir"/tests/litmus/*.litmus >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b"
ok $? "the same tests twice: the same output, byte for byte"

# ---- 2.
for m in sc tso; do
	bad=
	for f in "$srcdir"/tests/litmus/*.litmus; do
		"$PAGERACE" litmus -m $m "$f" >"$tmp/run" 2>&1
		"$PAGERACE" litmus -m $m --engine graph "$f" >"$tmp/graph" 2>&1
		states "$tmp/run" >"$tmp/rs"
		states "$tmp/graph" >"$tmp/gs"
		if ! grep -q 'exhaustive' "$tmp/graph" || ! cmp -s "$tmp/rs" "$tmp/gs"; then
			bad="$bad ${f##*/}"
		fi
	done
	[ -z "$bad" ] || echo "# differ:$bad"
	test -z "$bad"
	ok $? "$m: graph engine's final states = run engine's, every test of tests/litmus"
done

# ---- 3.
for t in IRIW LB 2+2W; do
	"$PAGERACE" litmus -b -m lkmm "$srcdir/tests/litmus/$t.litmus" >"$tmp/l"
	"$PAGERACE" litmus -b -m sc --engine graph "$srcdir/tests/litmus/$t.litmus" >"$tmp/s"
	test "$(cut -f7 "$tmp/l")" = reached && test "$(cut -f7 "$tmp/s")" = not-reached ||
		{ echo "# $t"; false; } || break
done
ok $? "IRIW, LB, 2+2W: reached under lkmm, not under sc"
sed 's/Result: Sometimes/Result: Never/' "$srcdir/tests/litmus/IRIW.litmus" >"$tmp/IRIW-never.litmus"
run 1 "$PAGERACE" litmus -m lkmm "$tmp/IRIW-never.litmus"
grep -q 'DISAGREES with Result: Never: reached under lkmm' "$tmp/out"
ok $? "a Never that LKMM allows: a disagreement, exit 1"
sed 's/Result: Never/Result: Sometimes/' "$srcdir/tests/litmus/IRIW+mbs.litmus" >"$tmp/IRIW-some.litmus"
run 1 "$PAGERACE" litmus -m lkmm "$tmp/IRIW-some.litmus"
grep -q 'DISAGREES with Result: Sometimes: never reached under lkmm' "$tmp/out"
ok $? "a Sometimes that LKMM forbids: a disagreement under the exact model"

# ---- 4.
run 2 "$PAGERACE" litmus -m lkmm --engine run "$srcdir/tests/litmus/SB.litmus"
grep -q 'memory lkmm has the graph engine only' "$tmp/err"
ok $? "lkmm with the run engine: refused, exit 2"
run 2 "$PAGERACE" litmus -m weak --engine graph "$srcdir/tests/litmus/SB.litmus"
grep -q 'memory weak has the run engine only' "$tmp/err"
ok $? "weak with the graph engine: refused, exit 2"

# ---- 5.
corpus=${LITMUS_DIR:-$srcdir/../shared/litmus}
if [ -d "$corpus/auto" ] && [ -d "$corpus/manual" ]; then
	(cd "$corpus" && find auto manual -name '*.litmus' | LC_ALL=C sort |
		awk 'NR % 97 == 5') >"$tmp/list"
	: >"$tmp/bad"
	while read -r f; do
		"$PAGERACE" litmus -b -m lkmm "$corpus/$f" >>"$tmp/all" 2>/dev/null
	done <"$tmp/list"
	# beyond the engine's 64 events (rings of many CPUs): said, apart
	awk -F'\t' '$2 ~ /^(Never|Sometimes|Always)/ && $3 != "agree" &&
		$3 != "unsupported-model"' "$tmp/all" >"$tmp/bad"
	big=$(awk -F'\t' '$3 == "unsupported-model"' "$tmp/all" | wc -l)
	sed 's/^/# /' "$tmp/bad" | head
	test ! -s "$tmp/bad" && test "$(wc -l <"$tmp/all")" -eq "$(wc -l <"$tmp/list")"
	ok $? "corpus, every 97th test ($(wc -l <"$tmp/list")): each with a Result: agrees under lkmm ($big beyond 64 events)"
else
	skip "no litmus corpus at $corpus (set LITMUS_DIR)"
fi

# ---- 6.
: >"$tmp/counts"
for k in 3 4 5 6; do
	f=$tmp/cas-ring-$k.litmus
	{
		printf 'C cas-ring-%d\n\n{}\n\n' "$k"
		i=0
		while [ $i -lt $k ]; do
			printf 'P%d(int *x)\n{\n\tint r0;\n\n' $i
			printf '\tr0 = cmpxchg(x, %d, %d);\n}\n\n' $i $((i + 1))
			i=$((i + 1))
		done
		printf 'exists (x=%d)\n' "$k"
	} >"$f"
	for m in sc tso lkmm; do
		"$PAGERACE" litmus -b -m $m --engine graph "$f" |
			awk -F'\t' -v n=$k -v m=$m '{ print n, m, $4, $5 }' >>"$tmp/counts"
	done
done
sed 's/^/# /' "$tmp/counts"
awk 'BEGIN { want[3] = 5; want[4] = 14; want[5] = 43; want[6] = 144 }
     $3 != want[$1] || $4 != "exhaustive" { bad = 1 }
     END { exit bad || NR != 12 }' "$tmp/counts"
ok $? "cmpxchg rings of 3-6 CPUs: 5, 14, 43, 144 executions under sc, tso and lkmm alike"
for m in sc tso lkmm; do
	"$PAGERACE" litmus -m $m --engine graph "$srcdir"/tests/litmus/*.litmus 2>/dev/null
done >"$tmp/reports"
! grep -q 'repeat a graph' "$tmp/reports" &&
	test "$(grep -c 'exhaustive: ' "$tmp/reports")" -eq $((3 * $(ls "$srcdir"/tests/litmus/*.litmus | wc -l)))
ok $? "tests/litmus under sc, tso and lkmm: every search exhaustive, no graph explored twice"
tap_done
