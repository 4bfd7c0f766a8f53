#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/soak, one round: every scenario once, and nothing it watches
# (peak RSS, file handles, SigQ, tracefs instances, leftover processes)
# grows; every result valid.  Bad usage is exit 64.
. tests/integration/tap.sh

# It counts every pmustress process and instance on the machine: with
# other runs going at the same time its figures are not its own.
others=$(pgrep -x pmustress | wc -l)
scripts/soak 1s > "$tmp/soak.out" 2> "$tmp/soak.err"
rc=$?
others=$((others + $(pgrep -x pmustress | wc -l)))
if [ "$others" -gt 0 ]; then
	skip "soak 1s" "other pmustress runs are going: its figures would be theirs too"
	skip "soak 1s" "likewise"
	skip "soak 1s" "likewise"
else
ok $rc "soak 1s: exits 0 (got $rc)"
[ $rc -eq 0 ] || diag "$(cat "$tmp/soak.out")"
grep -qE '^1 +[0-9]+ +[0-9]+K +[0-9]+ +0/0 +0 +[0-9]+ +0 +[pfesE]{7}$' "$tmp/soak.out"
ok $? "soak 1s: one round of seven runs, no invalid result, nothing left ($(grep -E '^1 ' "$tmp/soak.out"))"
[ "$(grep -c '  flat  (' "$tmp/soak.out")" -eq 5 ] && ! grep -q GREW "$tmp/soak.out"
ok $? "soak 1s: all five figures flat"
fi
for bad in 0 -1 10x; do
	scripts/soak "$bad" > /dev/null 2> "$tmp/bad.err"
	rc=$?
	[ $rc -eq 64 ] && grep -q "bad duration '$bad'" "$tmp/bad.err"
	ok $? "soak $bad: exit 64 naming the bad duration (got $rc)"
done
done_testing
