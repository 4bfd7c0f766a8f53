#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# aux-pause on this machine's real kernel.  The ABI matrix runs everywhere:
# every case reachable here must give the errno this kernel version must
# give, and judging the same kernel as another version must fail.  The race
# stress needs intel_pt or cs_etm: without one it skips with the reason
# (exit 4 when asked for alone), never a pass.
. tests/integration/tap.sh

S=$SCHEMA_FILE
K="d['aux_pause']"
rel=$(uname -r)
# Does this kernel know aux_action?  Worked out here, not by pmustress: its
# BTF names aux_start_paused (backports included), else the release is 6.13+.
new=$($PY -c '
import sys
try:
    print(b"aux_start_paused\0" in open("/sys/kernel/btf/vmlinux", "rb").read())
except OSError:
    M, m = map(int, sys.argv[1].split("-")[0].split(".")[:2])
    print((M, m) >= (6, 13))' "$rel")
aux=$(ls /sys/bus/event_source/devices | grep -E '^(intel_pt|cs_etm|arm_spe|hisi_ptt)' | head -1)

# In a private mount namespace: other tests and runs mounting tracefs at
# the same time do not move the count.
j=$tmp/all.json
ns=
command -v unshare > /dev/null && ns="unshare -m --propagation private"
mounts=$($ns sh -c 'b=$(grep -c " tracefs " /proc/mounts)
	"$1" run aux-pause --duration 1s --json "$2" > "$3" 2>&1
	echo "$? $b $(grep -c " tracefs " /proc/mounts)"' sh "$PMS" "$j" "$tmp/all.out")
read -r rc mounts_before mounts_after <<< "$mounts"
if [ -n "$aux" ]; then
	ok $([ $rc -eq 0 ] || [ $rc -eq 1 ]; echo $?) "default run with $aux: exits 0 or 1 (rc $rc)"
else
	ok $rc "default run: exits 0 (the ABI matrix passes, the race stress is skipped)"
fi
[ $rc -le 1 ] || diag < "$tmp/all.out"
$V $S "$j" > /dev/null; ok $? "result validates against the schema"
ok $([ "$mounts_after" = "$mounts_before" ]; echo $?) "tracefs mounts left as found ($mounts_before -> $mounts_after)"
jtrue "$j" "$K['tracefs']['mounted_by_pmustress'] == ($mounts_before == 0)"
ok $? "the JSON says whether pmustress mounted tracefs for the run"
jtrue "$j" "$K['abi']['release'] == '$rel' and $K['abi']['era'] == ('aux_action' if $new else 'reserved')"
ok $? "ABI: kernel $rel is judged in the $(jget "$j" "$K['abi']['era']") era"
if [ -r /sys/kernel/btf/vmlinux ]; then
	jtrue "$j" "$K['abi']['era_source'] == 'btf' and $K['abi']['btf_aux_action'] == (b'aux_start_paused\\0' in open('/sys/kernel/btf/vmlinux', 'rb').read())"
	ok $? "ABI: the era comes from the kernel's BTF, which agrees with a plain search of it"
else
	skip "ABI: era from BTF" "no /sys/kernel/btf/vmlinux"
fi
jtrue "$j" "$K['abi']['counts']['mismatch'] == 0 and $K['abi']['verdict'] == 'pass'"
ok $? "ABI: no mismatch ($(jget "$j" "$K['abi']['finding']"))"
jtrue "$j" "all(c['seen'] == c['expected'] for c in $K['abi']['cases'] if c['result'] == 'match')"
ok $? "ABI: every matched case saw exactly the expected errno"
jtrue "$j" "all(c['result'] == 'match' for c in $K['abi']['cases'] if c['pmu'].startswith('software') and 'aux' not in c['name'])"
ok $? "ABI: every software case is reachable and matches"
jtrue "$j" "[c['seen'] for c in $K['abi']['cases'] if c['name'] == 'start-paused-software'] == ['EOPNOTSUPP' if $new else 'EINVAL']"
ok $? "ABI: aux_start_paused on task-clock gives $(jget "$j" "[c['seen'] for c in $K['abi']['cases'] if c['name'] == 'start-paused-software'][0]")"
jtrue "$j" "[c['seen'] for c in $K['abi']['cases'] if c['name'] == 'pause-and-resume'] == ['EINVAL']"
ok $? "ABI: aux_pause with aux_resume gives EINVAL"
jtrue "$j" "[c['seen'] for c in $K['abi']['cases'] if c['name'] == 'output-with-pause'] == ['EOPNOTSUPP' if $new else 'EINVAL']"
ok $? "ABI: aux_output with aux_pause gives $(jget "$j" "[c['seen'] for c in $K['abi']['cases'] if c['name'] == 'output-with-pause'][0]")"
jtrue "$j" "[c['seen'] for c in $K['abi']['cases'] if c['name'] == 'control'] == ['ok']"
ok $? "ABI: the control (aux_action 0, 6.13 attr layout) opens"
jtrue "$j" "$K['abi']['aux_action_supported'] == {'expected': $new, 'observed': $new}"
ok $? "ABI: aux_action supported: expected and observed $new"
if [ "$(jget "$j" "$K['tracefs']['path'] is not None")" = true ]; then
	jtrue "$j" "all(c['result'] == 'match' for c in $K['abi']['cases'] if c['pmu'].startswith('tracepoint') and 'aux' not in c['name'])"
	ok $? "ABI: the tracepoint cases are reachable and match"
else
	skip "ABI: tracepoint cases" "no tracefs events here"
fi
if [ -z "$aux" ]; then
	jtrue "$j" "all(c['result'] == 'skipped' and 'AUX' in c['why'] for c in $K['abi']['cases'] if 'aux' in c['name'])"
	ok $? "ABI: the AUX-PMU cases are skipped, saying why"
	jtrue "$j" "$K['race']['verdict'] == 'skip' and 'intel_pt' in $K['race']['finding'] and 'cs_etm' in $K['race']['finding']"
	ok $? "race: skipped, naming the hardware it needs"
	grep -q 'race stress SKIPPED' "$tmp/all.out"; ok $? "human output says the race stress was SKIPPED"
	jtrue "$j" "'race stress SKIPPED' in d['reason'] and d['verdict'] == 'pass'"
	ok $? "JSON reason says so too; the verdict rests on the ABI matrix"
else
	skip "ABI: AUX cases skipped" "$aux is present"
	skip "race: skipped" "$aux is present"
	skip "human output SKIPPED" "$aux is present"
	skip "reason SKIPPED" "$aux is present"
fi
grep -Eq '^  start-paused-software +software +- +(EOPNOTSUPP|EINVAL) +(EOPNOTSUPP|EINVAL) +match' "$tmp/all.out"
ok $? "human output has the matrix row for start-paused-software"
$PMS probe --json > "$tmp/probe.json"
jtrue "$tmp/probe.json" "d['features']['aux_action']['supported'] == $new"
ok $? "probe: feature aux_action supported == $new ($(jget "$tmp/probe.json" "d['features']['aux_action']['detail']"))"

# Judged as the other era, this same kernel must fail, naming the era it fits.
if [ "$new" = True ]; then other=6.12.0; fits=aux_action; else other=6.13.0; fits=reserved; fi
j=$tmp/wrong.json
$PMS run aux-pause --part abi --kernel-release "$other" --json "$j" > "$tmp/wrong.out" 2>&1
rc=$?
ok $([ $rc -eq 1 ]; echo $?) "judged as $other: exits 1 (fail), rc $rc"
jtrue "$j" "$K['abi']['counts']['mismatch'] >= 4 and d['verdict'] == 'fail'"
ok $? "judged as $other: $(jget "$j" "$K['abi']['counts']['mismatch']") mismatches"
jtrue "$j" "all('$fits era gives' in c['why'] for c in $K['abi']['cases'] if c['result'] == 'mismatch')"
ok $? "each mismatch says the answer fits the $fits era (backport or revert?)"
jtrue "$j" "'race' not in $K and $K['part'] == 'abi'"
ok $? "--part abi runs no race stress"
$V $S "$j" > /dev/null; ok $? "failing result validates against the schema"

# The race stress alone, where it cannot run, skips with exit 4.
if [ -z "$aux" ]; then
	j=$tmp/race.json
	$PMS run aux-pause --part race --json "$j" > "$tmp/race.out" 2>&1
	rc=$?
	ok $([ $rc -eq 4 ]; echo $?) "--part race without an AUX PMU: exit 4 (rc $rc)"
	jtrue "$j" "d['verdict'] == 'skip' and d['setup_status'] == 'skip' and 'intel_pt' in d['reason']"
	ok $? "--part race: verdict skip, reason names intel_pt ($(jget "$j" "d['reason']"))"
	$V $S "$j" > /dev/null; ok $? "skip result validates against the schema"
	# A PMU that cannot pause is refused by the kernel's own capability check.
	j=$tmp/race-sw.json
	$PMS run aux-pause --part race --aux-pmu software --json "$j" > "$tmp/race-sw.out" 2>&1
	rc=$?
	if [ "$new" = True ]; then
		ok $([ $rc -eq 4 ] && jtrue "$j" "'software has no pause capability' in d['reason'] and 'EOPNOTSUPP' in d['reason']"; echo $?) "--part race --aux-pmu software: exit 4, the kernel says EOPNOTSUPP ($(jget "$j" "d['reason']"))"
	else
		ok $([ $rc -eq 4 ] && jtrue "$j" "'predates aux_action' in d['reason']"; echo $?) "--part race --aux-pmu software: exit 4, the kernel predates aux_action"
	fi
else
	skip "--part race exit 4" "$aux is present"
	skip "--part race reason" "$aux is present"
	skip "--part race schema" "$aux is present"
	skip "--part race --aux-pmu software" "$aux is present"
fi

# Bad input: one line, a distinct status.
bad() {	# WANT-RC DESCRIPTION ARGS...
	local want=$1 what=$2; shift 2
	$PMS run aux-pause --json "$tmp/bad.json" "$@" > "$tmp/bad.out" 2>&1
	local rc=$?
	ok $([ $rc -eq "$want" ]; echo $?) "$what: exit $want (rc $rc: $(head -1 "$tmp/bad.out"))"
}
bad 64 "--part bogus" --part bogus
bad 64 "--aux-pages 3 (not a power of two)" --aux-pages 3
bad 67 "--aux-pmu nosuch" --aux-pmu nosuch
bad 66 "--mover without two CPUs" --mover
bad 66 "--cpus 4096" --cpus 4096
bad 67 "--event nosuch (NMI trigger)" --event nosuch --aux-pmu software

done_testing
