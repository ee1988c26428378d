#!/bin/sh
# tests/scenario_cli.sh -- scenario files through the command line (TAP).
#
# check passes on every shipped scenario and rejects a bad one with
# FILE:LINE:COL, the line, a caret and exit 2; ops lists the registry;
# explore + replay of every scenario (failing ones reproduce their verdict;
# clean ones pass, and a run forced to fail replays); the trace embeds the
# text, so replay works after the file changes or disappears and says so;
# command-line options override the scenario's settings.

srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"
tap_tmp scn

scenarios=$(ls "$srcdir"/scenarios/*.scn | LC_ALL=C sort)
nscn=$(echo "$scenarios" | wc -l)
echo "1..$((nscn * 2 + 15))"

# ---- check
"$PAGERACE" check $scenarios >"$tmp/out" 2>"$tmp/err"
test $? -eq 0 && test "$(grep -c ': ok: ' "$tmp/out")" -eq "$nscn" && ! test -s "$tmp/err"
ok $? "check: all $nscn shipped scenarios are valid"

printf 'cpu 0 {\n    r0 = find_get_pgae m0 0\n}\n' >"$tmp/bad.scn"
"$PAGERACE" check "$tmp/bad.scn" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 &&
	head -n 1 "$tmp/err" | grep -q "^$tmp/bad.scn:2:10: error: unknown operation 'find_get_pgae' (did you mean 'find_get_page'?)\$" &&
	sed -n 2p "$tmp/err" | grep -q '^     r0 = find_get_pgae m0 0$' &&
	sed -n 3p "$tmp/err" | grep -q '^          ^$'
ok $? "check: a typo is FILE:LINE:COL: error, the line, a caret, a suggestion, exit 2"

"$PAGERACE" check "$tmp/none.scn" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && grep -q "none.scn: error: cannot open" "$tmp/err"
ok $? "check: a missing file is an error, exit 2"

"$PAGERACE" explore -q "$tmp/bad.scn" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && grep -q "bad.scn:2:10: error:" "$tmp/err"
ok $? "explore: a bad scenario is rejected before running, exit 2"

"$PAGERACE" ops >"$tmp/out" 2>"$tmp/err"
test $? -eq 0 && grep -q 'r = find_get_page MAPPING INDEX' "$tmp/out" &&
	grep -q 'shrink PAGE' "$tmp/out" && grep -q 'add_to_swap_cache ENTRY' "$tmp/out"
ok $? "ops lists the operation registry with argument types and docs"

# ---- explore + replay of every scenario
for s in $scenarios; do
	name=$(basename "$s" .scn)
	if grep -q '^expect pass' "$s"; then
		"$PAGERACE" explore -q -n 200 --trace-dir "$tmp/tr" "$s" >"$tmp/out" 2>"$tmp/err"
		ok $? "explore $name: 200 runs pass"
		# A passing run has no trace: force one with an impossible outcome.
		{ cat "$s"; echo 'forbidden 0 == 0 "force a trace"'; } >"$tmp/$name.scn"
		"$PAGERACE" explore -q -n 1 --trace-dir "$tmp/tr" "$tmp/$name.scn" >"$tmp/out" 2>"$tmp/err"
		tr=$(sed -n 's/^  trace: *//p' "$tmp/out")
		"$PAGERACE" replay "$tr" >"$tmp/out" 2>"$tmp/err"
		test $? -eq 1 && grep -q "reproduced forbidden" "$tmp/out"
		ok $? "replay $name: a recorded run replays exactly"
		continue
	fi
	kind=$(sed -n 's/^expect  *//p' "$s")
	"$PAGERACE" explore -q --trace-dir "$tmp/tr" "$s" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	tr=$(sed -n 's/^  trace: *//p' "$tmp/out")
	test $rc -eq 1 && grep -q "verdict:  $kind" "$tmp/out" && test -f "$tr"
	ok $? "explore $name: finds $kind with its own settings"
	"$PAGERACE" replay "$tr" >"$tmp/out" 2>"$tmp/err"
	test $? -eq 1 && grep -q "reproduced $kind" "$tmp/out"
	ok $? "replay $name: reproduces $kind"
done

# ---- embedded text: the file changes, the file disappears
cp "$srcdir/scenarios/lock-no-recheck.scn" "$tmp/lnr.scn"
"$PAGERACE" explore -q --trace-dir "$tmp/tr2" "$tmp/lnr.scn" >"$tmp/out" 2>"$tmp/err"
tr=$(sed -n 's/^  trace: *//p' "$tmp/out")
test -n "$tr" && grep -q '^program-text ' "$tr" && grep -q '^| scenario lock-no-recheck$' "$tr" &&
	case $tr in *lnr-dpor-run*.trace) true ;; *) false ;; esac
ok $? "the trace embeds the scenario text and is named after the file"
"$PAGERACE" replay "$tr" >"$tmp/out" 2>"$tmp/err"
test $? -eq 1 && ! grep -q note "$tmp/err"
ok $? "replay with the file unchanged: no note"
echo '# edited' >>"$tmp/lnr.scn"
"$PAGERACE" replay "$tr" >"$tmp/out" 2>"$tmp/err"
test $? -eq 1 && grep -q "lnr.scn differs from the scenario text embedded in the trace" "$tmp/err"
ok $? "replay after the file changed: runs the embedded text and says so"
rm -f "$tmp/lnr.scn"
"$PAGERACE" replay "$tr" >"$tmp/out" 2>"$tmp/err"
test $? -eq 1 && grep -q "lnr.scn is gone" "$tmp/err"
ok $? "replay after the file is gone: runs the embedded text and says so"

# ---- the command line overrides the scenario's settings
"$PAGERACE" explore -q --json -n 10 -K none "$srcdir/scenarios/lock-no-recheck.scn" >"$tmp/out" 2>"$tmp/err"
# (-n below the size of its bound-1 tree, 16 executions)
test $? -eq 0 && grep -q '"runs":10,' "$tmp/out" && grep -q '"strategy":"dpor"' "$tmp/out"
ok $? "-n and -K none override the scenario's runs and knobs"
"$PAGERACE" explore -q --json -s pct -n 20 --seed 3 "$srcdir/scenarios/mixed.scn" >"$tmp/out" 2>"$tmp/err"
test $? -eq 0 && grep -q '"strategy":"pct","seed":3,' "$tmp/out" && grep -q '"pct_depth":3' "$tmp/out"
ok $? "-s and --seed override; the scenario's depth stays"
"$PAGERACE" explore -q -n 100 -p locked "$srcdir/scenarios/no-recheck.scn" >"$tmp/out" 2>"$tmp/err"
ok $? "-p locked overrides the scenario's protocol (the v2 knob has no effect there)"

# init takes as many pages as the model has frames (pages 64).
{
	echo "scenario sixty"
	echo "pages 64"
	echo "init {"
	i=0
	while [ $i -lt 64 ]; do echo "    m$((i / 32))[$((i % 32))]"; i=$((i + 1)); done
	echo "}"
	echo "cpu 0 {"
	echo "    r0 = find_get_page m1 31"
	echo "    put r0"
	echo "}"
} >"$tmp/sixty.scn"
"$PAGERACE" explore -q -s random -n 20 "$tmp/sixty.scn" >"$tmp/out" 2>"$tmp/err"
ok $? "init of 64 pages with pages 64"

# The build tree's binary finds the source tree's scenarios by name.
(cd "$tmp" && "$PAGERACE" list --scenarios) >"$tmp/out" 2>"$tmp/err"
grep -qx 'spec-irq' "$tmp/out"
ok $? "list --scenarios from another folder lists the source tree's scenarios"
(cd "$tmp" && "$PAGERACE" explore -q -s pct -n 5 --trace-dir tr spec-irq) \
	>"$tmp/out" 2>"$tmp/err"
test $? -le 1 && grep -q '/scenarios/spec-irq.scn: ' "$tmp/out"
ok $? "explore spec-irq, by name, from another folder"

tap_done
