#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/kernel-bisect without QEMU: a result file's verdict mapped to git
# bisect run's statuses, the argument errors, the binary search over versions
# on a stub step that answers per version, and a real `git bisect run` in a
# throwaway repository driving the --git step through the same stub.
. tests/integration/tap.sh

KB=scripts/kernel-bisect

# 1. Status mapping on result files (hand-made, just the fields it reads).
res() {	# res NAME JSON
	printf '%s\n' "$2" > "$tmp/$1.json"
}
res pass '{"verdict": "pass", "reason": "every overflow gave one signal"}'
res fail '{"verdict": "fail", "reason": "71 overflows lost"}'
res skip '{"verdict": "skip", "reason": "no hardware PMU"}'
res environment '{"verdict": "environment", "reason": "signal queue full"}'
res error '{"verdict": "error", "reason": "measured nothing usable"}'
res interrupted '{"verdict": "fail", "interrupted": true, "reason": "stopped"}'
res unknown '{"verdict": "maybe"}'
res array '[1, 2]'
printf '{"verdict": "pa' > "$tmp/truncated.json"
for c in pass:0 fail:1 skip:125 environment:125 error:125 interrupted:125 unknown:125 \
	 array:125 truncated:125 missing:125; do
	name=${c%%:*} want=${c#*:}
	said=$($KB --verdict "$tmp/$name.json" 2>&1)
	rc=$?
	ok $([ $rc -eq "$want" ] && [ "$(wc -l <<< "$said")" -eq 1 ]; echo $?) \
		"--verdict on a $name result: exit $rc (want $want), one line: $said"
done

# 2. Argument errors: one line each, exit 128 (above 127, so git bisect run
# stops instead of marking the commit bad).
while IFS='|' read -r args want; do
	[ -n "$args" ] || continue
	eval "set -- $args"
	err=$($KB "$@" 2>&1 > /dev/null)
	rc=$?
	ok $([ $rc -eq 128 ] && [ "$(wc -l <<< "$err")" -eq 1 ] && grep -q -- "$want" <<< "$err"; echo $?) \
		"kernel-bisect $args: exit $rc (want 128), one line naming '$want': $err"
done <<'EOF'
|say --git
--bogus|unknown option '--bogus'
--git --versions 6.1.0-47 6.1.0-56|exclude each other
--versions 6.1.0-47|at least two versions
--versions 6.1.0-47 6.1.0-47|given twice
--versions 6.1.0-47 'bad version!'|bad version
--git --boot-fail maybe|bad --boot-fail 'maybe'
--git --label host|bad --label 'host'
--git --label 'a b'|bad --label
--git --jobs 0|bad --jobs '0'
--git --run ''|empty --run
--git --run '--duration 1s'|want a scenario name first
--git --run 'lost-overflow --json x'|sets --json itself
--git --config /nonexistent/frag|cannot read --config
--git --find-fix|--find-fix is for --versions
--git --run|needs a value
EOF
$KB --help | grep -q -- '--versions V' && $KB --help | grep -q 'first bad'
ok $? "--help documents --versions and the worked example"

# 3. The binary search on a stub step: STUB_BAD and STUB_SKIP list versions.
cat > "$tmp/stub" <<'EOF'
#!/bin/bash
echo "$1" >> "$STUB_LOG"
case " $STUB_BAD " in *" $1 "*) exit 1 ;; esac
case " $STUB_SKIP " in *" $1 "*) exit 125 ;; esac
case " ${STUB_WEIRD:-} " in *" $1 "*) exit 7 ;; esac
exit 0
EOF
chmod +x "$tmp/stub"
export STUB_LOG=$tmp/stub.log
vers=(6.1.0-47 6.1.0-50 6.1.0-53 6.1.0-54 6.1.0-55 6.1.0-56 6.12.107+deb12 6.12.111+deb12)
search() {	# search BAD SKIP [ARGS...]: out in $tmp/out, exit status in $rc
	: > "$STUB_LOG"
	STUB_BAD=$1 STUB_SKIP=$2 $KB --versions "${vers[@]}" --step "$tmp/stub" \
		--out "$tmp/bisect" "${@:3}" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}
search "6.1.0-55 6.1.0-56 6.12.107+deb12 6.12.111+deb12" ""
ok $([ $rc -eq 0 ] && grep -qx 'first bad version: 6.1.0-55' "$tmp/out" &&
     grep -qx 'last good version: 6.1.0-54' "$tmp/out"; echo $?) \
	"search: first bad 6.1.0-55 after 6.1.0-54 (exit $rc)"
ok $([ "$(wc -l < "$STUB_LOG")" -le 5 ] && [ "$(head -2 "$STUB_LOG" | tr '\n' ' ')" = "6.1.0-47 6.12.111+deb12 " ]; echo $?) \
	"search: both ends first, then at most log2(8) more steps ($(tr '\n' ' ' < "$STUB_LOG"))"
grep -q 'evidence:' "$tmp/out" && grep -q '6.1.0-55 bad' "$tmp/bisect/bisect.log"
ok $? "search: prints the evidence, and the log keeps every step"

search "6.1.0-50 6.1.0-53 6.1.0-54 6.1.0-55 6.1.0-56 6.12.107+deb12 6.12.111+deb12" "" --no-check-ends
ok $([ $rc -eq 0 ] && grep -qx 'first bad version: 6.1.0-50' "$tmp/out" &&
     ! grep -qx -e 6.1.0-47 -e 6.12.111+deb12 "$STUB_LOG"; echo $?) \
	"--no-check-ends: the ends are trusted, not booted; first bad 6.1.0-50"

search "6.1.0-56 6.12.107+deb12 6.12.111+deb12" "6.1.0-50 6.1.0-53 6.1.0-54"
ok $([ $rc -eq 0 ] && grep -qx 'first bad version: 6.1.0-56' "$tmp/out" &&
     grep -qx 'last good version: 6.1.0-55' "$tmp/out"; echo $?) \
	"search: versions that cannot be tested are stepped round, never judged (exit $rc)"
grep -q '6.1.0-5[34] skip' "$tmp/bisect/bisect.log"
ok $? "search: the skipped versions are in the log"

search "6.1.0-56 6.12.107+deb12 6.12.111+deb12" "6.1.0-55"
ok $([ $rc -eq 3 ] && grep -q '6.1.0-54 (good) and 6.1.0-56 (bad)' "$tmp/err"; echo $?) \
	"search: an untestable version next to the change: exit 3 naming the good and bad ends (got $rc)"

search "6.1.0-56 6.12.107+deb12 6.12.111+deb12" "6.1.0-50 6.1.0-53 6.1.0-54 6.1.0-55"
ok $([ $rc -eq 3 ] && grep -q 'could not be tested' "$tmp/err"; echo $?) \
	"search: every version round the change untestable: exit 3 (got $rc)"

search "6.1.0-47 6.1.0-50 6.1.0-53" "" --find-fix
ok $([ $rc -eq 0 ] && grep -qx 'first fixed version: 6.1.0-54' "$tmp/out" &&
     grep -qx 'last bad version: 6.1.0-53' "$tmp/out"; echo $?) \
	"--find-fix: the first version that passes after failing ones, 6.1.0-54 (exit $rc)"
search "" "" --find-fix
ok $([ $rc -eq 2 ] && grep -q 'first version .* already good' "$tmp/err"; echo $?) \
	"--find-fix: the oldest already good: exit 2 (got $rc)"

search "" ""
ok $([ $rc -eq 2 ] && grep -q 'last version .* is good' "$tmp/err"; echo $?) \
	"search: the newest is good: exit 2, no change in the range (got $rc)"
search "${vers[*]}" ""
ok $([ $rc -eq 2 ] && grep -q 'first version .* already bad' "$tmp/err"; echo $?) \
	"search: the oldest is bad: exit 2 (got $rc)"
search "6.12.111+deb12" "6.1.0-47"
ok $([ $rc -eq 3 ]; echo $?) "search: the oldest cannot be tested: exit 3 (got $rc)"
: > "$STUB_LOG"
STUB_BAD=6.12.111+deb12 STUB_SKIP= STUB_WEIRD=6.1.0-54 $KB --versions "${vers[@]}" \
	--step "$tmp/stub" --out "$tmp/bisect" > /dev/null 2>&1
rc=$?
ok $([ $rc -eq 129 ]; echo $?) "search: a step exiting outside 0/1/125 stops the search: exit 129 (got $rc)"

# 4. --git through a real `git bisect run` in a throwaway repository, the
# stub answering per commit subject (no kernel is built).  Every git command
# names the repository with -C: a bisection must never start in the tree
# the test runs from.
repo=$tmp/repo
g() { git -C "$repo" -c user.email=t@example.org -c user.name=t "$@"; }
mkdir -p "$repo" && g init -q || exit 1
for i in 1 2 3 4 5 6 7 8; do
	echo "$i" > "$repo/f" && g add f && g commit -q -m "c$i" || exit 1
done
cat > "$tmp/gitstub" <<'EOF2'
#!/bin/bash
# bad from c6 on, c3 cannot be tested
n=$(git log -1 --format=%s "$1"); n=${n#c}
[ "$n" -eq 3 ] && exit 125
[ "$n" -ge 6 ] && exit 1
exit 0
EOF2
chmod +x "$tmp/gitstub"
kb=$(pwd)/$KB
g bisect start HEAD HEAD~7 > /dev/null 2>&1 &&
	g bisect run "$kb" --git --step "$tmp/gitstub" --out "$tmp/gitout" > "$tmp/gitrun" 2>&1
first=$(g log -1 --format=%s refs/bisect/bad 2>/dev/null)
g bisect reset > /dev/null 2>&1
ok $([ "$first" = c6 ] && grep -q 'is the first bad commit' "$tmp/gitrun" ; echo $?) \
	"git bisect run with --git: the first bad commit is c6 (got '$first')"
g bisect start HEAD HEAD~7 > /dev/null 2>&1 &&
	g bisect run "$kb" --git --bogus > "$tmp/gitrun2" 2>&1
rc=$?
g bisect reset > /dev/null 2>&1
ok $([ $rc -ne 0 ] && grep -q "unknown option '--bogus'" "$tmp/gitrun2" &&
     ! grep -q 'is the first bad commit' "$tmp/gitrun2"; echo $?) \
	"git bisect run with a bad option stops the bisection, marking nothing bad"
"$KB" --git --tree "$tmp" > /dev/null 2> "$tmp/err"
rc=$?
ok $([ $rc -eq 129 ]; echo $?) "--git outside a git tree: exit 129 (got $rc: $(cat "$tmp/err"))"
mkdir -p "$tmp/notlinux" && git -C "$tmp/notlinux" init -q &&
	git -C "$tmp/notlinux" -c user.email=t@e -c user.name=t commit -q --allow-empty -m x
"$KB" --git --tree "$tmp/notlinux" > /dev/null 2> "$tmp/err"
rc=$?
ok $([ $rc -eq 129 ] && grep -q 'not a Linux tree' "$tmp/err"; echo $?) \
	"--git in a tree that is not Linux: exit 129, one line (got $rc)"

done_testing
