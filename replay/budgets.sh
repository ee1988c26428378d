#!/bin/sh
# replay/budgets.sh -- the regression suite, part 2 (TAP): the library
# still finds what it says it finds, within its own budget.
#
#  - every scenario with "expect KIND" fails with verdict KIND under its
#    own explore settings: with seed 1 at the run its stored trace in
#    traces/scenarios/ was recorded from, and for all but at most one in
#    20 of the seeds of BUDGET_SEEDS (19 of seeds 1..20);
#  - with the knob that plants its bug taken out (bug scenarios), or the
#    fix knob added (findings f*), the same budget finds nothing, for
#    every seed of BUDGET_SEEDS;
#  - a scenario whose explore line names a systematic strategy (dfs, dpor:
#    deterministic, seeds do not apply) is searched once; its control must
#    then run the whole (bounded) tree: "bounded: preemption bound K, no
#    failure" or "exhaustive", a proof within the bound, not a sample;
#  - every "expect pass" scenario passes for every seed of BUDGET_SEEDS:
#    under locked, v2 and merged when it says "protocol v2" (the
#    protocols share its operations), under its own protocol otherwise
#    (locked-*.scn and merged-*.scn are the v2 files' twins; v2 without
#    the fix knobs would only find the findings again).
#
# BUDGET_SEEDS defaults to "1" (make check); replay/budgets-seeds.sh runs
# seeds 1..20 (make regtest).  BUDGET_ONLY=REGEXP checks only the
# scenario files whose path matches.

PAGERACE=${PAGERACE:-src/pagerace}
srcdir=${top_srcdir:-.}
seeds=${BUDGET_SEEDS:-1}
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
systematic() {	# does the scenario's explore line name dfs or dpor?
	grep -Eq '^explore .*strategy (dfs|dpor)' "$1"
}
explore() {	# explore SEED ARGS...: pagerace explore into $tmp/out
	s=$1
	shift
	"$PAGERACE" explore -q --json --trace-dir "$tmp/tr" --seed "$s" "$@" \
		>"$tmp/out" 2>"$tmp/err"
}
protocols_of() {	# the protocols an "expect pass" scenario must pass under
	p=$(sed -n 's/^protocol  *//p' "$1")
	case ${p:-v2} in
	v2) echo locked v2 merged ;;
	*) echo "$p" ;;
	esac
}

# The options that fix each finding (a knob, or the merged protocol).
. "$srcdir/replay/fixes.sh"

nseeds=$(echo $seeds | wc -w)
# At most one miss per 20 seeds (none with fewer than 20).
need=$((nseeds - nseeds / 20))
scenarios=$(cd "$srcdir" && ls scenarios/*.scn | LC_ALL=C sort |
	grep -E -- "${BUDGET_ONLY:-.}")
plan=0
for s in $scenarios; do
	if grep -q '^expect pass' "$srcdir/$s"; then
		plan=$((plan + $(protocols_of "$srcdir/$s" | wc -w)))
	elif grep -q '^expect ' "$srcdir/$s"; then
		plan=$((plan + 3))
	fi
done
echo "1..$plan"

for s in $scenarios; do
	f="$srcdir/$s"
	name=$(basename "$s" .scn)
	kind=$(sed -n 's/^expect  *//p' "$f")
	[ -n "$kind" ] || continue
	if [ "$kind" = pass ]; then
		for p in $(protocols_of "$f"); do
			bad="" runs=""
			for seed in $seeds; do
				explore "$seed" -p "$p" "$f" || bad="$bad $seed"
				runs=$(json runs)
			done
			[ -z "$bad" ]
			ok $? "$name passes under $p ($runs runs, seeds $(echo $seeds |
				sed 's/ .* / .. /'))${bad:+; fails for seeds$bad}"
		done
		continue
	fi

	# Seed 1: the stored trace's run.
	explore 1 "$f"
	rc=$?
	got=$(json kind)
	run=$(json run)
	stored=$(cd "$srcdir" && for m in "" -tso -weak; do
		ls traces/scenarios/"$name$m"-seed1-run*.trace \
		   traces/scenarios/"$name$m"-dpor-run*.trace \
		   traces/scenarios/"$name$m"-dfs-run*.trace; done 2>/dev/null)
	want_run=$(echo "$stored" | sed -n 's/.*-run\([0-9]*\)\.trace$/\1/p')
	test $rc -eq 1 && test "$got" = "$kind" && test "$run" = "$want_run"
	ok $? "$name finds $kind within its budget with seed 1 (run $run; stored trace: run $want_run)"

	found=0 miss="" maxrun=0 sseeds=$seeds
	if systematic "$f"; then
		sseeds=1
	fi
	for seed in $sseeds; do
		explore "$seed" "$f"
		if [ $? -eq 1 ] && [ "$(json kind)" = "$kind" ]; then
			found=$((found + 1))
			run=$(json run)
			[ "$run" -gt "$maxrun" ] && maxrun=$run
		else
			miss="$miss $seed:$(json kind)"
		fi
	done
	if systematic "$f"; then
		[ $found -eq 1 ]
		ok $? "$name finds $kind deterministically (a systematic search: seeds do not apply; run $maxrun)${miss:+; missed:$miss}"
	else
		[ $found -ge $need ]
		ok $? "$name finds $kind for $found of $nseeds seeds (need $need; latest at run $maxrun)${miss:+; missed:$miss}"
	fi

	fix=$(fix_of "$name")
	if [ -n "$fix" ]; then
		opts="$(knobs_of "$f") $fix"
		what="with $fix"
	else
		opts="-K none $(knobs_of "$f" | sed "s/-K $name //")"
		what="without the knob $name"
	fi
	bad=""
	if systematic "$f"; then
		# shellcheck disable=SC2086
		explore 1 $opts "$f" || bad=" (exit $?)"
		cov=$(sed -n 's/.*"coverage_statement":"\([^"]*\)".*/\1/p' "$tmp/out")
		case $cov in
		bounded*|exhaustive*) ;;
		*) bad="$bad (not a complete search)" ;;
		esac
		[ -z "$bad" ]
		ok $? "$name: $what the same search finds nothing: $cov${bad:+; found something$bad}"
		continue
	fi
	for seed in $seeds; do
		# shellcheck disable=SC2086
		explore "$seed" $opts "$f" || bad="$bad $seed"
	done
	[ -z "$bad" ]
	ok $? "$name: $what the same budget finds nothing (seeds $(echo $seeds |
		sed 's/ .* / .. /'))${bad:+; found something for seeds$bad}"
done
[ $failed -eq 0 ]
