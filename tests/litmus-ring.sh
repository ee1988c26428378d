#!/bin/sh
# tests/litmus-ring.sh -- RCU rings whose exists clause fixes final values
# only (tests/litmus-ring/, the project's own tests), under weak (TAP).
#
# 1. The witness sampler holds back a flush that would leave a
#    location's final value out of reach (src/litmus/witness.c, counted
#    stores): ww-2gp-3readers, a five-process ring LKMM allows, is
#    reached within its first 2000 sampled runs (the sampler without it
#    had not reached it after 60000 runs, 1 s); the witness replays on
#    the test itself.
# 2. A grace period drains only the CPUs whose read-side section began
#    before it did (memory/memory.h): the three-process ring LKMM allows
#    is reached by the exhaustive search, the one it forbids is not
#    (draining no reader at all reaches it).
# 3. --sometimes-budget: checked like -t.

srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
tap_tmp litmus-ring
ring=$srcdir/tests/litmus-ring

echo "1..6"

run 0 "$PAGERACE" litmus -m weak -t 5 -n 1 --trace-dir "$tmp/tr" \
	"$ring/ww-2gp-3readers.litmus"
nrun=$(sed -n 's/.*reached by sampling (witness, run \([0-9]*\)).*/\1/p' "$tmp/out")
test -n "$nrun" && test "$nrun" -lt 2000 &&
	grep -q 'agrees with Result: Sometimes (reached)' "$tmp/out"
ok $? "weak: ww-2gp-3readers reached by the witness sampler at run ${nrun:-?} (< 2000)"
trace=$(sed -n 's/^  witness: *//p' "$tmp/out")
test -f "$trace" && run 0 "$PAGERACE" replay "$trace" &&
	grep -q 'final state a=2; b=2; c=2; d=2; e=2 satisfies exists' "$tmp/out"
ok $? "the witness replays on the test itself to the condition"

run 0 "$PAGERACE" litmus -b -m weak --trace-dir "$tmp/tr" \
	"$ring/ww-1gp-2readers.litmus"
test "$(cut -f3,5,7 "$tmp/out")" = "$(printf 'agree\texhaustive\treached')"
ok $? "weak: ww-1gp-2readers (Sometimes) reached by the exhaustive search"
run 0 "$PAGERACE" litmus -b -m weak --trace-dir "$tmp/tr" \
	"$ring/ww-2gp-1reader.litmus"
test "$(cut -f3,5,7 "$tmp/out")" = "$(printf 'agree\texhaustive\tnot-reached')"
ok $? "weak: ww-2gp-1reader (Never) not reached by the exhaustive search"

run 2 "$PAGERACE" litmus -t 1 --sometimes-budget 0 "$ring/ww-2gp-1reader.litmus" &&
	grep -q "bad --sometimes-budget '0'" "$tmp/err"
ok $? "--sometimes-budget 0: bad input, exit 2"
run 0 "$PAGERACE" litmus -b -m sc -t 0.2 --sometimes-budget 0.4 -n 1 \
	--trace-dir "$tmp/tr" "$ring/ww-2gp-3readers.litmus" &&
	test "$(cut -f3,7 "$tmp/out")" = "$(printf 'incomplete\tnot-reached')" &&
	awk -F'\t' '{ exit !($6 >= 400) }' "$tmp/out"
ok $? "sc: a Sometimes test samples until --sometimes-budget (0.4 s), not -t"

tap_done
