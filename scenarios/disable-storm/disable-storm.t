#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# disable-storm on this machine's real kernel.  With no hardware PMU it runs
# on the breakpoint substitute, which is exact on x86 and (measured by the
# scenario, checked here) keeps its remaining period across DISABLE/ENABLE:
# every delta must be exactly one period under every toggler.  Fault
# injection and a wrong restart assumption prove the run fails when it should.
. tests/integration/tap.sh

core=$(core_pmu)

$PMS list | grep -q '^disable-storm  *yes'; ok $? "list shows disable-storm as runnable here"
$PMS help disable-storm | grep -q -- '--toggler'; ok $? "help disable-storm lists --toggler"

exact_run() {	# NAME ARGS...: passes, every delta exactly P, toggles happened
	local name=$1; shift
	local j=$tmp/$name.json
	$PMS run disable-storm --duration "$D" --json "$j" "$@" > "$tmp/$name.out"
	local rc=$?
	ok $rc "$name: exits 0 (pass)"
	[ $rc -eq 0 ] || diag "$(cat "$tmp/$name.out")"
	jtrue "$j" "d['verdict'] == 'pass' and d['oracle']['signals'] > 20"
	ok $? "$name: verdict pass with $(jget "$j" "d['oracle']['signals']") signals"
	jtrue "$j" "d['disable_storm']['toggles'] > 100 and d['disable_storm']['toggles_failed'] == 0 and d['disable_storm']['toggles_per_second'] > 0"
	ok $? "$name: $(jget "$j" "d['disable_storm']['toggles']") toggles ($(jget "$j" "int(d['disable_storm']['toggles_per_second'])")/s), none failed"
	grep -q "toggles ([0-9]*/s, " "$tmp/$name.out"; ok $? "$name: human output gives toggles per second"
	jtrue "$j" "d['oracle']['delta']['min'] == d['oracle']['delta']['max'] == d['counter']['period']"
	ok $? "$name: every delta is exactly one period"
	jtrue "$j" "d['oracle']['lost'] == 0 and d['oracle']['signals'] == d['oracle']['overflows_implied'] and all(v == 0 for k, v in d['oracle']['classes'].items() if k != 'on_time')"
	ok $? "$name: one signal per overflow the final count implies, nothing else"
	jtrue "$j" "d['affinity']['restored']"; ok $? "$name: affinity restored"
	tests/helpers/validate-json results/schema/result.schema.json "$j" > /dev/null
	ok $? "$name: result valid against the schema"
	# The control part came first: no toggle in it, its overflows all signalled.
	C="d['disable_storm']['control']"
	jtrue "$j" "$C['measured'] and $C['seconds'] >= 0.95 * $C['requested_seconds'] > 0 and $C['overflows'] > 0 and $C['lost'] == $C['lost_with'] == 0 and not $C['stands'] and $C['overflows'] + $C['overflows_with'] == d['oracle']['overflows_implied']"
	ok $? "$name: $(jget "$j" "round($C['seconds'], 3)") s without toggles first, $(jget "$j" "$C['overflows']") overflows, then $(jget "$j" "$C['overflows_with']") in the storm, none lost"
}

if [ -z "$core" ]; then
	exact_run thread --toggler thread
	j=$tmp/thread.json
	jtrue "$j" "d['counter']['substitute'] and d['counter']['attr']['type_name'] == 'breakpoint'"
	ok $? "thread: runs on the breakpoint substitute"
	jtrue "$j" "not d['workload']['count_check']['applies'] and 0 < d['disable_storm']['counted_fraction'] <= 1"
	ok $? "thread: calls made while disabled are not counted: $(jget "$j" "d['disable_storm']['counted_fraction']") of them counted"
	# The breakpoint's behaviour at ENABLE is measured, not assumed.
	E="d['disable_storm']['enable_semantics']"
	jtrue "$j" "$E['probe']['applies'] and $E['probe']['result'] == 'keeps_period' and $E['probe']['signals_at_12'] == 1 and $E['probe']['signals_at_16'] == 0 and $E['applied'] == 'exact' and 'measured' in $E['source']"
	ok $? "thread: breakpoint measured to keep its remaining period at ENABLE; exact applied"
	exact_run self --toggler self
	exact_run handler --toggler handler
		# Every signal toggles once the control is over: the first toggle is in
	# the handler of the control's last signal, then one per storm signal.
	jtrue "$tmp/handler.json" "d['disable_storm']['toggles'] == d['disable_storm']['control']['overflows_with'] + 1"
	ok $? "handler: one toggle per signal after the control"
	exact_run mover --mover hwloc
	jtrue "$tmp/mover.json" "d['mover']['enabled'] and d['mover']['migrations_sched'] > 10"
	ok $? "mover: the scheduler saw migrations during the storm"
	exact_run interval --toggle-interval 100us
	jtrue "$tmp/interval.json" "d['disable_storm']['interval_ns'] == 100000 and d['disable_storm']['toggles_per_second'] < 10000"
	ok $? "interval: --toggle-interval 100us limits the rate ($(jget "$tmp/interval.json" "int(d['disable_storm']['toggles_per_second'])")/s)"
else
	skip "disable-storm on the breakpoint substitute" "this machine has a hardware PMU ($core)"
fi

# A loss is caught end to end, with the toggle next to it.
inject_drop_run disable-storm 50
jtrue "$j" "len(d['disable_storm']['anomaly_toggles']) == len(d['oracle']['anomalies']['list']) > 0 and all(a['signal'] == b['signal'] and ((a['toggle_before'] >= 1 and a['since_toggle_ns'] >= 0) if a['time_ns'] >= d['disable_storm']['first_toggle_ns'] else a['toggle_before'] is None) for a, b in zip(d['disable_storm']['anomaly_toggles'], d['oracle']['anomalies']['list']))"
ok $? "fault injection: each anomaly in the storm has its nearest toggle, none before it"
# Drops at one rate with and without toggles: the storm is not blamed.
C="d['disable_storm']['control']"
jtrue "$j" "$C['measured'] and $C['lost'] > 0 and $C['lost_with'] > 0 and $C['lost'] + $C['lost_with'] == d['oracle']['lost'] and not $C['stands'] and 'not enough to blame it' in d['reason'] and 'matches: armv8pmu' not in d['reason']"
ok $? "fault injection: lost $(jget "$j" "$C['lost']") of $(jget "$j" "$C['overflows']") before the storm and $(jget "$j" "$C['lost_with']") of $(jget "$j" "$C['overflows_with']") in it: the storm is not blamed"

# A storm that lets the counter count little says so: a long period leaves
# the thread toggler's storm a handful of overflows.
j=$tmp/few.json
$PMS run disable-storm --duration "$D" --period 20000 --quiet --json "$j"
jtrue "$j" "(d['disable_storm']['control']['overflows_with'] < 100) == ('the storm covered only' in d['reason']) and d['disable_storm']['control']['measured']"
ok $? "a storm of $(jget "$j" "d['disable_storm']['control']['overflows_with']") overflows: the reason says how little it tested exactly when under 100"

# A storm that silences the signals is reported by the watchdog, not a hang.
inject_stop_run disable-storm 20

# page-faults: declared restart-on-enable; what the kernel does is measured
# and the oracle applies that, so the restart itself is never called a loss.
# On 6.18 a page-faults storm now and then leaves one overflow a few dozen
# counts off its grid (class late) or unsignalled (lost, gap); about 1 run
# in 2 shows one: a finding the run reports, so either verdict is accepted
# here, but never an error, and never a loss the restart semantics would
# explain.
j=$tmp/page-faults.json
$PMS run disable-storm --duration "$D" --event page-faults --period 1000 --json "$j" > "$tmp/pf.out"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ]; ok $? "page-faults: runs and is judged (exit $rc)"
[ $rc -eq 0 ] || diag "$(tail -3 "$tmp/pf.out")"
jtrue "$j" "d['verdict'] == 'pass' or (d['oracle']['lost'] + d['oracle']['classes']['gap'] + d['oracle']['classes']['late'] > 0 and d['disable_storm']['restarts_to_oracle'] is None)"
ok $? "page-faults: a fail names lost or off-grid overflows on the measured grid, not restarts"
jtrue "$j" "d['workload']['kind'] == 'page-faults' and d['counter']['semantics'] == 'restart_on_enable' and d['disable_storm']['enable_semantics']['probe']['applies']"
ok $? "page-faults: faulting workload, declared restart_on_enable, probe ran"
E="d['disable_storm']['enable_semantics']"
jtrue "$j" "($E['enable'], $E['applied'], d['disable_storm']['restarts_to_oracle'] is None) in (('keeps_period', 'exact', True), ('restarts_period', 'restart_on_enable', False))"
ok $? "page-faults: ENABLE measured as $(jget "$j" "d['disable_storm']['enable_semantics']['enable']"), oracle applied $(jget "$j" "d['disable_storm']['enable_semantics']['applied']") (restarts passed only then)"
# ... and forcing restarts on a kernel that keeps the period must fail.
pf_enable=$(jget "$j" "d['disable_storm']['enable_semantics']['enable']")
if [ "$pf_enable" = keeps_period ]; then
	j=$tmp/pf-wrong.json
	$PMS run disable-storm --duration "$D" --event page-faults --period 1000 --enable-semantics restarts --json "$j" > /dev/null
	ok $([ $? -eq 1 ]; echo $?) "page-faults with --enable-semantics restarts on a kernel that keeps the period: fails"
	jtrue "$j" "d['disable_storm']['restarts_to_oracle'] > 0 and d['oracle']['semantics'] == 'restart_on_enable'"
	ok $? "page-faults forced restarts: $(jget "$j" "d['disable_storm']['restarts_to_oracle']") restart values went to the oracle"
else
	j=$tmp/pf-wrong.json
	$PMS run disable-storm --duration "$D" --event page-faults --period 1000 --enable-semantics keeps --json "$j" > /dev/null
	ok $([ $? -eq 1 ]; echo $?) "page-faults with --enable-semantics keeps on a kernel that restarts: fails (called lost)"
	skip "forced restarts" "this kernel restarts the period"
fi

done_testing
