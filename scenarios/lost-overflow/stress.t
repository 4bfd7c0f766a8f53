#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lost-overflow's schedule-out stressors on this machine's real kernel: each
# alone for about a second must really schedule the workload out (its
# context switches against a control run's), say what it did, leave no
# child behind, and refuse bad settings with the usage status.
. tests/integration/tap.sh

SD=${PMS_STRESS_DURATION:-1s}

# srun NAME ARGS...: one lost-overflow run of SD with ARGS; its exit status
# in $tmp/NAME.rc.  The run is its own process group (job control), so that
# its children can be looked for by group after it ends.
set -m
srun() {
	local name=$1; shift
	$PMS run lost-overflow --duration "$SD" --max-anomalies 100 --json "$tmp/$name.json" \
		"$@" > "$tmp/$name.out" 2>&1 &
	local pid=$!
	wait $pid
	echo $? > "$tmp/$name.rc"
	echo $pid > "$tmp/$name.pid"
}

# ran NAME: exit 0 or 1, verdict pass or fail (never error), valid result.
ran() {
	local name=$1 rc
	rc=$(cat "$tmp/$name.rc")
	[ "$rc" -le 1 ] && jtrue "$tmp/$name.json" "d['verdict'] in ('pass', 'fail')"
	ok $? "$name: exits $rc, verdict $(jget "$tmp/$name.json" "d['verdict']") ($(jget "$tmp/$name.json" "d['reason'][:120]"))"
	[ "$rc" -le 1 ] || diag < "$tmp/$name.out"
	"$PY" "$V" "$SCHEMA_FILE" "$tmp/$name.json" > "$tmp/$name.valid" 2>&1
	ok $? "$name: the result validates against the schema"
	[ $? -eq 0 ] || diag < "$tmp/$name.valid"
}

# sw NAME voluntary|involuntary: the workload's switches in that run
sw() {
	jget "$tmp/$1.json" "d['stressors']['workload_switches']['$2']"
}

# group_left PGID: the run's own children (this binary started with the
# stressor's hidden argument) still in its group.  Anything else there is
# not pmustress's: a sanitized build starts llvm-symbolizer at exit to
# match its leak suppressions by name, and a sanitized child may too.
group_left() {
	pgrep -g "$1" -f -- --pms-stress-child | wc -l
}

# no_children NAME: nothing of the run's process group is left.
no_children() {
	local pid left
	pid=$(cat "$tmp/$1.pid")
	left=$(group_left "$pid")
	[ "$left" -eq 0 ]
	ok $? "$1: no process of its group (pgid $pid) outlives the run ($left left)"
}

srun control --no-mover
ran control
jtrue "$tmp/control.json" "not d['stressors']['any'] and d['stressors']['cause'] == 'none' and d['stressors']['workload_switches']['involuntary'] is not None"
ok $? "control: no stressor, the workload's switches still measured ($(jget "$tmp/control.json" "d['stressors']['workload_switches']['voluntary']") voluntary, $(jget "$tmp/control.json" "d['stressors']['workload_switches']['involuntary']") involuntary)"
cvol=$(jget "$tmp/control.json" "d['stressors']['workload_switches']['voluntary']")
cinv=$(jget "$tmp/control.json" "d['stressors']['workload_switches']['involuntary']")
# On a machine busy with other work (an emulated-arm64 boot, other runs) the
# control itself is preempted all the time, and a stressor's preemptions
# hide in that: compare involuntary switches only on a quiet machine.  The
# voluntary ones (sleeps) do not depend on it.
busy_cpu=
# Quiet, the control is preempted a handful of times a second (3 to 6 here).
[ "$cinv" -le 50 ] || busy_cpu="the control was preempted $cinv times in $SD: the machine is busy with other work"
compare() {	# COND DESCRIPTION: ok on a quiet machine, skip on a busy one
	if [ -n "$busy_cpu" ]; then
		skip "$2" "$busy_cpu"
	else
		ok "$1" "$2"
	fi
}

# --preempt: bursts that wake on the workload's CPU, each a preemption.
for by in thread process; do
	name=preempt-$by
	srun $name --no-mover --preempt 1 --preempt-by $by
	ran $name
	jtrue "$tmp/$name.json" "d['stressors']['preempt']['requested'] and d['stressors']['preempt']['started'] == d['stressors']['preempt']['competitors'] == 1 and d['stressors']['preempt']['cpu_seconds'] > 0 and d['stressors']['cause'] == 'switch_out'"
	ok $? "$name: one competitor ran ($(jget "$tmp/$name.json" "d['stressors']['preempt']['cpu_seconds']") CPU s, bursts $(jget "$tmp/$name.json" "d['stressors']['preempt']['bursts']"))"
	inv=$(sw $name involuntary)
	[ "$inv" -gt $((2 * cinv + 200)) ]
	compare $? "$name: involuntary switches $cinv (control) -> $inv"
	no_children $name
done
jtrue "$tmp/preempt-thread.json" "d['stressors']['preempt']['bursts'] > 200"
ok $? "preempt-thread: its bursts are counted ($(jget "$tmp/preempt-thread.json" "d['stressors']['preempt']['bursts']"))"

# --fork-churn: children spawned on the workload's CPU, each a wake-up there.
srun fork --no-mover --fork-churn 500
ran fork
jtrue "$tmp/fork.json" "[f['exited_ok'] > 10 and f['spawn_failed'] == 0 and f['exit_failed'] == 0 and f['exited_ok'] + f['killed_at_stop'] == f['spawned'] for f in [d['stressors']['fork_churn']]][0]"
ok $? "fork: $(jget "$tmp/fork.json" "d['stressors']['fork_churn']['spawned']") children spawned, each ran to its end or was killed at the stop"
jtrue "$tmp/fork.json" "d['stressors']['fork_churn']['inherited_perf_fd'] == 0 and not d['counter']['attr'].get('inherit')"
ok $? "fork: no child held a perf_event fd after exec; the counter is not inherited"
# A child that runs on the workload's CPU switches the workload out, but
# several children can run in one such gap and the scheduler need not
# preempt at each wake-up: measured here, 0.4 to 1 switch per child.  So
# the floor is relative to the children the run really spawned (one in
# eight) above the control, and never below 20.
all=$(( $(sw fork voluntary) + $(sw fork involuntary) ))
spawned=$(jget "$tmp/fork.json" "d['stressors']['fork_churn']['spawned']")
floor=$((spawned / 8)); [ "$floor" -ge 20 ] || floor=20
[ "$all" -gt $((cvol + cinv + floor)) ]
compare $? "fork: the workload's switches $((cvol + cinv)) (control) -> $all for $spawned children (floor $((cvol + cinv + floor)))"
no_children fork

# --sleep-every: each sleep is a voluntary switch.
srun sleep --no-mover --sleep-every 1000
ran sleep
vol=$(sw sleep voluntary)
sleeps=$(jget "$tmp/sleep.json" "d['stressors']['sleep']['sleeps']")
[ "$sleeps" -gt 50 ] && [ "$vol" -ge $((sleeps * 9 / 10)) ] && [ "$vol" -gt $((2 * cvol + 50)) ]
ok $? "sleep: $sleeps sleeps, voluntary switches $cvol (control) -> $vol"

# --yield-every: sched_yield() switches only to another runnable task, so
# it is measured against a busy competitor: yielding to it on every Nth step.
srun yield --no-mover --yield-every 100
ran yield
jtrue "$tmp/yield.json" "d['stressors']['yield']['yields'] > 100"
ok $? "yield: the workload yielded ($(jget "$tmp/yield.json" "d['stressors']['yield']['yields']") times)"
srun busy --no-mover --preempt 1 --preempt-rate 0
srun busy-yield --no-mover --preempt 1 --preempt-rate 0 --yield-every 100
ran busy-yield
binv=$(sw busy involuntary)
yinv=$(sw busy-yield involuntary)
[ "$yinv" -gt $((binv + 100)) ]
compare $? "yield beside a busy competitor: involuntary switches $binv (busy alone) -> $yinv"

# Beside the mover.
if [ "$(nproc)" -ge 2 ]; then
	srun mover-preempt --preempt 1 --fork-churn 100
	ran mover-preempt
	jtrue "$tmp/mover-preempt.json" "d['mover']['enabled'] and d['stressors']['preempt']['competitors'] == 2 and d['stressors']['cpus'] == d['mover']['cpus']"
	ok $? "mover-preempt: a competitor on each CPU the mover uses ($(jget "$tmp/mover-preempt.json" "d['stressors']['cpus']"))"
	no_children mover-preempt
else
	skip "stressors beside the mover" "needs two CPUs"
fi

# SIGINT while children run: the run ends at once and takes them with it.
$PMS run lost-overflow --duration 30s --quiet --no-mover --preempt 2 --preempt-by process \
	--fork-churn 200 --json "$tmp/int.json" > "$tmp/int.out" 2>&1 &
pid=$!
n=0
for _ in $(seq 200); do
	n=$(pgrep -g $pid -f -- --pms-stress-child | wc -l)
	[ "$n" -ge 2 ] && break
	kill -0 $pid 2> /dev/null || break
	sleep 0.05	# polling for the children to exist, not synchronising on time
done
[ "$n" -ge 2 ]
ok $? "SIGINT: the run's children were running ($n)"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && jtrue "$tmp/int.json" "d['interrupted'] and d['stressors']['preempt']['started'] == 2"
ok $? "SIGINT: exits 130 with the stressors section written"
left=$(group_left $pid)
[ "$left" -eq 0 ]
ok $? "SIGINT: no child outlives the run ($left left)"
set +m

# Bad settings: the usage status and one line saying what is wrong.
bad() {	# WHAT ARGS...
	local what=$1; shift
	$PMS run lost-overflow --duration 100ms --no-mover "$@" > "$tmp/bad.out" 2> "$tmp/bad.err"
	local rc=$?
	[ $rc -eq 64 ] && [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] && grep -q -- "$what" "$tmp/bad.err"
	ok $? "bad: $* exits 64 ($rc) with one line: $(head -c 150 "$tmp/bad.err")"
}
bad "preempt" --preempt 17
bad "preempt-rate" --preempt-rate 10
bad "fit" --preempt 1 --preempt-rate 1000 --preempt-burst 2ms
bad "preempt-rate" --preempt 1 --preempt-rate 0 --preempt-burst 1ms
bad "sleep-every" --sleep-for 10us
bad "fork-churn" --fork-churn lots

done_testing
