#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pmustress report: the HTML report of the committed emulated-arm64 results
# and of two hand-made nights of a suite (tests/fixtures/report/, run
# directories with index.json), parsed by html5lib in strict mode with each
# inline SVG parsed as XML (tests/helpers/validate-html), and a headless
# browser where one is installed; what it shows checked against the inputs;
# the text form; --bug on real results; bad inputs and their exit statuses.
. tests/integration/tap.sh

VH=tests/helpers/validate-html
BASE=results/baseline/emulated-arm64
PIDNS=results/baseline/emulated-arm64-pidns
NIGHTS=(tests/fixtures/report/*/)
TASKSET=$BASE/6.1.0-56-arm64/lost-overflow-taskset.json

if ! "$PY" -c 'import html5lib, lxml' 2>/dev/null; then
	skip "report HTML validation" "python3-html5lib or python3-lxml missing (scripts/setup-deps --test)"
	have_validator=
else
	have_validator=1
fi

# ---- the HTML report of the real results and the fixture nights
html=$tmp/report.html
$PMS report "$BASE" "$PIDNS" "${NIGHTS[@]}" -o "$html" 2> "$tmp/err"
ok $? "report of $BASE, $PIDNS and ${#NIGHTS[@]} run directories: exit 0"
[ ! -s "$tmp/err" ]; ok $? "report: nothing on stderr"
! ls "$tmp" | grep -q 'report\.html\.'; ok $? "report: no temp file left beside the output"

if [ -n "$have_validator" ]; then
	$PY $VH "$html" --facts "$tmp/facts.json" > "$tmp/vh.out"
	ok $? "report: strict HTML (html5lib), every inline SVG well-formed XML in the SVG namespace, self-contained"
	[ $? -eq 0 ] || diag < "$tmp/vh.out"

	# The validator itself fails a broken SVG and a parse error, so its ok means something.
	sed '0,/<\/rect>/s//<\/rectangle>/' "$html" > "$tmp/broken-svg.html"
	$PY $VH "$tmp/broken-svg.html" > /dev/null; [ $? -eq 1 ]
	ok $? "validate-html fails a report whose SVG has a mismatched tag"
	sed '0,/<\/p>/s//<\/div>/' "$html" > "$tmp/broken.html"
	$PY $VH "$tmp/broken.html" > /dev/null; [ $? -eq 1 ]
	ok $? "validate-html fails a report with an HTML parse error"
	sed 's|</body>|<img src="http://example.invalid/x.png" alt=""></body>|' "$html" > "$tmp/fetch.html"
	$PY $VH "$tmp/fetch.html" > /dev/null; [ $? -eq 1 ]
	ok $? "validate-html fails a report that fetches an image"

	# Every kernel and label of the inputs is a column and a row.
	"$PY" - "$tmp/facts.json" "$BASE" "$PIDNS" "${NIGHTS[@]}" > "$tmp/axes.out" <<'EOF'
import glob, json, os, sys
f = json.load(open(sys.argv[1]))
kernels, labels = set(), set()
for d in sys.argv[2:]:
    if os.path.exists(os.path.join(d, "index.json")):
        idx = json.load(open(os.path.join(d, "index.json")))
        kernels.add(idx["kernel"]["release"])
        labels.update(r["label"] for r in idx["runs"])
        continue
    for p in glob.glob(os.path.join(d, "*", "*.json")):
        if os.path.basename(p) == "host.json":
            continue
        kernels.add(json.load(open(p))["host"]["kernel"]["release"])
        labels.add(os.path.basename(p)[:-5])
missing = (kernels - set(f["kernels"])) | (labels - set(f["labels"]))
print(f"{len(kernels)} kernels, {len(labels)} labels; missing: {sorted(missing)}")
extra = (set(f["kernels"]) - kernels) | (set(f["labels"]) - labels)
sys.exit(1 if missing or extra or len(f["labels"]) != len(set(f["labels"])) else 0)
EOF
	ok $? "report: every kernel and label of the inputs is a column and a row, once ($(cat "$tmp/axes.out"))"

	cell() {	# cell KERNEL LABEL 'python boolean over c (the cell) and r (the result)'
		"$PY" - "$tmp/facts.json" "$1" "$2" "$3" "${4:-}" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
c = [c for c in f["cells"] if c.get("kernel") == sys.argv[2] and c.get("label") == sys.argv[3]]
r = json.load(open(sys.argv[5])) if sys.argv[5] else None
sys.exit(0 if len(c) == 1 and eval(sys.argv[4], {"c": c[0], "r": r, "f": f}) else 1)
EOF
	}
	cell 6.1.0-56-arm64 lost-overflow-taskset "'fail' in c['classes'] and c['verdict'] == 'fail'"
	ok $? "the failing 6.1 lost-overflow-taskset cell carries the fail class"
	cell 6.1.0-56-arm64 lost-overflow-taskset "'matches armv8pmu-pending-overflow-sched-out' in c['text'] and 'cause: rebind' in c['text']"
	ok $? "that cell names its known bug (armv8pmu-pending-overflow-sched-out) and dominant cause (rebind)"
	cell 6.1.0-56-arm64 lost-overflow-taskset \
		"int(c['lost']) == r['oracle']['lost'] and int(c['overflows']) == r['oracle']['overflows_implied'] and all(abs(float(c[k]) - v) < 1e-12 for k, v in zip(('ci_lo', 'ci_hi'), r['oracle']['loss_rate']['ci95'])) and abs(float(c['loss']) - r['oracle']['loss_rate']['value']) < 1e-12" \
		"$TASKSET"
	ok $? "that cell's loss rate and Wilson interval are the result's oracle.loss_rate"
	cell 6.1.0-56-arm64 aux-pause "'pass' in c['classes'] and 'loss' not in c"
	ok $? "a passing cell without counts: pass class, no rate"
	cell 6.1.0-56-arm64 pidns-userns "'skip' in c['classes']"
	ok $? "a skipped cell carries the skip class"
	cell 6.1.0-56-arm64 hang "'timeout' in c['classes'] and c['verdict'] == 'timeout'"
	ok $? "a run that left no result (timeout in index.json) is a cell with the runner's verdict"
	cell 6.12.117+deb12-arm64 lost-overflow-control "'possibly new' in c['text'] and 'fail' in c['classes']"
	ok $? "a failing cell whose result matches no known bug says possibly new"
	"$PY" - "$tmp/facts.json" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
rated = [c for c in f["cells"] if "loss" in c]
bad = [c for c in rated
       if not 0 <= float(c["ci_lo"]) <= float(c["loss"]) <= float(c["ci_hi"]) <= 1]
print(f"# {len(rated)} cells with a loss rate")
sys.exit(1 if bad or len(rated) < 20 else 0)
EOF
	ok $? "every loss rate's interval is within [0, 1] and brackets the point estimate"
	jtrue "$tmp/facts.json" "d['svg'].get('hist', 0) >= 30"
	ok $? "report: a delta histogram per result with one ($(jget "$tmp/facts.json" "d['svg'].get('hist', 0)") SVGs)"
	jtrue "$tmp/facts.json" "d['svg'].get('trend', 0) == 6 and 'host board1, suite nightly: 2 runs' in d['text']"
	ok $? "report: the two nights of board1's nightly give a trend per label (6)"
	jtrue "$tmp/facts.json" "'<script>alert(1)</script>' in d['text'] and '\"quoted\" \\'single\\'' in d['text'] and d['scripts'] == 0"
	ok $? "a reason with < & and quotes is shown as text, never as markup"
	grep -q 'Wilson' "$html"; ok $? "report: the interval's method is named (Wilson)"
fi

# A real browser, where one is installed: it must build the same table.
browser=
for b in chromium chromium-headless-shell google-chrome; do
	command -v "$b" > /dev/null && browser=$b && break
done
if [ -n "$browser" ]; then
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$html" \
		> "$tmp/dom.html" 2> /dev/null
	grep -q 'class="matrix"' "$tmp/dom.html" && grep -q 'lost-overflow-taskset' "$tmp/dom.html"
	ok $? "$browser (headless) renders the report and builds its matrix"
else
	diag "no headless browser here (chromium, chromium-headless-shell, google-chrome):" \
		"the report is checked by html5lib (strict) and lxml only"
	skip "report in a headless browser" "no headless browser installed"
fi

# ---- one kernel directory, a single result file, and the text form
$PMS report "$BASE/6.12.117+deb12-arm64" -o "$tmp/one.html"; ok $? "report of one kernel's directory: exit 0"
$PMS report "$TASKSET" -o "$tmp/file.html"; ok $? "report of one result file: exit 0"
if [ -n "$have_validator" ]; then
	$PY $VH "$tmp/one.html" > /dev/null && $PY $VH "$tmp/file.html" > /dev/null
	ok $? "both are valid HTML with valid SVG"
fi
# A result with nothing but its scenario and verdict: drawn, its kernel unknown.
echo '{"scenario": "lost-overflow", "verdict": "pass", "reason": "bare"}' > "$tmp/bare.json"
out=$($PMS report --text "$tmp/bare.json"); ok $? "report of a result without a host block: exit 0"
grep -q 'unknown kernel' <<<"$out" && grep -q '^bare  *pass' <<<"$out"
ok $? "... its column is 'unknown kernel', its row its file name"
# --by-input: one matrix per configuration stays apart (the seed matrix).
SEED=results/seed-matrix/2026-11-26
if [ -d "$SEED/vhe-nmi0" ]; then
	out=$($PMS report --text --by-input "$SEED"/*-nmi?); rc=$?
	rows=$(grep -c '^[nv]*hen*-nmi[01]/lost-overflow.xk ' <<<"$out")
	[ $rc -eq 0 ] && [ "$rows" -eq 4 ]; ok $? "report --by-input: the four configurations of the seed matrix keep a lost-overflow row each ($rows)"
	out=$($PMS report --text "$SEED"/*-nmi?)
	[ "$(grep -c 'lost-overflow.xk ' <<<"$out")" -eq 1 ]; ok $? "without --by-input the newest stands for all: one row"
fi
out=$($PMS report --text "$BASE" "${NIGHTS[@]}"); ok $? "report --text: exit 0"
for want in 6.1.0-56-arm64 6.12.117+deb12-arm64 7.2.13+deb14-arm64 lost-overflow-taskset hang \
	'armv8pmu-pending-overflow-sched-out'; do
	grep -qF -- "$want" <<<"$out"; ok $? "report --text shows $want"
done
grep -Eq '^lost-overflow-taskset +fail 5\.52% \[5\.31%, 5\.73%\]' <<<"$out"
ok $? "report --text: the taskset row starts with 6.1's verdict and rate with its interval"
! grep -q $'\a' <<<"$out"; ok $? "report --text: no control character from a reason reaches the terminal"
$PMS report "$BASE" > "$tmp/stdout.html"; ok $? "report without -o writes HTML to stdout"
head -1 "$tmp/stdout.html" | grep -q '^<!DOCTYPE html>'; ok $? "... starting with the doctype"

# ---- --bug: plain text for a mail
bug=$($PMS report --bug "$TASKSET"); ok $? "report --bug on 6.1's failing taskset run: exit 0"
for want in 'pmustress run lost-overflow --mover taskset --duration 1s' 'Kernel:   6.1.0-56-arm64' \
	'MIDR 0x00000000410fd083' 'armv8_pmuv3' 'sample_period=10000' 'exclude_kernel' 'exclude_guest' \
	'matches armv8pmu-pending-overflow-sched-out' 'Expected: ' 'verdict fail' \
	'41462 signals for 43883 overflows' 'First anomalies' 'emulated machine' \
	'Attach:   lost-overflow-taskset.json' 'scripts/kernel-matrix --kernel 6.1'; do
	grep -qF -- "$want" <<<"$bug"; ok $? "--bug names: $want"
done
long=$(awk 'length > 80' <<<"$bug" | wc -l)
[ "$long" -eq 0 ]; ok $? "--bug: every line within 80 columns ($long longer)"
! grep -q '^|' <<<"$bug"; ok $? "--bug: no markdown table"
bug=$($PMS report --bug "$PIDNS/6.1.0-56-arm64/pidns-injected.json"); ok $? "report --bug on a pidns failure: exit 0"
grep -q 'type=1 (software)' <<<"$bug" && grep -q 'possibly new' <<<"$bug" &&
	[ "$(awk 'length > 80' <<<"$bug" | wc -l)" -eq 0 ]
ok $? "--bug on pidns: the scenario's own event attr, possibly new, lines within 80 columns"
bug=$($PMS report --bug results/soak/lost-overflow-1h-6.18.44-fc-v782.json); ok $? "report --bug on the soak result: exit 0"
grep -q 'the counter is a substitute' <<<"$bug" && ! grep -q 'emulated machine' <<<"$bug"
ok $? "--bug: a substitute counter is a caveat, and no emulation caveat where there was none"
bug=$($PMS report --bug "${NIGHTS[0]}odd-reason.json")
grep -qF '3 < 15 signals & "quoted"' <<<"$bug" && ! grep -q $'\a' <<<"$bug"
ok $? "--bug: a reason's specials kept as they are, its control character not"
$PMS report --bug "$TASKSET" -o "$tmp/bug.txt" && cmp -s "$tmp/bug.txt" <($PMS report --bug "$TASKSET")
ok $? "--bug -o FILE writes the same text"

# ---- bad inputs: one line on stderr, the exit status, the output untouched
mkdir -p "$tmp/empty" "$tmp/malformed" "$tmp/notresult" "$tmp/badindex"
echo '{"scenario": "lost-overflow", "verdict": ' > "$tmp/malformed/x.json"
echo '{"hello": 1}' > "$tmp/notresult/x.json"
echo '{"kind": "pmustress-suite-run"}' > "$tmp/badindex/index.json"
echo "keep me" > "$tmp/keep.html"
bad_inputs=(
	"68|$tmp/nonexistent|No such file"
	"68|$tmp/malformed|malformed JSON"
	"68|$tmp/empty|nothing to report"
	"68|$tmp/notresult|none of them a pmustress result"
	"68|$tmp/badindex|not a suite index"
	"68|--bug $tmp/malformed/x.json|malformed JSON"
	"68|--bug $tmp/notresult/x.json|not a pmustress result"
	"68|--bug $BASE|Is a directory"
	"64||report needs"
	"64|--bogus $BASE|unknown option"
	"64|--bug $TASKSET $TASKSET|one result file"
)
for row in "${bad_inputs[@]}"; do
	IFS='|' read -r want args msg <<<"$row"
	# shellcheck disable=SC2086
	$PMS report $args -o "$tmp/keep.html" > /dev/null 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "$msg" "$tmp/err" &&
		[ "$(cat "$tmp/keep.html")" = "keep me" ]
	ok $? "report ${args:-(no arguments)}: exit $want ($rc), one line saying '$msg', output untouched"
done
$PMS report "$BASE" -o 2> "$tmp/err"; rc=$?
[ "$rc" -eq 64 ] && grep -q 'needs a file name' "$tmp/err"; ok $? "report -o without a file: exit 64 ($rc)"
$PMS report "$BASE" -o "$tmp/nonexistent/dir/r.html" 2> "$tmp/err"; rc=$?
[ "$rc" -eq 73 ] && grep -q 'cannot write' "$tmp/err"; ok $? "unwritable output: exit 73 ($rc)"

done_testing
