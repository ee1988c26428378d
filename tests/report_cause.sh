#!/bin/sh
# tests/report_cause.sh -- verdicts and reports name the cause (TAP).
#
# A use-after-free report says where the object was allocated and freed
# (KASAN's two stacks); a failure on a page that reclaim took out on a
# page_count older than memory's is reported as reclaim-held-page with
# the symptom after it; a gang lookup's verdict prints its start and
# count; explore says whether the scenario's expect line was met.
#
# Planted where it takes a knob: radix-rcu-free (nodes freed without
# RCU), reclaim-lookup under --memory weak without freeing-mb (F10), a
# gang lookup with no-recheck, spec-free-check's v2 without its knob.

. "$(dirname "$0")/tap.sh"
tap_tmp cause
scn=$abs_top_srcdir/scenarios
cd "$tmp" || exit 1
echo "1..11"

trace=$abs_top_srcdir/traces/scenarios/radix-rcu-free-dpor-run2.trace
run 1 "$PAGERACE" replay "$trace"
grep -q '^Allocated node#2 in the program.s set-up:' out &&
	grep -q '^Freed node#2 by cpu1 at step 108:' out &&
	sed -n '/^Freed node#2/,/^$/p' out | grep -q 'radix_tree_node_free' &&
	sed -n '/^Freed node#2/,/^$/p' out | grep -q 'truncate_inode_pages'
ok $? "use-after-free: where node#2 was allocated and freed, with the free's stack (exit $rc)"

run 1 "$PAGERACE" explore -q --memory weak --trace-dir tr "$scn/reclaim-lookup.scn"
grep -q 'verdict:  reclaim-held-page on page#1 .*shrink_list took page#1 out of the cache at step [0-9]* on a page_count (step [0-9]*) older than memory.s: a reference it did not see; first symptom: ' out
ok $? "reclaim-lookup under weak: reclaim-held-page names the cause, then the symptom (exit $rc)"

t=$(sed -n 's/^  trace: *//p' out)
run 1 "$PAGERACE" replay "$t"
grep -q 'reproduced reclaim-held-page' out
ok $? "its trace replays to the same verdict (exit $rc)"

run 0 "$PAGERACE" explore -q --memory weak -K radix-single-read \
	-K release-no-recheck -K gang-empty-exit -K freeing-mb \
	--trace-dir tr "$scn/reclaim-lookup.scn"
ok $? "with freeing-mb (F10's fix) the same runs pass (exit $rc)"

cat >gang.scn <<'EOF'
scenario gang
protocol v2
knobs no-recheck
init {
    m0[0]
    m0[1]
}
cpu 0 {
    r0 = find_get_pages_nonatomic m0 0 4
    put r0
}
cpu 1 {
    r0 = remove m0 1
}
EOF
run 1 "$PAGERACE" explore -q -s dpor --trace-dir tr gang.scn
grep -q 'find_get_pages_nonatomic(m0, 0, 4) returned a page' out &&
	! grep -q 18446744073709551615 out
ok $? "a gang lookup's verdict prints its start and count (exit $rc)"

run 1 "$PAGERACE" explore -q --trace-dir tr "$scn/spec-free-check.scn"
grep -q '^expect:   put-free-page: met: run #[0-9]* (the [0-9]*[a-z]*) is a put-free-page$' out
ok $? "spec-free-check: its expect line is met (exit $rc)"

run 1 "$PAGERACE" explore -q -K none --json --trace-dir tr "$scn/spec-free-check.scn"
grep -q '"expect":"put-free-page","expect_met":false' out &&
	"$PAGERACE" explore -q -K none --trace-dir tr "$scn/spec-free-check.scn" |
	grep -q '^expect:   put-free-page: NOT MET: the failure found is '
ok $? "spec-free-check -K none: NOT MET, in text and JSON (exit $rc)"

# A trace says what it is: as version 1 (no check line) an edited
# trace reaches the reader and replay, which must notice the edits.
v1() {	# v1 TRACE: the trace as version 1, on stdout
	sed -e 's/^pagerace-trace 2$/pagerace-trace 1/' -e '/^flavour /d' \
	    -e '/^check /d' "$1"
}
v1 "$trace" >v1.trace
run 1 "$PAGERACE" replay -q v1.trace
ok $? "the shipped trace as version 1 still replays (exit $rc)"

sed 's/^verdict-msg .*/verdict-msg read at offset 48 of a freed object/' \
	v1.trace >msg.trace
run 2 "$PAGERACE" replay -q msg.trace && grep -q divergence err
ok $? "an edited verdict-msg is a divergence, not a reproduction (exit $rc)"

sed 's/^option knobs /option knob /' v1.trace >opt.trace
line=$(grep -n '^option knob ' opt.trace | cut -d: -f1)
run 2 "$PAGERACE" replay -q opt.trace &&
	grep -q "^opt.trace:$line:8: error: unknown option 'knob'" err
ok $? "an unknown option key is refused at its position (exit $rc)"

sed 's/^| protocol v2$/| protocol v9/' v1.trace >emb.trace
line=$(grep -n '^| protocol v9$' emb.trace | cut -d: -f1)
run 2 "$PAGERACE" replay -q emb.trace &&
	grep -q "^emb.trace:$line:12: error: unknown protocol 'v9'" err
ok $? "an error in the embedded scenario is reported where the trace holds it (exit $rc)"

tap_done
