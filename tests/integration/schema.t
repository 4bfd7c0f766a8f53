#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The result schema against real runs of lost-overflow on this machine, and
# against broken copies of one of them: the schema must accept what
# pmustress writes and provably reject what it must not.  Run from the
# repository root after `make`; prints TAP for prove.
#
# Needs /usr/bin/python3 with the Debian package python3-jsonschema (PATH's
# python3 may be a virtualenv without it).

PY=/usr/bin/python3
SCHEMA=${PMUSTRESS_SCHEMA:-results/schema/result.schema.json}
VALIDATE=tests/helpers/validate-json
BIN=./pmustress

. tests/integration/tap.sh

if [ ! -x "$BIN" ] || [ ! -f "$SCHEMA" ] || [ ! -f "$VALIDATE" ]; then
	echo "Bail out! run from the repository root after make ($BIN, $SCHEMA, $VALIDATE)"
	exit 1
fi
if ! "$PY" -c 'import jsonschema.validators; jsonschema.Draft202012Validator' 2>/dev/null; then
	echo "1..0 # SKIP $PY lacks jsonschema for draft 2020-12 (Debian: python3-jsonschema)"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmustress-schema.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# jq-like queries without jq: jget FILE PYTHON_EXPR_ON_d
jget()
{
	"$PY" - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps(eval(sys.argv[2], {"d": d})))
EOF
}

# validate FILE: the validator's line for FILE, exit status as the validator's.
validate()
{
	"$PY" "$VALIDATE" "$SCHEMA" "$1"
}

# --- the schema itself

out=$("$PY" - "$SCHEMA" <<'EOF' 2>&1
import json, sys
from jsonschema import Draft202012Validator

schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
    sys.exit("not declared as draft 2020-12")


def described(sub):
    if "description" in sub:
        return True
    if "$ref" not in sub:
        return False
    node = schema
    for part in sub["$ref"].lstrip("#/").split("/"):
        node = node[part]
    return "description" in node


# Every property a section defines carries a description, its own or its
# $ref target's; properties named in if/then/else only constrain.
missing = []


def walk(node, path, conditional):
    if isinstance(node, dict):
        for key, val in node.items():
            cond = conditional or key in ("if", "then", "else", "not", "prefixItems")
            if key == "properties" and isinstance(val, dict):
                for name, sub in val.items():
                    if not cond and isinstance(sub, dict) and not described(sub):
                        missing.append("/".join(path + [name]))
                    walk(sub, path + [name], cond)
            else:
                walk(val, path + [key], cond)
    elif isinstance(node, list):
        for i, val in enumerate(node):
            walk(val, path + [str(i)], conditional)


walk(schema, [], False)
if missing:
    sys.exit("no description: " + ", ".join(missing))
EOF
)
ok $? "schema is valid draft 2020-12 and documents every property"
[ -n "$out" ] && echo "$out" | diag

# --- real runs

"$BIN" probe --json >"$tmp/probe.json" 2>"$tmp/probe.log"
rc=$?
core_pmu=$(jget "$tmp/probe.json" 'd["core_pmu"]' 2>>"$tmp/probe.log")
[ $rc -eq 0 ] && [ -n "$core_pmu" ]
ok $? "pmustress probe --json gives host.core_pmu ($core_pmu)"
[ -n "$core_pmu" ] || diag <"$tmp/probe.log"

# check_run NAME RC EXPECTED_RCS: the run ended with a status that writes a
# result, wrote one that records that status, and the result validates.
check_run()
{
	local name=$1 rc=$2 expected=$3 file="$tmp/$1.json" recorded line

	recorded=$(jget "$file" 'd["exit_code"]' 2>/dev/null)
	[[ " $expected " == *" $rc "* ]] && [ "$recorded" = "$rc" ]
	ok $? "$name: exit status $rc (expected one of $expected) is the result's exit_code"
	if [ "$recorded" != "$rc" ] || [[ " $expected " != *" $rc "* ]]; then
		echo "result exit_code: ${recorded:-none}" | diag
		diag <"$tmp/$name.log"
	fi

	line=$(validate "$file") && [ "$line" = "ok $file" ]
	ok $? "$name: result validates"
	[ "$line" = "ok $file" ] || echo "$line" | diag
}

# run NAME EXPECTED_RCS ARGS...: a short lost-overflow run.
run()
{
	local name=$1 expected=$2

	shift 2
	"$BIN" run lost-overflow --quiet --duration 1s --json "$tmp/$name.json" "$@" \
		>"$tmp/$name.log" 2>&1
	check_run "$name" $? "$expected"
}

# pass or fail both describe the kernel; 4 where the machine has fewer than
# two CPUs of one kind for the mover.
run default "0 1 4"
run no-mover "0 1" --no-mover
run task-clock "0 1 4" --event task-clock
run page-faults "0 1 4" --event page-faults
# Signals ignored on purpose must fail the run, whatever the kernel does.
run inject "1" --no-mover --inject-drop-every 50

# SIGINT during a 30 s run: a partial result, marked so.  pmustress blocks
# SIGINT before it starts any thread, so the signal goes only once the
# counting thread and the mover are up (three threads), or the process would
# die of it; a fixed delay would race a slow setup.
"$BIN" run lost-overflow --quiet --duration 30s --json "$tmp/interrupted.json" \
	>"$tmp/interrupted.log" 2>&1 &
pid=$!
for ((i = 0; i < 400; i++)); do
	threads=$(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	[ "$threads" -ge 3 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.025
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
check_run interrupted $? "130 1 4"
if [ "$(jget "$tmp/interrupted.json" 'd["verdict"]' 2>/dev/null)" = '"skip"' ]; then
	skip "interrupted: result says interrupted by SIGINT" "the mover run skips here"
else
	[ "$(jget "$tmp/interrupted.json" '[d["interrupted"], d["stop_signal"] is not None]' \
	     2>/dev/null)" = '[true, true]' ]
	ok $? "interrupted: result says interrupted by SIGINT"
fi

# Without a core PMU a hardware event skips: the result has no scenario sections.
if [ "$core_pmu" = null ]; then
	run skip "4" --event cycles
	[ "$(jget "$tmp/skip.json" \
	     '[d["verdict"], d["setup_status"], "counter" in d, "oracle" in d]' 2>/dev/null)" \
	  = '["skip", "skip", false, false]' ]
	ok $? "skip: verdict and setup_status skip, no counter or oracle"
else
	why="core PMU $core_pmu present: cycles opens here"
	skip "skip: exit status 4 is the result's exit_code" "$why"
	skip "skip: result validates" "$why"
	skip "skip: verdict and setup_status skip, no counter or oracle" "$why"
fi

# --- broken copies must fail, each at the field broken

# The copies start from a real pass or fail result that validates.
base=
for name in default no-mover task-clock; do
	case $(jget "$tmp/$name.json" 'd["verdict"]' 2>/dev/null) in
	'"pass"'|'"fail"')
		if validate "$tmp/$name.json" >/dev/null; then
			base=$tmp/$name.json
			break
		fi ;;
	esac
done
injected=$tmp/inject.json
validate "$injected" >/dev/null || injected=

# mutate NAME PYTHON_STATEMENTS: a copy of $from, changed.
mutate()
{
	"$PY" - "$from" "$tmp/mut-$1.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
EOF
}

# expect_invalid NAME PYTHON_STATEMENTS PATH DESCRIPTION: the validator
# rejects the copy (status 1, not 2) at PATH or inside it.
expect_invalid()
{
	local file="$tmp/mut-$1.json" line rc at

	mutate "$1" "$2"
	line=$(validate "$file")
	rc=$?
	at=${line#"$file: "}
	at=${at%%: *}
	[ $rc -eq 1 ] && { [ "$at" = "$3" ] || [[ "$at" == "$3".* || "$at" == "$3"[* ]]; }
	rc=$?
	ok $rc "rejects $4"
	[ $rc -eq 0 ] || echo "want status 1 at '$3', got: $line" | diag
}

expect_valid()
{
	local file="$tmp/mut-$1.json" line

	mutate "$1" "$2"
	line=$(validate "$file") && [ "$line" = "ok $file" ]
	ok $? "accepts $3"
	[ "$line" = "ok $file" ] || echo "$line" | diag
}

if [ -z "$base" ]; then
	for what in "unchanged copy" "unknown fields" "verdict" "no oracle" "count as text" \
		    "duration as text" "no host.core_pmu" "unknown oracle field" "exit_code" \
		    "bin order" "judged flag"; do
		skip "broken copy: $what" "no valid pass or fail result to break"
	done
else
	echo "# broken copies of $(basename "$base")"
	from=$base
	expect_valid same "pass" "an unchanged copy of a real result"
	expect_valid future \
		'd["future_section"] = {"x": 1}; d["host"]["future_probe"] = [1]' \
		"unknown fields at the top level and in host"
	expect_invalid verdict 'd["verdict"] = "maybe"' \
		'.verdict' 'verdict "maybe"'
	expect_invalid no-oracle 'del d["oracle"]' \
		'.' "a pass/fail result without oracle"
	expect_invalid count-string 'd["oracle"]["signals"] = str(d["oracle"]["signals"])' \
		'.oracle.signals' "a string where a count belongs"
	expect_invalid duration-text 'd["options"]["duration"] = "1s"' \
		'.options.duration' "a duration as text instead of nanoseconds"
	expect_invalid no-core-pmu 'del d["host"]["core_pmu"]' \
		'.host' "host without core_pmu"
	expect_invalid oracle-extra 'd["oracle"]["lost_signals"] = 0' \
		'.oracle' "an unknown field inside oracle"
	expect_invalid exit-code \
		'd.update(verdict="pass", interrupted=False, stop_signal=None, exit_code=1)' \
		'.exit_code' "exit_code 1 on an uninterrupted pass"
	expect_invalid bin-order \
		'h = d["oracle"]["histogram"]; h[0], h[1] = h[1], h[0]' \
		'.oracle.histogram[0]' "histogram bins out of order"
	expect_invalid judged \
		'd["oracle"]["judged"]["lost"] = not d["oracle"]["judged"]["lost"]' \
		'.oracle.judged.lost' "a judged flag the semantics contradict"
fi

if [ -z "$injected" ]; then
	skip "broken copy: fault injection hidden" "no valid fault-injection result"
	skip "broken copy: anomaly class" "no valid fault-injection result"
else
	echo "# broken copies of $(basename "$injected")"
	from=$injected
	expect_invalid hidden-injection 'd["recorder"]["fault_injection"] = None' \
		'.recorder.fault_injection' "a fault-injection run that hides it"
	expect_invalid anomaly-class 'd["oracle"]["anomalies"]["list"][0]["class"] = "lost"' \
		'.oracle.anomalies.list[0].class' "an anomaly class that does not exist"
fi

# --- input the validator must refuse to judge

printf '{"schema_version": 1, "tool": ' >"$tmp/truncated.json"
line=$(validate "$tmp/truncated.json")
[ $? -eq 2 ]
ok $? "validator: truncated JSON is malformed (status 2)"
echo "$line" | diag

printf '{"schema_version": NaN}\n' >"$tmp/nan.json"
line=$(validate "$tmp/nan.json")
[ $? -eq 2 ]
ok $? "validator: NaN is malformed, not a number (status 2)"
echo "$line" | diag

done_testing
