#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/seed-matrix without QEMU: its argument errors, the kernel-matrix
# command each boot configuration gets (--dry-run), and its table remade from
# the committed results, where pseudo-NMI never took effect.
. tests/integration/tap.sh

SM=scripts/seed-matrix
while IFS='|' read -r args want; do
	[ -n "$args" ] || continue
	eval "set -- $args"
	err=$($SM "$@" 2>&1 > /dev/null)
	rc=$?
	ok $([ $rc -eq 64 ] && [ "$(wc -l <<< "$err")" -eq 1 ] && grep -q -- "$want" <<< "$err"; echo $?) \
		"seed-matrix $args: exit $rc (want 64), one line naming '$want'"
done <<'EOF2'
--cpu cortex-a72|has no VHE
--only vhe|bad --only 'vhe'
--guest-seconds 0|bad --guest-seconds
--bogus|unknown option
--table /nonexistent|no such directory
--kernel|needs a value
EOF2

$SM --dry-run --kernel 6.1 --out "$tmp/sm" > "$tmp/dry"
ok $([ "$(wc -l < "$tmp/dry")" -eq 4 ]; echo $?) "--dry-run: four kernel-matrix commands, one per boot configuration"
while read -r cfg want_nvhe want_nmi; do
	line=$(grep -- "--out $tmp/sm/$cfg " "$tmp/dry")
	n=0; p=0
	grep -q 'kvm-arm.mode=nvhe' <<< "$line" && n=1
	grep -q -- '--pseudo-nmi' <<< "$line" && p=1
	grep -q -- '--cpu neoverse-n1 --vhe --gic 3 --append loglevel=7' <<< "$line" &&
		[ $n -eq "$want_nvhe" ] && [ $p -eq "$want_nmi" ] && [ "$(grep -o -- '--run' <<< "$line" | wc -l)" -eq 4 ]
	ok $? "--dry-run $cfg: EL2, GICv3, loglevel=7, nvhe=$want_nvhe pseudo-NMI=$want_nmi, four runs"
done <<'EOF2'
nvhe-nmi0 1 0
nvhe-nmi1 1 1
vhe-nmi0 0 0
vhe-nmi1 0 1
EOF2

committed=results/seed-matrix/2026-11-26
cp -r "$committed" "$tmp/copy"
$SM --table "$tmp/copy" > /dev/null
cmp -s "$committed/table.txt" "$tmp/copy/table.txt" && cmp -s "$committed/cells.json" "$tmp/copy/cells.json"
ok $? "--table remakes the committed table.txt and cells.json byte for byte"
jtrue "$tmp/copy/cells.json" "len(d['cells']) == 32 and all((c['took_effect']['pseudo_nmi'] is False) == c['config'].endswith('nmi1') for c in d['cells']) and all(c['took_effect']['vhe'] and c['took_effect']['exclude_host'] for c in d['cells'])"
ok $? "cells.json: 32 cells; pseudo-NMI not in effect exactly where asked for; VHE and exclude_host as asked"
ok $([ "$(grep -c 'not in effect' "$tmp/copy/table.txt")" -eq 16 ]; echo $?) "table.txt marks the 16 pseudo-NMI cells"

done_testing
