#!/usr/bin/env bash
# tools/litmus-herd.sh -- pagerace's lkmm against herd7: for every litmus
# test given (default: the corpus, $LITMUS_DIR or ../shared/litmus, and
# herdtools7's catalogue/linux tests when $HERD_CATALOGUE names that
# folder), the set of final states `pagerace litmus -m lkmm` lists and
# the set herd7 lists, compared state by state.  `make litmus-herd`
# runs it; skipped (77) when herd7 is absent.
#
# Environment:
#   HERD7       herd7 (default: herd7 on PATH)
#   HERD_MODEL  the folder of linux-kernel.cfg/.cat/.bell/.def and
#               lock.cat that herd7 reads (tools/herd-model.sh makes it)
#   HERD_LIBDIR herd7's libdir (cos-opt.cat, cross.cat), if not built in
#   LITMUS_JOBS tests side by side (default 2)
#   HERD_TIMEOUT seconds per test and tool (default 20)
#   HERD_DOC    markdown files to put the summary in (tools/herd-table.sh;
#               `make litmus-herd`: doc/litmus.md and bench/RESULTS.md)
#   OUT         the table (default: stdout), one line a test:
#               file  verdict  pagerace-states  herd7-states  ms-pagerace
#               ms-herd7  missing  extra
#               verdict: same, symbolic (equal but for herd7's
#               symbolic out-of-thin-air values, below), differ,
#               pagerace-fail, herd-fail (a timeout, an error, a test
#               herd7 rejects)
#
# A summary goes to stderr; exit 1 when some set differs.
# The corpus is GPL test data: it is read where it is, never copied.

set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
PAGERACE=${PAGERACE:-$srcdir/src/pagerace}
HERD7=${HERD7:-herd7}
jobs=${LITMUS_JOBS:-2}
tmo=${HERD_TIMEOUT:-20}

if ! command -v "$HERD7" >/dev/null 2>&1; then
	echo "litmus-herd: no herd7 (set HERD7; ../shared/tools/build-herd7.sh builds one)" >&2
	exit 77
fi
if [ -z "${HERD_MODEL:-}" ] || [ ! -f "$HERD_MODEL/linux-kernel.cfg" ]; then
	echo "litmus-herd: HERD_MODEL must name a folder with linux-kernel.cfg (tools/herd-model.sh)" >&2
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-herd.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
	for f in "$@"; do echo "$f"; done >"$tmp/list"
else
	corpus=${LITMUS_DIR:-$srcdir/../shared/litmus}
	: >"$tmp/list"
	[ -d "$corpus" ] && find "$corpus" -name '*.litmus' | LC_ALL=C sort >>"$tmp/list"
	[ -n "${HERD_CATALOGUE:-}" ] && [ -d "$HERD_CATALOGUE" ] &&
		find "$HERD_CATALOGUE" -name '*.litmus' | LC_ALL=C sort >>"$tmp/list"
fi
[ -s "$tmp/list" ] || { echo "litmus-herd: no tests" >&2; exit 77; }

# One test: both tools' states, normalised (each state's assignments
# sorted, "x=1" of a location and "0:r0=1" of a register alike).
one() {
	f=$1 d=$tmp/$(echo "$1" | cksum | cut -d' ' -f1)
	mkdir -p "$d"
	libdir=
	[ -n "${HERD_LIBDIR:-}" ] && libdir="-set-libdir $HERD_LIBDIR"
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	(cd "$HERD_MODEL" && timeout "$tmo" "$HERD7" $libdir -conf linux-kernel.cfg "$f") >"$d/h" 2>&1
	hrc=$?
	t1=$(date +%s%N)
	timeout "$tmo" "$PAGERACE" litmus -m lkmm "$f" >"$d/p" 2>&1
	prc=$?
	t2=$(date +%s%N)
	awk '/^States [0-9]+/ { on = 1; next }
	     on && /^(Ok|No|Loop)/ { exit }
	     on { print }' "$d/h" | norm >"$d/hs"
	awk '/final states \(/ { on = 1; next }
	     on && !/^  [ *] / { exit }
	     on { s = substr($0, 5); sub(/ +[0-9]+$/, "", s); print s }' "$d/p" |
		norm >"$d/ps"
	# herd7 shows the variables of the condition and the locations
	# clause; pagerace also those of a filter: compare on herd7's.
	if [ -s "$d/hs" ]; then
		head -n 1 "$d/hs" | tr ';' '\n' | sed 's/=.*//' >"$d/keys"
		awk -F';' 'NR == FNR { k[$0] = 1; next }
			{ s = ""; for (i = 1; i <= NF; i++) { v = $i; sub(/=.*/, "", v)
				if (v in k) s = s (s == "" ? "" : ";") $i }
			  print s }' "$d/keys" "$d/ps" | LC_ALL=C sort -u >"$d/pp"
		mv "$d/pp" "$d/ps"
	fi
	hn=$(wc -l <"$d/hs") pn=$(wc -l <"$d/ps")
	if ! grep -q '^States' "$d/h" || [ "$hrc" -ne 0 ]; then
		v=herd-fail
	elif [ "$prc" -ge 2 ] || ! grep -q 'final states (' "$d/p"; then
		v=pagerace-fail
	elif cmp -s "$d/hs" "$d/ps"; then
		v=same
	else
		v=differ
	fi
	miss=$(comm -23 "$d/hs" "$d/ps" | wc -l)
	extra=$(comm -13 "$d/hs" "$d/ps" | wc -l)
	# herd7 prints a value no store writes, which LKMM leaves
	# unconstrained (out of thin air), as a symbol (S16).  Such a state
	# is "symbolic" when it alone is missing and every extra state of
	# pagerace's is an instance of one (a symbol read as a number).
	if [ "$v" = differ ] && comm -23 "$d/hs" "$d/ps" | grep -qv '=S[0-9]' ;
	then :
	elif [ "$v" = differ ]; then
		comm -23 "$d/hs" "$d/ps" |
			sed 's/[.+*?^$()|[\]/\\&/g; s/=S[0-9][0-9]*/=-?[0-9]+/g; s/.*/^&$/' >"$d/pat"
		if ! comm -13 "$d/hs" "$d/ps" | grep -Evq -f "$d/pat"; then
			v=symbolic
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n' "$f" "$v" "$pn" "$hn" \
		$(( (t2 - t1) / 1000000 )) $(( (t1 - t0) / 1000000 )) "$miss" "$extra"
	rm -rf "$d"
}
norm() {
	sed 's/;[[:space:]]*$//; s/[[:space:]]//g; s/\[\([^]]*\)\]/\1/g' |
		awk -F';' '{ n = split($0, a, ";"); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? ";" : "") a[i]; print s }' |
		LC_ALL=C sort -u
}
export -f one norm 2>/dev/null
export tmp HERD7 HERD_MODEL PAGERACE tmo
export HERD_LIBDIR="${HERD_LIBDIR:-}"

tr '\n' '\0' <"$tmp/list" |
	xargs -0 -P "$jobs" -I{} bash -c 'one "$1"' _ {} >"$tmp/table"
LC_ALL=C sort "$tmp/table" >"$tmp/sorted"
if [ -n "${OUT:-}" ]; then cp "$tmp/sorted" "$OUT"; else cat "$tmp/sorted"; fi
if [ -n "${HERD_DOC:-}" ]; then
	# shellcheck disable=SC2086
	sh "$srcdir/tools/herd-table.sh" "$tmp/sorted" \
		"${HERD_COMMAND:-make litmus-herd}" $HERD_DOC >/dev/null
fi
awk -F'\t' '{ n[$2]++; t++ } END {
	printf "litmus-herd: %d tests: %d same, %d symbolic, %d differ, %d pagerace-fail, %d herd-fail\n",
		t, n["same"], n["symbolic"], n["differ"], n["pagerace-fail"], n["herd-fail"] > "/dev/stderr"
	exit n["differ"] > 0 }' "$tmp/sorted"
