#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The emulated-arm64 path end to end: boot the newest Debian 6.1 arm64 kernel
# (downloaded once, then cached) under QEMU, run lost-overflow for one guest
# second on the real armv8pmu driver, check the result, compare it with the
# committed baseline; boot it once more with a --sysctl and the taskset mover
# (half a guest second); and check that a boot that never powers off is
# killed.
. tests/integration/tap.sh

# guest_result DIR LABEL WHAT: the 6.1 result of run LABEL under $tmp/DIR,
# checked to exist and to validate, in $res (/nonexistent if none).
guest_result() {
	res=$(ls "$tmp"/"$1"/6.1.*/"$2".json 2>/dev/null | head -1)
	[ -n "$res" ]; ok $? "one result for 6.1 x $2 (${res#$tmp/})"
	[ -n "$res" ] || res=/nonexistent
	tests/helpers/validate-json results/schema/result.schema.json "$res" > "$tmp/v" 2>&1
	ok $? "$3 validates against the schema"
}

base=results/baseline/emulated-arm64

if [ "$(id -u)" -ne 0 ] && ! command -v qemu-system-aarch64 >/dev/null; then
	echo "1..0 # SKIP needs root to install qemu-system-arm and the arm64 toolchain"
	exit 0
fi

scripts/kernel-matrix --kernel 6.1 --run "lo run lost-overflow --duration 1s --max-anomalies 100" \
	--run "ap run aux-pause --part abi" --out "$tmp/m" > "$tmp/matrix.out" 2> "$tmp/matrix.err"
rc=$?
if [ $rc -eq 69 ] && grep -q "no Debian arm64 kernel package\|cannot download" "$tmp/matrix.err"; then
	echo "1..0 # SKIP no arm64 kernel package to be had: $(grep -m1 kernel-matrix "$tmp/matrix.err")"
	exit 0
fi
ok $rc "kernel-matrix exits 0 (every result came back), got $rc"
[ $rc -eq 0 ] || diag < "$tmp/matrix.err"
guest_result m lo "the guest's result"
j=$res
jtrue "$j" "d['host']['arch'] == 'aarch64' and d['host']['kernel']['release'].startswith('6.1.')"
ok $? "it ran on an arm64 6.1 kernel"
jtrue "$j" "d['counter']['name'] == 'cycles' and not d['counter']['substitute'] and d['counter']['pmu'].startswith('armv8_pmuv3') and d['counter']['attr']['type'] == 0"
ok $? "counter is the hardware cycles event on armv8_pmuv3, not a substitute"
jtrue "$j" "d['host']['emulated'] and d['host']['emulation']['icount'] == 'shift=0' and 'QEMU' in d['host']['emulation']['qemu_version']"
ok $? "host block says emulated, with QEMU version and icount"
jtrue "$j" "'QEMU' in d['counter']['source'] and d['oracle']['signals'] > 10000"
ok $? "cycles was chosen because of QEMU, and overflows were signalled ($(jget "$j" "d['oracle']['signals']"))"
jtrue "$j" "d['mover']['enabled'] and d['mover']['migrations_sched'] > 0"
ok $? "the mover moved the thread inside the guest ($(jget "$j" "d['mover']['migrations_sched']") migrations)"
# QEMU raises an overflow at its next timer event: no CPU figure bounds that
# skid, so lateness is reported, not judged, while lost overflows still are.
jtrue "$j" "not d['oracle']['skid_bounded'] and not d['oracle']['judged']['late'] and not d['oracle']['judged']['early'] and not d['oracle']['judged']['coalesced'] and d['oracle']['judged']['lost'] and 'emulated PMU' in d['oracle']['skid_source'] and ('beyond the skid bound' not in d['reason'])"
ok $? "emulated PMU: late, early and coalesced reported, not judged ($(jget "$j" "d['oracle']['classes']['late']") late); lost still judged"
tests/helpers/validate-json results/schema/result.schema.json "$j" > "$tmp/v-lo" 2>&1
ok $? "the guest's lost-overflow result validates against the schema"
[ $? -eq 0 ] || diag < "$tmp/v-lo"
grep -q "^6\.1\.[^ ]* *| *[a-z]* ([0-9]*) sig" "$tmp/matrix.out"; ok $? "the matrix table has a row for the kernel"

# The aux_action ABI on 6.1: every bit is still reserved there.
a=$(ls "$tmp"/m/6.1.*/ap.json 2>/dev/null | head -1)
[ -n "$a" ]; ok $? "one result for 6.1 x aux-pause (${a#$tmp/})"
[ -n "$a" ] || a=/nonexistent
tests/helpers/validate-json results/schema/result.schema.json "$a" > "$tmp/v" 2>&1
ok $? "the guest's aux-pause result validates against the schema"
K="d['aux_pause']['abi']"
jtrue "$a" "$K['era'] == 'reserved' and $K['era_source'] == 'btf' and not $K['backport'] and $K['aux_action_supported'] == {'expected': False, 'observed': False}"
ok $? "6.1: reserved era from its BTF, aux_action not supported"
jtrue "$a" "all(c['seen'] == 'EINVAL' for c in $K['cases'] if c['result'] == 'match' and c['attr']['aux_action'])"
ok $? "6.1: every aux_action bit rejected with EINVAL"
jtrue "$a" "$K['counts']['mismatch'] == 0 and $K['counts']['match'] >= 13 and d['verdict'] == 'pass'"
ok $? "6.1: $(jget "$a" "$K['counts']['match']") cases match, none mismatch (tracepoint and breakpoint cases reached)"

if [ -d "$base" ]; then
	./pmustress compare --json "$(ls -d "$base"/6.1.*/ | head -1)" "$(ls -d "$tmp"/m/6.1.*/ | head -1)" > "$tmp/cmp.json"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 1 ]; ok $? "compare against the committed baseline runs (exit $rc)"
	jtrue "$tmp/cmp.json" "len(d['pairs']) == 2 and all(p['status'] in ('SAME', 'REGRESSED', 'IMPROVED') for p in d['pairs'])"
	ok $? "it pairs the fresh runs with the baseline's mover and aux-pause runs ($(jget "$tmp/cmp.json" "[p['status'] for p in d['pairs']]"))"
	jtrue "$tmp/cmp.json" "[p['status'] for p in d['pairs'] if 'aux-pause' in json.dumps(p)] == ['SAME']"
	ok $? "the aux_action matrix on 6.1 is the SAME as the baseline's"
	n_base=$(ls "$(ls -d "$base"/6.1.*/ | head -1)" | grep -c '^lost-overflow.*\.json$\|^disable-storm.*\.json$\|^ioctl-semantics\.json$\|^skid-into-kernel.*\.json$')
	# sigtrap's baseline runs pair with nothing this boot ran: left out of the count.
	jtrue "$tmp/cmp.json" "len([o for o in d['only_old'] if 'sigtrap' not in json.dumps(o)]) == $n_base - 1"
	ok $? "the baseline's other runs (control, kernel, taskset, ...) are reported as unpaired ($(jget "$tmp/cmp.json" "len([o for o in d['only_old'] if 'sigtrap' not in json.dumps(o)])") of $n_base)"
else
	skip "compare against the baseline" "no $base"
fi

# One more boot: a sysctl written by the guest's /init before the run, and
# the taskset mover, which needs the aarch64 taskset(1) the harness puts in
# the image.  Its own boot, since the sysctl throttles the runs above.
scripts/kernel-matrix --kernel 6.1 --run "ts run lost-overflow --mover taskset --duration 500ms --max-anomalies 100" \
	--sysctl kernel.perf_event_max_sample_rate=5000 --append nmi_watchdog=0 --out "$tmp/ts" \
	> "$tmp/ts.out" 2> "$tmp/ts.err"
rc=$?
ok $rc "kernel-matrix --sysctl --append with a taskset-mover run exits 0, got $rc"
[ $rc -eq 0 ] || diag < "$tmp/ts.err"
guest_result ts ts "the taskset run's result"
t=$res
jtrue "$t" "d['mover']['kind'] == 'taskset' and d['mover']['rebinds_requested'] > 0 and d['mover']['rebinds_failed'] == 0"
ok $? "taskset mover in the guest: $(jget "$t" "d['mover']['rebinds_requested']") rebinds, $(jget "$t" "d['mover']['rebinds_failed']") failed"
jtrue "$t" "d['mover']['migrations_sched'] > 0 and d['mover']['migrations_counted'] > 0"
ok $? "and the thread migrated ($(jget "$t" "d['mover']['migrations_sched']") migrations by the scheduler)"
jtrue "$t" "d['host']['sysctl']['perf_event_max_sample_rate'] == 5000"
ok $? "the guest's host.sysctl shows the --sysctl (perf_event_max_sample_rate $(jget "$t" "d['host']['sysctl']['perf_event_max_sample_rate']"))"
jtrue "$t" "d['host']['emulation']['sysctl_set'] == {'kernel.perf_event_max_sample_rate': '5000'} and d['host']['emulation']['kernel_params'] == ['nmi_watchdog=0']"
ok $? "host.emulation records sysctl_set and kernel_params"
jtrue "$t" "d['host']['cmdline']['nmi_watchdog'] == '0' and 'pms.sysctl=kernel.perf_event_max_sample_rate=5000' in d['host']['cmdline']['raw']"
ok $? "the guest booted with the --append parameter and /init's sysctl argument"

# A kernel that never powers off: killed at the time limit, no QEMU left.
head -c 1048576 /dev/zero > "$tmp/Image-bogus"
start=$(date +%s)
scripts/kernel-matrix --kernel "$tmp/Image-bogus" --timeout 10 --out "$tmp/bogus" \
	> "$tmp/bogus.out" 2> "$tmp/bogus.err"
rc=$?
[ $rc -eq 70 ]; ok $? "a boot that never finishes exits 70 (got $rc)"
[ $(( $(date +%s) - start )) -lt 60 ]; ok $? "and is killed at its time limit"
grep -q "never finished" "$tmp/bogus.err"; ok $? "with a clear error: $(grep -m1 'never finished' "$tmp/bogus.err")"
! pgrep -f "Image-bogus" > /dev/null; ok $? "no QEMU process is left behind"

done_testing
