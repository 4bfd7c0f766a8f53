#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pmustress export: a suite run directory as KTAP, JUnit XML and KCIDB, each
# checked by a real consumer: tests/helpers/ktap-check (KTAP v1 grammar from
# ktap.rst, itself shown to reject broken KTAP), xmllint against Jenkins'
# JUnit XSD, python3-jsonschema against kcidb-io's schema.  Then the CLI's
# bad inputs, and a live lost-overflow run here exported the same way.
. tests/integration/tap.sh

FIX=tests/fixtures/suite-run/20261125T200348Z-pms-guest-6.12.117+deb12-arm64
XSD=tests/fixtures/schemas/junit-10.xsd
KCIDB_SCHEMA=tests/fixtures/schemas/kcidb-io.schema.v5.3.json
KTAP_CHECK=tests/helpers/ktap-check

# kcidb_valid FILE: the KCIDB document against the schema (draft-07, as kcidb-io does)
kcidb_valid() {
	"$PY" - "$KCIDB_SCHEMA" "$1" <<'EOF'
import json, sys
from jsonschema import Draft7Validator
schema = json.load(open(sys.argv[1]))
Draft7Validator.check_schema(schema)
errs = list(Draft7Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
for e in errs[:3]:
    print("kcidb: %s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:200]))
sys.exit(1 if errs else 0)
EOF
}

# --- KTAP

$PMS export --ktap "$FIX" > "$tmp/out.ktap"; ok $? "export --ktap exits 0"
out=$($PY $KTAP_CHECK "$tmp/out.ktap"); ok $? "ktap-check accepts it: $out"
[ "$out" = "ok: 9 tests: 2 pass, 4 fail, 2 skip, 1 xfail; 32 subtests; depth 2" ]
ok $? "9 runs: 2 pass, 4 fail (fail, timeout, crash, error), 2 skip (skip, environment), 1 expected fail"
grep -q '^not ok 7 lost-overflow-hang # TIMEOUT timeout after 120 s' "$tmp/out.ktap"
ok $? "a timeout is not ok with a TIMEOUT directive"
grep -q '^# lost-overflow-kernel: setup failed: perf_event_open(2) refused "cycles"' "$tmp/out.ktap" &&
	grep -q '^not ok 9 lost-overflow-kernel # ERROR setup failed' "$tmp/out.ktap"
ok $? "an error is not ok, with its reason on a diagnostic line and after ERROR"
grep -q '^ok 5 pidns-userns # SKIP the inside observer cannot open' "$tmp/out.ktap"
ok $? "a skip is ok # SKIP with the result's reason"
grep -q '^ok 6 st-mover+fork-churn # SKIP environment: not a kernel bug' "$tmp/out.ktap" &&
	grep -q '^  ok 7 lost # SKIP count=17259 put down to the environment' "$tmp/out.ktap"
ok $? "an environment verdict is a SKIP, its non-zero classes skipped, not failed"
grep -q '^  not ok 7 lost # count=67$' "$tmp/out.ktap" && grep -q '^not ok 3 disable-storm$' "$tmp/out.ktap"
ok $? "a fail: the lost class fails with its count, and so does the run"
grep -q '^ok 4 disable-storm-mover # XFAIL 22 overflows lost' "$tmp/out.ktap"
ok $? "a fail the plan expected is ok # XFAIL"
grep -q '^  not ok 3 period_storm\|^  ok 2 race # SKIP needs an AUX-area PMU' "$tmp/out.ktap"
ok $? "a scenario's own sub-tests are subtests (aux-pause race skipped, with why)"
grep -q '^  # attr: type=0 (hardware) config=0x0 sample_period=10000 exclude_user=0 exclude_kernel=1' "$tmp/out.ktap" &&
	grep -q '^  # pmu: armv8_pmuv3, counter cycles' "$tmp/out.ktap" &&
	grep -q '^  # kernel: 6.12.117+deb12-arm64 #1 SMP' "$tmp/out.ktap"
ok $? "diagnostic lines for kernel, PMU and attr"

# The checker must reject what is not KTAP: each mutation of the good output.
mutate() {	# NAME SED-SCRIPT
	sed "$2" "$tmp/out.ktap" > "$tmp/bad.ktap"
	out=$($PY $KTAP_CHECK "$tmp/bad.ktap"); rc=$?
	ok $([ $rc -eq 1 ] && [[ $out == "ktap-check: line "* ]]; echo $?) "ktap-check rejects $1 ($out)"
}
mutate "a missing version line" '1d'
mutate "a plan that promises more" 's/^1\.\.9$/1..10/'
mutate "a nested plan that promises fewer" '0,/^  1\.\.8$/s//  1..7/'
mutate "a test out of order" 's/^ok 5 pidns-userns/ok 6 pidns-userns/'
mutate "an indentation of three spaces" '0,/^  ok 1 late/s//   ok 1 late/'
mutate "an ok parent of a failing subtest" 's/^not ok 3 disable-storm$/ok 3 disable-storm/'
mutate "a TIMEOUT on an ok line" 's/^not ok 7 lost-overflow-hang/ok 7 lost-overflow-hang/'
mutate "a result line that is not one" 's/^ok 1 sigtrap$/okay 1 sigtrap/'
mutate "output cut short" '$d'
printf 'KTAP version 1\n1..1\nok 1 a#b\n' > "$tmp/bad.ktap"
$PY $KTAP_CHECK "$tmp/bad.ktap" > /dev/null; ok $([ $? -eq 1 ]; echo $?) "ktap-check rejects a '#' in a name"
printf 'KTAP version 1\n1..2\n  KTAP version 1\n  1..1\n  ok 1 x # SKIP why\nok 1 g\n# diag\nok 2 h\n' |
	$PY $KTAP_CHECK > /dev/null
ok $? "ktap-check accepts a minimal nested group with a skip and a diagnostic"

# --- JUnit

$PMS export --junit "$FIX" -o "$tmp/out.xml"; ok $? "export --junit -o FILE exits 0"
out=$(xmllint --noout --schema "$XSD" "$tmp/out.xml" 2>&1); ok $? "xmllint: valid against Jenkins' junit-10.xsd ($out)"
"$PY" - "$tmp/out.xml" "$FIX/index.json" <<'EOF'
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
index = json.load(open(sys.argv[2]))
suite = root.find("testsuite")
cases = {c.get("name"): c for c in suite.findall("testcase")}
props = {p.get("name"): p.get("value") for p in suite.find("properties")}
runs = {r["label"]: r for r in index["runs"]}
assert list(cases) == [r["label"] for r in index["runs"]], list(cases)
assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("9", "4", "3")
for label, c in cases.items():
    r = runs[label]
    assert c.get("classname") == "pmustress." + r["scenario"], c.get("classname")
    assert abs(float(c.get("time")) - r["duration_s"]) < 0.001
    f, s = c.find("failure"), c.find("skipped")
    want = {"pass": None, "fail": "failure", "skip": "skipped", "environment": "skipped",
            "error": "failure", "timeout": "failure", "crash": "failure"}[r["verdict"]]
    if r["verdict"] == "fail" and r["as_expected"]:
        want = "skipped"
    got = "failure" if f is not None else "skipped" if s is not None else None
    assert got == want, (label, got, want)
    # The message round-trips exactly: quotes, <, & and all.
    if got:
        assert (f if f is not None else s).get("message") == r["reason"], label
assert props["kernel.release"] == "6.12.117+deb12-arm64" and props["arch"] == "aarch64"
assert props["disable-storm.pmu"] == "armv8_pmuv3"
assert props["disable-storm.attr.exclude_kernel"] == "1" and props["disable-storm.attr.sample_period"] == "10000"
assert props["disable-storm.result"] == "disable-storm.json"
EOF
ok $? "JUnit read back: a testcase per run, failure/skipped per verdict, messages exact, properties"
grep -q 'refused &quot;cycles&quot; with exclude_kernel=0: EACCES &amp; kernel.perf_event_paranoid=3 (&lt;= 1' "$tmp/out.xml"
ok $? "JUnit escapes quotes, & and < in attributes"
if "$PY" -c 'import lxml' 2>/dev/null; then
	"$PY" -c 'import sys; from lxml import etree; s = etree.XMLSchema(etree.parse(sys.argv[1])); s.assertValid(etree.parse(sys.argv[2]))' \
		"$XSD" "$tmp/out.xml"
	ok $? "python3-lxml: valid against the XSD too"
else
	skip "python3-lxml validation" "python3-lxml not installed (scripts/setup-deps --test)"
fi
sed 's/<testcase name="sigtrap"/<testcase/' "$tmp/out.xml" > "$tmp/bad.xml"
xmllint --noout --schema "$XSD" "$tmp/bad.xml" 2>/dev/null; ok $([ $? -ne 0 ]; echo $?) "xmllint rejects a testcase with no name"

# --- KCIDB

$PMS export --kcidb "$FIX" -o "$tmp/kcidb.json"; ok $? "export --kcidb -o FILE exits 0"
out=$(kcidb_valid "$tmp/kcidb.json"); ok $? "valid against kcidb-io schema 5.3 $out"
jtrue "$tmp/kcidb.json" "d['version'] == {'major': 5, 'minor': 3} and len(d['checkouts']) == 1 and len(d['builds']) == 1 and d['builds'][0]['checkout_id'] == d['checkouts'][0]['id'] and d['builds'][0]['architecture'] == 'arm64'"
ok $? "KCIDB: version 5.3, one checkout and one build (arm64) for the kernel"
jtrue "$tmp/kcidb.json" "[t['status'] for t in d['tests']] == ['PASS', 'PASS', 'FAIL', 'FAIL', 'SKIP', 'SKIP', 'ERROR', 'ERROR', 'ERROR']"
ok $? "KCIDB statuses: pass PASS, fail FAIL (expected or not), skip and environment SKIP, timeout/crash/error ERROR"
jtrue "$tmp/kcidb.json" "all(t['origin'] == 'pmustress' and t['id'].startswith('pmustress:') and t['build_id'] == d['builds'][0]['id'] for t in d['tests']) and len({t['id'] for t in d['tests']}) == 9"
ok $? "KCIDB: origin pmustress, 9 distinct pmustress: ids, each on the build"
jtrue "$tmp/kcidb.json" "d['tests'][5]['path'] == 'pmustress.lost-overflow.st-mover_fork-churn' and d['tests'][2]['path'] == 'pmustress.disable-storm.disable-storm'"
ok $? "KCIDB paths dotted, the '+' KCIDB does not allow made '_'"
jtrue "$tmp/kcidb.json" "d['tests'][2]['output_files'] == [{'name': 'disable-storm.json', 'url': 'file:disable-storm.json'}] and d['tests'][5]['output_files'][0]['url'] == 'file:st-mover%2Bfork-churn.json' and d['tests'][2]['log_url'] == 'file:disable-storm.log' and 'output_files' not in d['tests'][6]"
ok $? "KCIDB output_files: the result JSON as a file: URL relative to the run directory"
jtrue "$tmp/kcidb.json" "d['tests'][2]['start_time'] == '2026-11-25T20:03:48Z' and d['tests'][2]['duration'] == 1.4 and d['tests'][2]['log_excerpt'].startswith('67 overflows lost') and 'pms-guest' in d['tests'][0]['environment']['comment'] and d['tests'][5]['misc']['verdict'] == 'environment'"
ok $? "KCIDB: start_time, duration, log_excerpt, environment comment with the host, verdict in misc"
$PMS export --kcidb "$FIX" --url-base https://ci.example.org/run/42 > "$tmp/kcidb-url.json"
jtrue "$tmp/kcidb-url.json" "d['tests'][0]['output_files'][0]['url'] == 'https://ci.example.org/run/42/sigtrap.json'"
ok $? "--url-base: output files under the published URL"
mkdir "$tmp/kdir"
$PMS export --kcidb "$FIX" -o "$tmp/kdir" && [ -f "$tmp/kdir/kcidb.json" ] && [ "$(ls "$tmp/kdir")" = kcidb.json ]
ok $? "--kcidb -o DIR writes DIR/kcidb.json and nothing else (no temp file left)"
"$PY" - "$tmp/kcidb.json" "$tmp/bad-kcidb.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["tests"][0]["status"] = "BROKEN"
d["tests"][1]["path"] = "pmustress.st-mover+fork-churn"
json.dump(d, open(sys.argv[2], "w"))
EOF
kcidb_valid "$tmp/bad-kcidb.json" > /dev/null; ok $([ $? -eq 1 ]; echo $?) "the schema rejects a bad status and a '+' in a path"

# --- the command's bad inputs: one line, a distinct status, no output file

bad() {	# STATUS DESCRIPTION ARGS...
	local want=$1 what=$2; shift 2
	$PMS export "$@" > "$tmp/stdout" 2> "$tmp/stderr"; rc=$?
	ok $([ $rc -eq "$want" ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] && [ ! -s "$tmp/stdout" ]; echo $?) \
		"export $what: exit $want, one line ($(head -c 120 "$tmp/stderr"))"
}
bad 64 "with no arguments"
bad 64 "with two formats" --ktap --junit "$FIX"
bad 64 "with no directory" --ktap
bad 64 "with an unknown option" --ktap --html "$FIX"
bad 64 "with -o and no file" --junit "$FIX" -o
bad 64 "--url-base without --kcidb" --junit "$FIX" --url-base http://x
bad 68 "of a missing directory" --ktap "$tmp/nope"
mkdir -p "$tmp/empty"
bad 68 "of a directory with no index.json" --junit "$tmp/empty"
mkdir -p "$tmp/malformed" && echo '{"kind": ' > "$tmp/malformed/index.json"
bad 68 "of a malformed index.json" --kcidb "$tmp/malformed"
mkdir -p "$tmp/other" && cp "$FIX/disable-storm.json" "$tmp/other/index.json"
bad 68 "of a result file posing as an index" --ktap "$tmp/other"
bad 73 "into a directory that does not exist" --junit "$FIX" -o "$tmp/no/such/out.xml"
$PMS export --ktap "$FIX" -o "$tmp/out2.ktap" && cmp -s "$tmp/out.ktap" "$tmp/out2.ktap"
ok $? "-o FILE writes what stdout gets"

# --- live: a real run here, in a hand-made run directory, exported three ways

live=$tmp/live
mkdir -p "$live"
$PMS run lost-overflow --duration 1s --json "$live/lo.json" > "$live/lo.log" 2>&1
rc=$?
ok $([ -f "$live/lo.json" ]; echo $?) "live: lost-overflow ran here (exit $rc) and wrote its result"
"$PY" - "$live" "$rc" <<'EOF'
import json, os, socket, sys
live, rc = sys.argv[1], int(sys.argv[2])
r = json.load(open(f"{live}/lo.json"))
run = {"label": "lo", "scenario": "lost-overflow", "options": ["--duration", "1s"],
       "expect": None, "verdict": r["verdict"], "exit_code": rc, "signal": None,
       "reason": r["reason"], "result": "lo.json", "log": "lo.log",
       "start_utc": r["start_utc"], "duration_s": 1.0, "timeout_s": 60, "as_expected": None}
summary = {k: 0 for k in ["pass", "fail", "skip", "error", "environment", "timeout", "crash"]}
summary[r["verdict"]] += 1
index = {"schema_version": 1, "kind": "pmustress-suite-run",
         "suite": {"name": "live", "file": None, "version": 1, "sha256": None},
         "tool": r["tool"], "argv": ["pmustress", "run", "all"], "host": r["host"],
         "kernel": {"release": r["host"]["kernel"]["release"],
                    "version": r["host"]["kernel"]["version"], "arch": r["host"]["arch"]},
         "config_hash": None, "start_utc": r["start_utc"], "end_utc": r["end_utc"],
         "summary": {"runs": 1, **summary, "unexpected": 0}, "exit_code": rc, "runs": [run]}
json.dump(index, open(f"{live}/index.json", "w"), indent=1)
EOF
verdict=$(jget "$live/lo.json" "d['verdict']")
$PMS export --ktap "$live" > "$tmp/live.ktap" && out=$($PY $KTAP_CHECK "$tmp/live.ktap")
ok $? "live ($verdict): KTAP accepted by ktap-check: $out"
grep -q "^  # kernel: $(uname -r) " "$tmp/live.ktap" && grep -q '^  # attr: type=' "$tmp/live.ktap"
ok $? "live: KTAP names this kernel and the counter's attr"
$PMS export --junit "$live" -o "$tmp/live.xml" && xmllint --noout --schema "$XSD" "$tmp/live.xml" 2>/dev/null
ok $? "live: JUnit valid against the XSD"
$PMS export --kcidb "$live" -o "$tmp/live-kcidb.json" && out=$(kcidb_valid "$tmp/live-kcidb.json")
ok $? "live: KCIDB valid against the schema $out"

done_testing
