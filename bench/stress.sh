#!/bin/sh
# bench/stress.sh -- lookups per second of find_get_page in `pagerace
# stress` (real threads, no scheduler) for the locked protocol against v2,
# with 1 and 2 threads: the seeds' argument that lookups no longer contend
# on tree_lock.  The stress command is another issue's; until it exists
# this prints a note and skips.

PAGERACE=${PAGERACE:-src/pagerace}
if ! "$PAGERACE" stress --help >/dev/null 2>&1; then
	echo "stress: skipped ('pagerace stress' does not exist yet)"
	exit 0
fi
echo "stress: 'pagerace stress' exists; its options:"
"$PAGERACE" stress --help | sed 's/^/  /'
echo "stress: lookups/s not measured yet: wire its options in here (bench/stress.sh)"
