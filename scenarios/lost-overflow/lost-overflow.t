#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lost-overflow on this machine's real kernel.  With no hardware PMU it runs on
# the breakpoint substitute, which is exact on x86: every delta must be exactly
# one period, with and without the mover.  Fault injection proves the oracle
# and the watchdog catch a loss end to end.
. tests/integration/tap.sh


if [ "$(nproc)" -lt 2 ]; then
	skip "lost-overflow with the mover" "needs two CPUs"
	movers=()
else
	movers=(hwloc taskset)
fi
core=$(core_pmu)

exact_run() {	# NAME ARGS...: the run passes with every delta exactly P
	local name=$1; shift
	local j=$tmp/$name.json
	$PMS run lost-overflow --duration "$D" --json "$j" "$@" > "$tmp/$name.out"
	local rc=$?
	ok $rc "$name: exits 0 (pass)"
	[ $rc -eq 0 ] || { diag "$(cat "$tmp/$name.out")"; }
	jtrue "$j" "d['verdict'] == 'pass' and d['exit_code'] == 0"; ok $? "$name: verdict pass in the JSON"
	jtrue "$j" "d['oracle']['signals'] > 100"; ok $? "$name: more than 100 signals ($(jget "$j" "d['oracle']['signals']"))"
	if [ -z "$core" ]; then
		jtrue "$j" "d['counter']['substitute'] and d['counter']['attr']['type_name'] == 'breakpoint' and 'no hardware PMU' in d['counter']['substitute_reason']"
		ok $? "$name: runs on the breakpoint substitute and says why"
		grep -q "SUBSTITUTE COUNTER" "$tmp/$name.out"; ok $? "$name: human output says SUBSTITUTE loudly"
		jtrue "$j" "d['oracle']['delta']['min'] == d['oracle']['delta']['max'] == d['counter']['period']"
		ok $? "$name: every delta is exactly one period"
		jtrue "$j" "d['oracle']['signals'] == d['oracle']['overflows_implied'] == d['workload']['final_count'] // d['counter']['period']"
		ok $? "$name: one signal per overflow the final count implies"
		jtrue "$j" "d['workload']['final_count'] == d['workload']['iterations']"
		ok $? "$name: breakpoint count equals the workload's own iteration count"
	fi
	jtrue "$j" "d['oracle']['lost'] == 0 and all(v == 0 for k, v in d['oracle']['classes'].items() if k != 'on_time')"
	ok $? "$name: nothing lost, late, early, coalesced, spurious, gap or bad"
	jtrue "$j" "d['affinity']['restored'] and d['affinity']['initial'] == d['affinity']['final']"
	ok $? "$name: counting thread's affinity restored"
	jtrue "$j" "d['counter']['attr']['exclude_kernel'] and d['counter']['attr']['exclude_guest'] and d['counter']['attr']['use_clockid']"
	ok $? "$name: rr's exclude bits and use_clockid recorded in attr"
}

for m in "${movers[@]}"; do
	exact_run "mover-$m" --mover "$m"
	j=$tmp/mover-$m.json
	jtrue "$j" "d['mover']['enabled'] and d['mover']['kind'] == '$m' and d['mover']['rebinds_requested'] > 10 and d['mover']['rebinds_failed'] == 0"
	ok $? "mover-$m: rebinds requested ($(jget "$j" "d['mover']['rebinds_requested']")), none failed"
	jtrue "$j" "d['mover']['migrations_sched'] > 10"
	ok $? "mover-$m: the scheduler saw migrations ($(jget "$j" "d['mover']['migrations_sched']"))"
done
exact_run control --no-mover
jtrue "$tmp/control.json" "not d['mover']['enabled'] and d['mover']['migrations_counted'] == 0"
ok $? "control: mover off and no migration counted"
exact_run roundrobin --pattern random --cpus 0-1 --move-interval 50us
jtrue "$tmp/roundrobin.json" "d['options']['pattern'] == 'random' and d['options']['move-interval'] == 50000"
ok $? "options are resolved into the JSON (interval in ns)"

# The oracle end to end: signals ignored on purpose must show up as losses.
inject_drop_run lost-overflow 100
jtrue "$j" "d['oracle']['classes']['gap'] == d['oracle']['lost'] and d['oracle']['classes']['late'] == 0"
ok $? "fault injection: each loss is one gap signal, not also a late one"
grep -q "Signal #100: delta of 200 is outside 100 +/- 10" "$tmp/inject.out"
ok $? "fault injection: human output names the first bad delta like the seed's reproducer"

# Attribution against the base rate: drops injected at random points of a
# run whose thread migrates all the time are NOT blamed on migration.
jtrue "$j" "d['attribution']['anomaly_windows'] == d['oracle']['lost'] and d['attribution']['dominant'] is None and d['attribution']['unexplained'] == d['attribution']['anomaly_windows']"
ok $? "attribution: the injected drops are all unexplained ($(jget "$j" "d['attribution']['summary']"))"
jtrue "$j" "[c for c in d['attribution']['causes'] if c['cause'] == ('migration' if d['trace']['used'] else 'rebind')][0]['claimed'] == 0"
ok $? "attribution: the moves are not claimed ($(jget "$j" "[(c['cause'], c['lift']) for c in d['attribution']['causes'] if c['events']]"))"
jtrue "$j" "all(a['cause'] == 'unexplained' and 'evidence' in a for a in d['oracle']['anomalies']['list'])"
ok $? "attribution: every listed anomaly carries its cause and evidence"
jtrue "$j" "'no known bug matches the evidence' in d['reason'] and 'possibly new' in d['reason'] and isinstance(d['known_issues'], list)"
ok $? "attribution: the fail reason says whether a known bug matches"

# The scheduler trace: a private tracefs instance, gone after the run; one
# left by a SIGKILLed run (its pid dead) is removed by the next run.
tfs=$TRACEFS
# Two runs at once share tracefs: both trace, and the last one out leaves
# it as found (unmounted if it was), whichever of them mounted it.  In a
# private mount namespace, so other tests mounting tracefs do not count;
# other pmustress runs share the lock that says who is last, so with any
# running the mount check is skipped rather than guessed.
if [ "$(jget "$j" "d['trace']['used']")" = true ] && command -v unshare > /dev/null; then
	others=$(pgrep -x pmustress | wc -l)
	states=$(unshare -m --propagation private sh -c '
		was=$(mountpoint -q "$1" && echo mounted || echo unmounted)
		"$2" run lost-overflow --duration 1s --json "$3/c1.json" > /dev/null &
		c1=$!
		"$2" run lost-overflow --duration 300ms --json "$3/c2.json" > /dev/null
		r2=$?
		wait $c1
		r1=$?
		echo "$r1 $r2" > "$3/c.rc"
		echo "$was $(mountpoint -q "$1" && echo mounted || echo unmounted)"' \
		sh "$tfs" "$PMS" "$tmp")
	others=$((others + $(pgrep -x pmustress | wc -l)))
	jtrue "$tmp/c1.json" "d['trace']['used']" && jtrue "$tmp/c2.json" "d['trace']['used']"
	ok $? "trace: two runs at once both traced"
	# Two runs share the machine, its signal queue and tracefs: on the
	# exact breakpoint substitute both must still pass.
	if [ -z "$core" ]; then
		[ "$(cat "$tmp/c.rc")" = "0 0" ] && jtrue "$tmp/c1.json" "d['verdict'] == 'pass'" &&
			jtrue "$tmp/c2.json" "d['verdict'] == 'pass'"
		ok $? "two runs at once on the breakpoint substitute: both pass (exit $(cat "$tmp/c.rc"))"
	fi
	if [ "$others" -eq 0 ]; then
		[ "${states% *}" = "${states#* }" ]
		ok $? "trace: tracefs left as found (${states% *} -> ${states#* })"
	else
		skip "tracefs left as found" "other pmustress runs share the tracefs lock now"
	fi
fi
if [ "$(jget "$j" "d['trace']['used']")" = true ] && tracefs_up; then
	jtrue "$j" "d['trace']['clock'] == 'mono' and d['trace']['events']['migrate'] > 0 and d['attribution']['scheduler_trace']"
	ok $? "trace: mono clock, the mover's migrations seen ($(jget "$j" "d['trace']['events']"))"
	# Other pmustress runs may be tracing now: look for this run's own instance.
	$PMS run lost-overflow --duration 200ms --json "$tmp/t.json" > /dev/null &
	pid=$!
	wait $pid
	jtrue "$tmp/t.json" "d['trace']['instance'] == 'pmustress-$pid'" &&
		[ ! -e "$tfs/instances/pmustress-$pid" ]
	ok $? "trace: its instance pmustress-$pid is gone after a normal run"
	dead=$( (exec sleep 0) & p=$!; wait $p; echo $p)
	# (mounted again if a run elsewhere, the last out, just unmounted it)
	tracefs_up && mkdir "$tfs/instances/pmustress-$dead"
	ok $? "trace: a stale instance pmustress-$dead made for the test"
	$PMS run lost-overflow --duration 200ms --no-mover --json "$tmp/reap.json" > /dev/null
	[ ! -d "$tfs/instances/pmustress-$dead" ]
	ok $? "trace: the stale instance of dead pid $dead was removed at start"
	j2=$tmp/notrace.json
	$PMS run lost-overflow --duration 200ms --trace off --json "$j2" > /dev/null
	jtrue "$j2" "not d['trace']['used'] and d['trace']['why_not'] == '--trace off' and not d['attribution']['complete']"
	ok $? "--trace off: said so, attribution marked incomplete (rebinds stand in)"
else
	skip "trace checks" "$(jget "$j" "d['trace']['why_not']")"
fi

inject_stop_run lost-overflow 50

# Environment is not a kernel bug: task-clock under a lowered sample-rate
# ceiling is throttled by the kernel (THROTTLE records on the counter's
# ring).  The sysctl is put back whatever happens to the test.  It is
# global: suites running at once take turns through a lock, or one would
# save the other's 200 as "the value to restore" and leave it behind.
mkdir -p /run/pmustress 2> /dev/null
exec {ratelock}> /run/pmustress/max-sample-rate-test.lock 2> /dev/null &&
	flock -x "$ratelock"
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
restore_rate() { echo "$rate" > /proc/sys/kernel/perf_event_max_sample_rate; }
if [ "$(id -u)" -eq 0 ] && echo 200 > /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null; then
	trap 'restore_rate; tap_cleanup' EXIT
	j=$tmp/throttled.json
	$PMS run lost-overflow --event task-clock --period 20000 --no-mover --duration 1s \
		--json "$j" > "$tmp/throttled.out"
	rc=$?
	restore_rate
	[ "$(cat /proc/sys/kernel/perf_event_max_sample_rate)" = "$rate" ]
	ok $? "throttled: perf_event_max_sample_rate restored to $rate"
	[ $rc -eq 4 ]; ok $? "throttled: exits 4 (environment), got $rc"
	jtrue "$j" "d['verdict'] == 'environment' and d['perf_records']['throttle'] > 0 and d['sysctl_during_run']['perf_event_max_sample_rate_before'] == 200"
	ok $? "throttled: verdict environment, $(jget "$j" "d['perf_records']['throttle']") THROTTLE records, the ceiling recorded"
	jtrue "$j" "d['reason'].startswith('not a kernel bug: the kernel throttled the event') and 'raise kernel.perf_event_max_sample_rate' in d['reason']"
	ok $? "throttled: the reason names throttling and the knob"
	grep -q "^ENVIRONMENT: not a kernel bug" "$tmp/throttled.out"
	ok $? "throttled: the summary's last line says ENVIRONMENT"
else
	skip "throttling" "needs root to lower kernel.perf_event_max_sample_rate"
fi
[ -n "$ratelock" ] && exec {ratelock}>&-

# Without privileges there is no trace, and the result says why instead.
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	mkdir -p "$tmp/nobody" && chmod 777 "$tmp/nobody" && chmod o+x "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		$PMS run lost-overflow --duration 300ms --json "$tmp/nobody/r.json" > /dev/null
	rc=$?
	[ $rc -eq 0 ] && jtrue "$tmp/nobody/r.json" "not d['trace']['used'] and len(d['trace']['why_not']) > 10 and 'no scheduler trace' in d['attribution']['incomplete_why']"
	ok $? "as nobody: runs (exit $rc) without a trace and says why ($(jget "$tmp/nobody/r.json" "d['trace']['why_not']" 2>/dev/null))"
else
	skip "run as nobody" "needs root and setpriv"
fi

# A full pending-signal queue is the environment, not the kernel: another
# process of the uid holds every slot, so overflow signals fall back to a
# plain SIGIO.  As the nobody uid, whose queue the test then owns; the
# filler says when the queue is full through a FIFO and is killed after.
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	mkdir -p "$tmp/q" && chmod 777 "$tmp/q" && chmod o+x "$tmp"
	mkfifo "$tmp/q/fifo" && chmod 666 "$tmp/q/fifo"
	setpriv --reuid=65534 --regid=65534 --clear-groups tests/helpers/fill-sigqueue \
		> "$tmp/q/fifo" &
	filler=$!
	read -r _ queued < "$tmp/q/fifo"
	timeout -s KILL 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
		$PMS run lost-overflow --duration 500ms --json "$tmp/q/r.json" > "$tmp/q/out" 2>&1
	rc=$?
	kill "$filler"
	wait "$filler" 2> /dev/null
	[ $rc -eq 4 ]; ok $? "queue full ($queued queued by another process): exits 4 (environment), got $rc"
	jtrue "$tmp/q/r.json" "d['verdict'] == 'environment' and 'fell back to SIGIO' in d['reason'] and 'RLIMIT_SIGPENDING' in d['reason'] and d['recorder']['sigio_fallback'] > 0"
	ok $? "queue full: the reason names the queue and the knob, not a kernel bug"
	jtrue "$tmp/q/r.json" "d['signal_queue']['nearly_full_at_start'] and d['signal_queue']['pending_at_start'] == d['signal_queue']['limit_at_start'] == $queued and d['signal_queue']['rlimit_sigpending_soft'] == d['signal_queue']['rlimit_sigpending_hard']"
	ok $? "queue full: SigQ at start and the raised soft limit are recorded"
	grep -q "^pmustress: warning: this uid already has $queued of" "$tmp/q/out"
	ok $? "queue full: a warning on stderr before the run"
	q=$(setpriv --reuid=65534 --regid=65534 --clear-groups grep SigQ /proc/self/status | awk '{print $2}')
	[ "${q%/*}" = 0 ]; ok $? "queue full: the uid's queue is empty again once the filler is gone (SigQ $q)"
else
	skip "full signal queue" "needs root and setpriv (runs as nobody)"
fi

# A mover that cannot move makes the run invalid, not a pass: a taskset
# that always fails stands in for a guest without taskset.
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\nexit 1\n' > "$tmp/fakebin/taskset"
chmod +x "$tmp/fakebin/taskset"
j=$tmp/nomove.json
PATH=$tmp/fakebin:$PATH $PMS run lost-overflow --mover taskset --duration 500ms --json "$j" \
	> /dev/null
rc=$?
[ $rc -eq 70 ]; ok $? "mover that never moves: exits 70 (error), got $rc"
jtrue "$j" "d['verdict'] == 'error' and d['reason'].startswith('invalid run: the mover') and 'rebinds failed' in d['reason']"
ok $? "mover that never moves: invalid run, says the rebinds failed ($(jget "$j" "d['mover']['rebinds_failed']"))"

# Event choices: a timer event is not judged for lateness or missing periods.
j=$tmp/task-clock.json
$PMS run lost-overflow --duration "$D" --event task-clock --json "$j" > /dev/null
rc=$?
# (4 only with the kernel's own THROTTLE records: another suite may hold
# the sample-rate ceiling low right now, and then that is the right answer)
ok $([ $rc -eq 0 ] || [ $rc -eq 1 ] || { [ $rc -eq 4 ] && jtrue "$j" "d['perf_records']['throttle'] > 0 and d['reason'].startswith('not a kernel bug: the kernel throttled')"; }; echo $?) "task-clock: runs (exit $rc)"
jtrue "$j" "d['counter']['semantics'] == 'timer' and not d['counter']['substitute'] and not d['oracle']['judged']['lost'] and not d['oracle']['judged']['late']"
ok $? "task-clock: timer semantics recorded, lateness and losses not judged"

# A fault event gets a faulting workload, one fault per call, exact deltas.
j=$tmp/page-faults.json
$PMS run lost-overflow --duration "$D" --event page-faults --period 1000 --json "$j" > /dev/null
ok $? "page-faults: exits 0"
jtrue "$j" "d['workload']['kind'] == 'page-faults' and d['counter']['semantics'] == 'restart_on_enable'"
ok $? "page-faults: faulting workload and restart-on-enable semantics recorded"
jtrue "$j" "0 <= d['workload']['final_count'] - d['workload']['iterations'] <= 4 and d['oracle']['signals'] > 50"
ok $? "page-faults: one fault per workload call ($(jget "$j" "d['workload']['final_count']") faults, $(jget "$j" "d['workload']['iterations']") calls)"
jtrue "$j" "d['oracle']['delta']['min'] == d['oracle']['delta']['max'] == 1000"
ok $? "page-faults: every delta exactly one period"

# The recorder streams: every signal judged as the run goes, memory flat.
j=$tmp/stream.json
$PMS run lost-overflow --duration 6s --json "$j" > "$tmp/stream.out"
ok $? "stream: a 6 s run passes"
jtrue "$j" "d['recorder']['storage'].startswith('streaming') and d['stream']['judged'] == d['oracle']['signals'] == d['recorder']['stored'] and d['recorder']['dropped_full'] == 0"
ok $? "stream: every stored signal judged ($(jget "$j" "d['stream']['judged']")), none dropped"
jtrue "$j" "d['stream']['judged_before_watermark'] == 0 and d['stream']['evidence_dropped'] == 0 and d['attribution']['complete']"
ok $? "stream: every window judged complete"
# A sanitized build keeps shadow memory and a quarantine of freed blocks:
# its resident set says nothing about pmustress's own.
if [ -n "${ASAN_OPTIONS:-}" ]; then
	skip "stream: resident set flat" "sanitized build (shadow memory, quarantine)"
else
	jtrue "$j" "d['stream']['memory']['rss_kib_last'] - d['stream']['memory']['rss_kib_after_1s'] < 2048 and d['stream']['memory']['rss_kib_max'] < 32768"
	ok $? "stream: resident set under 32 MiB and within 2 MiB of its 1 s figure at the end ($(jget "$j" "d['stream']['memory']"))"
fi
jtrue "$j" "d['mover']['log'].startswith('ring') and d['until_fail']['requested'] is False and d['until_fail']['signals_to_first_loss'] is None"
ok $? "stream: rebinds read as a ring; no loss, no time to one"

# --until-fail stops at the first lost overflow and says when.
j=$tmp/until.json
$PMS run lost-overflow --duration 60s --until-fail --inject-drop-every 300 --json "$j" > /dev/null
ok $([ $? -eq 1 ]; echo $?) "--until-fail: exits 1 (fail) at the first loss"
jtrue "$j" "d['until_fail']['stopped'] and d['until_fail']['stop_confirmed'] and d['until_fail']['stop_signal'] > 300 and d['until_fail']['signals_to_first_loss'] == 300 and 0 < d['until_fail']['time_to_first_loss_ns'] < 30e9 and d['workload']['seconds'] < 30"
ok $? "--until-fail: stopped at signal 300 (the 300th arrival was dropped) long before 60 s ($(jget "$j" "d['until_fail']"))"
grep -q "stopped at the first lost overflow" <<< "$(jget "$j" "d['reason']")"; ok $? "--until-fail: the reason says so"

# A long run never holds a later one at its start: the tracefs lock is
# shared while tracing and taken exclusively only to mount or unmount.
if tracefs_up; then
	$PMS run lost-overflow --duration 30s --quiet --json "$tmp/long.json" > /dev/null 2>&1 &
	long=$!
	# Polled, with a bound: its trace instance appears once it traces.
	for _ in $(seq 400); do
		[ -d "$TRACEFS/instances/pmustress-$long" ] && break
		sleep 0.05
	done
	[ -d "$TRACEFS/instances/pmustress-$long" ]; ok $? "a 30 s run is tracing"
	$PMS run lost-overflow --duration 1s --quiet --json "$tmp/short.json" > /dev/null
	short_rc=$?
	kill -0 "$long" 2> /dev/null; alive=$?
	kill -INT "$long" 2> /dev/null; wait "$long" 2> /dev/null
	[ $short_rc -eq 0 ] && [ $alive -eq 0 ] && jtrue "$tmp/short.json" "d['trace']['used']"
	ok $? "a 1 s run beside it traced and ended while the 30 s run was still going (rc $short_rc)"
fi

# --threads: a counter, signal, ring, oracle and mover per thread.
j=$tmp/threads-pinned.json
$PMS run lost-overflow --duration 2s --threads 2 --no-mover --json "$j" > "$tmp/tp.out"
ok $? "--threads 2 --no-mover: passes"
jtrue "$j" "d['threads']['count'] == 2 and len(set(t['tid'] for t in d['threads']['list'])) == 2 and len(set(t['cpus'] for t in d['threads']['list'])) == 2"
ok $? "--threads 2 --no-mover: two threads, each pinned to a CPU of its own ($(jget "$j" "[t['cpus'] for t in d['threads']['list']]"))"
jtrue "$j" "d['recorder']['misrouted'] == 0 and all(t['signals'] == t['overflows_implied'] > 100 and t['lost'] == 0 for t in d['threads']['list'])"
ok $? "--threads: each thread's signals came to that thread, one per overflow of its own counter ($(jget "$j" "[(t['signals'], t['overflows_implied']) for t in d['threads']['list']]"))"
jtrue "$j" "d['oracle']['signals'] == sum(t['signals'] for t in d['threads']['list']) and d['workload']['iterations'] == sum(t['iterations'] for t in d['threads']['list']) and d['workload']['count_check']['match'] in (True, None)"
ok $? "--threads: the totals are the threads' sums"

if [ ${#movers[@]} -gt 0 ]; then
	j=$tmp/threads-moved.json
	$PMS run lost-overflow --duration 2s --threads 2 --json "$j" > /dev/null
	ok $? "--threads 2 with the mover: passes"
	jtrue "$j" "all(t['rebinds'] > 0 and (t['migrations_sched'] is None or t['migrations_sched'] > 0) for t in d['threads']['list']) and d['threads']['pairs_shared'] == ($(nproc) < 4)"
	ok $? "--threads 2: each thread has its own mover, and moved; pairs shared only when there are not enough CPUs"
fi

j=$tmp/threads-inject.json
$PMS run lost-overflow --duration 2s --threads 3 --no-mover --inject-drop-every 300 --json "$j" > "$tmp/threads-print.out" 2>&1
ok $([ $? -eq 1 ]; echo $?) "--threads 3 with injected drops: fails"
jtrue "$j" "d['oracle']['lost'] == sum(t['lost'] for t in d['threads']['list']) == d['recorder']['fault_injection']['signals_ignored'] > 0 and 'lost per thread' in d['reason']"
ok $? "--threads: every injected drop is a loss on its thread, and the reason says which ($(jget "$j" "[t['lost'] for t in d['threads']['list']]"))"
jtrue "$j" "all('thread' in a for a in d['oracle']['anomalies']['list'])"
ok $? "--threads: each anomaly names its thread"
grep -q "^  thread 2 (tid [0-9]*, CPUs [0-9-]*): [0-9]* signals, [0-9]* lost" "$tmp/threads-print.out" && grep -q "thread [0-2], Signal #" "$tmp/threads-print.out"
ok $? "--threads: the human summary has a line per thread and names each anomaly's thread"
jtrue "$j" "all([c['signal'] for c in a['context']['before']] == list(range(a['signal'] - len(a['context']['before']), a['signal'])) and [c['signal'] for c in a['context']['after']] == list(range(a['signal'] + 1, a['signal'] + 1 + len(a['context']['after']))) and len(a['context']['before']) == 3 for a in d['oracle']['anomalies']['list'] if a['signal'] > 3)"
ok $? "each anomaly carries the signals just before and after it on its thread"

# --max-signals means nothing to a streaming recorder: refused, not ignored.
$PMS run lost-overflow --duration 1s --max-signals 5000 > /dev/null 2> "$tmp/ms.err"
ok $([ $? -eq 64 ]; echo $?) "--max-signals on lost-overflow: usage error (64)"
grep -q "does not apply" "$tmp/ms.err"; ok $? "--max-signals: one line saying why"

# JSON on stdout: machine output only, the human summary goes to stderr.
$PMS run lost-overflow --duration 500ms --json - > "$tmp/stdout.json" 2> "$tmp/stderr"
ok $? "--json -: exits 0"
$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/stdout.json"; ok $? "--json -: stdout is one JSON document"
grep -q '^PASS' "$tmp/stderr"; ok $? "--json -: human summary on stderr"

# Default path: results/SCENARIO-KERNEL-UTC.json, written atomically.
$PMS run lost-overflow --duration 300ms --quiet; ok $? "default result path: exits 0"
f=$(ls "$tmp/results"/lost-overflow-"$(uname -r)"-*Z.json 2>/dev/null | head -1)
[ -n "$f" ]; ok $? "default result named by scenario, kernel release and UTC time (${f##*/})"
[ "$(ls -A "$tmp/results" | grep -c -v '\.json$')" -eq 0 ]; ok $? "no temp file left next to the result"

done_testing
