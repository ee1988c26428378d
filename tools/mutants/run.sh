#!/bin/sh
# tools/mutants/run.sh -- `make mutants`: mutation test of the model
# against the scenario library (doc/mutants.md).
#
# Every mutant of tools/mutants/mutants.list (one hunk of src/model/) is
# applied to a scratch copy of the build tree (the tree itself is never
# touched), src/pagerace alone is rebuilt there, and every scenario of
# scenarios/ with an "expect" line is explored with its own explore line:
#
#   expect pass      the mutant is killed if a failure is found;
#   expect KIND      killed unless the verdict is still KIND; and, as
#                    replay/budgets.sh does, the same file without the knob
#                    it plants (bug scenarios) or with the fix of its
#                    finding (replay/fixes.sh) must find nothing: killed
#                    if it finds something (shown as NAME/control).
#
# Each scenario is first run on the unmutated copy; one that does not
# meet its expectation there is reported and cannot kill.  A run that
# exceeds MUTANTS_TIMEOUT seconds kills (shown as NAME(timeout)).
#
# Environment: top_srcdir, top_builddir (default .), CC, MUTANTS_JOBS
# (scratch copies built and run in parallel, default 2), MUTANTS_ONLY (an
# extended regexp: only the mutants whose id matches), MUTANTS_TIMEOUT
# (default 120), MUTANTS_KEEP=1 (keep the scratch directory),
# MUTANTS_VERBOSE=1 (list every killer of each mutant, not the first 3).
#
# Exit 0 when every mutant not marked unexpressible is killed, 1 when one
# survives or does not compile, 2 on a stale mutant, a scenario that fails
# its expectation unmutated, or a setup error.

set -u
srcdir=$(cd "${top_srcdir:-.}" && pwd) || exit 2
builddir=$(cd "${top_builddir:-.}" && pwd) || exit 2
list=${MUTANTS_LIST:-$srcdir/tools/mutants/mutants.list}
apply=$srcdir/tools/mutants/apply.awk
jobs=${MUTANTS_JOBS:-2}
only=${MUTANTS_ONLY:-.}
tmo=${MUTANTS_TIMEOUT:-120}
MAKE=${MAKE:-make}

work=$(mktemp -d "${TMPDIR:-/tmp}/pr-mutants.XXXXXX") || exit 2
cleanup() {
	[ "${MUTANTS_KEEP:-0}" = 1 ] && { echo "scratch kept: $work"; return; }
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ the mutants
# One directory per mutant: file, what, unexpressible, old, new.
mkdir "$work/m"
awk -v dir="$work/m" '
function out(name, text) { printf "%s\n", text >> (cur "/" name); close(cur "/" name) }
/^#/ || /^[ \t]*$/ && !inm { next }
/^mutant / {
	n++; id = $2; inm = 1
	cur = sprintf("%s/%03d-%s", dir, n, id)
	system("mkdir -p \"" cur "\"")
	printf "" > (cur "/old"); close(cur "/old")
	printf "" > (cur "/new"); close(cur "/new")
	next
}
!inm { print "mutants.list:" NR ": text outside a mutant" > "/dev/stderr"; bad = 1; next }
/^end[ \t]*$/ { inm = 0; next }
/^file / { out("file", $2); next }
/^what / { sub(/^what /, ""); out("what", $0); next }
/^unexpressible / { sub(/^unexpressible /, ""); out("unexpressible", $0); next }
/^-/ { out("old", substr($0, 2)); next }
/^\+/ { out("new", substr($0, 2)); next }
{ print "mutants.list:" NR ": unknown line: " $0 > "/dev/stderr"; bad = 1 }
END { exit bad }
' "$list" || exit 2

mutants=$(cd "$work/m" && ls | LC_ALL=C sort | while read -r d; do
	echo "${d#*-}" | grep -Eq -- "$only" && echo "$d"; done)
[ -n "$mutants" ] || { echo "run.sh: no mutant matches '$only'" >&2; exit 2; }

# The sources the mutants apply to, as they are now: the worktree may
# change while the mutants run (a merge, an edit), the scratch copies and
# this snapshot do not.
mkdir "$work/orig"
for d in $mutants; do
	f=$(cat "$work/m/$d/file")
	[ -f "$work/orig/$f" ] && continue
	mkdir -p "$work/orig/$(dirname "$f")"
	cp "$srcdir/$f" "$work/orig/$f" || exit 2
done

stale=0
for d in $mutants; do
	f=$(cat "$work/m/$d/file")
	if ! awk -f "$apply" "$work/m/$d/old" "$work/m/$d/new" "$work/orig/$f" \
		>/dev/null 2>"$work/m/$d/stale"; then
		echo "STALE     ${d#*-}: $f: $(cat "$work/m/$d/stale")"
		stale=$((stale + 1))
	fi
done
[ $stale -eq 0 ] || { echo "run.sh: $stale stale mutants: fix $list" >&2; exit 2; }

# ------------------------------------------------------------ the scenario runs
# jobs.txt: NAME|FILE|EXPECT|OPTIONS, EXPECT "pass" or a verdict kind.
knobs_of() {	# the scenario's knobs as -K options
	sed -n 's/^knobs  *//p' "$1" | tr -d ' ' | tr ',' '\n' | grep -v '^none$' |
		sed 's/^/-K /' | tr '\n' ' '
}
# The options that fix each finding: replay/budgets.sh's list.
. "$srcdir/replay/fixes.sh"
# The scenario files too are run from a snapshot taken now.
mkdir "$work/scenarios"
cp "$srcdir"/scenarios/*.scn "$work/scenarios/" || exit 2
for f in "$work"/scenarios/*.scn; do
	name=$(basename "$f" .scn)
	kind=$(sed -n 's/^expect  *//p' "$f")
	[ -n "$kind" ] || continue
	echo "$name|$f|$kind|"
	[ "$kind" = pass ] && continue
	fix=$(fix_of "$name")
	if [ -n "$fix" ]; then
		echo "$name/control|$f|pass|$(knobs_of "$f")$fix"
	else
		echo "$name/control|$f|pass|-K none $(knobs_of "$f" | sed "s/-K $name //")"
	fi
done >"$work/jobs.txt"

# run_jobs BIN TRACEDIR: one line per job, NAME|ok or NAME|REASON.
run_jobs() {
	while IFS='|' read -r name scn kind opts; do
		# shellcheck disable=SC2086
		timeout "$tmo" "$1" explore -q --json --trace-dir "$2" $opts "$scn" \
			>"$2.out" 2>"$2.err"
		rc=$?
		got=$(sed -n 's/.*"first_failure":{[^}]*"kind":"\([^"]*\)".*/\1/p' "$2.out")
		if [ $rc -eq 124 ]; then
			echo "$name|timeout"
		elif [ "$kind" = pass ]; then
			if [ $rc -eq 0 ]; then echo "$name|ok"
			else echo "$name|${got:-exit $rc}"; fi
		elif [ $rc -eq 1 ] && [ "$got" = "$kind" ]; then
			echo "$name|ok"
		else
			echo "$name|${got:-pass}"
		fi
	done <"$work/jobs.txt"
}

# ------------------------------------------------------------ scratch copies
if [ ! -f "$builddir/config.status" ]; then
	echo "run.sh: $builddir is not configured (run ./bootstrap)" >&2
	exit 2
fi
make_copy() {	# make_copy DIR: a private build tree with src/pagerace built
	mkdir -p "$1"
	if [ "$srcdir" = "$builddir" ]; then
		# In-tree build: copy sources and objects, so only what a
		# mutant touches is recompiled.
		(cd "$srcdir" && tar cf - --exclude=./.git --exclude=./autom4te.cache \
			--exclude='./traces/*.trace' .) | (cd "$1" && tar xf -)
	else
		(cd "$srcdir" && tar cf - --exclude=./.git --exclude=./autom4te.cache .) |
			(cd "$1" && tar xf -)
		(cd "$1" && ./configure -q --disable-tsan ${CC:+CC="$CC"}) ||
			return 1
	fi
	$MAKE -C "$1" -s src/pagerace >"$1.build.log" 2>&1
}

i=0
while [ $i -lt "$jobs" ]; do
	make_copy "$work/tree.$i" &
	i=$((i + 1))
done
wait
i=0
while [ $i -lt "$jobs" ]; do
	if [ ! -x "$work/tree.$i/src/pagerace" ]; then
		echo "run.sh: the scratch copy does not build:" >&2
		tail -20 "$work/tree.$i.build.log" >&2
		exit 2
	fi
	i=$((i + 1))
done

# Baseline: the library as it is must meet its own expectations.
run_jobs "$work/tree.0/src/pagerace" "$work/tr.base" >"$work/baseline"
njobs=$(wc -l <"$work/jobs.txt")
if grep -qv '|ok$' "$work/baseline"; then
	echo "run.sh: scenarios that fail their expectation unmutated (they cannot kill):"
	grep -v '|ok$' "$work/baseline" | sed 's/^/  /'
fi
echo "$(echo "$mutants" | wc -l) mutants, $njobs scenario runs each ($jobs in parallel)"

# ------------------------------------------------------------ the mutants, in parallel
worker() {	# worker W: the mutants with index W modulo $jobs
	w=$1 tree=$work/tree.$1 k=0
	for d in $mutants; do
		k=$((k + 1))
		[ $(( (k - 1) % jobs )) -eq "$w" ] || continue
		id=${d#*-}
		f=$(cat "$work/m/$d/file")
		if ! awk -f "$apply" "$work/m/$d/old" "$work/m/$d/new" \
			"$work/orig/$f" >"$tree/$f.mutant" 2>"$work/m/$d/build.log"; then
			echo "$d|stillborn|"
		elif ! mv "$tree/$f.mutant" "$tree/$f" ||
		     ! $MAKE -C "$tree" -s src/pagerace >"$work/m/$d/build.log" 2>&1; then
			echo "$d|stillborn|"
		else
			run_jobs "$tree/src/pagerace" "$work/tr.$w" >"$work/m/$d/runs"
			# join(1) wants its inputs sorted on the join field
			# alone: a whole-line sort puts "f2-x/control|..."
			# before "f2-x|..." ('/' < '|') and join then drops it.
			LC_ALL=C sort -t '|' -k1,1 "$work/m/$d/runs" >"$work/m/$d/runs.sorted"
			killers=$(LC_ALL=C join -t '|' "$work/baseline.ok" "$work/m/$d/runs.sorted" |
				awk -F'|' '$3 != "ok" { print ($1 ~ /\/control$/ ? "1" : "0") "|" $1 "(" $3 ")" }' |
				LC_ALL=C sort | cut -d'|' -f2 | tr '\n' ' ')
			if [ -n "$killers" ]; then
				echo "$d|killed|$killers"
			else
				echo "$d|survived|"
			fi
		fi
		# Back to the original (a fresh mtime: the next build recompiles it).
		cp "$work/orig/$f" "$tree/$f"
	done >"$work/result.$w"
}
grep '|ok$' "$work/baseline" | LC_ALL=C sort -t '|' -k1,1 >"$work/baseline.ok"
i=0
while [ $i -lt "$jobs" ]; do
	worker $i &
	i=$((i + 1))
done
wait

# ------------------------------------------------------------ the report
cat "$work"/result.* | LC_ALL=C sort >"$work/results"
total=0 killed=0 survived=0 stillborn=0 unexpr=0 unexpr_killed=0
while IFS='|' read -r d status killers; do
	id=${d#*-}
	total=$((total + 1))
	ux=""
	[ -s "$work/m/$d/unexpressible" ] && ux=$(cat "$work/m/$d/unexpressible")
	case $status in
	killed)
		killed=$((killed + 1))
		[ -n "$ux" ] && unexpr_killed=$((unexpr_killed + 1))
		set -- $killers
		more=""
		[ $# -gt 3 ] && more=" (+$(($# - 3)) more)"
		printf 'KILLED    %-36s by %s%s\n' "$id" "$(echo "$killers" |
			cut -d' ' -f1-3)" "$more"
		echo "$id: $killers" >>"$work/killers" ;;
	survived)
		if [ -n "$ux" ]; then
			unexpr=$((unexpr + 1))
			printf 'UNEXPR    %-36s %s\n' "$id" "$ux"
		else
			survived=$((survived + 1))
			printf 'SURVIVED  %-36s %s\n' "$id" "$(cat "$work/m/$d/what")"
		fi ;;
	stillborn)
		stillborn=$((stillborn + 1))
		printf 'NOBUILD   %-36s %s\n' "$id" "$(head -c 300 "$work/m/$d/build.log" | tr '\n' ' ')" ;;
	esac
done <"$work/results"
expressible=$((total - unexpr))
echo "kill ratio: $killed/$expressible expressible mutants killed by scenario files" \
	"($unexpr unexpressible, $total in all; $survived survived, $stillborn did not build)"
if [ "${MUTANTS_VERBOSE:-0}" = 1 ] && [ -f "$work/killers" ]; then
	echo "every killer:"
	sed 's/^/  /' "$work/killers"
fi
[ $unexpr_killed -eq 0 ] ||
	echo "note: $unexpr_killed mutants marked unexpressible were killed: update their reason"
if grep -qv '|ok$' "$work/baseline"; then
	exit 2
fi
[ $survived -eq 0 ] && [ $stillborn -eq 0 ]
