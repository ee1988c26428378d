#!/bin/sh
# tests/rooms.sh -- the rooms of src/ include one way (TAP): every
# '#include "ROOM/..."' of a file in src/OTHER/ names a room below OTHER in
# the order below (doc/internals.md), so the include graph between rooms
# has no upward edge and no cycle.  A new room, or one that moves, is
# placed here first.
#
#   cli > scenario litmus report trace programs > check > model > kernel
#       > memory > strategy > runtime > util

. "$(dirname "$0")/tap.sh"
srcdir=${abs_top_srcdir:-.}
rank() {
	case $1 in
	cli) echo 9 ;;
	scenario|litmus|report|trace|programs) echo 8 ;;
	check) echo 7 ;;
	model) echo 6 ;;
	kernel) echo 5 ;;
	memory) echo 4 ;;
	strategy) echo 3 ;;
	runtime) echo 2 ;;
	util) echo 1 ;;
	*) echo 0 ;;
	esac
}
echo "1..2"
unknown="" bad=""
for d in "$srcdir"/src/*/; do
	room=$(basename "$d")
	r=$(rank "$room")
	[ "$r" -gt 0 ] || { unknown="$unknown $room"; continue; }
	for f in "$d"*.c "$d"*.h; do
		[ -f "$f" ] || continue
		for to in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/.*/\1/p' "$f" | sort -u); do
			[ "$to" = "$room" ] && continue
			t=$(rank "$to")
			[ "$t" -gt 0 ] || { unknown="$unknown $to"; continue; }
			[ "$t" -lt "$r" ] ||
				bad="$bad src/$room/$(basename "$f")->$to"
		done
	done
done
[ -z "$unknown" ]
ok $? "every room of src/ has a place in the order${unknown:+; not placed:$unknown}"
[ -z "$bad" ]
ok $? "no include goes up or sideways${bad:+:$bad}"
tap_done
