#!/bin/sh
# tests/install.sh -- `make install DESTDIR=...` (TAP): the binaries, the
# man pages, the scenario library in PKGDATADIR/scenarios and the bash
# completion are installed; the installed pagerace finds a shipped
# scenario by name from any directory (explore spec-irq, check
# spec-irq.scn), $PAGERACE_SCENARIOS first; `list` shows the installed
# scenarios; the completion completes commands, options, scenario names,
# knobs and protocols; `make uninstall` removes it all.

builddir=${abs_top_builddir:-$(pwd)}
. "$(dirname "$0")/tap.sh"
tap_tmp inst
d=$tmp/dest

echo "1..10"

# The parent make's jobserver and flags are not for this one.
unset MAKEFLAGS MFLAGS MAKELEVEL
${MAKE:-make} -C "$builddir" install DESTDIR="$d" >"$tmp/out" 2>"$tmp/err"
ok $? "make install DESTDIR=..."

inst=$(find "$d" -path '*/bin/pagerace' -type f | head -n 1)
scn=$(find "$d" -path '*/share/pagerace/scenarios/spec-irq.scn' | head -n 1)
comp=$(find "$d" -path '*/completions/pagerace' -type f | head -n 1)
nscn=$(find "$d" -path '*/share/pagerace/scenarios/*.scn' | wc -l)
nsrc=$(ls "${abs_top_srcdir:-.}"/scenarios/*.scn | wc -l)
test -x "$inst" && test -f "$scn" && test -f "$comp" && test "$nscn" -eq "$nsrc" &&
	test -n "$(find "$d" -name pagerace.1)" &&
	test -n "$(find "$d" -name pagerace-scenario.5)"
ok $? "installed: pagerace, man pages, $nscn of $nsrc scenarios, bash completion"

mkdir "$tmp/elsewhere" && cd "$tmp/elsewhere" || exit 1
unset PAGERACE_SCENARIOS
"$inst" explore --no-timing -q spec-irq >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 1 && grep -q "^$scn: FAILED at run #" "$tmp/out" &&
	ls pagerace-traces/spec-irq-*run*.trace >/dev/null 2>&1
ok $? "explore spec-irq from another directory: the installed scenario (exit $rc)"

"$inst" check spec-irq.scn >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && grep -q "^$scn: ok: spec-irq" "$tmp/out"
ok $? "check spec-irq.scn finds it too (exit $rc)"

"$inst" list >"$tmp/out" 2>"$tmp/err"
grep -q '^spec-irq  *an interrupt' "$tmp/out" && grep -q '^lost-update ' "$tmp/out"
ok $? "list shows the built-in programs and the installed scenarios"

# $PAGERACE_SCENARIOS comes first; a path given is taken as it is.
mkdir "$tmp/mine"
sed 's/^explore .*/explore strategy random runs 5 seed 1/' "$scn" >"$tmp/mine/spec-irq.scn"
PAGERACE_SCENARIOS="$tmp/nothing:$tmp/mine" "$inst" check spec-irq >"$tmp/out" 2>"$tmp/err"
grep -q "^$tmp/mine/spec-irq.scn: ok" "$tmp/out"
ok $? "PAGERACE_SCENARIOS folders come before the installed library"

"$inst" explore nonesuch >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q 'looked for in' "$tmp/err"
ok $? "an unknown name: exit 2, one line saying where it looked (exit $rc)"

# The completion, in bash (without the bash-completion package's helpers).
complete_words() {	# complete_words WORD...: the candidates for the last
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		 _pagerace; printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$@"
}
if command -v bash >/dev/null 2>&1; then
	c1=$(complete_words "$inst" ex | tr '\n' ' ')
	c2=$(complete_words "$inst" explore spec-i | tr '\n' ' ')
	c3=$(complete_words "$inst" explore -K spec- | tr '\n' ' ')
	c4=$(complete_words "$inst" stress -p "" | tr '\n' ' ')
	c5=$(complete_words "$inst" explore --trace- | tr '\n' ' ')
	echo "# $c1| $c2| $c3| $c4| $c5"
	test "$c1" = "explore " && echo "$c2" | grep -q 'spec-irq ' &&
		echo "$c3" | grep -q 'spec-irq' && test "$c4" = "locked v2 merged " &&
		test "$c5" = "--trace-dir "
	ok $? "completion: commands, scenario names, knobs, protocols, options"
else
	n=$((n + 1)); echo "ok $n # SKIP no bash"
fi

cd "$builddir" || exit 1
${MAKE:-make} -C "$builddir" uninstall DESTDIR="$d" >"$tmp/out" 2>"$tmp/err"
ok $? "make uninstall DESTDIR=..."
left=$(find "$d" -type f | wc -l)
test "$left" -eq 0
ok $? "nothing left after uninstall ($left files)"

tap_done
