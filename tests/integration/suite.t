#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Suites end to end on this machine: a small plan with a pass, a skip, a
# fault-injected fail and a timeout; a run killed by a signal (crash) and a
# suite interrupted mid-run; `run all`; bad plans with their one-line
# errors and statuses; --bisect's statuses for a run and for suites.  Every
# index.json is checked against results/schema/suite-index.schema.json, and
# no pmustress process is left behind.
. tests/integration/tap.sh

ISCHEMA=results/schema/suite-index.schema.json
P=$tmp/plans
mkdir -p "$P"
# Children of the suite whose pid is $1 (its runs), as pgrep sees them.
runs_of() { pgrep -P "$1"; }
# Wait (bounded, 10 s) until the suite $1 has started a run; its pid in $child.
wait_child() {
	local i
	for i in $(seq 200); do
		child=$(runs_of "$1" | head -1)
		[ -n "$child" ] && return 0
		sleep 0.05
	done
	return 1
}
valid() { $V "$ISCHEMA" "$1" > "$tmp/valid.out" 2>&1; }

# --- a suite: pass, skip, injected fail, timeout ---------------------------
cat > "$P/mixed" <<'PLAN'
# pass, skip, a forced fail and a hang, each as expected
pmustress-suite 1
name mixed
run pass    lost-overflow --duration 1s --no-mover expect=pass
run skip    lost-overflow --duration 1s --event cycles expect=skip,pass
run inject  lost-overflow --duration 1s --inject-drop-every 300 expect=fail
run hang    lost-overflow --duration 60s timeout=1s expect=timeout
PLAN
o=$tmp/mixed
$PMS run --suite "$P/mixed" --out "$o" > "$tmp/mixed.out" 2> "$tmp/mixed.err"; rc=$?
ok $([ $rc -eq 0 ]; echo $?) "mixed suite, every run as expected: exit 0 (got $rc)"
valid "$o/index.json"; ok $? "mixed: index.json valid against the suite schema"
diag < "$tmp/valid.out"
jtrue "$o/index.json" "d['complete'] and not d['interrupted'] and d['exit_code'] == 0 and d['suite']['name'] == 'mixed' and d['suite']['runs_planned'] == 4 and [r['label'] for r in d['runs']] == ['pass', 'skip', 'inject', 'hang']"
ok $? "mixed: complete, four runs in plan order"
jtrue "$o/index.json" "d['suite']['sha256'] == '$(sha256sum "$P/mixed" | cut -d' ' -f1)'"
ok $? "mixed: suite.sha256 is the plan file's SHA-256 (sha256sum agrees)"
cfg=/boot/config-$(uname -r)
if [ -r "$cfg" ]; then want="sha256:$(sha256sum "$cfg" | cut -d' ' -f1)"
elif [ -r /proc/config.gz ]; then want="sha256:$(gzip -dc /proc/config.gz | sha256sum | cut -d' ' -f1)"
else want=None; fi
jtrue "$o/index.json" "d['config_hash'] == ('$want' if '$want' != 'None' else None)"
ok $? "mixed: config_hash is sha256sum of the kernel configuration ($want)"
jtrue "$o/index.json" "d['kernel']['release'] == '$(uname -r)' and d['host']['kernel']['release'] == '$(uname -r)'"
ok $? "mixed: kernel and host blocks name this kernel"
jtrue "$o/index.json" "[r['verdict'] for r in d['runs']] == ['pass', 'skip', 'fail', 'timeout'] and all(r['as_expected'] for r in d['runs'])"
ok $? "mixed: verdicts pass, skip, fail, timeout, each as expected"
jtrue "$o/index.json" "d['summary'] == {'runs': 4, 'pass': 1, 'fail': 1, 'skip': 1, 'error': 0, 'environment': 0, 'timeout': 1, 'crash': 0, 'unexpected': 0}"
ok $? "mixed: the summary counts them"
jtrue "$o/index.json" "(r := d['runs'][2]) and r['exit_code'] == 1 and r['result'] == 'inject.json' and 'lost' in r['reason'] and 'FAULT INJECTION' in r['reason']"
ok $? "mixed: the injected fail's reason is its result's (lost, FAULT INJECTION)"
jtrue "$o/inject.json" "d['verdict'] == 'fail' and d['recorder']['fault_injection']['signals_ignored'] > 0"
ok $? "mixed: inject.json is the run's ordinary result"
$V "$SCHEMA_FILE" "$o/pass.json" "$o/inject.json" > /dev/null 2>&1; ok $? "mixed: the runs' results valid against the result schema"
jtrue "$o/index.json" "(r := d['runs'][3]) and r['timeout_s'] == 1 and r['duration_s'] < 15 and r['reason'].startswith('timeout: still running after 1 s') and r['signal'] is None"
ok $? "mixed: the hang was stopped at its 1 s limit, SIGTERM sufficed ($(jget "$o/index.json" "d['runs'][3]['duration_s']") s)"
jtrue "$o/index.json" "(r := d['runs'][0]) and r['timeout_s'] == 62 and r['options'] == ['--duration', '1s', '--no-mover'] and r['line'] == 4 and r['log'] == 'pass.log'"
ok $? "mixed: default time limit 2 x 1 s + 60 s; options and plan line kept"
[ -f "$o/skip.log" ] && [ -f "$o/hang.log" ]; ok $? "mixed: each run has its log"
grep -Eq '^inject +lost-overflow +fail +[0-9.]+s +[0-9]+ overflows lost' "$tmp/mixed.out"
ok $? "mixed: the table has one line per run (label, scenario, verdict, time, reason)"
grep -q "^run directory: $o$" "$tmp/mixed.out"; ok $? "mixed: the table ends with the run directory"
grep -q '^\[4/4\] hang: timeout in' "$tmp/mixed.err"; ok $? "mixed: progress on stderr"
[ "$(ls "$o" | wc -l)" -eq 9 ] && [ ! -e "$o/index.json.tmp" ]; ok $? "mixed: 4 results, 4 logs and index.json, no temporaries"

# The same runs without their expectations: the fail fails the suite.
sed 's/ expect=[a-z,]*//' "$P/mixed" > "$P/plain"
$PMS run --suite "$P/plain" --out "$tmp/plain" --quiet > /dev/null 2>&1; rc=$?
ok $([ $rc -eq 1 ]; echo $?) "no expectations: the injected fail makes the suite exit 1 (got $rc)"
jtrue "$tmp/plain/index.json" "d['exit_code'] == 1 and all(r['as_expected'] is None and r['expect'] is None for r in d['runs'])"
ok $? "no expectations: as_expected and expect are null"
$PMS run --suite "$P/plain" --out "$tmp/plain.b" --quiet --bisect > /dev/null 2>&1; rc=$?
ok $([ $rc -eq 1 ]; echo $?) "--bisect: a fail is bad, exit 1 (got $rc)"
jtrue "$tmp/plain.b/index.json" "d['bisect'] and d['bisect_exit_code'] == 1 and d['exit_code'] == 1"
ok $? "--bisect: the index has both statuses"

# Only skips: exit 4; --bisect: 125.
printf 'pmustress-suite 1\nrun a lost-overflow --duration 1s --event cycles\nrun b skid-into-kernel --duration 1s --event cycles\n' > "$P/skips"
$PMS run --suite "$P/skips" --out "$tmp/skips" --quiet > /dev/null 2>&1; rc=$?
ok $([ $rc -eq 4 ]; echo $?) "every run skipped: exit 4 (got $rc)"
jtrue "$tmp/skips/index.json" "d['suite']['name'] == 'skips' and d['summary']['skip'] == 2"
ok $? "no name line: the suite is named after its file"
$PMS run --suite "$P/skips" --out "$tmp/skips.b" --bisect --quiet > /dev/null 2>&1; rc=$?
ok $([ $rc -eq 125 ]; echo $?) "--bisect, every run skipped: 125 (got $rc)"
# Pass and an expected injected fail: good.
printf 'pmustress-suite 1\nrun a lost-overflow --duration 1s\nrun ctl lost-overflow --duration 1s --inject-drop-every 300 expect=fail\n' > "$P/good"
$PMS run --suite "$P/good" --out "$tmp/good" --bisect --quiet > /dev/null 2>&1; rc=$?
ok $([ $rc -eq 0 ]; echo $?) "--bisect, a pass and a control that failed as expected: good, 0 (got $rc)"

# A run that wrote no result (its event is unknown: exit 67): error, with its last words.
printf 'pmustress-suite 1\nrun e lost-overflow --duration 1s --event nosuchevent\n' > "$P/err"
$PMS run --suite "$P/err" --out "$tmp/err" --quiet > /dev/null 2>&1; rc=$?
ok $([ $rc -eq 1 ]; echo $?) "a run with no result fails the suite, exit 1 (got $rc)"
jtrue "$tmp/err/index.json" "(r := d['runs'][0]) and r['verdict'] == 'error' and r['exit_code'] == 67 and r['result'] is None and r['reason'].startswith('exited with status 67 and wrote no result: pmustress: ') and 'nosuchevent' in r['reason']"
ok $? "no result: verdict error, the reason quotes the log's last line"

# --- a crash, and an interrupted suite -----------------------------------
printf 'pmustress-suite 1\nrun victim lost-overflow --duration 60s\nrun after lost-overflow --duration 1s --no-mover\n' > "$P/crash"
# A sanitized run would report the injected SIGSEGV as its own crash (and
# leave a sanitizer log): let it die of the signal as a plain build does.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" \
	$PMS run --suite "$P/crash" --out "$tmp/crash" --quiet > /dev/null 2>&1 & sp=$!
wait_child $sp; ok $? "crash: the suite started its first run (pid $child)"
# The index of a suite under way: valid, incomplete.
for i in $(seq 100); do [ -e "$tmp/crash/index.json" ] && break; sleep 0.05; done
jtrue "$tmp/crash/index.json" "not d['complete'] and d['runs'] == [] and d['exit_code'] is None and d['end_utc'] is None" && valid "$tmp/crash/index.json"
ok $? "crash: while the first run runs, the index is valid and marked incomplete"
kill -SEGV "$child"
wait $sp; rc=$?
ok $([ $rc -eq 1 ]; echo $?) "crash: a run killed by SIGSEGV fails the suite, exit 1 (got $rc)"
jtrue "$tmp/crash/index.json" "(r := d['runs'][0]) and r['verdict'] == 'crash' and r['signal'] == 11 and r['exit_code'] is None and 'SIGSEGV' in r['reason'] and d['runs'][1]['verdict'] == 'pass' and d['complete']"
ok $? "crash: verdict crash, signal 11; the next run still ran and passed"
valid "$tmp/crash/index.json"; ok $? "crash: index valid"

$PMS run --suite "$P/crash" --out "$tmp/int" --quiet > /dev/null 2>&1 & sp=$!
wait_child $sp; ok $? "interrupt: the suite started its first run"
# The run takes SIGTERM as "stop and write what you have" once it has blocked
# it (it does before its scenario starts): wait for that, boundedly, so that a
# slow start (a sanitized build) is not killed by the default action instead.
for i in $(seq 200); do
	blk=$(awk '/^SigBlk:/ {print $2}' "/proc/$child/status" 2>/dev/null)
	[ -n "$blk" ] && (( 0x$blk & 0x4000 )) && break
	sleep 0.05
done
kill -INT $sp
wait $sp; rc=$?
ok $([ $rc -eq 130 ]; echo $?) "interrupt: SIGINT to the suite: exit 130 (got $rc)"
jtrue "$tmp/int/index.json" "not d['complete'] and d['interrupted'] and d['stop_signal'] == 'SIGINT' and d['exit_code'] == 130 and len(d['runs']) == 1 and d['runs'][0]['interrupted'] and d['runs'][0]['duration_s'] < 30 and d['runs'][0]['reason'].startswith('interrupted with the suite')"
ok $? "interrupt: the run was stopped at once, the second never started, index incomplete"
jtrue "$tmp/int/victim.json" "d['interrupted'] and d['stop_signal'] == 'SIGTERM'"
ok $? "interrupt: the stopped run wrote its partial result (interrupted by SIGTERM)"
valid "$tmp/int/index.json"; ok $? "interrupt: index valid"

# --- run all ----------------------------------------------------------------
$PMS run all --duration 1s --out "$tmp/all" > "$tmp/all.out" 2>/dev/null; rc=$?
ok $([ $rc -eq 0 ] || [ $rc -eq 1 ] || [ $rc -eq 4 ]; echo $?) "run all --duration 1s: exit $rc (0, 1 or 4 by what the kernel did)"
valid "$tmp/all/index.json"; ok $? "run all: index valid"
diag < "$tmp/valid.out"
scen=$($PMS list | awk '/^[a-z]/ {print $1}' | paste -sd,)
jtrue "$tmp/all/index.json" "[r['label'] for r in d['runs']] == '$scen'.split(',') and d['suite']['name'] == 'all' and d['suite']['file'] is None and d['exit_code'] == $rc"
ok $? "run all: one entry per scenario of pmustress list, in its order"
jtrue "$tmp/all/index.json" "all((r['result'] == r['label'] + '.json') if r['log'] else (r['verdict'] == 'skip' and r['reason']) for r in d['runs']) and all(r['options'][:2] == ['--duration', '1s'] for r in d['runs'])"
ok $? "run all: each ran with --duration 1s and wrote its result, or is a skip with its reason"
nolist=$($PMS list | awk '/^[a-z]/ && $2 == "no:" {print $1}' | paste -sd,)
jtrue "$tmp/all/index.json" "sorted(r['label'] for r in d['runs'] if not r['log']) == sorted(x for x in '$nolist'.split(',') if x)"
ok $? "run all: exactly the scenarios list says cannot run here were not started (${nolist:-none})"

# --- bad plans: one line naming FILE:LINE, the status of the problem --------
bad_plan() {	# STATUS WHAT MUST-MATCH PLAN-TEXT
	local want=$1 what=$2 re=$3
	printf '%b' "$4" > "$P/bad"
	$PMS run --suite "$P/bad" --out "$tmp/bad-out" > "$tmp/bad.out" 2> "$tmp/bad.err"; rc=$?
	[ $rc -eq "$want" ] && [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] &&
		grep -Eq "^pmustress: $P/bad:$re" "$tmp/bad.err" && [ ! -e "$tmp/bad-out" ]
	ok $? "bad plan, $what: exit $want, '$(cat "$tmp/bad.err")'"
}
bad_plan 68 "missing version line" "1: expected the version line" 'run a lost-overflow\n'
bad_plan 68 "future version" "2: suite format version 9 is newer" '# x\npmustress-suite 9\n'
bad_plan 68 "unknown keyword" "3: unknown keyword 'rnu'" 'pmustress-suite 1\nname x\nrnu a lost-overflow\n'
bad_plan 68 "duplicate label" "3: label 'a' is already used on line 2" 'pmustress-suite 1\nrun a lost-overflow\nrun a pidns\n'
bad_plan 68 "bad verdict" "2: expect: 'passed' is not a verdict" 'pmustress-suite 1\nrun a lost-overflow expect=passed\n'
bad_plan 68 "bad timeout" "2: bad timeout 'soon'" 'pmustress-suite 1\nrun a lost-overflow timeout=soon\n'
bad_plan 65 "unknown scenario" "3: unknown scenario 'lost-overflw'" 'pmustress-suite 1\nrun a pidns\nrun b lost-overflw\n'
bad_plan 64 "unknown option" "2: run a: unknown option '--no-mvoer'" 'pmustress-suite 1\nrun a lost-overflow --no-mvoer\n'
bad_plan 64 "another scenario's option" "2: run a: unknown option '--no-mover'" 'pmustress-suite 1\nrun a pidns --no-mover\n'
bad_plan 64 "bad option value" "2: run a: bad value" 'pmustress-suite 1\nrun a lost-overflow --duration forever\n'
$PMS run --suite "$P/nonexistent" > /dev/null 2> "$tmp/bad.err"; rc=$?
[ $rc -eq 68 ] && grep -q "nonexistent: cannot read the suite" "$tmp/bad.err"; ok $? "a plan that does not exist: exit 68"
$PMS run --suite no-such-suite > /dev/null 2> "$tmp/bad.err"; rc=$?
[ $rc -eq 68 ] && grep -q "no suite 'no-such-suite'" "$tmp/bad.err"; ok $? "a suite name not found: exit 68, says where it looked"
$PMS run --suite "$P/bad" --bisect > /dev/null 2>&1; rc=$?
ok $([ $rc -eq 128 ]; echo $?) "--bisect with a bad plan: 128, so git bisect run aborts (got $rc)"
for args in "--suite" "--suite x --bogus" "all --duration" "--suite x --duration 1s" "all --format xml" "all --timeout 0"; do
	# shellcheck disable=SC2086
	$PMS run $args > /dev/null 2>&1; rc=$?
	ok $([ $rc -eq 64 ]; echo $?) "run $args: usage, exit 64 (got $rc)"
done
# --- machine formats on stdout, the table on stderr
cat > "$P/tiny" <<'PLAN'
pmustress-suite 1
name tiny
run pass lost-overflow --duration 1s --no-mover
run skip lost-overflow --duration 1s --event cycles expect=skip,pass
PLAN
$PMS run --suite "$P/tiny" --out "$tmp/tiny-k" --format ktap > "$tmp/tiny.ktap" 2> "$tmp/tiny.err"; rc=$?
[ $rc -eq 0 ] && $PY tests/helpers/ktap-check "$tmp/tiny.ktap" > "$tmp/kc.out" 2>&1 && grep -q '^ok 1 pass' "$tmp/tiny.ktap" && grep -q 'pass' "$tmp/tiny.err"
ok $? "--format ktap: KTAP on stdout that ktap-check accepts, the table on stderr (exit $rc)"
diag < "$tmp/kc.out"
$PMS run --suite "$P/tiny" --out "$tmp/tiny-j" --format junit > "$tmp/tiny.xml" 2> /dev/null; rc=$?
[ $rc -eq 0 ] && xmllint --noout --schema tests/fixtures/schemas/junit-10.xsd "$tmp/tiny.xml" 2> /dev/null
ok $? "--format junit: JUnit XML valid against junit-10.xsd (exit $rc)"
[ ! -e results ] || [ -z "$(find results -newer "$P/mixed" -name index.json 2>/dev/null)" ]
ok $? "bad input wrote no run directory in results/"

# The bundled suites parse, and are found by name: beside the binary in
# the tree; a build elsewhere (O=, SANITIZE=) is shown the way.
[ "$(dirname "$PMS")" -ef . ] || export PMUSTRESS_SUITES=$PWD/scripts/suites
for s in scripts/suites/*; do
	$PMS run --suite "$(basename "$s")" --check > "$tmp/check.out" 2>&1; rc=$?
	[ $rc -eq 0 ] && head -1 "$tmp/check.out" | grep -q "suite $(basename "$s"), format version 1"
	ok $? "suite $(basename "$s"): found by name, every run's options valid"
done
PMUSTRESS_SUITES=$P:${PMUSTRESS_SUITES:-} $PMS run --suite mixed --check > "$tmp/check.out" 2>&1
grep -q "^$P/mixed: suite mixed" "$tmp/check.out"; ok $? "\$PMUSTRESS_SUITES is searched first"

# --- --bisect on a single run ------------------------------------------------
bisect_run() {	# WANT WHAT ARGS...
	local want=$1 what=$2; shift 2
	$PMS run "$@" --bisect --json "$tmp/bisect.json" --quiet > /dev/null 2>&1; rc=$?
	ok $([ $rc -eq "$want" ]; echo $?) "run --bisect, $what: $want (got $rc)"
}
bisect_run 0 "pass" lost-overflow --duration 1s --no-mover
bisect_run 1 "fail (injected)" lost-overflow --duration 1s --no-mover --inject-drop-every 300
bisect_run 125 "skip (no cycles event here)" lost-overflow --duration 1s --event cycles
bisect_run 125 "unknown event (may be the kernel's)" lost-overflow --duration 1s --event nosuchevent
bisect_run 128 "bad usage (aborts the bisection)" lost-overflow --no-such-option
bisect_run 128 "unknown scenario (aborts)" no-such-scenario
jtrue "$tmp/bisect.json" "True" 2>/dev/null; true

# Nothing left behind: no pmustress run of ours still alive.
left=$(pgrep -f "$tmp" | grep -v "^$$\$" || true)
ok $([ -z "$left" ]; echo $?) "no process left running from these suites${left:+: $left}"

done_testing
