#!/bin/sh
# tests/tsan_harness_uninstrumented.sh -- in pagerace-tsan the harness is
# not instrumented and the model is (TAP; doc/tsan.md, src/local.am).
# Skipped when configure built no TSan flavour, or without nm, objdump
# or debug information.
#
# Why: explore and replay of one trace must be the same run to
# ThreadSanitizer, yet the harness runs a different number of times in
# each (replay decides at every step, its recorder observes every step).
# Each function entry, exit or access that ThreadSanitizer logs moves the
# running fiber's trace position, which picks the shadow cell a later
# access evicts, so one extra logged entry can turn a reported race into
# an unreported one.  Splitting sched.c's waits into a file of their own
# did that: pr_lock_wait_slow's yield point, inlined while it lived in
# sched.c, became a call into pr_yield_at_tsan, whose entry and exit were
# logged in replay (budget 1: every lock wait takes the slow path) and not
# in explore, and 2 traces in 20 no longer replayed.  So the build
# compiles the harness without -fsanitize=thread, and this test reads the
# binary that ships: every function whose source is a harness file (by
# its debug information: a .c file, or a harness header's inline function
# the compiler emitted out of line in a model object) must call none of
# ThreadSanitizer's instrumentation hooks (__tsan_func_entry/exit,
# __tsan_read*/write*, unaligned, atomic, vptr, mem*).  The API
# (__tsan_acquire, __tsan_switch_to_fiber, ...) is fine.  And the other
# way round: every model source has instrumented functions, so that
# moving one into the harness would not silently lose its races.
#
# The harness, as a list of its own so the build is checked against it:
# runtime/ (stress.c too), memory/, strategy/, util/, trace/, check/,
# report/, cli/, and scenario/ and litmus/ but for the files that run a
# CPU's body.  The model: kernel/, model/, programs/, scenario/interp.c
# and ops.c, litmus/interp.c and prims.c.

PAGERACE_TSAN=${PAGERACE_TSAN:-src/pagerace-tsan}
. "$(dirname "$0")/tap.sh"
tap_tmp tsanhu

if ! test -x "$PAGERACE_TSAN"; then
	echo "1..0 # SKIP no ThreadSanitizer flavour (configure found no -fsanitize=thread)"
	exit 0
fi
NM=${NM:-nm}
OBJDUMP=${OBJDUMP:-objdump}
if ! command -v "$NM" >/dev/null 2>&1 || ! command -v "$OBJDUMP" >/dev/null 2>&1; then
	echo "1..0 # SKIP needs $NM and $OBJDUMP (binutils)"
	exit 0
fi

# Function symbols with the source file their debug information names.
"$NM" -l --defined-only "$PAGERACE_TSAN" >"$tmp/nm" 2>"$tmp/err"
"$OBJDUMP" -d --no-show-raw-insn "$PAGERACE_TSAN" >"$tmp/dis" 2>>"$tmp/err"
if ! grep -q 'src/runtime/[a-z_0-9]*\.c:' "$tmp/nm"; then
	echo "1..0 # SKIP $PAGERACE_TSAN has no debug information (nm -l)"
	exit 0
fi

# One line per function: ROLE FILE NAME HOOKS..., ROLE harness or model.
awk '
function role(f) {
	if (f ~ /^src\/(kernel|model|programs)\//) return "model"
	if (f ~ /^src\/scenario\/(interp|ops)\.c$/) return "model"
	if (f ~ /^src\/litmus\/(interp|prims)\.c$/) return "model"
	if (f ~ /^src\/(runtime|memory|strategy|util|trace|check|report|cli|scenario|litmus)\//)
		return "harness"
	return ""
}
FNR == NR {			# nm -l: ADDR TYPE NAME FILE:LINE
	if ($2 !~ /^[tTwW]$/ || NF < 4) next
	f = $4
	sub(/:[0-9]+$/, "", f)
	if (!match(f, /src\/[a-z]+\/[A-Za-z0-9_]+\.[ch]$/)) next
	f = substr(f, RSTART)
	if ((r = role(f)) == "") next
	fn[$1] = r " " f " " $3
	next
}
/^[0-9a-f]+ <.*>:$/ { cur = $1; next }	# objdump -d: a function begins
/(call|jmp)[ \t].*<__tsan_/ {
	t = $NF
	gsub(/[<>]/, "", t)
	sub(/@plt$/, "", t)
	sub(/\+0x[0-9a-f]+$/, "", t)
	if (t ~ /^__tsan_(func_|read|write|unaligned_|atomic|vptr|mem|init)/ &&
	    index(hooks[cur], " " t) == 0)
		hooks[cur] = hooks[cur] " " t
}
END {
	for (a in fn)
		print fn[a] hooks[a]
}' "$tmp/nm" "$tmp/dis" | sort >"$tmp/funcs"

echo "1..3"

# ---- the debug information found the harness, room by room
missing=
for room in runtime memory strategy util trace check report cli scenario litmus; do
	grep -q "^harness src/$room/" "$tmp/funcs" || missing="$missing $room"
done
nh=$(grep -c '^harness ' "$tmp/funcs")
echo "# $nh harness functions, $(grep -c '^model ' "$tmp/funcs") model functions"
test -z "$missing"
ok $? "harness functions found in every harness room${missing:+ (none in:$missing)}"

# ---- no harness function calls an instrumentation hook
grep '^harness [^ ]* [^ ]* ' "$tmp/funcs" >"$tmp/bad"
sed 's/^harness /# instrumented: /' "$tmp/bad" | head -20
# make does not rebuild an object whose flags changed: a build tree from
# before the harness lost its instrumentation keeps such objects.
test -s "$tmp/bad" &&
	echo "# (a build tree older than the split keeps its objects: make clean)"
test ! -s "$tmp/bad"
ok $? "no harness function logs an entry, an exit or an access ($(wc -l <"$tmp/bad") do)"

# ---- every model source is instrumented
awk '$1 == "model" && $2 ~ /\.c$/ { seen[$2] = 1; if (NF > 3) instr[$2] = 1 }
     END { for (f in seen) if (!(f in instr)) print f }' "$tmp/funcs" |
	sort >"$tmp/plain"
sed 's/^/# not instrumented: /' "$tmp/plain"
test ! -s "$tmp/plain" && grep -q '^model src/model/.* __tsan_func_entry' "$tmp/funcs"
ok $? "every model source file has instrumented functions"

tap_done
