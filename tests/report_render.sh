#!/bin/sh
# tests/report_render.sh -- show's formats, replay --break-at and bad input
# (TAP).  When Debian's chromium is installed, the HTML picture is rendered
# headless: the screenshot must be non-empty and the rendered page must
# state the expected lane count; otherwise those tests are skipped, saying
# why.

. "$(dirname "$0")/tap.sh"
tap_tmp render

one_line() { test "$(wc -l <"$tmp/err")" -eq 1 && grep -q 'error' "$tmp/err"; }
echo "1..16"

t=$tmp/reuse.trace
"$PAGERACE" explore pc-lookup-reuse -K no-recheck -s pct -q -o "$t" >/dev/null 2>&1
test $? -eq 1 && test -f "$t"
ok $? "a pc-lookup-reuse trace to render"
# contexts that ran a step, from replay --log (step, context, ...)
lanes=$("$PAGERACE" replay -q --log "$t" | awk '{ print $2 }' | sort -u | wc -l)

# text
"$PAGERACE" show "$t" >"$tmp/text" 2>"$tmp/err"
test $? -eq 1 && grep -q '^BUG: bad-lookup on page#1' "$tmp/text" &&
	grep -q '^Timeline' "$tmp/text"
ok $? "show: text report with headline and timeline"

# chrome
"$PAGERACE" show --format=chrome "$t" >"$tmp/c.json" 2>"$tmp/err"
rc=$?
test $rc -eq 1 && grep -q '"traceEvents"' "$tmp/c.json" &&
	grep -q '"thread_name"' "$tmp/c.json" && grep -q '"ph":"X"' "$tmp/c.json"
ok $? "show --format=chrome: trace events with named threads"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["traceEvents"]' "$tmp/c.json"
	ok $? "show --format=chrome: valid JSON (python3)"
else
	skip "python3 not installed: JSON not validated"
fi

# html, to a file
"$PAGERACE" show --format=html -o "$tmp/p.html" "$t" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 1 && test ! -s "$tmp/out" && grep -q "data-lanes=\"$lanes\"" "$tmp/p.html" &&
	grep -q '</html>' "$tmp/p.html" && ! ls "$tmp"/p.html.tmp.* >/dev/null 2>&1
ok $? "show --format=html -o: one self-contained page, $lanes lanes, no temporary left"
! grep -Eq '(src|href)="(http|//)' "$tmp/p.html"
ok $? "show --format=html: no external resources"

"$PAGERACE" show --format=html "$t" >"$tmp/p2.html" 2>/dev/null
cmp -s "$tmp/p.html" "$tmp/p2.html"
ok $? "show --format=html: the same bytes on stdout and in the file, run to run"

# chromium, if installed
if command -v chromium >/dev/null 2>&1; then
	prof=$(mktemp -d "$tmp/prof.XXXXXX")
	CH="chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run --user-data-dir=$prof"
	$CH --screenshot="$tmp/shot.png" --window-size=1280,800 "file://$tmp/p.html" >/dev/null 2>&1
	test -s "$tmp/shot.png"
	ok $? "chromium renders the page to a non-empty screenshot"
	$CH --dump-dom "file://$tmp/p.html" 2>/dev/null >"$tmp/dom"
	grep -q "<span id=\"lanes\">$lanes</span>" "$tmp/dom" &&
		test "$(grep -o 'class="lane"' "$tmp/dom" | wc -l)" -eq "$lanes"
	ok $? "chromium's DOM has $lanes lanes"
else
	skip "chromium not installed: HTML not rendered headless"
	skip "chromium not installed: lane count not checked in a browser"
fi

# replay --break-at: SIGTRAP (5) before the step runs, after --log printed it
"$PAGERACE" replay --log --break-at 5 "$t" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 133 && test "$(awk '$1 ~ /^[0-9]+$/' "$tmp/out" | tail -n 1 | awk '{print $1}')" = 5
ok $? "replay --break-at 5: SIGTRAP at step 5 (status $rc)"
"$PAGERACE" replay --break-at 0 "$t" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && one_line
ok $? "replay --break-at 0: exit 2, one error line"

# bad input
"$PAGERACE" show "$tmp/none.trace" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && one_line
ok $? "show of a missing trace: exit 2, one error line"
"$PAGERACE" show --format=svg "$t" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && one_line
ok $? "show --format=svg: exit 2, one error line"
"$PAGERACE" show -o "$tmp/no/such/dir/x.html" --format=html "$t" >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && one_line && test ! -e "$tmp/no"
ok $? "show -o into a missing directory: exit 2, one error line"
"$PAGERACE" explore lost-update -q -n 2000 -o "$tmp/lu.trace" >/dev/null 2>&1
sed 's/^result fail/result pass/' "$tmp/lu.trace" >"$tmp/passed.trace"
"$PAGERACE" minimize "$tmp/passed.trace" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1
ok $? "minimize of a trace that did not fail: exit 2, one line"
"$PAGERACE" minimize >"$tmp/out" 2>"$tmp/err"
test $? -eq 2 && one_line
ok $? "minimize without a trace: exit 2, one error line"
