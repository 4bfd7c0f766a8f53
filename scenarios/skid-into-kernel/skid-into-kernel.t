#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# skid-into-kernel on this machine's real kernel.  With no hardware PMU it runs
# on the breakpoint substitute, whose interrupt is synchronous (skid 0): every
# overflow must have a sample with a user IP and a signal, for each kind of
# kernel entry.  Fault injection proves that a signal lost while its sample is
# in the ring is reported as "sample but no signal", end to end.
. tests/integration/tap.sh

S=$SCHEMA_FILE
core=$(core_pmu)

clean_run() {	# NAME ARGS...: passes, every overflow has its sample and its signal
	local name=$1; shift
	local j=$tmp/$name.json
	$PMS run skid-into-kernel --duration "$D" --json "$j" "$@" > "$tmp/$name.out" 2>&1
	local rc=$?
	ok $rc "$name: exits 0 (pass)"
	[ $rc -eq 0 ] || diag "$(cat "$tmp/$name.out")"
	jtrue "$j" "d['verdict'] == 'pass'"; ok $? "$name: verdict pass in the JSON"
	local k="d['skid_into_kernel']"
	jtrue "$j" "$k['signals'] > 100"; ok $? "$name: more than 100 signals ($(jget "$j" "$k['signals']"))"
	jtrue "$j" "$k['signals'] == $k['samples'] == $k['matched']"
	ok $? "$name: every signal matched with a sample ($(jget "$j" "$k['samples']") samples)"
	jtrue "$j" "all(v == 0 for v in $k['findings'].values()) and $k['finding_list']['total'] == 0"
	ok $? "$name: no kernel IP, no sample without signal, nothing dropped, nothing else"
	jtrue "$j" "$k['ring']['samples'] == $k['samples'] and $k['ring']['lost_samples'] == 0 and $k['ring']['not_stored'] == 0 and $k['ring_error'] is None"
	ok $? "$name: the ring lost nothing and parsed cleanly"
	jtrue "$j" "d['counter']['attr']['exclude_kernel'] and d['counter']['attr']['use_clockid']"
	ok $? "$name: exclude_kernel and use_clockid recorded in attr"
	jtrue "$j" "$k['kernel_entries']['count'] > 0 and $k['kernel_entries']['count'] >= d['workload']['iterations'] // $k['kernel_entries']['every'] - 1"
	ok $? "$name: the loop entered the kernel every $(jget "$j" "$k['kernel_entries']['every']") calls ($(jget "$j" "$k['kernel_entries']['count']") entries)"
	if [ -z "$core" ]; then
		jtrue "$j" "d['counter']['substitute'] and d['counter']['attr']['type_name'] == 'breakpoint'"
		ok $? "$name: runs on the breakpoint substitute"
		jtrue "$j" "$k['skid']['max'] == 0 and $k['allowance']['value'] == 0 and 'synchronous' in $k['interrupt'] and 'synchronous' in d['reason']"
		ok $? "$name: skid 0, allowance 0, and it says the interrupt is synchronous"
		jtrue "$j" "$k['overflows_implied'] == $k['signals'] and d['workload']['count_check']['match']"
		ok $? "$name: one overflow per P calls, breakpoint count equals the call count"
	fi
	$V $S "$j" > /dev/null; ok $? "$name: result validates against the schema"
}

clean_run syscall
clean_run page-fault --entry page-fault --entry-every 8
clean_run yield --entry yield --entry-every 16

# The per-CPU default is recorded with its reason even where it is not used.
j=$tmp/syscall.json
jtrue "$j" "(a := d['skid_into_kernel']['allowance'])['cpu_default'] > 0 and len(a['cpu_default_why']) > 10 and a['source']"
ok $? "allowance: CPU default $(jget "$j" "d['skid_into_kernel']['allowance']['cpu_default']") recorded with why"
vendor=$($PMS probe --json | $PY -c 'import json,sys; print(json.load(sys.stdin)["cpu"]["vendor"] or "")')
if [ "$vendor" = GenuineIntel ]; then
	jtrue "$j" "d['skid_into_kernel']['allowance']['cpu_default'] == 125"; ok $? "allowance: Intel gets 125"
fi
j=$tmp/given.json
$PMS run skid-into-kernel --duration 500ms --skid-allowance 7 --json "$j" > /dev/null 2>&1
jtrue "$j" "(a := d['skid_into_kernel']['allowance'])['value'] == 7 and a['source'] == '--skid-allowance'"
ok $? "--skid-allowance 7 is used and named as the source"

# A signal ignored by the handler while its sample is in the ring.
j=$tmp/inject.json
$PMS run skid-into-kernel --duration "$D" --inject-drop-every 25 --json "$j" > "$tmp/inject.out" 2>&1
ok $([ $? -eq 1 ]; echo $?) "fault injection (every 25th signal ignored): exits 1 (fail)"
k="d['skid_into_kernel']"
jtrue "$j" "$k['findings']['sample_no_signal'] == d['recorder']['fault_injection']['signals_ignored'] > 0"
ok $? "fault injection: sample_no_signal ($(jget "$j" "$k['findings']['sample_no_signal']")) equals the signals ignored"
jtrue "$j" "$k['findings']['interrupt_dropped'] == 0 and $k['findings']['signal_no_sample'] == 0 and $k['findings']['kernel_ip'] == 0"
ok $? "fault injection: not mistaken for a dropped interrupt or a missing sample"
jtrue "$j" "len(l := [f for f in $k['finding_list']['list'] if f['kind'] == 'sample_no_signal']) > 0 and all(f['sample'] % 25 == 0 and f['index'] == f['sample'] and f['signal'] is None for f in l)"
ok $? "fault injection: each is the 25th sample, at its own overflow index"
jtrue "$j" "'sample_no_signal' in d['reason'] and 'FAULT INJECTION' in d['reason']"
ok $? "fault injection: the reason names the finding and the injection"
$V $S "$j" > /dev/null; ok $? "fault injection: result validates against the schema"
# The lost signals are attributed against the base rate like any counting
# scenario's: ignored at random points, they stand out from nothing.
jtrue "$j" "d['attribution']['anomaly_windows'] == d['oracle']['classes']['gap'] > 0 and d['attribution']['dominant'] is None and d['attribution']['unexplained'] == d['attribution']['anomaly_windows']"
ok $? "fault injection: the gap signals are attributed, all unexplained ($(jget "$j" "d['attribution']['summary']"))"
jtrue "$j" "'attribution: of the' in d['reason'] and 'none stands out' in d['reason'] and all(a['cause'] == 'unexplained' and 'evidence' in a for a in d['oracle']['anomalies']['list'])"
ok $? "fault injection: the reason carries the attribution, every anomaly its cause and evidence"
jtrue "$j" "'perf_records' in d and d['perf_records']['samples'] == $k['samples'] and 'perf_event_max_sample_rate_before' in d['sysctl_during_run']"
ok $? "fault injection: the ring's records and the sample-rate ceiling are in the result"
if tracefs_up && [ "$(jget "$j" "d['trace']['used']")" = true ]; then
	jtrue "$j" "d['trace']['clock'] == 'mono' and d['trace']['events']['switch_out'] > 0 and d['attribution']['scheduler_trace']"
	ok $? "trace: the counting thread's switches seen on the mono clock ($(jget "$j" "d['trace']['events']"))"
	$PMS run skid-into-kernel --duration 200ms --json "$tmp/inst.json" > /dev/null 2>&1 &
	pid=$!
	wait $pid
	jtrue "$tmp/inst.json" "d['trace']['used'] and d['trace']['instance'] == 'pmustress-$pid'" &&
		[ ! -e "$TRACEFS/instances/pmustress-$pid" ]
	ok $? "trace: its instance pmustress-$pid was used and is gone"
else
	skip "skid-into-kernel trace" "$(jget "$j" "d['trace']['why_not']")"
fi
$PMS run skid-into-kernel --duration 200ms --trace off --json "$tmp/off.json" > /dev/null 2>&1
jtrue "$tmp/off.json" "not d['trace']['used'] and d['trace']['why_not'] == '--trace off' and not d['attribution']['complete']"
ok $? "--trace off: said so, attribution marked incomplete"

# A timer event counts ns and skips overflows in excluded modes by design:
# reported, never judged.
j=$tmp/task-clock.json
$PMS run skid-into-kernel --duration 1s --event task-clock --json "$j" > /dev/null 2>&1
rc=$?
ok $([ $rc -eq 0 ] || [ $rc -eq 1 ]; echo $?) "task-clock: runs (exit $rc)"
jtrue "$j" "(k := d['skid_into_kernel'])['judged']['interrupt_dropped'] is False and k['judged']['skid_over_allowance'] is False and k['judged']['kernel_ip'] is False and 'hrtimer' in k['interrupt']"
ok $? "task-clock: drops and skid reported ($(jget "$j" "d['skid_into_kernel']['findings']['interrupt_dropped']") drops), not judged"

# Bad input: one line, exit 64, no file.
$PMS run skid-into-kernel --ring-pages 3 --json "$tmp/bad.json" > /dev/null 2> "$tmp/bad.err"
ok $([ $? -eq 64 ]; echo $?) "--ring-pages 3: exit 64"
grep -q "power of two" "$tmp/bad.err"; ok $? "--ring-pages 3: says it must be a power of two"
[ ! -e "$tmp/bad.json" ]; ok $? "--ring-pages 3: no result file"
$PMS run skid-into-kernel --entry nothing > /dev/null 2>&1
ok $([ $? -eq 64 ]; echo $?) "--entry nothing: exit 64"

done_testing
