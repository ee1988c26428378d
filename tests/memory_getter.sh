#!/bin/sh
# tests/memory_getter.sh -- the speculative getter's barriers under the
# memory models (doc/variants.md "Barriers", doc/findings.md
# F10 and F11), TAP.  replay/budgets.sh checks that testone-no-mb.scn and
# f11-spec-recheck.scn find their bugs under weak within their budgets
# and that their controls are clean; this adds:
#
#  - both are clean under sc and tso (their own budgets, the model
#    overridden): what they find is a reordering, not a schedule;
#  - each fix closes its own finding only: with spec-rmb but without
#    freeing-mb the scenario still finds F10 (reclaim-held-page), with
#    freeing-mb but without spec-rmb it finds F11 (the assert), and with
#    both (and the getter's barrier) random sampling is clean too.

srcdir=${abs_top_srcdir:-${top_srcdir:-.}}
. "$(dirname "$0")/tap.sh"
tap_tmp getter

tn=$srcdir/scenarios/testone-no-mb.scn
f11=$srcdir/scenarios/f11-spec-recheck.scn
base="-K radix-single-read -K release-no-recheck -K gang-empty-exit"
ex() {	# ex WANT ARGS...: explore into $tmp/out
	w=$1
	shift
	run "$w" "$PAGERACE" explore -q --no-timing --trace-dir "$tmp/tr" "$@"
}
kind() {	# the first failure's verdict kind
	sed -n 's/^  verdict:  \([a-z-]*\) .*/\1/p' "$tmp/out" | head -n 1
}
echo "1..7"

for m in sc tso; do
	ex 0 --memory "$m" "$tn"
	ok $? "testone-no-mb.scn under $m: clean (its own budget)"
	ex 0 --memory "$m" "$f11"
	ok $? "f11-spec-recheck.scn under $m: clean (its own budget)"
done

# shellcheck disable=SC2086
ex 1 -K none $base -K spec-rmb "$tn" && test "$(kind)" = reclaim-held-page
ok $? "weak, spec-rmb without freeing-mb: F10 (reclaim-held-page)"
# shellcheck disable=SC2086
ex 1 -K none $base -K freeing-mb "$tn" && test "$(kind)" = assert
ok $? "weak, freeing-mb without spec-rmb: F11 (the lookup returns a page that left the swap cache)"
# shellcheck disable=SC2086
ex 0 -K none $base -K freeing-mb -K spec-rmb -s random -n 20000 "$tn"
ok $? "weak, both fixes and the getter's barrier: 20,000 random runs clean"

tap_done
