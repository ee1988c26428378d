#!/bin/sh
# tests/mutants_smoke.sh -- `make mutants` is trustworthy (TAP): on one
# mutant, its baseline passes (every scenario and every control meets its
# expectation on the unmutated copy), and a kill by a control job
# ("NAME/control": a finding's scenario run with its fix, replay/fixes.sh)
# is counted.  The mutant makes the F2 fix knob (release-no-recheck) do
# nothing, so f2-release-leak/control finds the leak again.  A whole-line
# sort before join(1) once dropped every kill by a "/control" job.

. "$(dirname "$0")/tap.sh"
tap_tmp mutants
cat >"$tmp/one.list" <<'LIST'
mutant v2-release-knob-ignored
file src/model/page.c
what the F2 fix knob release-no-recheck does nothing
-	if (!knob(KNOB_RELEASE_NO_RECHECK) && page_count(page) != 0)
+	if (page_count(page) != 0)
end
LIST
echo "1..3"
if ! command -v timeout >/dev/null 2>&1; then
	skip "no timeout(1)"; skip "no timeout(1)"; skip "no timeout(1)"
	exit 0
fi
MUTANTS_LIST="$tmp/one.list" MUTANTS_JOBS=1 MUTANTS_VERBOSE=1 \
	top_srcdir="$abs_top_srcdir" top_builddir="$abs_top_builddir" \
	CC="${CC:-cc}" $SHELL "$abs_top_srcdir/tools/mutants/run.sh" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
! grep -q 'fail their expectation unmutated' "$tmp/out"
ok $? "the baseline meets every expectation, controls included (exit $rc)"
grep -q '^KILLED    v2-release-knob-ignored' "$tmp/out"
ok $? "the mutant is killed"
grep -q 'f2-release-leak/control(invariant)' "$tmp/out" && test $rc -eq 0 &&
	! grep -q 'not sorted\|sorted order' "$tmp/err"
ok $? "its kill by f2-release-leak/control is counted, join(1) sees sorted input (exit $rc)"
tap_done
