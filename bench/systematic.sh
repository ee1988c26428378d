#!/bin/sh
# bench/systematic.sh -- executions to the first failure of every failing
# shipped scenario under dpor, under dpor with preemption bounds 1-3
# (bounded partial-order reduction) and under dfs with bounds 1-3,
# deterministic (one number each, no seeds), beside the scenario's own
# explore line.  A search that ends without the bug says "clean" (the
# bound excludes it) or "budget" (stopped at --runs).  Usage:
#     bench/systematic.sh [BUDGET]      (default 300000 executions)

budget=${1:-300000}
PAGERACE=${PAGERACE:-src/pagerace}
srcdir=${abs_top_srcdir:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-sys.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

first() {	# first FILE ARGS...: executions to the first failure
	f=$1
	shift
	"$PAGERACE" explore -q --no-timing -n "$budget" --trace-dir "$tmp" "$@" "$f" \
		>"$tmp/out" 2>&1
	run=$(sed -n 's/.*FAILED at run #\{0,1\}\([0-9]*\).*/\1/p' "$tmp/out" | head -n 1)
	if [ -n "$run" ]; then
		echo $((run + 1))
	elif grep -q '^coverage: incomplete' "$tmp/out"; then
		echo budget
	else
		echo clean
	fi
}

printf '%-22s %8s %8s %8s %8s %8s %8s %8s %8s\n' scenario own dpor \
	bpor-b1 bpor-b2 bpor-b3 dfs-b1 dfs-b2 dfs-b3
for f in "$srcdir"/scenarios/*.scn; do
	grep -q '^expect pass' "$f" && continue
	name=$(basename "$f" .scn)
	own=$(first "$f")
	dpor=$(first "$f" -s dpor)
	p1=$(first "$f" -s dpor --preemption-bound 1)
	p2=$(first "$f" -s dpor --preemption-bound 2)
	p3=$(first "$f" -s dpor --preemption-bound 3)
	b1=$(first "$f" -s dfs --preemption-bound 1)
	b2=$(first "$f" -s dfs --preemption-bound 2)
	b3=$(first "$f" -s dfs --preemption-bound 3)
	printf '%-22s %8s %8s %8s %8s %8s %8s %8s %8s\n' "$name" "$own" "$dpor" \
		"$p1" "$p2" "$p3" "$b1" "$b2" "$b3"
done
