#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The ofi_rxm threshold sweeper measures on this machine and writes a
# tuning profile; propel's fi_info -e, run with FI_TUNING_PROFILE
# pointing at it, shows the swept FI_OFI_RXM_SAR_LIMIT, so rxm reads it
# back. Which value comes out is the machine's business; that it is one
# of the sizes the sweep measured, and that it round-trips, is the test.
# Loopback only: the benchmarks open tcp on 127.0.0.1 with no service,
# so the kernel picks their ports.
#   $1: tuning/sweep_rxm.py   $2: the build directory   $3: tuning/fi_info
set -uo pipefail
sweep=$1 build=$2 fi_info=$3
profile=$(mktemp)
trap 'rm -f "$profile"' EXIT
if ! python3 "$sweep" --build "$build" --quick --out "$profile"; then
	echo "FAIL: the sweep failed"
	exit 1
fi
limit=$(sed -n 's/^export FI_OFI_RXM_SAR_LIMIT=\([0-9]*\)$/\1/p' "$profile")
if [ -z "$limit" ] || [ "$(grep -c '^export ' "$profile")" -ne 1 ]; then
	echo "FAIL: the profile does not set FI_OFI_RXM_SAR_LIMIT once, alone:"
	cat "$profile"
	exit 1
fi
# the table's rows: "#   SIZE B  bw SAR RNDV  lat SAR RNDV  gain G"
sizes=$(sed -n 's/^# *\([0-9][0-9]*\) B  bw .*$/\1/p' "$profile")
if [ "$(wc -w <<<"$sizes")" -lt 3 ]; then
	echo "FAIL: the profile records fewer than 3 measured sizes:"
	cat "$profile"
	exit 1
fi
if ! grep -qxF "$limit" <<<"$sizes"; then
	echo "FAIL: FI_OFI_RXM_SAR_LIMIT=$limit is not a size the sweep measured"
	exit 1
fi
fi_info_e() {
	env -u FI_OFI_RXM_SAR_LIMIT -u FI_TUNING_PROFILE "$@" \
		LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" \
		LD_LIBRARY_PATH="$PROPEL_LIBDIR" "$fi_info" -e 2>&1 | tr '\0' '|'
}
# without the profile nothing sets the variable: the line below can only
# come from the file
if grep -q '^FI_OFI_RXM_SAR_LIMIT=' <<<"$(fi_info_e)"; then
	echo "FAIL: fi_info -e shows FI_OFI_RXM_SAR_LIMIT set without a profile"
	exit 1
fi
out=$(fi_info_e FI_TUNING_PROFILE="$profile")
# FI_PROGRESS_SPIN_US is propel's alone: proof of which library answered
if ! grep -q '^# FI_PROGRESS_SPIN_US:' <<<"$out"; then
	echo "FAIL: fi_info -e did not run on propel"
	exit 1
fi
if ! grep -qxF "FI_OFI_RXM_SAR_LIMIT=|$limit|" <<<"$out"; then
	echo "FAIL: fi_info -e does not show FI_OFI_RXM_SAR_LIMIT=$limit from the profile:"
	grep -a 'FI_OFI_RXM_' <<<"$out"
	exit 1
fi
echo "ok: swept FI_OFI_RXM_SAR_LIMIT=$limit read back by propel"
