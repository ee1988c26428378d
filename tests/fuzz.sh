#!/bin/sh
# tests/fuzz.sh -- run the libFuzzer targets for a bounded time (TAP):
# the scenario front end (parser, and a few runs of what parses) with the
# shipped scenarios as seed corpus, the trace reader (and a replay and
# report of what parses) with the shipped traces, the litmus front end
# (parser and runs) with tests/litmus/.  FUZZ_SECONDS (default 15) per
# target.
# Built and run only when configure found libFuzzer (clang).
secs=${FUZZ_SECONDS:-15}
srcdir=${top_srcdir:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..3"
n=0
for t in scenario trace litmus; do
	n=$((n + 1))
	mkdir -p "$tmp/$t"
	case $t in
	scenario) seeds="$srcdir/scenarios" ;;
	trace) seeds="$srcdir/traces" ;;
	litmus) seeds="$srcdir/tests/litmus" ;;
	esac
	# libFuzzer reads seed directories flat: gather the files.
	mkdir -p "$tmp/seed-$t"
	find "$seeds" -type f \( -name '*.scn' -o -name '*.trace' -o -name '*.litmus' \) -exec cp {} "$tmp/seed-$t/" \;
	if tests/fuzz_$t -max_total_time="$secs" -max_len=8192 -seed=1 \
		-artifact_prefix="$tmp/" \
		-print_final_stats=1 "$tmp/$t" "$tmp/seed-$t" >"$tmp/log" 2>&1; then
		echo "ok $n - fuzz_$t: ${secs}s, $(sed -n 's/.*stat::number_of_executed_units: *//p' "$tmp/log") inputs, no crash"
	else
		echo "not ok $n - fuzz_$t crashed"
		# A target's own finding prints its input: show all of it.
		{ grep -a -A 400 '^fuzz_[a-z]*: ' "$tmp/log" ||
		  tail -n 30 "$tmp/log"; } | sed 's/^/# /'
	fi
done
