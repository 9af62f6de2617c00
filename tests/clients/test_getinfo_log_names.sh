#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Why fi_getinfo refused a provider, as a user reads it: Debian's fi_info
# asking propel's shm for a capability it does not offer, with
# FI_LOG_LEVEL=info. The refusal names the bits (FI_MULTICAST) instead of
# printing a hex mask.
set -uo pipefail
fi_info=/usr/bin/fi_info
if [ ! -x "$fi_info" ]; then
	echo "SKIP: $fi_info is missing (Debian package libfabric-bin)"
	exit 77
fi
run() {
	LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" LD_LIBRARY_PATH="$PROPEL_LIBDIR" \
		FI_LOG_LEVEL=info FI_PROVIDER=shm "$fi_info" -p shm "$@" 2>&1
}
fail=0
expect() {	# expect WHAT PATTERN ARGS...
	local what=$1 pat=$2 out
	shift 2
	out=$(run "$@")
	if ! grep -q -- "$pat" <<<"$out"; then
		echo "FAIL: $what: no line matching '$pat'. Output:"
		echo "$out"
		fail=1
	fi
	if grep -E "shm: .*(caps|mode|order).*0x[0-9a-f]{6,}" <<<"$out"; then
		echo "FAIL: $what: a refusal prints a hex mask"
		fail=1
	fi
}
expect "caps" "shm: caps not offered: FI_MULTICAST" -c FI_MULTICAST
[ $fail = 0 ] && echo "PASS: refusals name capabilities"
exit $fail
