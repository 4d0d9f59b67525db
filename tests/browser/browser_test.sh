#!/bin/sh
# browser_test.sh PROGRAM PROGRAM_PG CPT DIR
#
# Run the traced PROGRAM in trace mode and its -pg twin PROGRAM_PG (for
# gprof) in DIR, write the HTML report with `cpt report --format html
# --gprof`, in memory and streamed (--stream), open each in headless
# chromium and check the DOM it built:
#   - the page's script ran without an exception (#cpt-js-ok, no
#     #cpt-js-error, no uncaught error in chromium's console log),
#   - the procedure table has rows, the timeline SVG has rectangles and
#     the critical-path line,
#   - the file asks for nothing on the network;
# and that both pages draw the same timeline.
# Also saves a screenshot (DIR/report.png) for people to look at.
# Exit 0 pass, 1 fail, 77 skip (no chromium).
set -u

prog=$1 prog_pg=$2 cpt=$3 dir=$4

fail() {
	echo "browser_test: FAIL: $*" >&2
	exit 1
}

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "browser_test: chromium not installed (scripts/setup-deps.sh); skipped" >&2
	exit 77
fi

rm -rf "$dir"
mkdir -p "$dir" || fail "cannot create $dir"
cd "$dir" || fail "cannot enter $dir"

CPTHREAD_MODE=trace CPTHREAD_TRACE=scene.cpt CPTHREAD_REPORT=scene.json \
	CPTHREAD_QUIET=1 "$prog" >prog.out 2>&1 || fail "$prog failed: $(cat prog.out)"
[ -s scene.cpt ] || fail "no trace written"
"$prog_pg" >prog_pg.out 2>&1 || fail "$prog_pg failed"
[ -s gmon.out ] || fail "the -pg program wrote no gmon.out"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
run_browser() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--disable-dev-shm-usage --enable-logging=stderr --v=0 \
		--user-data-dir="$profile" "$@"
}

# check_page PAGE: the checks above on PAGE.html (its DOM in PAGE.dom).
check_page() {
	page=$1
	[ -s "$page.html" ] || fail "empty $page.html"
	# self-contained: no scripts, styles, images or fonts from elsewhere
	if grep -Eiq '(src|href)=["'"'"']?(https?:)?//' "$page.html" ||
	   grep -Eiq '@import|url\((https?:)?//' "$page.html"; then
		fail "$page.html refers to the network"
	fi
	run_browser --dump-dom "file://$dir/$page.html" >"$page.dom" \
		2>"$page.log" ||
		fail "chromium --dump-dom failed: $(tail -5 "$page.log")"
	grep -q 'id="cpt-js-error"' "$page.dom" &&
		fail "$page: the page's script failed: $(grep -o 'report script error[^<]*' "$page.dom")"
	grep -q 'id="cpt-js-ok"' "$page.dom" ||
		fail "$page: the page's script did not finish (no #cpt-js-ok in the DOM)"
	if grep -E 'Uncaught|CONSOLE.*[Ee]rror' "$page.log" >/dev/null; then
		fail "$page: console errors: $(grep -E 'Uncaught|CONSOLE' "$page.log" | head -3)"
	fi
	rows=$(attr "$page" rows) rects=$(attr "$page" rects) cp=$(attr "$page" cp)
	[ "${rows:-0}" -ge 4 ] || fail "$page: procedure table has ${rows:-no} rows (want >= 4)"
	[ "${rects:-0}" -ge 4 ] || fail "$page: timeline has ${rects:-no} rectangles"
	[ "${cp:-0}" -ge 1 ] || fail "$page: timeline has no critical-path line"
	grep -q '<svg id="timeline"' "$page.dom" || fail "$page: no timeline SVG in the DOM"
	grep -q '<table id="procs"' "$page.dom" || fail "$page: no procedure table in the DOM"
	for p in read_scene shade_tile write_image; do
		grep -q ">$p<" "$page.dom" || fail "$page: procedure $p missing from the report"
	done
	grep -q 'gprof self' "$page.dom" || fail "$page: no gprof column"
	grep -q 'id="headline"' "$page.dom" || fail "$page: no headline"
	grep -q '<table id="whatif"' "$page.dom" || fail "$page: no what-if table"
}

attr() {
	sed -n "s/.*id=\"cpt-js-ok\"[^>]*data-$2=\"\([0-9]*\)\".*/\1/p" "$1.dom" |
		head -1
}

# The timeline's SVG of PAGE.html, as written.
timeline() {
	sed -n '/<svg id="timeline"/,/<\/svg>/p' "$1.html"
}

"$cpt" report scene.cpt --gprof gmon.out --exe "$prog_pg" --format html \
	-o report.html 2>cpt.err || fail "cpt report --format html: $(cat cpt.err)"
check_page report
"$cpt" report scene.cpt --gprof gmon.out --exe "$prog_pg" --format html \
	--stream -o report-stream.html 2>cpt-stream.err ||
	fail "cpt report --format html --stream: $(cat cpt-stream.err)"
check_page report-stream
grep -q 'id="streamed"' report-stream.html ||
	fail "the streamed page does not say it was streamed"
timeline report >timeline.svg
timeline report-stream >timeline-stream.svg
cmp -s timeline.svg timeline-stream.svg ||
	fail "the streamed page draws another timeline: diff $dir/timeline.svg $dir/timeline-stream.svg"
rows=$(attr report rows) rects=$(attr report rects)

run_browser --screenshot="$dir/report.png" --window-size=1280,1800 \
	--hide-scrollbars "file://$dir/report.html" >/dev/null 2>>report.log ||
	fail "chromium --screenshot failed"
[ -s report.png ] || fail "no screenshot"

echo "browser_test: ok: $rows table rows, $rects timeline rectangles, in memory and streamed; screenshot $dir/report.png"
exit 0
