#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# SIGINT and SIGTERM mid-run: the run stops at once, restores the counting
# thread's affinity, and still writes a valid result marked interrupted.
. tests/integration/tap.sh


# Wait (bounded) until PID has a thread called NAME: the mover only starts
# once the counter is enabled, so then the run is truly under way.
wait_thread() {
	local pid=$1 name=$2 i
	for i in $(seq 500); do
		grep -qx "$name" /proc/"$pid"/task/*/comm 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.02	# back-off of a condition poll, not a synchronisation
	done
	return 1
}

tracefs_up || diag "tracefs cannot be mounted: the instance checks will skip"
for sig in INT TERM; do
	j=$tmp/$sig.json
	start=$(date +%s)
	$PMS run lost-overflow --duration 120s --json "$j" > "$tmp/$sig.out" 2>&1 &
	pid=$!
	wait_thread $pid pms-mover; ok $? "SIG$sig: run under way (mover thread up)"
	kill -"$sig" $pid
	wait $pid
	rc=$?
	took=$(( $(date +%s) - start ))
	[ $rc -eq 130 ]; ok $? "SIG$sig: exits 130 (interrupted), got $rc"
	[ $took -lt 60 ]; ok $? "SIG$sig: stopped long before --duration (${took}s)"
	$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$j"; ok $? "SIG$sig: result is valid JSON"
	jtrue "$j" "d['interrupted'] is True and d['stop_signal'] and d['exit_code'] == 130"
	ok $? "SIG$sig: result says interrupted by $(jget "$j" "d['stop_signal']")"
	jtrue "$j" "d['affinity']['restored'] and d['affinity']['initial'] == d['affinity']['final']"
	ok $? "SIG$sig: counting thread affinity restored ($(jget "$j" "d['affinity']['final']"))"
	jtrue "$j" "d['oracle']['lost'] == 0 and d['oracle']['signals'] + d['oracle']['unsettled_tail'] == d['oracle']['overflows_implied']"
	ok $? "SIG$sig: the $(jget "$j" "d['oracle']['signals']") signals so far all accounted for"
	grep -q "INTERRUPTED by" "$tmp/$sig.out"; ok $? "SIG$sig: human summary says interrupted"
	[ -z "$(ls "$tmp" | grep -F "$sig.json.")" ]; ok $? "SIG$sig: no temp file left behind"
	! kill -0 $pid 2>/dev/null; ok $? "SIG$sig: process gone"
	if jtrue "$j" "d['trace']['used']" && mountpoint -q "$TRACEFS"; then
		[ ! -d "/sys/kernel/tracing/instances/pmustress-$pid" ]
		ok $? "SIG$sig: its tracefs instance pmustress-$pid was removed"
	else
		skip "SIG$sig: tracefs instance removed" "no trace: $(jget "$j" "d['trace']['why_not']")"
	fi
done

# The watchdog path ends the run early too: the instance still goes.
j=$tmp/wd.json
$PMS run lost-overflow --duration 60s --watchdog 500ms --inject-stop-after 20 --json "$j" \
	> /dev/null 2>&1 &
pid=$!
wait $pid
jtrue "$j" "d['watchdog']['fired'] and d['trace']['used']"; ok $? "watchdog: fired, traced"
[ -d "$TRACEFS/instances" ] && [ ! -d "$TRACEFS/instances/pmustress-$pid" ]
ok $? "watchdog: tracefs instance pmustress-$pid removed"

done_testing
