# SPDX-License-Identifier: GPL-2.0-only
# TAP helpers for the integration tests (sourced). Run from the repo root.

tap_n=0
tap_failed=0
PMS=${PMS:-./pmustress}
# schema.t names the in-tree binary as BIN before it sources this; a suite
# run on another build (make check O=DIR or SANITIZE=..., which set PMS)
# tests that build there too.
[ "${BIN:-}" = ./pmustress ] && BIN=$PMS
PY=/usr/bin/python3

# A scratch directory removed at exit, where results go unless a test says
# otherwise; the default run length; this machine's core PMU ("" if none).
tmp=$(mktemp -d)
tracefs_mounted_here=
tap_cleanup() {
	rm -rf "$tmp"
	[ -n "$tracefs_mounted_here" ] && umount "$TRACEFS" 2>/dev/null
	return 0
}
trap tap_cleanup EXIT

# tracefs, mounted for the test if nobody had (and unmounted at exit), so
# checks on its instances directory look at a real one.
TRACEFS=/sys/kernel/tracing
tracefs_up() {
	mountpoint -q "$TRACEFS" && return 0
	mount -t tracefs nodev "$TRACEFS" 2>/dev/null || return 1
	tracefs_mounted_here=1
}
export PMUSTRESS_RESULTS=$tmp/results
D=${PMS_TEST_DURATION:-2s}
V=tests/helpers/validate-json
SCHEMA_FILE=results/schema/result.schema.json
core_pmu() {
	$PMS probe --json | $PY -c 'import json,sys; print(json.load(sys.stdin)["core_pmu"] or "")'
}

ok() {	# ok COND-EXIT-STATUS DESCRIPTION
	local rc=$1; shift
	tap_n=$((tap_n + 1))
	if [ "$rc" -eq 0 ]; then
		echo "ok $tap_n - $*"
	else
		echo "not ok $tap_n - $*"
		tap_failed=$((tap_failed + 1))
	fi
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# diag TEXT... or diag < FILE: comment lines for the TAP stream
diag() {
	if [ $# -gt 0 ]; then printf '# %s\n' "$@"; else sed 's/^/# /'; fi
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# inject_drop_run SCENARIO N [ARGS...]: a run of $D whose recorder ignores
# every Nth signal (--inject-drop-every N), as a kernel that lost it would;
# JSON in $j ($tmp/inject.json), output in $tmp/inject.out.  The oracle must
# count exactly the ignored signals as lost, and the run fail saying so.
# One exception: when the count stopped within the tolerance of the last
# overflow and that overflow's signal was the one ignored, the oracle calls
# it unsettled (it may still be in flight), not lost.
inject_drop_run() {
	local sc=$1 n=$2; shift 2
	j=$tmp/inject.json
	$PMS run "$sc" --duration "$D" --json "$j" --inject-drop-every "$n" "$@" > "$tmp/inject.out"
	ok $([ $? -eq 1 ]; echo $?) "fault injection (every ${n}th signal ignored): exits 1 (fail)"
	jtrue "$j" "[o['lost'] > 0 and (o['lost'] == i or (o['lost'] + 1 == i and o['unsettled_tail'] == 1)) for o, i in [(d['oracle'], d['recorder']['fault_injection']['signals_ignored'])]][0] and 'lost' in d['reason'] and 'FAULT INJECTION' in d['reason']"
	ok $? "fault injection: lost ($(jget "$j" "d['oracle']['lost']")) equals the signals ignored ($(jget "$j" "d['recorder']['fault_injection']['signals_ignored']"); unsettled tail $(jget "$j" "d['oracle']['unsettled_tail']")), the reason says lost and injected"
}

# inject_stop_run SCENARIO N: a 60 s run whose recorder ignores every signal
# after the Nth; JSON in $j ($tmp/watchdog.json).  The watchdog must end it
# and the verdict hold exactly N signals.
inject_stop_run() {
	j=$tmp/watchdog.json
	$PMS run "$1" --duration 60s --watchdog 500ms --json "$j" --inject-stop-after "$2" > /dev/null
	ok $([ $? -eq 1 ]; echo $?) "signals stop after $2: exits 1 without waiting out 60 s"
	jtrue "$j" "d['watchdog']['fired'] and 'watchdog: no signal' in d['reason'] and d['oracle']['signals'] == $2 and d['oracle']['lost'] > 0"
	ok $? "signals stop: the watchdog fired, the figures are in the verdict"
}

# jq-like read of a JSON file: jget FILE 'python expression over d'
jget() {
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(json.dumps(v) if isinstance(v,(dict,list,bool)) or v is None else v)' "$1" "$2"
}

# jtrue FILE 'python boolean expression over d': exit status 0 when true
jtrue() {
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
