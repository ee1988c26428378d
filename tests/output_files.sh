#!/bin/sh
# tests/output_files.sh -- how explore, show and minimize write output
# files (TAP): a regular file whole (temporary + rename, nothing left
# behind), a symlink's target (the link stays), a FIFO written through
# (not replaced by a regular file), a directory refused with one clear
# line; an unwritable trace folder still shows the failure's verdict
# before the error, and no message doubles its "error:" prefix; a later
# explore removes the temporaries of dead processes.
#
# The explorations name -s random; the trace shown and minimised is
# random's first failing run of lost-update with seed 1, whichever run
# that is (the name is read back, not assumed).
#
# (Devices such as /dev/null and /dev/full are written through the same
# way as a FIFO; they are not used here, since a pagerace without this
# fix would rename a regular file over them when run as root.)

. "$(dirname "$0")/tap.sh"
tap_tmp out
cd "$tmp" || exit 1

one_error_line() {	# exactly one line on stderr, one "error:" in it
	test "$(wc -l <err)" -eq 1 && test "$(grep -o 'error:' err | wc -l)" -eq 1
}
echo "1..11"

# A trace to show and minimize.
"$PAGERACE" explore -s random -q --trace-dir tr lost-update >out 2>err
t=$(ls tr/lost-update-seed1-run*.trace 2>/dev/null | head -1)
test -n "$t" && test -f "$t"
ok $? "explore lost-update saves $t"

# Symlinks: the target is replaced, the link stays a link.
echo old >target.txt
ln -s target.txt link.txt
"$PAGERACE" show -o link.txt "$t" >out 2>err
test -L link.txt && grep -q 'lost-update' target.txt && ! ls ./*.tmp.* 2>/dev/null
ok $? "show -o SYMLINK writes the link's target, keeps the link"

ln -s sub/dangling.trace dangling.trace
mkdir sub
"$PAGERACE" minimize -q -o dangling.trace "$t" >out 2>err
test -L dangling.trace && head -1 sub/dangling.trace | grep -q '^pagerace-trace '
ok $? "minimize -o DANGLING-SYMLINK creates the link's target"

"$PAGERACE" explore -s random -q -o link2.trace --trace-dir tr2 lost-update >out 2>err
ln -sf link2.trace l3.trace
"$PAGERACE" explore -s random -q -o l3.trace --trace-dir tr2 lost-update >out 2>err
test -L l3.trace && test -f link2.trace && ! test -L link2.trace
ok $? "explore -o SYMLINK: the link stays, its target is the trace"

# FIFOs are written through, not replaced.
mkfifo fifo1 fifo2
cat fifo1 >got1 &
"$PAGERACE" show -o fifo1 "$t" >out 2>err
rc=$?
wait
test $rc -eq 1 && test -p fifo1 && grep -q 'lost-update' got1
ok $? "show -o FIFO writes into the FIFO, which stays a FIFO (exit $rc)"

cat fifo2 >got2 &
"$PAGERACE" explore -s random -q -o fifo2 --trace-dir tr3 lost-update >out 2>err
rc=$?
wait
test $rc -eq 1 && test -p fifo2 && head -1 got2 | grep -q '^pagerace-trace '
ok $? "explore -o FIFO writes the trace through (exit $rc)"

# A directory is refused with one line.
mkdir adir
"$PAGERACE" show -o adir "$t" >out 2>err
rc=$?
test $rc -eq 2 && one_error_line && grep -q 'is a directory' err && test -d adir
ok $? "show -o DIRECTORY: exit 2, one line, one 'error:' (exit $rc)"

"$PAGERACE" explore -s random -q -o adir --trace-dir tr4 lost-update >out 2>err
rc=$?
test $rc -eq 2 && grep -q 'is a directory' err &&
	test "$(grep -o 'error:' err | wc -l)" -eq 1
ok $? "explore -o DIRECTORY: exit 2, no doubled 'error:' (exit $rc)"

# An unwritable trace folder (here a regular file): the verdict is still
# printed, then the error.
echo x >notadir
"$PAGERACE" explore -s random --trace-dir notadir/sub lost-update >out 2>err
rc=$?
test $rc -eq 2 && grep -q 'FAILED at run #' out && grep -q 'verdict:' out &&
	test "$(grep -o 'error:' err | wc -l)" -eq 1 && grep -q 'notadir' err
ok $? "unwritable --trace-dir: verdict block printed, one 'error:' (exit $rc)"

# A regular -o file is replaced whole and keeps its permissions.
echo old >reg.trace
chmod 600 reg.trace
"$PAGERACE" explore -s random -q -o reg.trace --trace-dir tr5 lost-update >out 2>err
test "$(stat -c %a reg.trace)" = 600 && head -1 reg.trace | grep -q '^pagerace-trace ' &&
	! ls ./*.tmp.* 2>/dev/null
ok $? "explore -o REGULAR: replaced whole, mode kept, no temporary left"

# Stale temporaries: a dead process's are removed, a live one's stay.
sh -c 'exit 0' &
dead=$!
wait
mkdir -p tr6
echo partial >"tr6/x.trace.tmp.$dead"
echo partial >"tr6/y.trace.tmp.$$"
echo mine >"tr6/notes.tmp.$dead"
"$PAGERACE" explore -s random -q -n 10 --trace-dir tr6 lost-update-fixed >out 2>err
! test -e "tr6/x.trace.tmp.$dead" && test -e "tr6/y.trace.tmp.$$" &&
	test -e "tr6/notes.tmp.$dead"
ok $? "explore removes a dead process's *.trace.tmp.PID, keeps a live one's and other files"

tap_done
