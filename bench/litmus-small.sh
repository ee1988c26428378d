#!/bin/sh
# bench/litmus-small.sh -- the target: "a 2-4 CPU test exhaustively
# in <= 10 ms".  Runs `pagerace litmus -b -m MODEL -n 0 -t BUDGET` over
# every 2-4 CPU test of the corpus ($LITMUS_DIR, auto/ and manual/; the
# CPU count is --brief's column 8) under sc, tso and weak, and prints per
# model: the tests, how many finished their exhaustive search, the share
# done exhaustively within 10 ms, and median / p99 / max of the time where
# a search that did not finish counts as slow (as BUDGET, a lower bound).
# Unlike doc/litmus.sh's table, the tests that do not finish are in the
# figures.  Then the tests over 10 ms under any model, with each model's
# executions and time (one binary only).
#
#   bench/litmus-small.sh PAGERACE [OUT.tsv]
#   bench/litmus-small.sh -2 OLD NEW [OUT.tsv]
#	both binaries at once, one process each (LITMUS_JOBS ignored), so
#	that the two see the same load on a shared machine; OUT.tsv's
#	first column is then "old" or "new" and the model.
#
# Environment: LITMUS_DIR, LITMUS_SMALL_BUDGET (seconds, default 0.1: a
# search slower than 10 ms is slow whatever its time), LITMUS_JOBS
# (processes side by side, default 2), MODELS (default "sc tso weak").
# The corpus is GPL test data: it is read where it is, never copied.

set -u
pair=
if [ "${1:-}" = -2 ]; then
	pair=${2:?usage: bench/litmus-small.sh -2 OLD NEW [OUT.tsv]}
	shift 2
fi
bin=${1:?usage: bench/litmus-small.sh PAGERACE [OUT.tsv]}
out=${2:-}
corpus=${LITMUS_DIR:-$(dirname "$0")/../../shared/litmus}
budget=${LITMUS_SMALL_BUDGET:-0.1}
jobs=${LITMUS_JOBS:-2}
models=${MODELS:-sc tso weak}

if [ ! -d "$corpus/auto" ] || [ ! -d "$corpus/manual" ]; then
	echo "bench/litmus-small.sh: no corpus at $corpus (set LITMUS_DIR)" >&2
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-litmus-small.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

(cd "$corpus" && find auto manual -name '*.litmus') | LC_ALL=C sort |
	sed "s|^|$corpus/|" | tr '\n' '\0' |
	xargs -0 -n 200 -P "$jobs" "$bin" litmus -b -n 1 \
		--trace-dir "$tmp/traces" 2>/dev/null |
	awk -F'\t' '$8 >= 2 && $8 <= 4 { print $1 }' | LC_ALL=C sort >"$tmp/list"

run() {	# run PAGERACE MODEL JOBS OUT
	tr '\n' '\0' <"$tmp/list" |
		xargs -0 -n 40 -P "$3" "$1" litmus -b -m "$2" -n 0 \
			-t "$budget" --trace-dir "$tmp/traces" >"$4" 2>/dev/null
}

summary() {	# summary LABEL TSV
	awk -F'\t' -v m="$1" -v budget="$budget" '
	{
		n++
		ex = $5 == "exhaustive"
		t = ex ? $6 + 0 : budget * 1000
		if (!ex) slow++
		if (ex && t <= 10) fast++
		ms[n] = t; done += ex
	}
	END {
		for (i = 2; i <= n; i++) {
			v = ms[i]
			for (j = i - 1; j >= 1 && ms[j] > v; j--) ms[j + 1] = ms[j]
			ms[j + 1] = v
		}
		p99 = int(n * 0.99); if (p99 < 1) p99 = 1
		printf "%s: %d tests, %d exhaustive, %d (%.1f%%) exhaustive in <= 10 ms; median / p99 / max %.2f / %.2f / %.2f ms (unfinished = %g ms)\n",
			m, n, done, fast, n ? 100 * fast / n : 0,
			ms[int((n + 1) / 2)], ms[p99], ms[n], budget * 1000
	}' "$2"
}

# slow TSV...: the tests over 10 ms (or unfinished) under any of the
# models (one TSV each, named MODEL.tsv), one line each with every
# model's executions and time: what the 10 ms target misses, and whether
# sc needs as many executions (then the count is the test's, not the
# weak model's).  Tests are named by their path in the corpus: auto/ and
# manual/ share some file names.
slow() {
	awk -F'\t' -v budget="$budget" -v corpus="$corpus/" '
	FNR == 1 { m = FILENAME; sub(/.*\//, "", m); sub(/\.tsv$/, "", m)
		   if (!(m in seen)) { seen[m] = 1; order[++nm] = m } }
	{
		name = $1
		if (index(name, corpus) == 1)
			name = substr(name, length(corpus) + 1)
		sub(/\.litmus$/, "", name)
		ex = $5 == "exhaustive"
		ms = ex ? $6 + 0 : -1
		cell[name, m] = ex ? sprintf("%d / %.1f", $4, ms) : sprintf(">%d / >%g", $4, budget * 1000)
		if (!ex || ms > 10) bad[name] = 1
	}
	END {
		for (n in bad) nb++
		if (!nb) exit
		printf "tests over 10 ms (executions / ms"
		for (i = 1; i <= nm; i++) printf ", %s", order[i]
		printf "):\n"
		for (n in bad) {
			line = "  " n
			for (i = 1; i <= nm; i++)
				line = line "\t" ((n, order[i]) in cell ? cell[n, order[i]] : "-")
			print line
		}
	}' "$@" | { IFS= read -r head && printf '%s\n' "$head"; LC_ALL=C sort; }
}

for m in $models; do
	if [ -n "$pair" ]; then
		run "$pair" "$m" 1 "$tmp/old-$m.tsv" &
		run "$bin" "$m" 1 "$tmp/new-$m.tsv"
		wait
		summary "old $m" "$tmp/old-$m.tsv"
		summary "new $m" "$tmp/new-$m.tsv"
		[ -n "$out" ] && sed "s/^/old	$m	/" "$tmp/old-$m.tsv" >>"$out"
		[ -n "$out" ] && sed "s/^/new	$m	/" "$tmp/new-$m.tsv" >>"$out"
	else
		run "$bin" "$m" "$jobs" "$tmp/$m.tsv"
		summary "$m" "$tmp/$m.tsv"
		[ -n "$out" ] && sed "s/^/$m	/" "$tmp/$m.tsv" >>"$out"
	fi
done
if [ -z "$pair" ]; then
	set --
	for m in $models; do set -- "$@" "$tmp/$m.tsv"; done
	slow "$@"
fi
