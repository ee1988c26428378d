#!/bin/sh
# tests/cli_conventions.sh -- what the command line says, and how (TAP).
#
# Short options mean the same in every command; pagerace(1)'s SYNOPSIS
# names every command; both man pages are `mandoc -T lint` clean (skipped
# without mandoc); explore's wording ("1 failure", "run #3 (the 4th)", no
# empty "outcomes:" heading); the progress line on a terminal (total,
# percentage, ETA; elapsed of the --time budget; skipped without
# script(1)); the --json summary's schema 2 keys (model settings, every
# failing run, the outcome table); merge reads schema 1, refuses a newer
# schema and an interrupted shard; JSON strings keep UTF-8 and replace
# invalid bytes with U+FFFD.

srcdir=${abs_top_srcdir:-$(pwd)}
. "$(dirname "$0")/tap.sh"
tap_tmp conv
cd "$tmp" || exit 1

skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
echo "1..15"

# 1. Short options: one meaning per letter across commands.
for c in explore replay show minimize check merge stress; do
	"$PAGERACE" $c --help | sed -n 's/^  -\([A-Za-z]\), --\([a-z-]*\).*/\1 \2/p' |
		sed "s/\$/ $c/"
done | sort >opts
awk '{ if ($1 in long && long[$1] != $2) { print "-" $1 ": --" long[$1] " (" cmd[$1] ") vs --" $2 " (" $3 ")"; bad = 1 }
       long[$1] = $2; cmd[$1] = $3 } END { exit bad }' opts >out
ok $? "every short option means the same in every command ($(wc -l <opts) uses)"

# 2. The SYNOPSIS names every command.
man1="$srcdir/doc/pagerace.1"
missing=
for c in $("$PAGERACE" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
	sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man1" |
		grep -q "^\.B pagerace $c\$" || missing="$missing $c"
done
test -z "$missing"
ok $? "pagerace(1) SYNOPSIS lists every command${missing:+ (missing:$missing)}"

# 3. mandoc -T lint.
if command -v mandoc >/dev/null 2>&1; then
	mandoc -T lint "$man1" "$srcdir/doc/pagerace-scenario.5" >out 2>&1
	test $? -eq 0 && ! test -s out
	ok $? "mandoc -T lint: both man pages clean"
else
	skip "mandoc not installed"
fi

# 4. Wording: plurals and run numbering.
"$PAGERACE" explore -s random --seed 4 --no-timing --trace-dir tr lost-update >out 2>err
grep -q '^lost-update: FAILED at run #3 (the 4th; seed 4, strategy random)$' out &&
	grep -q '^lost-update: 4 runs, 1 failure (strategy random, seed 4)$' out &&
	grep -q 'schedule: 3 segments, 6 steps, 1 preemption$' out
ok $? "explore: 'run #3 (the 4th)', '1 failure', '1 preemption'"

# 5. No empty outcomes: heading when every row is forbidden.
cat >forb.scn <<'SCN'
protocol v2
init {
    m0[0]
}
cpu 0 {
    r0 = find_get_page m0 0
    put r0
}
cpu 1 {
    r0 = find_get_page m0 0
    put r0
}
forbidden 0:r0 == null "the page vanished"
explore strategy random runs 50 seed 1
SCN
"$PAGERACE" explore --no-timing --trace-dir tr forb.scn >out 2>err
rc=$?
test $rc -eq 0 && grep -q '50 runs, 0 failures' out && ! grep -q '^outcomes:' out
ok $? "only forbidden outcomes: no empty 'outcomes:' heading (exit $rc)"

# 6. The progress line on a terminal.
if command -v script >/dev/null 2>&1; then
	script -qec "'$PAGERACE' explore -n 3000000 --trace-dir tr lost-update-fixed" /dev/null >out 2>&1
	grep -q '/3000000 runs ([0-9]*%), .*ETA [0-9]' out
	ok $? "progress with --runs: done/total, percentage, ETA"
	script -qec "'$PAGERACE' explore -t 1 --trace-dir tr lost-update-fixed" /dev/null >out 2>&1
	grep -q 'elapsed of 1s' out
	ok $? "progress with --time: elapsed of the budget"
else
	skip "script(1) not installed"
	skip "script(1) not installed"
fi

# 7. --json: schema 2, model settings, every failing run, outcomes.
"$PAGERACE" explore --json --no-timing -k -n 40 --trace-dir tr lost-update >out 2>err
nf=$(grep -o '"failures":[0-9]*' out | cut -d: -f2)
nl=$(grep -o '"failed_runs":\[.*\]' out | grep -o '"run":' | wc -l)
grep -q '^{"schema":2,' out && grep -q '"protocol":"v2","knobs":\[\],"radix_shift":2,"max_steps":100000,"memory":"sc"' out &&
	grep -q '"interrupted":false' out && test "$nf" -gt 1 && test "$nl" -eq "$nf"
ok $? "--json -k: schema 2, model settings, failed_runs lists all $nf failures"

"$PAGERACE" explore --json --no-timing -n 100 --trace-dir tr \
	"$srcdir/scenarios/insert-lookup.scn" >out 2>err
grep -q '"outcomes":\[{"class":"acceptable","count":[0-9]*,"description":"' out &&
	grep -q '"unclassified":0' out && grep -q '"knobs":\["' out
ok $? "--json of a scenario: its outcome table and knobs"

# 8. merge: schema 1 read, a newer schema and an interrupted shard refused.
"$PAGERACE" explore --json --no-timing -n 100 --shard 0/2 --trace-dir tr abba-fixed >s0.json &&
"$PAGERACE" explore --json --no-timing -n 100 --shard 1/2 --trace-dir tr abba-fixed >s1.json
# Schema 1: no schema key and none of version 2's.
sed -e 's/"schema":2,//' -e 's/,"interrupted":false//' \
    -e 's/,"protocol":"v2","knobs":\[\],"radix_shift":2,"max_steps":100000,"memory":"sc"//' \
    -e 's/,"failed_runs":\[\]//' s1.json >s1v1.json
"$PAGERACE" merge s0.json s1v1.json >out 2>err
rc=$?
test $rc -eq 0 && grep -q '"runs":100,"failures":0' out && ! grep -q schema s1v1.json
ok $? "merge reads a schema-1 summary beside a schema-2 one (exit $rc)"

sed 's/"schema":2/"schema":99/' s1.json >s99.json
"$PAGERACE" merge s0.json s99.json >out 2>err
rc=$?
test $rc -eq 2 && grep -q 'schema 99 is newer' err && test "$(wc -l <err)" -eq 1
ok $? "merge refuses schema 99 with one clear line (exit $rc)"

sed 's/"interrupted":false/"interrupted":true,"signal":"SIGINT"/' s1.json >sint.json
"$PAGERACE" merge s0.json sint.json >out 2>err
rc=$?
test $rc -eq 2 && grep -q 'interrupted by SIGINT' err
ok $? "merge refuses an interrupted shard (exit $rc)"

printf '{"schema":2,\n  "program": }\n' >syn.json
"$PAGERACE" merge syn.json >out 2>err
rc=$?
test $rc -eq 2 && grep -q '^syn.json:2:[0-9]*: error: ' err
ok $? "merge of malformed JSON: FILE:LINE:COL: error (exit $rc)"

# 9. JSON strings: UTF-8 kept, invalid bytes become U+FFFD.
u=$(printf 'tr\303\251es')
"$PAGERACE" explore -s random --seed 4 --json -q --trace-dir "$u" lost-update >out 2>err
grep -q "\"trace\":\"$u/lost-update-seed4-run3.trace\"" out
ok $? "--json keeps a UTF-8 trace folder name as it is"

l=$(printf 'tr\351es')
"$PAGERACE" explore -s random --seed 4 --json -q --trace-dir "$l" lost-update >out 2>err
grep -q '"trace":"tr\\ufffdes/lost-update-seed4-run3.trace"' out
ok $? "--json writes a Latin-1 byte as \\ufffd (valid JSON)"

tap_done
