# tools/mutants/apply.awk -- apply one mutant: replace the one block of
# lines of TARGET that equals OLD (each line compared with its leading and
# trailing blanks stripped) by the lines of NEW; print the result.
#
#   awk -f apply.awk OLD NEW TARGET > OUT
#
# Exit 3 (and no output worth keeping) unless OLD occurs exactly once:
# a mutant whose anchor moved or became ambiguous is stale, never applied
# somewhere else.  NEW may be empty (the mutant deletes the block).
function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t\r]+$/, "", s)
	return s
}
FILENAME == ARGV[1] { old[++no] = trim($0); next }
FILENAME == ARGV[2] { new[++nn] = $0; next }
{ line[++nl] = $0 }
END {
	if (no == 0) {
		print "apply.awk: empty anchor" > "/dev/stderr"
		exit 3
	}
	hits = 0
	for (i = 1; i + no - 1 <= nl; i++) {
		ok = 1
		for (j = 1; j <= no; j++)
			if (trim(line[i + j - 1]) != old[j]) {
				ok = 0
				break
			}
		if (ok) {
			hits++
			at = i
		}
	}
	if (hits != 1) {
		print "apply.awk: anchor found " hits " times" > "/dev/stderr"
		exit 3
	}
	for (i = 1; i < at; i++)
		print line[i]
	for (j = 1; j <= nn; j++)
		print new[j]
	for (i = at + no; i <= nl; i++)
		print line[i]
}
