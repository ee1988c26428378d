#!/bin/sh
# tests/shard_merge.sh -- explore --shard I/N and merge (TAP): the
# summaries of shards 0/3, 1/3, 2/3 merge into the unsharded summary, with
# --keep-going and when the first failure lies in a late shard; their
# traces are the unsharded ones; bad merges exit 2 with one line; the GNU
# parallel recipe of doc/parallel.md (skipped when parallel is absent).

case $PAGERACE in /*) ;; *) PAGERACE=$(pwd)/$PAGERACE ;; esac
srcdir=${abs_top_srcdir:-$(pwd)}
. "$(dirname "$0")/tap.sh"
tap_tmp shard
cd "$tmp" || exit 1

# one_error: exit 2 and one line on stderr mentioning "error"
one_error() {
	"$@" >out 2>err
	[ $? -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q error err
}

# sharded NAME EXPLORE-ARGS...: unsharded into NAME-full/, shards into
# NAME-shards/, merged summary compared with the unsharded one.
sharded() {
	name=$1
	shift
	mkdir -p "$name-full" "$name-shards"
	(cd "$name-full" && "$PAGERACE" explore --json --no-timing "$@" >summary.json)
	for i in 0 1 2; do
		(cd "$name-shards" &&
		 "$PAGERACE" explore --json --no-timing --shard $i/3 "$@" >s$i.json)
	done
	(cd "$name-shards" && "$PAGERACE" merge s2.json s0.json s1.json >merged.json)
	cmp -s "$name-full/summary.json" "$name-shards/merged.json" ||
		{ sed 's/^/# /' "$name-full/summary.json" "$name-shards/merged.json"; return 1; }
}
echo "1..10"

sharded lu -k -n 3000 lost-update
ok $? "lost-update -k: merged shards 0/3 1/3 2/3 = the unsharded summary"
diff -r lu-full/pagerace-traces lu-shards/pagerace-traces >/dev/null
ok $? "lost-update -k: the shards wrote the unsharded run's traces"

sharded sfc -s pct -d 5 -n 150000 "$srcdir/scenarios/spec-free-check.scn"
ok $? "spec-free-check pct, stop at the first failure: merged = unsharded"
grep -q '"failures":0' sfc-shards/s0.json && grep -q '"failures":1' sfc-shards/s2.json
ok $? "its first failure is in shard 2/3, shard 0/3 is clean (the merge skips none)"

sharded clean -n 3000 abba-fixed
ok $? "abba-fixed: merged = unsharded, no failure"

(cd lu-shards && "$PAGERACE" merge s0.json s1.json s2.json >m.json)
[ $? -eq 1 ] && grep -q '"runs":3000' lu-shards/m.json &&
	! grep -q '"elapsed_s"' lu-shards/m.json
ok $? "merge exits 1 on failures; of --no-timing shards, no elapsed_s"

one_error "$PAGERACE" merge lu-shards/s0.json lu-shards/s1.json
ok $? "merge with a shard missing: exit 2, one line"
one_error "$PAGERACE" merge lu-shards/s0.json lu-shards/s1.json sfc-shards/s2.json
ok $? "merge of shards of different explorations: exit 2, one line"
printf '{"program":"x",' >trunc.json
one_error "$PAGERACE" merge trunc.json && one_error "$PAGERACE" merge nonexistent.json &&
	one_error "$PAGERACE" explore --shard 3/3 abba && one_error "$PAGERACE" explore --shard 1 abba
ok $? "truncated or missing summary, bad --shard: exit 2, one line"

# doc/parallel.md's GNU parallel recipe, as written there.
if command -v parallel >/dev/null 2>&1; then
	mkdir gp && cd gp &&
	parallel --will-cite -j 2 "'$PAGERACE'" explore --json --no-timing -k -n 3000 \
		--shard {}/3 lost-update '>' shard{}.json ::: 0 1 2
	"$PAGERACE" merge shard*.json >merged.json
	[ $? -eq 1 ] && cmp -s merged.json ../lu-full/summary.json
	ok $? "GNU parallel runs the shards; merge = unsharded summary"
	cd ..
else
	echo "ok $((n + 1)) # SKIP GNU parallel is not installed"
fi
