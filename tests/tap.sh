# tests/tap.sh -- the TAP helpers the shell tests share (sourced, not run).
#
#   . "${0%/*}/tap.sh"
#   tap_tmp conv                  a scratch directory $tmp, removed on exit
#   echo "1..N"
#   run 2 "$PAGERACE" explore --bogus; ok $? "bad option: exit 2"
#   tap_done                      exit status: 0 iff every test passed
#
# ok STATUS DESCRIPTION prints one TAP line; when STATUS is not 0 it also
# prints, as TAP comments, the first $TAP_DIAG lines (default 20) of
# $tmp/out and $tmp/err: what run (below) captured, so that a failing
# test's log says why.  skip REASON prints a skipped test.
#
# run WANT COMMAND...: runs COMMAND with its output in $tmp/out and
# $tmp/err and succeeds iff it exits with WANT; the exit status is left
# in $rc.

PAGERACE=${PAGERACE:-src/pagerace}
n=0
failed=0

tap_tmp() {	# tap_tmp NAME
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/pr-$1.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
}

ok() {		# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		if [ -n "${tmp:-}" ]; then
			cat "$tmp/out" "$tmp/err" 2>/dev/null |
				head -n "${TAP_DIAG:-20}" | sed 's/^/# /'
		fi
	fi
}

skip() {	# skip REASON
	n=$((n + 1))
	echo "ok $n # SKIP $1"
}

run() {		# run WANT COMMAND...
	want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test "$rc" -eq "$want"
}

tap_done() {
	test "$failed" -eq 0
	exit $?
}
