#!/bin/sh
# tests/report_minimize.sh -- the acceptance, for every failing
# built-in program and every page-cache workload with its bug knob (TAP):
#
#   explore finds the failure (PCT, fixed seed);
#   minimize writes a trace with no more preemptions than the original and
#   the same verdict kind, site and object;
#   the minimised trace replays (exit 1);
#   its report names model functions with backtraces (function (file:line));
#   the report is byte-identical across two replays, for the original
#   trace (replay) and the minimised one (show).

. "$(dirname "$0")/tap.sh"
tap_tmp min

# program:knob:pct-depth
PROGRAMS="lost-update:: abba:: message-passing:: spin-livelock:: null-deref::
pc-lookup-truncate:spec-free-check:7 pc-lookup-reuse:no-recheck:3
pc-walk-free:radix-rcu-free:3 pc-irq-alloc:spec-irq:2
pc-add-lookup:add-after-insert:3 pc-reclaim-lookup:no-freeing-flag:3
pc-lock-truncate:lock-no-recheck:3"
PER=6

field() { sed -n "s/^$1 //p" "$2"; }

count=0
for spec in $PROGRAMS; do count=$((count + 1)); done
echo "1..$((count * PER))"

for spec in $PROGRAMS; do
	prog=${spec%%:*}
	rest=${spec#*:}
	knob=${rest%%:*}
	depth=${rest#*:}
	t=$tmp/$prog.trace
	m=$tmp/$prog.min.trace
	set -- -s pct -q -n 50000 -o "$t"
	[ -n "$knob" ] && set -- "$@" -K "$knob"
	[ -n "$depth" ] && set -- "$@" -d "$depth"
	"$PAGERACE" explore "$prog" "$@" >"$tmp/out" 2>&1
	rc=$?
	test "$rc" -eq 1 && test -f "$t"
	ok $? "$prog: explore finds the failure${knob:+ (knob $knob)}"
	if [ "$rc" -ne 1 ] || [ ! -f "$t" ]; then
		sed 's/^/# /' "$tmp/out"
		for i in 2 3 4 5 6; do ok 1 "$prog: no trace"; done
		continue
	fi

	"$PAGERACE" minimize -o "$m" "$t" >"$tmp/min" 2>&1
	rc=$?
	test "$rc" -eq 1 && test -f "$m" && grep -q 'preemptions: ' "$tmp/min"
	ok $? "$prog: minimize writes $(basename "$m") ($(tr -s ' ' <"$tmp/min" | grep -E 'preemptions|steps' | tr '\n' ' '))"
	[ "$rc" -eq 1 ] || sed 's/^/# /' "$tmp/min"

	p0=$(field preemptions "$t")
	p1=$(field preemptions "$m")
	same=0
	for k in verdict-kind verdict-site verdict-obj; do
		[ "$(field $k "$t")" = "$(field $k "$m")" ] || same=1
	done
	test -n "$p1" && test "$p1" -le "$p0" && test "$same" -eq 0
	ok $? "$prog: $p0 -> $p1 preemptions, same verdict ($(field verdict-kind "$t") at $(field verdict-site "$t") on $(field verdict-obj "$t"))"

	"$PAGERACE" replay -q "$m" >/dev/null 2>"$tmp/err"
	test $? -eq 1
	ok $? "$prog: the minimised trace replays and fails again"

	"$PAGERACE" show "$m" >"$tmp/r1" 2>&1
	rc1=$?
	"$PAGERACE" show "$m" >"$tmp/r2" 2>&1
	kind=$(field verdict-kind "$t")
	test "$rc1" -eq 1 && grep -q "^BUG: $kind" "$tmp/r1" &&
		grep -Eq '^   [A-Za-z_][A-Za-z0-9_]* \(src/(model|kernel|programs)/[A-Za-z0-9_]+\.[ch]:[0-9]+\)$' "$tmp/r1"
	rc=$?
	ok $rc "$prog: the report says BUG: $kind and names model functions with backtraces"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/r1" | head -40

	"$PAGERACE" replay "$t" >"$tmp/p1" 2>&1
	"$PAGERACE" replay "$t" >"$tmp/p2" 2>&1
	cmp -s "$tmp/r1" "$tmp/r2" && cmp -s "$tmp/p1" "$tmp/p2" &&
		! grep -Eq '0x[0-9a-f]{8,}' "$tmp/r1" "$tmp/p1"
	ok $? "$prog: reports are byte-identical across two replays, no addresses"
done
