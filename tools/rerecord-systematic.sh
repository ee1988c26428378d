#!/bin/sh
# tools/rerecord-systematic.sh -- after a change to dfs or dpor (or, with
# --all, to anything that moves a sampled run: the yield points a memory
# model or a lock adds), re-record the stored trace of every failing
# scenario whose explore line names a systematic strategy (with --all:
# any strategy), when its first failure moved to another run or its
# schedule changed (the search is deterministic, so replay/budgets.sh
# compares run numbers).  Renames the trace (git mv) and its expected
# report, regenerates the report, and updates traces/local.am and
# replay/local.am.  Run from the source directory after building
# src/pagerace; review with git diff.
set -e
PAGERACE=${PAGERACE:-src/pagerace}
all=
[ "${1:-}" = --all ] && all=1
for f in scenarios/*.scn; do
	name=$(basename "$f" .scn)
	[ -n "$all" ] || grep -Eq '^explore .*strategy (dfs|dpor)' "$f" || continue
	grep -q '^expect pass' "$f" && continue
	old=$(for m in "" -tso -weak; do
		ls traces/scenarios/"$name$m"-dpor-run*.trace \
		   traces/scenarios/"$name$m"-dfs-run*.trace \
		   traces/scenarios/"$name$m"-seed*-run*.trace; done 2>/dev/null |
		head -n 1)
	[ -n "$old" ] || continue
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-rerecord.XXXXXX")
	"$PAGERACE" explore -q --trace-dir "$tmp" --seed 1 "$f" \
		>/dev/null 2>&1 || true
	new=$(ls "$tmp"/*.trace 2>/dev/null | head -n 1)
	if [ -z "$new" ]; then
		echo "$name: no failure any more" >&2
		rm -rf "$tmp"
		continue
	fi
	base=$(basename "$new")
	oldbase=$(basename "$old")
	if [ "$base" = "$oldbase" ] && ! cmp -s "$new" "$old"; then
		echo "$name: $base changed"
		cp "$new" "$old"
		"$PAGERACE" replay "$old" | sh replay/traces.sh --filter \
			>"replay/expected/scenarios/${base%.trace}.report" || true
	elif [ "$base" != "$oldbase" ]; then
		echo "$name: $oldbase -> $base"
		git mv "$old" "traces/scenarios/$base"
		cp "$new" "traces/scenarios/$base"
		oldrep=replay/expected/scenarios/${oldbase%.trace}.report
		newrep=replay/expected/scenarios/${base%.trace}.report
		git mv "$oldrep" "$newrep"
		"$PAGERACE" replay "traces/scenarios/$base" |
			sh replay/traces.sh --filter >"$newrep" || true
		sed -i "s|scenarios/${oldbase%.trace}\.|scenarios/${base%.trace}.|" \
			traces/local.am replay/local.am
	fi
	rm -rf "$tmp"
done
