#!/bin/sh
# tools/litmus-states.sh -- soundness check of a dpor change on the litmus
# corpus: record, per test and memory model, the set of final states a
# binary's exhaustive search reaches, then compare two such records.
# A sound reduction must leave every test that is exhaustive in both
# records with the IDENTICAL set of final states (the counts per state
# may change: they count executions, which is what a reduction cuts).
#
#   tools/litmus-states.sh collect PAGERACE OUTDIR [MODELS]
#	runs PAGERACE litmus -n $LITMUS_MAX_EXEC (default 100000, no time
#	budget: the cut is deterministic, independent of the machine's
#	load) over the 2-4 CPU tests of $LITMUS_DIR (auto/ and manual/)
#	and tests/litmus/*.litmus, under each model (default "sc tso weak"),
#	LITMUS_JOBS processes side by side (default 2); writes
#	OUTDIR/MODEL.states: file, status, verdict, sorted final states.
#   tools/litmus-states.sh compare OLDDIR NEWDIR [MODELS]
#	prints, per model, the tests exhaustive in both, those whose final
#	states differ (listed; must be 0), Never conditions reached (must be
#	0), Sometimes reached before and not after (must be 0), and how many
#	tests became exhaustive or stopped being so.  Exit status 1 when a
#	must-be-0 count is not.
#
# The corpus is GPL test data: it is read where it is, never copied.

set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
jobs=${LITMUS_JOBS:-2}
max_exec=${LITMUS_MAX_EXEC:-100000}

usage() {
	echo "usage: $0 collect PAGERACE OUTDIR [MODELS] | compare OLD NEW [MODELS]" >&2
	exit 2
}

# The file list: tests of 2-4 CPUs (a one-execution run of each gives its
# CPU count, column 8 of --brief) and the tree's own tests.
list_tests() {	# list_tests PAGERACE TMPDIR
	corpus=${LITMUS_DIR:-$srcdir/../shared/litmus}
	if [ -d "$corpus/auto" ] && [ -d "$corpus/manual" ]; then
		(cd "$corpus" && find auto manual -name '*.litmus') |
			LC_ALL=C sort | sed "s|^|$corpus/|" | tr '\n' '\0' |
			xargs -0 -n 200 -P "$jobs" "$1" litmus -b -n 1 \
				--trace-dir "$2/traces" 2>/dev/null |
			awk -F'\t' '$8 >= 2 && $8 <= 4 { print $1 }'
	else
		echo "$0: no corpus at $corpus (set LITMUS_DIR); tree tests only" >&2
	fi
	ls "$srcdir"/tests/litmus/*.litmus
}

# One line per test from litmus's long output: the final states without
# their execution counts, sorted, joined by " | ".
summarise() {
	awk '
	function flush() {
		if (file == "") return
		n = asort_(states)
		s = ""
		for (i = 1; i <= n; i++) s = s (i > 1 ? " | " : "") sorted[i]
		print file "\t" status "\t" verdict "\t" s
		file = ""; delete states; nst = 0
	}
	# insertion sort: awk has no portable sort
	function asort_(a,   i, j, t, k) {
		k = 0
		for (i = 1; i <= nst; i++) sorted[++k] = a[i]
		for (i = 2; i <= k; i++) {
			t = sorted[i]
			for (j = i - 1; j >= 1 && sorted[j] > t; j--) sorted[j + 1] = sorted[j]
			sorted[j + 1] = t
		}
		return k
	}
	/^litmus .* \(.*\): / {
		flush()
		file = $0; sub(/^litmus [^(]* \(/, "", file); sub(/\): .*/, "", file)
		status = "?"; verdict = "?"; inlist = 0; next
	}
	/^  exhaustive:/ { status = "exhaustive"; next }
	/^  incomplete:/ { status = "incomplete"; next }
	/^  final states/ { inlist = 1; next }
	inlist && /^  [ *] / {
		s = $0; sub(/^ *\*? */, "", s); sub(/ +[0-9]+$/, "", s)
		states[++nst] = s; next
	}
	{ inlist = 0 }
	file != "" && index($0, file ": ") == 1 {
		verdict = substr($0, length(file) + 3)
	}
	END { flush() }'
}

collect() {	# collect PAGERACE OUTDIR MODELS
	bin=$1; out=$2; models=$3
	mkdir -p "$out" || exit 1
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-litmus-states.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
	list_tests "$bin" "$tmp" >"$out/tests.list"
	for m in $models; do
		# Each batch writes a file of its own: the outputs of processes
		# side by side would interleave in one pipe.
		mkdir -p "$tmp/$m"
		tr '\n' '\0' <"$out/tests.list" |
			xargs -0 -n 10 -P "$jobs" sh -c \
				'b=$0 m=$1 n=$2 d=$3; shift 3
				"$b" litmus -m "$m" -n "$n" --trace-dir "$d/traces" \
					"$@" >"$d/$m/out.$$" 2>&1' \
				"$bin" "$m" "$max_exec" "$tmp"
		cat "$tmp/$m"/out.* | summarise | LC_ALL=C sort >"$out/$m.states"
		echo "$m: $(wc -l <"$out/$m.states") tests," \
			"$(grep -c '	exhaustive	' "$out/$m.states") exhaustive" >&2
	done
}

compare() {	# compare OLD NEW MODELS
	bad=0
	for m in $3; do
		[ -f "$1/$m.states" ] && [ -f "$2/$m.states" ] || usage
		LC_ALL=C join -t '	' "$1/$m.states" "$2/$m.states" |
		awk -F'\t' -v m="$m" '
		function reached(v) {
			return v ~ /Result: Sometimes/ && v ~ /reached/ && v !~ /not reached/
		}
		{
			both_ex = $2 == "exhaustive" && $5 == "exhaustive"
			if (both_ex) { ex++; if ($4 != $7) { diff++; print "  DIFF " $1 } }
			if ($2 == "exhaustive" && $5 != "exhaustive") lost_ex++
			if ($2 != "exhaustive" && $5 == "exhaustive") won_ex++
			if ($6 ~ /^DISAGREES with Result: Never/) never++
			if (reached($3) && !reached($6)) lost++
			n++
		}
		END {
			printf "%s: %d tests, %d exhaustive in both, %d with other final states, %d Never reached (after), %d Sometimes lost, %d newly exhaustive, %d no longer exhaustive\n",
				m, n, ex, diff, never, lost, won_ex, lost_ex
			exit (diff + never + lost) ? 1 : 0
		}' || bad=1
	done
	return $bad
}

[ $# -ge 3 ] || usage
cmd=$1; shift
case $cmd in
collect) collect "$1" "$2" "${3:-sc tso weak}" ;;
compare) compare "$1" "$2" "${3:-sc tso weak}" ;;
*) usage ;;
esac
