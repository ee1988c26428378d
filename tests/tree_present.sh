#!/bin/sh
# tests/tree_present.sh -- the tree states the present (TAP): no file of
# src/, doc/, tests/, bench/, tools/, scenarios/, replay/ or the README
# names a working branch (the letter h, a number, a letter or two), an
# issue number or a session of work, or
# narrates what the code did before ("since the fifth session", "before
# this release", "History:").  What changed and when is git's business;
# a document says what the code does now and why.  A measurement's date
# beside its figure is allowed.
#
# Each pattern is an extended regular expression matched per line
# (grep -E); the hits are printed as TAP comments, file:line: text.

. "$(dirname "$0")/tap.sh"
srcdir=${abs_top_srcdir:-.}
self=tests/tree_present.sh

# files: the tracked text files of the rooms above (git ls-files where
# the tree is a checkout, find in a tarball), without this script.
files() {
	(cd "$srcdir" || exit 1
	 if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
		git ls-files -- src doc tests bench tools scenarios replay README
	 else
		find src doc tests bench tools scenarios replay README -type f \
		    \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.S' \
		       -o -name '*.sh' -o -name '*.md' -o -name '*.am' \
		       -o -name '*.scn' -o -name '*.litmus' -o -name '*.[15]' \
		       -o -name '*.trace' -o -name '*.in' -o -name README \) \
		    2>/dev/null
	 fi) | grep -v "^$self\$" | LC_ALL=C sort
}

# check DESCRIPTION ERE: one TAP test, failing on any line that matches
check() {
	hits=$(cd "$srcdir" && files | while read -r f; do
		[ -f "$f" ] || continue
		LC_ALL=C grep -InE -- "$2" "$f" /dev/null
	done)
	if [ -z "$hits" ]; then
		ok 0 "$1"
	else
		ok 1 "$1"
		printf '%s\n' "$hits" | head -80 | sed 's/^/# /'
	fi
}

tag='(^|[^[:alnum:]_./-])h[0-9]{1,2}[a-z]{1,2}([^[:alnum:]_-]|$)'
issue='[Ii]ssues? #?[0-9]+|#[0-9]+ \((issue|bug)\)'
session='(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|this|that|previous|earlier) (session|round)s?([^[:alnum:]]|$)|[Rr]e-searched'
past='(Since|Before|Until|As of) (the )?[0-9]{4}-[0-9]{2}-[0-9]{2}|before this (release|commit|change|branch)|^History( under [a-z]+)?:|^#+ History'

echo "1..5"
check "no working-branch tag" "$tag"
check "no issue number" "$issue"
check "no session or round of work" "$session"
check "no narrative of past states" "$past"

# The patterns catch what they are for: each planted line is a hit, and
# the lines the tree does say are not.
tap_tmp present
# (built from pieces, so that this file names no tag or issue itself)
h=h is=iss
printf '%s\n' "measured on ${h}14q" "see ${is}ue 14" 'since the fifth session' \
	'Since 2026-12-05 the walk' >"$tmp/planted"
printf '%s\n' 'the page#3 and node#7 ids' 'h2 headings, 2-h' \
	'the next round of guesses' 'measured 2026-12-05 (2 CPUs)' >"$tmp/clean"
hits=0
for re in "$tag" "$issue" "$session" "$past"; do
	hits=$((hits + $(LC_ALL=C grep -cE -- "$re" "$tmp/planted")))
done
LC_ALL=C grep -qE -- "$tag|$issue|$session|$past" "$tmp/clean"
clean=$?
[ "$hits" -eq 4 ] && [ "$clean" -eq 1 ]
ok $? "the patterns find 4 planted lines and none of 4 present-tense ones"
tap_done
