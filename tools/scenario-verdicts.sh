#!/bin/sh
# tools/scenario-verdicts.sh -- one line per page-cache scenario: its
# dpor verdict under a memory model, for comparing two binaries after a
# change to dpor or the memory models (weak's clock rule).
#
#   tools/scenario-verdicts.sh PAGERACE [MODEL [RUNS [EXPLORE-OPTION...]]]
#
# Prints: scenario, failures (0 or 1: explore stops at the first),
# executions, coverage ("complete" or "incomplete"), the failing
# outcome's description if any.  MODEL defaults to weak, RUNS (the
# execution budget, deterministic) to 20000.  Compare two binaries'
# outputs with diff: a failure found before and not after is a loss
# unless the budget cut it.
set -u
bin=${1:?usage: tools/scenario-verdicts.sh PAGERACE [MODEL [RUNS]]}
model=${2:-weak}
runs=${3:-20000}
[ $# -ge 3 ] && shift 3 || shift $#
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-scn.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

for f in "$srcdir"/scenarios/*.scn; do
	"$bin" explore -s dpor --memory "$model" -n "$runs" --no-timing \
		--trace-dir "$tmp" --json "$@" "$f" 2>/dev/null |
	awk -v f="$(basename "$f")" '{
		fail = $0; sub(/.*"failures":/, "", fail); sub(/,.*/, "", fail)
		ex = $0; sub(/.*"executions":/, "", ex); sub(/,.*/, "", ex)
		cov = $0; sub(/.*"coverage":"/, "", cov); sub(/".*/, "", cov)
		printf "%s\t%s\t%s\t%s\n", f, fail, ex, cov
	}'
done
