#!/bin/sh
# tools/herd-table.sh -- the lkmm-against-herd7 section of doc/litmus.md
# and bench/RESULTS.md, from tools/litmus-herd.sh's table.
#
#   tools/herd-table.sh TABLE.tsv "COMMAND" [FILE.md...]
#
# Prints the section (a summary row per corpus, then every test whose
# sets are not the same) and, for each FILE.md given, puts it between the
# file's "<!-- herd begin -->" and "<!-- herd end -->" lines (appended
# when the file has none): the whole section in the first file, the
# summary and a pointer to the first in the others.  A corpus is the folder a test's path names
# after ".../litmus/" (auto, manual) or "catalogue" for herdtools7's.

set -u
tsv=$1 cmd=$2
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-herdtab.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

{
	echo "## lkmm against herd7: final-state sets"
	echo
	echo "\`$cmd\`, $(uname -m), $(nproc 2>/dev/null || echo '?') CPUs, $(date -u +%Y-%m-%d):"
	echo "for every test, the final states \`pagerace litmus -m lkmm\` lists"
	echo "against those herd7 7.58 lists with the kernel's model of the same"
	echo "version (\`tools/herd-model.sh\`), compared state by state on the"
	echo "variables herd7 shows.  *symbolic*: equal but for a state herd7"
	echo "prints with a symbolic value (S16: a value no store writes, which"
	echo "LKMM leaves unconstrained -- out of thin air); pagerace names only"
	echo "values some store writes, so such a state is missing or appears as"
	echo "its instances.  *herd-fail*: herd7 timed out or rejected the test;"
	echo "*pagerace-fail*: pagerace timed out or rejected it.  ms: the wall time"
	echo "of each tool's process on the test, side by side."
	echo
	echo "| corpus | tests | same | symbolic | differ | pagerace-fail | herd-fail | median ms, pagerace / herd7 | max ms, pagerace |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '
	function corpus(f,   c) {
		if (f ~ /\/catalogue\//) return "herdtools7 catalogue/linux"
		if (f ~ /\/auto\//) return "litmus auto/"
		if (f ~ /\/manual\//) return "litmus manual/"
		return "other"
	}
	{
		c = corpus($1); n[c]++; v[c, $2]++
		if ($2 == "same" || $2 == "symbolic") {
			k = ++m[c]; p[c, k] = $5 + 0; h[c, k] = $6 + 0
			if ($5 + 0 > mx[c]) mx[c] = $5 + 0
		}
	}
	function med(a, c, cnt,   i, j, t, s) {
		for (i = 1; i <= cnt; i++) s[i] = a[c, i]
		for (i = 2; i <= cnt; i++) { t = s[i]; for (j = i - 1; j >= 1 && s[j] > t; j--) s[j + 1] = s[j]; s[j + 1] = t }
		return cnt ? s[int((cnt + 1) / 2)] : 0
	}
	END {
		for (c in n)
			printf "| %s | %d | %d | %d | %d | %d | %d | %d / %d | %d |\n",
				c, n[c], v[c, "same"], v[c, "symbolic"], v[c, "differ"],
				v[c, "pagerace-fail"], v[c, "herd-fail"],
				med(p, c, m[c]), med(h, c, m[c]), mx[c]
	}' "$tsv" | LC_ALL=C sort
} >"$tmp/summary"
{
	echo
	echo "Tests whose sets are not the same (states: pagerace / herd7; missing: herd7's states pagerace lacks; extra: the reverse):"
	echo
	echo "| test | verdict | states | missing | extra | ms, pagerace / herd7 | why |"
	echo "|---|---|---|---|---|---|---|"
	awk -F'\t' '
	# what is known of a test herd7 and pagerace part on
	function why(f, v) {
		if (v == "symbolic") return "herd7 lists an out-of-thin-air value as a symbol"
		if (f ~ /spinlock-is-locked-self/) return "herd7 7.58 finds no execution of spin_is_locked on a lock its own process holds; herdtools7 of today (its .litmus.expected) lists this one state"
		if (f ~ /C-srcu-mb-/) return "herd7 7.58 does not know smp_mb__after_srcu_read_unlock"
		if (v == "herd-fail" && $6 + 0 >= 9000) return "herd7 timed out"
		return ""
	}
	$2 != "same" {
		f = $1; sub(/.*\/(litmus|linux\/tests)\//, "", f)
		printf "| `%s` | %s | %s / %s | %s | %s | %s / %s | %s |\n", f, $2, $3, $4, $7, $8, $5, $6, why($1, $2)
	}' "$tsv"
} >"$tmp/tests"
cat "$tmp/summary" "$tmp/tests" >"$tmp/section"
cat "$tmp/section"
# The first file gets the tests that differ too, the others a pointer.
first=${1:-}
{ cat "$tmp/summary"; echo; echo "The tests whose sets are not the same, and why: ${first:-doc/litmus.md}."; } >"$tmp/short"

for md in "$@"; do
	[ -f "$md" ] || continue
	grep -q '^<!-- herd begin -->' "$md" ||
		printf '\n<!-- herd begin -->\n<!-- herd end -->\n' >>"$md"
	sec=$tmp/short
	[ "$md" = "$first" ] && sec=$tmp/section
	awk -v sec="$sec" '
	/^<!-- herd begin -->/ { print; print ""; while ((getline l < sec) > 0) print l; print ""; skip = 1; next }
	/^<!-- herd end -->/ { skip = 0 }
	!skip { print }' "$md" >"$md.tmp.$$" && mv "$md.tmp.$$" "$md"
done
