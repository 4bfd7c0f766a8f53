#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pidns on this machine's kernel: a workload in a new PID namespace watched
# from the root and from its own pid 1, every record judged in each
# observer's numbers; the oracle must catch injected wrong-namespace
# numbers; nothing of the namespace may outlive a run, interrupted or not.
. tests/integration/tap.sh

V() { tests/helpers/validate-json "$SCHEMA_FILE" "$1" > /dev/null; }
P="d['pidns']"
# No pmustress process of a pidns run of THIS test is left (pid 1 of the
# namespace, the workload and its children carry these names, and inherit
# the tag from this test's environment: other suites may run pidns at once).
export PIDNS_T_TAG=pidns-t-$$
leftovers() {
	local p
	for p in $(pgrep -f '__helper pidns'; pgrep -x pidns-main; pgrep -x pidns-thread); do
		tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "PIDNS_T_TAG=$PIDNS_T_TAG" &&
			echo $p
	done
}

$PMS list | grep -q '^pidns  *yes'; ok $? "list shows pidns as runnable here"
$PMS help pidns | grep -q -- '--view'; ok $? "help pidns lists --view"
$PMS probe --json | $PY -c 'import json,sys; h=json.load(sys.stdin); sys.exit(0 if h["pid_namespace"]["inode"] and "value" in h["config_pid_in_contextidr"] and isinstance(h["spe"], list) else 1)'
ok $? "probe has the PID namespace, CONFIG_PID_IN_CONTEXTIDR and the SPE PMUs"

if [ "$(id -u)" != 0 ]; then
	j=$tmp/skip.json
	$PMS run pidns --quiet --duration 1s --json "$j"
	rc=$?
	ok $([ $rc -eq 0 ] || [ $rc -eq 4 ]; echo $?) "unprivileged: passes or skips with a reason (exit $rc)"
	done_testing
	exit
fi

# --- both views at once
j=$tmp/both.json
$PMS run pidns --quiet --duration "$D" --json "$j"
ok $? "both views: exits 0"
jtrue "$j" "d['verdict'] == 'pass' and all(v == 0 for w in ('root', 'inside') for v in $P['views'][w]['classes'].values())"
ok $? "both views: pass, every class 0"
jtrue "$j" "all($P['views'][w]['opened'] and $P['views'][w]['exact'] and $P['views'][w]['namespaces_records'] for w in ('root', 'inside'))"
ok $? "both views opened, lost nothing, and had NAMESPACES records"
jtrue "$j" "$P['namespaces']['workload']['inode'] != $P['namespaces']['observer']['inode']"
ok $? "the workload ran in a PID namespace of its own"
jtrue "$j" "$P['tasks']['init']['inside']['pid'] == 1 and $P['tasks']['main']['inside']['pid'] == 2 and $P['tasks']['main']['root']['pid'] != 2 and $P['tasks']['main']['root']['pid'] == $P['tasks']['thread']['root']['pid']"
ok $? "numbers: pid 1 and 2 inside, the main thread's root pid $(jget "$j" "$P['tasks']['main']['root']['pid']") shared by its second thread"
jtrue "$j" "all($P['tasks'][t][w]['samples'] > 0 and $P['tasks'][t][w]['switches'] > 0 for t in ('main', 'thread') for w in ('root', 'inside'))"
ok $? "both busy threads sampled and switched in both views (main $(jget "$j" "$P['tasks']['main']['root']['samples']")/$(jget "$j" "$P['tasks']['main']['inside']['samples']") samples)"
jtrue "$j" "all($P['tasks'][t]['root']['switches'] == $P['tasks'][t]['inside']['switches'] for t in ('main', 'thread'))"
ok $? "both views counted each thread's switches alike"
jtrue "$j" "$P['tasks']['children_forked'] == $P['tasks']['children_reported'] > 0 and all($P['views'][w]['records'].get(k, 0) >= $P['tasks']['children_forked'] for w in ('root', 'inside') for k in ('fork', 'exit', 'comm', 'namespaces'))"
ok $? "$(jget "$j" "$P['tasks']['children_forked']") children: fork, exit, comm and namespaces records for each, in both views"
jtrue "$j" "not $P['views']['root']['cpu_wide'] or $P['views']['root']['records']['switch_cpu_wide'] > 0"
ok $? "CPU-wide switch records where CPU-wide events opened"
if jtrue "$j" "$P['routing']['root']['checked']"; then
	jtrue "$j" "all($P['routing'][w]['ok'] and $P['routing'][w]['owner_read'] == $P['routing'][w]['owner_set'] and $P['routing'][w]['signals'] == $P['routing'][w]['overflows'] > 0 and $P['routing'][w]['signals_on_other_threads'] == 0 for w in ('root', 'inside'))"
	ok $? "routing: each observer's $(jget "$j" "$P['routing']['root']['signals']") watchpoint signals reached the thread it named"
	jtrue "$j" "$P['routing']['inside']['owner_set'] == $P['tasks']['thread']['inside']['tid'] and $P['routing']['root']['owner_set'] == $P['tasks']['thread']['root']['tid']"
	ok $? "routing: F_SETOWN_EX took tid $(jget "$j" "$P['routing']['inside']['owner_set']") inside and $(jget "$j" "$P['routing']['root']['owner_set']") from the root"
else
	skip "routing" "no hardware watchpoint: $(jget "$j" "$P['routing']['root']['error']")"
	skip "routing owner" "no hardware watchpoint"
fi
jtrue "$j" "$P['spe']['ran'] or (not $P['spe']['pmus'] and 'no arm_spe PMU' in $P['spe']['reason'])"
ok $? "SPE: ran, or said why not ($(jget "$j" "$P['spe']['reason']"))"
V "$j"; ok $? "both views: result valid against the schema"
[ -z "$(leftovers)" ]; ok $? "nothing of the namespace is left running"

# --- the SPE path where an arm_spe PMU is listed but cannot open (a fake
# sysfs entry of a PMU type no kernel has): both sessions are tried, in turn,
# and their failure is reported, never judged as a kernel bug
fake=$tmp/devices
mkdir -p "$fake/arm_spe_0/format" "$fake/arm_spe_0/caps"
for d in /sys/bus/event_source/devices/*; do ln -s "$d" "$fake/"; done
echo 9999 > "$fake/arm_spe_0/type"
echo config:0 > "$fake/arm_spe_0/format/ts_enable"
echo config:16 > "$fake/arm_spe_0/format/jitter"
echo 256 > "$fake/arm_spe_0/caps/min_interval"
j=$tmp/spe-fake.json
PMUSTRESS_SYSFS_DEVICES=$fake $PMS run pidns --quiet --duration 1s --json "$j"; rc=$?
ok $rc "a listed SPE PMU that cannot open: exits 0 (got $rc)"
[ $rc -eq 0 ] || diag "$(jget "$j" "d['verdict'] + ': ' + d['reason']")"
jtrue "$j" "d['verdict'] == 'pass' and not $P['spe']['ran'] and all($P['spe']['sessions'][w]['step'] == 'open' and $P['spe']['sessions'][w]['error'] == 'ENOENT' for w in ('root', 'inside')) and d['reason'].count('SPE not measured') == 2"
ok $? "SPE: a session tried from each side, each failure named (open: ENOENT), the run still judged on the rest"
jtrue "$j" "$P['spe']['pmus'][0]['name'] == 'arm_spe_0' and '0x10001' in $P['spe']['config']"
ok $? "SPE: the PMU and the config built from its format files (ts_enable, jitter) are in the result"

# --- one view at a time
for view in root inside; do
	other=$([ $view = root ] && echo inside || echo root)
	j=$tmp/$view.json
	$PMS run pidns --quiet --duration 1s --view $view --json "$j"
	ok $? "--view $view: exits 0"
	jtrue "$j" "d['verdict'] == 'pass' and $P['views']['$other'] is None and $P['views']['$view']['records']['sample'] > 0"
	ok $? "--view $view: pass on its own records, no $other view"
done

j=$tmp/nocw.json
$PMS run pidns --quiet --duration 1s --cpu-wide off --routing off --json "$j"
ok $? "--cpu-wide off --routing off: exits 0"
jtrue "$j" "d['verdict'] == 'pass' and not $P['views']['root']['cpu_wide'] and 'switch_cpu_wide' not in $P['views']['root']['records'] and not $P['routing']['root']['checked']"
ok $? "--cpu-wide off --routing off: neither ran"

# --- a user namespace too: pid 1 observes without privileges (a rootless container)
j=$tmp/userns.json
$PMS run pidns --quiet --duration 1s --userns --json "$j"
ok $? "--userns: exits 0"
jtrue "$j" "d['verdict'] == 'pass' and $P['event']['user_namespace'] and not $P['views']['inside']['namespaces_records'] and not $P['views']['inside']['cpu_wide'] and $P['views']['inside']['errors']['cpu_wide'] in ('EACCES', 'EPERM') and $P['views']['inside']['records']['fork'] > 0"
ok $? "--userns: pass; inside, NAMESPACES and CPU-wide events were refused (no CAP_SYS_ADMIN or CAP_PERFMON there) and not owed"
# (Not on a sanitized build: its logs go to root's build folder.)
if [ -n "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ]; then
	skip "unprivileged runs" "sanitized build: nobody cannot write its logs"
	skip "unprivileged skip schema" "sanitized build"
	skip "unprivileged --userns" "sanitized build"
elif id nobody > /dev/null 2>&1 && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 2 ]; then
	runuser -u nobody -- $PMS run pidns --quiet --duration 1s --json - > "$tmp/nobody.json" 2> /dev/null; rc=$?
	[ $rc -eq 4 ] && jtrue "$tmp/nobody.json" "d['setup_status'] == 'skip' and 'run as root, or with --userns' in d['reason']"
	ok $? "unprivileged without --userns: skips in set-up (exit $rc) and says how to run"
	V "$tmp/nobody.json"; ok $? "unprivileged skip: result valid against the schema"
	out=$(runuser -u nobody -- $PMS run pidns --quiet --duration 1s --userns --json - 2>/dev/null); rc=$?
	if [ $rc -eq 4 ]; then
		skip "unprivileged --userns" "user namespaces are not allowed for nobody here"
	else
		echo "$out" | $PY -c 'import json,sys; d=json.load(sys.stdin); p=d["pidns"]; sys.exit(0 if d["verdict"] == "pass" and p["views"]["root"]["records"]["sample"] > 0 and p["views"]["inside"]["records"]["sample"] > 0 else 1)'
		ok $? "unprivileged with --userns: both observers sample and the run passes (exit $rc)"
	fi
else
	skip "unprivileged runs" "no user nobody, or perf_event_paranoid above 2"
	skip "unprivileged skip schema" "no user nobody, or perf_event_paranoid above 2"
	skip "unprivileged --userns" "no user nobody, or perf_event_paranoid above 2"
fi

# --- the oracle catches what it must
j=$tmp/inject.json
$PMS run pidns --quiet --duration 1s --inject-wrong-ns 20 --json "$j"
rc=$?
[ $rc -eq 1 ]; ok $? "--inject-wrong-ns 20: exits 1 (fail), got $rc"
jtrue "$j" "d['verdict'] == 'fail' and $P['views']['root']['classes']['wrong_namespace'] == $P['fault_injection']['samples_altered'] > 0 and $P['views']['inside']['classes']['wrong_namespace'] == 0"
ok $? "injected: each of the $(jget "$j" "$P['fault_injection']['samples_altered']") altered samples called wrong_namespace, in the root view only"
jtrue "$j" "'FAULT INJECTION' in d['reason'] and 'injected' in d['reason'] and 'possibly new' not in d['reason']"
ok $? "injected: the reason says so and accuses no kernel"
V "$j"; ok $? "injected: result valid against the schema"

# --- two runs at once share the uid's signal queue and the machine
$PMS run pidns --quiet --duration 1s --json "$tmp/c1.json" & p1=$!
$PMS run pidns --quiet --duration 1s --json "$tmp/c2.json" & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
ok $([ $r1 -eq 0 ] && [ $r2 -eq 0 ]; echo $?) "two runs at once: both pass (exit $r1, $r2)"

# --- bad input, and an interrupted run
out=$($PMS run pidns --view sideways 2>&1); rc=$?
[ $rc -eq 64 ] && [ "$(echo "$out" | wc -l)" -eq 1 ]; ok $? "--view sideways: one-line error, exit 64 ($out)"
out=$($PMS run pidns --event breakpoint --quiet --json "$tmp/bp.json" 2>&1); rc=$?
[ $rc -eq 64 ]; ok $? "--event breakpoint: refused as usage (exit $rc)"
timeout --preserve-status -s INT 1 $PMS run pidns --quiet --duration 20s --json "$tmp/int.json"; rc=$?
[ $rc -eq 130 ]; ok $? "SIGINT mid-run: exits 130, got $rc"
[ -z "$(leftovers)" ]; ok $? "SIGINT: nothing of the namespace is left running"
# A busy thread owes samples only for the time it ran: read as STOP is sent.
jtrue "$tmp/int.json" "all(d['pidns']['tasks'][k]['cpu_seconds'] > 0 for k in ('main', 'thread'))"
ok $? "SIGINT: each busy thread's CPU time recorded (main $(jget "$tmp/int.json" "d['pidns']['tasks']['main']['cpu_seconds']") s, thread $(jget "$tmp/int.json" "d['pidns']['tasks']['thread']['cpu_seconds']") s)"

done_testing
