#!/bin/sh
# bench/peer.sh -- the speculative-get micro test under Relacy, after
# bench/spec_micro_pagerace (which make bench runs just before this, with
# the same protocol and scale).  bench/spec_micro_relacy.cpp is compiled
# here with ${CXX_FOR_BENCH:-g++} when
# relacy/relacy.hpp is installed (Debian: apt-get install relacy-dev), and
# skipped with a note otherwise.  Usage: bench/peer.sh [SCALE]
#
# Targets: pagerace >= 10x Relacy's runs/s on the fixed protocol, and at
# most Relacy's runs to the first detection of v1.

scale=${1:-1}
srcdir=${abs_top_srcdir:-.}
CXX=${CXX_FOR_BENCH:-g++}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-peer.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! printf '#include <relacy/relacy.hpp>\nint main() { return 0; }\n' |
	"$CXX" -x c++ -fsyntax-only - >/dev/null 2>&1; then
	echo "relacy: skipped (no $CXX, or relacy/relacy.hpp not installed: apt-get install relacy-dev)"
	exit 0
fi
if ! "$CXX" -std=c++11 -O2 -w -o "$tmp/spec_micro_relacy" \
	"$srcdir/bench/spec_micro_relacy.cpp" 2>"$tmp/err"; then
	echo "relacy: skipped (bench/spec_micro_relacy.cpp does not compile here:)"
	sed 's/^/  /' "$tmp/err" | head -5
	exit 0
fi
"$tmp/spec_micro_relacy" "$scale"
