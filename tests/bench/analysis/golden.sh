#!/bin/sh
# Save every analysis output of cpt on a set of inputs, to diff after a
# change that must not change any output by a byte (not a test).
#
# usage: golden.sh CPT OUTDIR INPUT...
#
# For each INPUT (a trace or a plain-text PAG) writes into OUTDIR, one file
# per run, stdout then stderr: `cpt report` (text, --format json,
# --exclusive, --by thread, --by object), `cpt export --format chrome`,
# `cpt paths --k 50` and `--k 100` (text and json), and
# `cpt whatif` scaling each of the first three procedures of the report by
# 0.5 (and the first by 0).  Then: diff -r OLD NEW.
#
# A random DAG with long paths for the PAG side:
#   python3 -c 'see make_dag below' > dag.pag   (golden.sh --dag FILE N)
set -u

if [ "${1:-}" = "--dag" ]; then
	# A reproducible random DAG of $3 vertices, edges mostly short hops.
	python3 - "$3" > "$2" <<'EOF'
import random, sys
n = int(sys.argv[1]); r = random.Random(18)
for v in range(1, n):
    print("e %d %d %d p%d" % (v - 1, v, r.randrange(1, 1000), v % 7))
    for _ in range(r.randrange(0, 3)):
        u = r.randrange(max(0, v - 50), v)
        print("e %d %d %d q%d" % (u, v, r.randrange(1, 5000), u % 5))
EOF
	exit $?
fi

[ $# -ge 3 ] || { echo "usage: golden.sh CPT OUTDIR INPUT..." >&2; exit 2; }
cpt=$1; out=$2; shift 2
mkdir -p "$out" || exit 1

# run NAME ARGS...: cpt ARGS > OUTDIR/NAME, stderr appended after a rule.
run() {
	name=$1; shift
	"$cpt" "$@" > "$out/$name" 2> "$out/$name.err"
	echo "exit $?" >> "$out/$name.err"
}

for in in "$@"; do
	b=$(basename "$in")
	run "$b.report" report "$in"
	run "$b.report.json" report "$in" --format json
	run "$b.report.excl" report "$in" --exclusive
	for by in thread object; do
		run "$b.by-$by" report "$in" --by $by
	done
	run "$b.chrome" export "$in" --format chrome
	for k in 50 100; do
		run "$b.paths$k" paths "$in" --k $k
		run "$b.paths$k.json" paths "$in" --k $k --format json
	done
	procs=$(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    for p in d["critical_path"]["procedures"][:3]:
        print(p["name"])
except Exception:
    pass' "$out/$b.report.json")
	i=0
	for p in $procs; do
		run "$b.whatif$i" whatif "$in" --scale "$p=0.5"
		[ $i -eq 0 ] && run "$b.whatif0z" whatif "$in" --scale "$p=0" \
			--format json
		i=$((i + 1))
	done
done
