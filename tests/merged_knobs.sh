#!/bin/sh
# tests/merged_knobs.sh -- planted bugs in the 2.6.27 tree (protocol
# merged) are found by the built-in workloads, and only where planted
# (TAP).  For seeds 1..3, PCT depth 3, 5000 runs:
#  - radix-rcu-free: radix_tree_node_free of the 2.6.27 tree frees at
#    once; pc-walk-free's lockless walk reads a freed node: the shadow's
#    use-after-free on a node#N;
#  - deref-slot-plain: find_get_pages retries a freed page without
#    reloading its slot; pc-mixed's gang lookup spins: livelock;
#  - without the knob the same budget is clean.
# (Each 2.6.27 knob's own scenario is checked by replay/budgets.sh.)

. "$(dirname "$0")/tap.sh"
tap_tmp mknobs

json() {
	sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$tmp/out" | head -n 1
}
explore() {	# explore SEED PROGRAM OPTS...
	seed=$1 prog=$2
	shift 2
	"$PAGERACE" explore -q --json --seed "$seed" -p merged -s pct -d 3 \
		-n 5000 --trace-dir "$tmp/tr" "$@" "$prog" >"$tmp/out" 2>&1
}
echo "1..12"
for seed in 1 2 3; do
	explore $seed pc-walk-free -K radix-rcu-free
	rc=$?
	run=$(json run)
	trace=$(json trace)
	test $rc -eq 1 && test "$(json kind)" = use-after-free &&
		"$PAGERACE" replay "$trace" >"$tmp/out" 2>&1
	test $? -eq 1 && grep -q '^  verdict:  use-after-free on node#' "$tmp/out"
	ok $? "pc-walk-free -p merged -K radix-rcu-free (seed $seed): use-after-free of a node at run $run, replayed"
	explore $seed pc-walk-free
	ok $? "pc-walk-free -p merged (seed $seed): clean"
	explore $seed pc-mixed -K deref-slot-plain
	test $? -eq 1 && test "$(json kind)" = livelock
	ok $? "pc-mixed -p merged -K deref-slot-plain (seed $seed): livelock at run $(json run)"
	explore $seed pc-mixed
	ok $? "pc-mixed -p merged (seed $seed): clean"
done
tap_done
