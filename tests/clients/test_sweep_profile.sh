#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The shm threshold sweeper measures on this machine and writes a
# tuning profile; Debian's fi_info -e, run on propel with
# FI_TUNING_PROFILE pointing at it, shows the swept FI_SHM_* values, so
# the shm provider reads them back. Which values come out is the
# machine's business; that they round-trip is the test.
#   $1: tuning/sweep_shm.py   $2: the build directory
set -uo pipefail
sweep=$1 build=$2
fi_info=/usr/bin/fi_info
if [ ! -x "$fi_info" ]; then
	echo "SKIP: $fi_info is missing (Debian package libfabric-bin)"
	exit 77
fi
profile=$(mktemp)
trap 'rm -f "$profile"' EXIT
if ! python3 "$sweep" --build "$build" --quick --out "$profile"; then
	echo "FAIL: the sweep failed"
	exit 1
fi
inline=$(sed -n 's/^export FI_SHM_INLINE_SIZE=\([0-9]*\)$/\1/p' "$profile")
sar=$(sed -n 's/^export FI_SHM_SAR_THRESHOLD=\([0-9]*\)$/\1/p' "$profile")
if [ -z "$inline" ] || [ -z "$sar" ]; then
	echo "FAIL: the profile lacks FI_SHM_INLINE_SIZE or FI_SHM_SAR_THRESHOLD:"
	cat "$profile"
	exit 1
fi
out=$(env -u FI_SHM_INLINE_SIZE -u FI_SHM_SAR_THRESHOLD \
	LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" LD_LIBRARY_PATH="$PROPEL_LIBDIR" \
	FI_TUNING_PROFILE="$profile" "$fi_info" -e 2>&1 | tr '\0' '|')
# FI_PROGRESS_SPIN_US is propel's alone: proof of which library answered
if ! grep -q '^# FI_PROGRESS_SPIN_US:' <<<"$out"; then
	echo "FAIL: fi_info -e did not run on propel"
	exit 1
fi
for pair in "FI_SHM_INLINE_SIZE=|$inline|" "FI_SHM_SAR_THRESHOLD=|$sar|"; do
	if ! grep -qxF "$pair" <<<"$out"; then
		echo "FAIL: fi_info -e does not show $pair from the profile:"
		grep -a 'FI_SHM_' <<<"$out"
		exit 1
	fi
done
echo "ok: swept FI_SHM_INLINE_SIZE=$inline FI_SHM_SAR_THRESHOLD=$sar read back by propel"
