#!/bin/sh
# tests/scenario_misuse.sh -- a scenario that misuses its own references
# is bad input, not a race (TAP): FILE:LINE:COL: error:, exit 2,
# no trace saved.  `check` finds what the text shows (a register reused
# while it holds a reference or lock, a put of what was already put, a
# body ending with what it took, loops included); explore finds the rest
# at run time (two bodies putting one init reference, an init reference
# nobody releases).  A planted bug in the model stays a race: exit 1 and
# a trace.

srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
tap_tmp misuse

echo "1..14"

body() {	# NAME: a scenario whose cpu 0 body is stdin
	{ printf 'init {\n    m0[0]\n}\ncpu 0 {\n'; cat; printf '}\n'; } >"$tmp/$1.scn"
}
printf '    r0 = find_get_page m0 0\n    put r0\n    put r0\n' | body dput
printf '    r0 = find_get_page m0 0\n    r0 = find_get_page m0 0\n    put r0\n' | body reuse
printf '    r0 = find_get_page m0 0\n' | body leak
printf '    r0 = find_trylock_page m0 0\n' | body lockleak
printf '    loop 2 {\n        r0 = find_lock_page m0 0\n        unlock r0\n    }\n' | body loop

# file  LINE:COL  message
cat >"$tmp/static" <<'EOF2'
dput 7:5 put r0: r0's reference was already released on line 6
reuse 6:10 r0 = find_get_page: r0 still holds the reference taken on line 5
leak 5:10 cpu0 ends still holding the reference r0 takes here
lockleak 5:10 cpu0 ends still holding the page lock r0 takes here (release it: unlock r0)
loop 6:14 r0 = find_lock_page: r0 still holds the reference taken on line 6
EOF2
while read -r f pos msg; do
	"$PAGERACE" check "$tmp/$f.scn" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc -eq 2 && grep -qF "$tmp/$f.scn:$pos: error: $msg" "$tmp/err"
	ok $? "check $f: exit 2, $pos: $msg"
	"$PAGERACE" explore -q -n 20 --trace-dir "$tmp/tr-$f" "$tmp/$f.scn" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc -eq 2 && grep -qF "$tmp/$f.scn:$pos: error: $msg" "$tmp/err" &&
		! ls "$tmp/tr-$f"/*.trace >/dev/null 2>&1
	ok $? "explore $f: exit 2, the same error, no trace"
done <"$tmp/static"

# ---- found at run time only: `check` accepts them
cat >"$tmp/shared.scn" <<'EOF2'
init {
    m0[1]
    victim = m0[0]
}
cpu 0 {
    put victim
}
cpu 1 {
    put victim
}
EOF2
cat >"$tmp/kept.scn" <<'EOF2'
init {
    victim = m0[0]
}
cpu 0 {
    r0 = find_get_page m0 0
    put r0
}
EOF2
"$PAGERACE" check "$tmp/shared.scn" >"$tmp/out" 2>"$tmp/err" &&
	"$PAGERACE" explore -q -n 20 --trace-dir "$tmp/tr-shared" "$tmp/shared.scn" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && grep -q "shared.scn:[69]:5: error: put: victim (page#[0-9]*) holds no reference (already put?) (run 0)" "$tmp/err" &&
	! ls "$tmp/tr-shared"/*.trace >/dev/null 2>&1
ok $? "explore: two bodies put one init reference: exit 2, LINE:COL error, no trace"
"$PAGERACE" check "$tmp/kept.scn" >"$tmp/out" 2>"$tmp/err" &&
	"$PAGERACE" explore -q -n 20 --trace-dir "$tmp/tr-kept" "$tmp/kept.scn" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && grep -q "kept.scn:2:5: error: the reference 'victim' holds from init was never released" "$tmp/err" &&
	! ls "$tmp/tr-kept"/*.trace >/dev/null 2>&1
ok $? "explore: an init reference nobody releases: exit 2, LINE:COL error, no trace"

# ---- a model bug is still a race
"$PAGERACE" explore -q --trace-dir "$tmp/tr-knob" "$srcdir/scenarios/lock-no-recheck.scn" >"$tmp/out" 2>"$tmp/err"
test $? -eq 1 && grep -q 'verdict:  bad-lookup' "$tmp/out" && ls "$tmp/tr-knob"/*.trace >/dev/null 2>&1
ok $? "explore: lock-no-recheck's planted bug is still a failure with a trace"
"$PAGERACE" explore -q -n 20 --trace-dir "$tmp/tr-ok" "$srcdir/scenarios/reclaim-lookup.scn" -K none >"$tmp/out" 2>"$tmp/err"
test $? -eq 0
ok $? "explore: a correct scenario (reclaim-lookup, no knob) passes"
tap_done
