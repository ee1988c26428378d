#!/bin/sh
# doc/litmus.sh -- corpus conformance: every litmus test of the
# paulmckrcu/litmus collection ($LITMUS_DIR, else ../shared/litmus beside
# the source tree) under sc, tso, weak and lkmm, checked against its Result:
# line (herd7's verdict under LKMM).  Writes doc/litmus.md and the litmus
# section of bench/RESULTS.md (between its "litmus begin/end" markers).
# `make litmus` runs it; not part of `make check`.
#
# Environment: LITMUS_DIR (the corpus), LITMUS_BUDGET (seconds per test
# and model, default 0.25: a test stopped by it is "incomplete"),
# LITMUS_SOMETIMES_BUDGET (under weak, a Sometimes test's whole budget,
# default twice LITMUS_BUDGET: the extra time goes to the witness sampler),
# LITMUS_JOBS (processes side by side, default 2), LITMUS_MODELS (default
# "sc tso weak lkmm"), PAGERACE.
#
# The corpus is GPL test data: it is read where it is, never copied.

PAGERACE=${PAGERACE:-src/pagerace}
srcdir=${top_srcdir:-.}
corpus=${LITMUS_DIR:-$srcdir/../shared/litmus}
budget=${LITMUS_BUDGET:-0.25}
some_budget=${LITMUS_SOMETIMES_BUDGET:-$(echo "$budget" | awk '{ print $1 * 2 }')}
jobs=${LITMUS_JOBS:-2}
models=${LITMUS_MODELS:-sc tso weak lkmm}
out_md=${LITMUS_MD:-$srcdir/doc/litmus.md}
results=${LITMUS_RESULTS:-$srcdir/bench/RESULTS.md}

if [ ! -d "$corpus/auto" ] || [ ! -d "$corpus/manual" ]; then
	echo "doc/litmus.sh: no corpus at $corpus (set LITMUS_DIR)" >&2
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-litmus-corpus.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

(cd "$corpus" && find auto manual -name '*.litmus' | LC_ALL=C sort) >"$tmp/list"
# Each file's Result: word (Never, Sometimes, Always; DATARACE apart),
# one awk over every file (the first Result: line of each).
sed "s|^|$corpus/|" "$tmp/list" | tr '\n' '\0' | xargs -0 awk '
	FNR == 1 { if (prev != "") print prev "\t" (r == "" ? "-" : r); prev = FILENAME; r = "" }
	r == "" && /Result:/ {
		s = $0; sub(/.*Result: */, "", s)
		w = s; sub(/[^A-Za-z].*/, "", w)
		if (s ~ /^[A-Za-z]+ DATARACE/) w = w " DATARACE"
		r = w
	}
	END { if (prev != "") print prev "\t" (r == "" ? "-" : r) }' >"$tmp/results"
total=$(wc -l <"$tmp/list")

for m in $models; do
	t0=$(date +%s.%N)
	# Under sc and tso a Sometimes test missed is mostly one the model
	# cannot reach (it needs reordering they do not do): no extra time.
	extra=
	[ "$m" = weak ] && extra="--sometimes-budget $some_budget"
	sed "s|^|$corpus/|" "$tmp/list" | tr '\n' '\0' |
		xargs -0 -n 40 -P "$jobs" "$PAGERACE" litmus -b -m "$m" \
			-t "$budget" $extra -n 0 --trace-dir "$tmp/traces-$m" \
			>"$tmp/$m.tsv" 2>"$tmp/$m.err"
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.0f\n", $2 - $1 }' >"$tmp/$m.secs"
	echo "litmus corpus under $m: $(cat "$tmp/$m.secs") s" >&2
done

# One table row per model; unsupported constructs and the misses after.
summarise() {	# summarise MODEL
	m=$1
	awk -F'\t' -v m="$m" -v secs="$(cat "$tmp/$m.secs")" -v errf="$tmp/$m.err" '
	FNR == NR { res[$1] = $2; next }
	{
		f = $1; r = res[f]; v = $3
		if (r != "Never" && r != "Sometimes" && r != "Always") next
		ann++
		if (v == "bad-input") { bad++; badf[f] = 1; next }
		if (v == "unsupported-model") { big++; next }
		run++
		if (v == "incomplete") inc[r]++
		if ($5 == "goal-exhaustive") goal++
		if (v == "error") err++
		n[r]++
		if (r == "Never" && v == "disagree") never_reached++
		if (r == "Sometimes" && $7 == "reached") some_reached++
		if (r == "Always" && v == "agree") always_held++
		if ($8 >= 2 && $8 <= 4 && $5 == "exhaustive") {
			small++; ms[small] = $6 + 0
		}
	}
	END {
		# median and max of the 2-4 CPU tests done exhaustively
		for (i = 1; i <= small; i++) for (j = i + 1; j <= small; j++)
			if (ms[j] < ms[i]) { t = ms[i]; ms[i] = ms[j]; ms[j] = t }
		med = small ? ms[int((small + 1) / 2)] : 0
		p99 = small ? ms[int(small * 0.99) > 0 ? int(small * 0.99) : 1] : 0
		printf "| %s | %d | %d (%.1f%%) | %d | %d | %d: %d reached | %d: %d reached (%.1f%%) | %d: %d held | %d | %d | %d | %s s | %.2f / %.2f / %.2f ms (%d tests) |\n",
			m, ann, run, ann ? 100 * run / ann : 0, bad, big,
			n["Never"], never_reached,
			n["Sometimes"], some_reached,
			n["Sometimes"] ? 100 * some_reached / n["Sometimes"] : 0,
			n["Always"], always_held, inc["Never"] + inc["Sometimes"] + inc["Always"],
			goal, err, secs, med, p99, small ? ms[small] : 0, small
	}' "$tmp/results" "$tmp/$m.tsv"
}

unsupported() {	# the parse errors of annotated tests, by construct
	awk -F'\t' '$2 == "Never" || $2 == "Sometimes" || $2 == "Always" { print $1 }' \
		"$tmp/results" >"$tmp/annotated"
	grep -F -f "$tmp/annotated" "$tmp/sc.err" | grep ': error: ' |
		sed 's/^[^:]*:[0-9]*:[0-9]*: error: //; s/^[^:]*: error: //' |
		sed 's/unsupported primitive .*/&/; s/expected .*/syntax: &/' |
		sed "s/'[^']*'/'...'/g" |
		sort | uniq -c | sort -rn | sed 's/^ *\([0-9]*\) \(.*\)/| \2 | \1 |/'
}

missed() {	# missed MODEL: Sometimes tests not reached, by shape (name prefix)
	[ -f "$tmp/$1.tsv" ] || return 0
	awk -F'\t' 'FNR == NR { res[$1] = $2; next }
		res[$1] == "Sometimes" && $3 != "bad-input" && $3 != "unsupported-model" && $7 != "reached" {
			n = split($1, p, "/"); name = p[n]; sub(/\.litmus$/, "", name)
			split(name, q, "+"); k = q[1]
			sub(/-[A-Z]+$/, "", k)
			why = ($5 == "incomplete") ? "budget" : "model"
			c[k " (" why ")"]++
		}
		END { for (k in c) printf "| %s | %d |\n", k, c[k] }' \
		"$tmp/results" "$tmp/$1.tsv" | sort -t'|' -k3 -rn | head -n 25
}

{
	echo "| model | annotated | parsed and run | unsupported construct | too many CPUs for the model | Never: reached (must be 0) | Sometimes: reached | Always: held | incomplete (budget) | decided by the goal search | errors | time (2 cores) | exhaustive 2-4 CPU tests: median / p99 / max |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for m in $models; do summarise "$m"; done
} >"$tmp/table"

host="$(uname -m), $(nproc 2>/dev/null || echo '?') CPUs, $(date -u +%Y-%m-%d)"
# make litmus-herd's section (tools/herd-table.sh) stays as it is
: >"$tmp/herd"
[ -f "$out_md" ] && awk '/^<!-- herd begin -->/ { p = 1 } p { print } /^<!-- herd end -->/ { p = 0 }' \
	"$out_md" >"$tmp/herd"
{
	cat <<HEAD
# LKMM litmus corpus conformance

Generated by \`make litmus\` (doc/litmus.sh) from the paulmckrcu/litmus
collection ($total files; read from \`../shared/litmus\`, never copied:
GPL test data).  Every test runs exhaustively under each memory model
(\`pagerace litmus -b -m MODEL -t $budget\`: dpor, no preemption bound,
at most $budget s per test and model, $jobs processes side by side;
under weak a Sometimes test gets $some_budget s, \`--sometimes-budget\`,
the time beyond $budget s going to the witness sampler) and is checked
against its \`Result:\` line, herd7's verdict under LKMM.
"Annotated" counts the files whose Result: is Never, Sometimes or Always
(the DATARACE, Maybe, DEADLOCK and unannotated ones run too, apart).

Host: $host (a shared machine: times are upper bounds).

HEAD
	cat "$tmp/table"
	cat <<'MID'

How to read it:
- **lkmm** is the kernel's memory model itself (`pagerace litmus -m
  lkmm`, doc/internals.md): not runs on the kernel layer but execution
  graphs, every one that linux-kernel.cat (herdtools7 7.58, with
  lock.cat and the RCU and SRCU axioms) allows, each once
  (src/litmus/graph_enum.c, src/memory/lkmm.c), so its final states
  are herd7's and a Sometimes not reached is a disagreement too.
  "too many CPUs for the model" counts, under lkmm, tests beyond the
  graph engine's limits (more than 64 events, 48 in one process, 32
  values at one location).  No goal search and no sampling: the
  search is exhaustive or, past the budget, incomplete.  Where lkmm
  disagrees with a test's Result: line, herd7 7.58 with the same model
  gives lkmm's verdict too (the Result: lines come from other versions
  of the model; `make litmus-herd`, below): the Never tests
  C-JO-OOTA-3, -5 and -6 and C-non-race4 are Sometimes to herd7 7.58,
  the Sometimes tests C-srcu-nest-5, -7 and -8 Never; C-srcu-mb-3 and
  -5 herd7 7.58 cannot run (it does not know
  smp_mb__after_srcu_read_unlock).
- **Never reached** must be 0 under every model: a reached Never
  condition means pagerace allows what LKMM forbids (a bug in its kernel
  primitives or memory model); `pagerace litmus` saves the run's trace.
- **Sometimes reached** measures how much of LKMM's weakness a model
  covers: sc reaches only outcomes a sequential interleaving gives; tso
  adds store buffering (SB, C-WR); weak (src/memory/memory.h) adds store
  reordering (MP, 2+2W, C-WW), loads that read an older value
  (src/memory/stale.c: read-read reordering, C-RR, WRC and IRIW without
  barriers) and, for litmus tests, load buffering
  (src/litmus/reorder.c: before a load statement a process performs the
  later stores LKMM's preserved program order does not keep after it --
  no dependency, fence, release/acquire, lock or RCU section's
  beginning between (a store after a section's end may move into it);
  their flushes decide when they become visible: LB, C-LB, C-RW and
  C-WW rings).  A grace period drains the buffers of its own CPU and of
  the CPUs whose first RCU/SRCU read-side section began before the
  period did, nobody else's (memory/memory.h: LKMM asks nothing of a
  section that begins after the period began).
  weak stays multi-copy atomic, keeps a store after an smp_rmb and
  inside its read-side section, and orders a store inside an if after
  the load it depends on: stronger than LKMM, never weaker.
- **incomplete**: the search ran out of its per-test budget (a quarter
  of it where the goal search applies, else three quarters, half for
  a Sometimes test; the rest goes to the goal search and sampling,
  below) and nothing decided the verdict.  Mostly tests of 5-8 CPUs
  (rings of RCU readers and grace periods: every order of a reader's
  section against every synchronize_rcu is a distinct execution, and
  under tso and weak every flush order and older value too).  An
  incomplete Never test reached nothing in what it ran; the statement
  says "incomplete", never "exhaustive".
- **Goal search** (src/cli/litmus_goal.c, `pagerace litmus --goal`):
  a Never or Sometimes test whose exists clause fixes registers
  ("P:r=v", r set by one load statement) gets a quarter of its budget
  for the search of every final state; if that does not finish, a
  second search decides the clause alone, on the test cut where a
  process stops right after a load that gives such a register a value
  the clause rejects (that run can no longer satisfy the clause; a run
  where nobody stops is a run of the test, so a witness replays on the
  test itself).  Its dpor takes first, at each new node, the choice the
  witness scorer rates highest (any first choice is sound for
  source-DPOR).  It runs to the end of the budget for a Never test
  (instead of random runs) and to half of it for a Sometimes test of
  at most 5 processes (larger ones keep the search's half and the
  witness sampler's: the goal search lost more of those rings than it
  won, measured on the corpus under weak).
  "decided by the goal search": tests whose goal search completed
  without reaching the clause (the verdict is then final: a Never
  agrees, a Sometimes is unreached by the model), though the
  final-state search did not finish.
- Sampling: a search that stops unfinished leaves the rest of the
  budget to sampled runs that stop when the condition is reached: for
  a Sometimes test (half the budget, and under weak the time
  --sometimes-budget adds) the witness sampler (strategy/witness.c:
  random coins weighted towards the values the exists clause wants each
  load and each location's final value to have, src/litmus/witness.c),
  else random runs under tso and weak.  The witness sampler waits
  rather than spoils: a load that would read a value the clause
  rejects is not taken while anything else can go, nor a flush that
  would leave a location's final value out of reach -- the clause's
  value flushed while another store there, buffered or still to come
  in a process (a constant store outside any if: every run performs
  it), would land after it with none of the wanted value left, or the
  last store there with a rejected value; a run where every choice
  would spoil is abandoned.  A flush is preferred when it brings a
  value a load waiting for it wants and held back when it would take
  one away from a load to come.  Every other run gives each process a
  priority for the whole run (its weights times 4^k, k random in 0..7),
  which holds one process back the way a ring's witness needs (a
  reader's section that must begin after a grace period began).  Only
  the odds change: every run is an ordinary run of the model.  The
  waiting is the sampler's alone: dpor (the final-state and the goal
  search) does not wait -- a load held back until its value is there
  would have to be a blocked context woken by the store it waits for,
  as the runtime's spin-waits are, for the search to stay sound; the
  goal search keeps its cut after a rejected load instead.
  Every sampled run is a run of the model, replayable from its trace:
  a reached Sometimes is a witness ("reached by sampling"); only a
  finished search says a condition is never reached.  A finished search
  samples nothing.
- Address dependencies are tracked per register (src/litmus/interp.c):
  an access whose address was computed from a loaded value reads nothing
  older than that value, and a store whose address or value was computed
  from a load is never performed before it.
- Time per 2-4 CPU test counts parsing, the exhaustive search and
  printing, in a process that runs 40 tests; a finished search includes
  no sampling.  Only searches that finished count: where the goal
  search applies, the search has a quarter of the budget (62 ms at
  0.25 s) instead of three quarters or half, so the slowest 2-4 CPU
  searches now end as "decided by the goal search" or "incomplete" and
  drop out of the median / p99 / max.

## Unsupported constructs (annotated tests, under sc)

| construct | tests |
|---|---|
MID
	unsupported
	cat <<'MID2'

## Sometimes not reached under weak, by test family

The family is the name's first component ("C-LB-LRW", "C-SB-GWR", ...);
"model" means the exhaustive search under weak never reached it (the
outcome needs reordering weak does not do), "budget" that the search was
incomplete.

| family (why) | tests |
|---|---|
MID2
	missed weak
	cat <<'MID3'

## Sometimes not reached under lkmm, by test family

lkmm is exact: a finished search that does not reach a Sometimes
condition disagrees with herd7's recorded verdict ("model": herd7 of
today gives a different verdict than the test's Result: line, or a
bug; `make litmus-herd` compares final-state sets), "budget" that the
search did not finish within the budget.

| family (why) | tests |
|---|---|
MID3
	missed lkmm
	if [ -s "$tmp/herd" ]; then echo; cat "$tmp/herd"; fi
} >"$out_md"

if [ -f "$results" ]; then
	grep -q '<!-- litmus begin -->' "$results" ||
		printf '\n<!-- litmus begin -->\n<!-- litmus end -->\n' >>"$results"
	awk -v tbl="$tmp/table" -v host="$host" -v budget="$budget" '
	/<!-- litmus begin -->/ {
		print
		print ""
		print "## LKMM litmus corpus: `make litmus`"
		print ""
		print "`make litmus` (doc/litmus.sh; LITMUS_BUDGET=" budget " s per test and"
		print "model, 2 processes), " host ".  Details and the unsupported"
		print "constructs in doc/litmus.md."
		print ""
		while ((getline l < tbl) > 0) print l
		print ""
		skip = 1; next
	}
	/<!-- litmus end -->/ { skip = 0 }
	!skip { print }' "$results" >"$tmp/results.md" &&
		cp "$tmp/results.md" "$results"
fi
cat "$tmp/table"
