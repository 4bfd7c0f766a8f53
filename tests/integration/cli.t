#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The CLI surface: version, list, probe, help, and every bad input in a table:
# one line on stderr naming the problem, a distinct exit status, no result file.
. tests/integration/tap.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PMUSTRESS_RESULTS=$tmp/results

out=$($PMS --version); ok $? "--version exits 0"
[[ $out =~ ^pmustress\ [0-9]+\.[0-9]+\.[0-9]+$ ]]; ok $? "--version prints a version ($out)"

out=$($PMS list); ok $? "list exits 0"
echo "$out" | grep -Eq '^lost-overflow +(yes|no|control)'; ok $? "list shows lost-overflow with its status"
if ! $PY -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["core_pmu"] else 1)' \
	< <($PMS probe --json); then
	echo "$out" | grep -q 'breakpoint substitute (no hardware PMU)'
	ok $? "list says lost-overflow runs on the substitute here (no PMU)"
else
	skip "list substitute note" "this machine has a hardware PMU"
fi

$PMS probe --json > "$tmp/probe.json"; ok $? "probe --json exits 0"
jtrue "$tmp/probe.json" "d['kernel']['release'] == '$(uname -r)'"; ok $? "probe: kernel release is uname -r"
jtrue "$tmp/probe.json" "d['arch'] == '$(uname -m)'"; ok $? "probe: arch is uname -m"
jtrue "$tmp/probe.json" "'software' in [p['name'] for p in d['pmus']] and all(isinstance(p['type'], int) for p in d['pmus'])"
ok $? "probe: PMU list has software, each with a numeric type"
jtrue "$tmp/probe.json" "d['sysctl']['perf_event_paranoid'] == int(open('/proc/sys/kernel/perf_event_paranoid').read())"
ok $? "probe: perf_event_paranoid matches /proc"
jtrue "$tmp/probe.json" "d['topology']['pus'] == $(nproc --all) or d['topology']['pus'] >= 1"
ok $? "probe: hwloc topology has PUs"
jtrue "$tmp/probe.json" "all(k in d['features'] for k in ('sigtrap','aux_action','exclude_host','hw_breakpoint','use_clockid'))"
ok $? "probe: feature probes present"
out=$($PMS probe); ok $? "probe (human) exits 0"
echo "$out" | grep -q "^kernel: *$(uname -r)"; ok $? "probe (human) names the kernel"

out=$($PMS help lost-overflow); ok $? "help lost-overflow exits 0"
for o in no-mover mover cpus pattern move-interval duration event exclude period tolerance json; do
	echo "$out" | grep -q -- "--$o"; ok $? "help lost-overflow lists --$o"
done

# args | expected exit | stderr must match
bad_inputs=(
	"frobnicate|64|unknown command 'frobnicate'"
	"run|64|run needs a scenario"
	"run nosuch|65|unknown scenario 'nosuch'"
	"help nosuch|65|unknown scenario 'nosuch'"
	"run lost-overflow --bogus|64|unknown option '--bogus'"
	"run lost-overflow --period 0|64|bad value '0' for --period"
	"run lost-overflow --period ten|64|bad value 'ten' for --period"
	"run lost-overflow --duration -1|64|bad value '-1' for --duration"
	"run lost-overflow --duration|64|option --duration needs a value"
	"run lost-overflow --pattern zigzag|64|bad value 'zigzag' for --pattern"
	"run lost-overflow --tolerance 150%|64|bad value '150%' for --tolerance"
	"run lost-overflow stray|64|unexpected argument 'stray'"
	"run lost-overflow --cpus 0-9999|66|bad CPU list '0-9999'"
	"run lost-overflow --cpus zero|66|bad CPU list 'zero'"
	"run lost-overflow --cpus 0|66|the mover needs at least two CPUs"
	"run lost-overflow --event nosuch|67|unknown event 'nosuch'"
	"run lost-overflow --event nosuchpmu/event=1/|67|unknown PMU 'nosuchpmu'"
	"run lost-overflow --event instructions:q|67|modifier"
	"run lost-overflow --exclude user,bogus|67|bad --exclude"
	"run lost-overflow --json /nonexistent-dir/r.json|73|cannot write result to '/nonexistent-dir/r.json'"
	"probe --bogus|64|probe takes only --json"
	"list extra|64|list takes no arguments"
)
for row in "${bad_inputs[@]}"; do
	IFS='|' read -r args want msg <<< "$row"
	# shellcheck disable=SC2086
	$PMS $args > "$tmp/out" 2> "$tmp/err"
	got=$?
	[ "$got" -eq "$want" ]; ok $? "'$args' exits $want (got $got)"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "^pmustress: .*$msg" "$tmp/err"
	ok $? "'$args' gives one line naming the problem: $(head -c 150 "$tmp/err")"
done
[ -z "$(ls -A "$tmp/results" 2>/dev/null)" ]; ok $? "bad input leaves no result file behind"

done_testing
