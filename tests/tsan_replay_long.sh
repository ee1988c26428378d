#!/bin/sh
# tests/tsan_replay_long.sh -- make regtest: tests/tsan_replay.sh on 200
# fresh pagerace-tsan traces instead of make check's 20.
srcdir=${top_srcdir:-.}
PR_TSAN_TRACES=${PR_TSAN_TRACES:-200} exec ${SHELL:-/bin/sh} "$srcdir/tests/tsan_replay.sh"
