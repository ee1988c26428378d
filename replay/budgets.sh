#!/bin/sh
# replay/budgets.sh -- the regression suite, part 2 (TAP): the library
# still finds what it says it finds, within its own budget.
#
#  - every scenario with "expect KIND" fails with verdict KIND under its
#    own explore settings (fixed seed), at the run its stored trace in
#    traces/scenarios/ was recorded from;
#  - with the knob that plants its bug taken out (bug scenarios), or the
#    fix knob added (findings f*), the same budget finds nothing;
#  - every "expect pass" scenario passes under locked, v2 and merged.

PAGERACE=${PAGERACE:-src/pagerace}
srcdir=${top_srcdir:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-budget.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		sed 's/^/# /' "$tmp/out" "$tmp/err" 2>/dev/null | head -10
	fi
}
knobs_of() {	# the scenario's knobs as -K options
	sed -n 's/^knobs  *//p' "$1" | tr -d ' ' | tr ',' '\n' | grep -v '^none$' |
		sed 's/^/-K /' | tr '\n' ' '
}
json() {	# json KEY: a string or number field of $tmp/out
	sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$tmp/out" | head -n 1
}

# The options that fix each finding (a knob, or the merged protocol).
fix_of() {
	case $1 in
	f1-*|f8-*) echo -K radix-single-read ;;
	f2-*) echo -K release-no-recheck ;;
	f4-*) echo -K gang-empty-exit ;;
	f9-*) echo -p merged ;;
	esac
}

scenarios=$(cd "$srcdir" && ls scenarios/*.scn | LC_ALL=C sort)
nbug=0 npass=0
for s in $scenarios; do
	if grep -q '^expect pass' "$srcdir/$s"; then
		npass=$((npass + 1))
	elif grep -q '^expect ' "$srcdir/$s"; then
		nbug=$((nbug + 1))
	fi
done
echo "1..$((nbug * 2 + npass * 3))"

for s in $scenarios; do
	f="$srcdir/$s"
	name=$(basename "$s" .scn)
	kind=$(sed -n 's/^expect  *//p' "$f")
	[ -n "$kind" ] || continue
	if [ "$kind" = pass ]; then
		for p in locked v2 merged; do
			"$PAGERACE" explore -q --json --trace-dir "$tmp/tr" -p $p "$f" \
				>"$tmp/out" 2>"$tmp/err"
			ok $? "$name passes under $p ($(json runs) runs, seed $(json seed))"
		done
		continue
	fi
	"$PAGERACE" explore -q --json --trace-dir "$tmp/tr" "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(json kind)
	run=$(json run)
	stored=$(cd "$srcdir" && ls traces/scenarios/"$name"-seed*-run*.trace 2>/dev/null)
	want_run=$(echo "$stored" | sed -n 's/.*-run\([0-9]*\)\.trace$/\1/p')
	test $rc -eq 1 && test "$got" = "$kind" && test "$run" = "$want_run"
	ok $? "$name finds $kind within its budget (run $run; stored trace: run $want_run)"

	fix=$(fix_of "$name")
	if [ -n "$fix" ]; then
		"$PAGERACE" explore -q --json --trace-dir "$tmp/tr" $(knobs_of "$f") \
			$fix "$f" >"$tmp/out" 2>"$tmp/err"
		ok $? "$name: with $fix the same budget finds nothing"
	else
		opts=$(knobs_of "$f" | sed "s/-K $name //")
		"$PAGERACE" explore -q --json --trace-dir "$tmp/tr" -K none $opts "$f" \
			>"$tmp/out" 2>"$tmp/err"
		ok $? "$name: without the knob $name the same budget finds nothing"
	fi
done
[ $failed -eq 0 ]
