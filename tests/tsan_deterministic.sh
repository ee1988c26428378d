#!/bin/sh
# tests/tsan_deterministic.sh -- pagerace-tsan under the deterministic
# scheduler (TAP; doc/tsan.md).  Skipped when configure built no TSan
# flavour.
#
# The add-after-insert knob sets the page up (__SetPageLocked, ->mapping)
# after radix_tree_insert has published it: ThreadSanitizer reports the
# non-atomic write racing with a lockless reader, as the run's verdict
# "data-race" naming both accesses; its trace replays the same report
# three times; the seeds (v2, the scenario without the knob) and v2 with
# the seed fixes are TSan-clean on the same budget; the plain binary
# never reports a data race.

PAGERACE_TSAN=${PAGERACE_TSAN:-src/pagerace-tsan}
srcdir=${top_srcdir:-.}
scn="$srcdir/scenarios/add-after-insert.scn"
. "$(dirname "$0")/tap.sh"
tap_tmp tsan

if ! test -x "$PAGERACE_TSAN"; then
	echo "1..0 # SKIP no ThreadSanitizer flavour (configure found no -fsanitize=thread)"
	exit 0
fi
# The scenario as a sampled workload (PCT depth 3, 2000 runs: its explore
# line before it named dpor): --first-run and the "2000 runs TSan-clean"
# checks below are about a sampler's numbered runs.
sed 's/^explore .*/explore strategy pct depth 3 runs 2000 seed 1/' "$scn" \
	>"$tmp/add-after-insert.scn"
scn="$tmp/add-after-insert.scn"

echo "1..10"

# ---- the knob's race, found by exploration
"$PAGERACE_TSAN" explore --trace-dir "$tmp/tr" "$scn" >"$tmp/out" 2>"$tmp/err"
rc=$?
trace=$(ls "$tmp"/tr/*.trace 2>/dev/null | head -n 1)
test $rc -eq 1 && test -n "$trace" &&
	grep -q 'verdict:  data-race on page#' "$tmp/out" &&
	grep -q 'races with write of 8 bytes by cpu0 in add_to_page_cache (src/model/filemap.c:' "$tmp/out"
ok $? "explore: add-after-insert's late setup is a data-race verdict naming both accesses"

mkdir "$tmp/cwd"
(cd "$tmp/cwd" && "$PAGERACE_TSAN" explore -q -k -j 2 -n 300 \
	--trace-dir "$tmp/tr-j" "$scn" >/dev/null 2>"$tmp/err-j")
! grep -q 'ThreadSanitizer' "$tmp/err" &&
	! grep -q 'ThreadSanitizer' "$tmp/err-j" &&
	test -z "$(ls -A "$tmp/cwd")" &&
	TSAN_OPTIONS=log_path=stderr "$PAGERACE_TSAN" explore -q \
		--trace-dir "$tmp/tr-log" "$scn" 2>&1 >/dev/null |
	grep -q 'WARNING: ThreadSanitizer: data race'
ok $? "explore (-j 1 and 2): ThreadSanitizer's own text goes nowhere, no file either, unless TSAN_OPTIONS names a log_path"

# ---- the trace replays the same report, three times
good=0
for i in 1 2 3; do
	"$PAGERACE_TSAN" replay "$trace" >"$tmp/replay$i" 2>/dev/null
	test $? -eq 1 && good=$((good + 1))
done
cp "$tmp/replay1" "$tmp/out"
test $good -eq 3 && cmp -s "$tmp/replay1" "$tmp/replay2" &&
	cmp -s "$tmp/replay2" "$tmp/replay3" &&
	grep -q 'reproduced data-race' "$tmp/replay1"
ok $? "replay x3: reproduced, byte-identical reports"

v1=$(grep '^  verdict:' "$tmp/out"); v2=$(grep '^  verdict:' "$tmp/replay1")
test -n "$v1" && test "$v1" = "$v2"
ok $? "replay: same accesses, same step as explore"

# ---- a run's verdict does not depend on the runs explored before it
# (each run gets fresh TSan fibers and forgets the model memory's history)
run=$(echo "$trace" | sed -n 's/.*-run\([0-9]*\)\.trace$/\1/p')
: >"$tmp/alone"
for first in 0 $((run > 2 ? run - 2 : 0)) $run; do
	"$PAGERACE_TSAN" explore -q --json --first-run $first -n $((run - first + 1)) \
		--trace-dir "$tmp/tr6" "$scn" 2>/dev/null |
		sed -n 's/.*"first_failure":\({"run":[0-9]*,"kind":"[a-z-]*","step":[0-9]*\).*/\1/p' >>"$tmp/alone"
done
test -n "$run" && test "$(wc -l <"$tmp/alone")" -eq 3 && test "$(sort -u "$tmp/alone" | wc -l)" -eq 1 &&
	grep -q '"kind":"data-race"' "$tmp/alone"
ok $? "explore from runs 0, $((run > 2 ? run - 2 : 0)) and $run: the same data-race verdict for run $run"

# ---- the plain binary does not know of data races: it says which binary
# replays the trace (the trace records its flavour) instead of diverging
"$PAGERACE" replay -q "$trace" >"$tmp/out" 2>&1
test $? -eq 2 && ! grep -q divergence "$tmp/out" &&
	grep -q "replays only there: pagerace-tsan replay $trace" "$tmp/out"
ok $? "plain pagerace replay of a data-race trace: exit 2, names pagerace-tsan replay"

# ---- the same late setup with the item published by rcu_assign_pointer
"$PAGERACE_TSAN" explore --trace-dir "$tmp/tr2" -K add-after-insert -K insert-release \
	-K radix-single-read -K release-no-recheck -K gang-empty-exit "$scn" >"$tmp/out" 2>/dev/null
test $? -eq 1 && grep -q 'verdict:  data-race on page#' "$tmp/out"
ok $? "add-after-insert + insert-release: still a data race (the setup follows the publication)"

# ---- clean: the seeds, and the seeds with their fixes
"$PAGERACE_TSAN" explore --trace-dir "$tmp/tr3" -K none "$scn" >"$tmp/out" 2>/dev/null
test $? -eq 0 && grep -q '2000 runs, 0 failures' "$tmp/out"
ok $? "v2 (the seeds, no knob): 2000 pct runs TSan-clean"

"$PAGERACE_TSAN" explore --trace-dir "$tmp/tr4" -K insert-release -K radix-single-read \
	-K release-no-recheck -K gang-empty-exit "$scn" >"$tmp/out" 2>/dev/null
test $? -eq 0 && grep -q '2000 runs, 0 failures' "$tmp/out"
ok $? "v2 + seed fixes + insert-release: 2000 pct runs TSan-clean"

"$PAGERACE" explore --trace-dir "$tmp/tr5" "$scn" >"$tmp/out" 2>&1
test $? -eq 1 && ! grep -q 'data-race' "$tmp/out" && grep -q 'verdict:  bad-lookup' "$tmp/out"
ok $? "plain pagerace: the knob's model verdict (bad-lookup), never a data race"

tap_done
