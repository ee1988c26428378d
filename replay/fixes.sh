# replay/fixes.sh -- the options that fix each finding of doc/findings.md
# (a knob of a later kernel, or the merged protocol), by scenario name:
# one list for replay/budgets.sh and tools/mutants/run.sh, whose controls
# run a finding's scenario with its fix and must find nothing.  Sourced.
fix_of() {	# fix_of NAME: the options, or nothing for a bug scenario
	case $1 in
	f1-*|f8-*) echo -K radix-single-read ;;
	f2-*) echo -K release-no-recheck ;;
	f4-*) echo -K gang-empty-exit ;;
	f5-*) echo -K insert-release ;;
	f9-*) echo -p merged ;;
	f11-*) echo -K spec-rmb ;;
	esac
}
