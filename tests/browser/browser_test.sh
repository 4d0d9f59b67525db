#!/bin/sh
# browser_test.sh PROGRAM PROGRAM_PG CPT DIR
#
# Run the traced PROGRAM in trace mode and its -pg twin PROGRAM_PG (for
# gprof) in DIR, write the HTML report with `cpt report --format html
# --gprof`, open it in headless chromium and check the DOM it built:
#   - the page's script ran without an exception (#cpt-js-ok, no
#     #cpt-js-error, no uncaught error in chromium's console log),
#   - the procedure table has rows, the timeline SVG has rectangles and
#     the critical-path line,
#   - the file asks for nothing on the network.
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

"$cpt" report scene.cpt --gprof gmon.out --exe "$prog_pg" --format html \
	-o report.html 2>cpt.err || fail "cpt report --format html: $(cat cpt.err)"
[ -s report.html ] || fail "empty report.html"

# self-contained: no scripts, styles, images or fonts from elsewhere
if grep -Eiq '(src|href)=["'"'"']?(https?:)?//' report.html ||
   grep -Eiq '@import|url\((https?:)?//' report.html; then
	fail "report.html refers to the network"
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
run_browser() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--disable-dev-shm-usage --enable-logging=stderr --v=0 \
		--user-data-dir="$profile" "$@"
}

run_browser --dump-dom "file://$dir/report.html" >dom.html 2>chromium.log ||
	fail "chromium --dump-dom failed: $(tail -5 chromium.log)"

grep -q 'id="cpt-js-error"' dom.html &&
	fail "the page's script failed: $(grep -o 'report script error[^<]*' dom.html)"
grep -q 'id="cpt-js-ok"' dom.html ||
	fail "the page's script did not finish (no #cpt-js-ok in the DOM)"
if grep -E 'Uncaught|CONSOLE.*[Ee]rror' chromium.log >/dev/null; then
	fail "console errors: $(grep -E 'Uncaught|CONSOLE' chromium.log | head -3)"
fi

attr() {
	sed -n "s/.*id=\"cpt-js-ok\"[^>]*data-$1=\"\([0-9]*\)\".*/\1/p" dom.html |
		head -1
}
rows=$(attr rows) rects=$(attr rects) cp=$(attr cp)
[ "${rows:-0}" -ge 4 ] || fail "procedure table has ${rows:-no} rows (want >= 4)"
[ "${rects:-0}" -ge 4 ] || fail "timeline has ${rects:-no} rectangles"
[ "${cp:-0}" -ge 1 ] || fail "timeline has no critical-path line"
grep -q '<svg id="timeline"' dom.html || fail "no timeline SVG in the DOM"
grep -q '<table id="procs"' dom.html || fail "no procedure table in the DOM"
for p in read_scene shade_tile write_image; do
	grep -q ">$p<" dom.html || fail "procedure $p missing from the report"
done
grep -q 'gprof self' dom.html || fail "no gprof column"
grep -q 'id="headline"' dom.html || fail "no headline"

run_browser --screenshot="$dir/report.png" --window-size=1280,1800 \
	--hide-scrollbars "file://$dir/report.html" >/dev/null 2>>chromium.log ||
	fail "chromium --screenshot failed"
[ -s report.png ] || fail "no screenshot"

echo "browser_test: ok: $rows table rows, $rects timeline rectangles; screenshot $dir/report.png"
exit 0
