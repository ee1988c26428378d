# tests/litmus_expect.sh -- sourced by the litmus tests (not a test).
#
# litmus_expect MODEL TABLE: compare the `litmus -b` lines in $tmp/out
# with TABLE, one line per test: "name sc tso weak", each column
# "agree", "unreached" (the verdict without the condition reached) or
# VERDICT:r (the condition reached).  Every search must be exhaustive.
# Mismatches go to $tmp/cmp as "# ..." lines; returns non-zero if any.
litmus_expect() {
	_m=$1
	echo "$2" | while read -r name a b c; do
		[ -n "$name" ] || continue
		case $_m in sc) want=$a ;; tso) want=$b ;; weak) want=$c ;; esac
		line=$(grep "/$name\.litmus	" "$tmp/out")
		got=$(echo "$line" | cut -f3)
		reached=$(echo "$line" | cut -f7)
		cov=$(echo "$line" | cut -f5)
		case $want in
		*:r) w=${want%:r}; r=reached ;;
		*) w=$want; r=not-reached ;;
		esac
		if [ "$got" != "$w" ] || [ "$reached" != "$r" ] ||
		   [ "$cov" != exhaustive ]; then
			echo "# $_m $name: want $w/$r exhaustive, got $got/$reached $cov"
			echo bad
		fi
	done >"$tmp/cmp"
	! grep -q '^bad' "$tmp/cmp"
}
