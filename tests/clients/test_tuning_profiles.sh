#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Each shipped tuning profile (tuning/profiles/*.env) names only variables
# propel defines, and propel reads every value back: Debian's fi_info -e on
# propel, with FI_TUNING_PROFILE set to the profile, shows each one, and
# the library warns about none (a malformed value would be warned about
# and replaced by the default).
#   $1: the tuning/profiles folder
set -uo pipefail
dir=$1
fi_info=/usr/bin/fi_info
if [ ! -x "$fi_info" ]; then
	echo "SKIP: $fi_info is missing (Debian package libfabric-bin)"
	exit 77
fi
fail=0 n=0
for profile in "$dir"/*.env; do
	out=$(env -i PATH="$PATH" LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" \
		LD_LIBRARY_PATH="$PROPEL_LIBDIR" FI_TUNING_PROFILE="$profile" \
		"$fi_info" -e 2>&1 | tr '\0' '|')
	if ! grep -q '^# FI_PROGRESS_SPIN_US:' <<<"$out"; then
		echo "FAIL: fi_info -e did not run on propel"
		exit 1
	fi
	# propel's log lines: libfabric:PID:TIME:PROV:SUBSYS:FUNC():LINE<warn> ...
	if grep -q '^libfabric:.*<warn>' <<<"$out"; then
		echo "FAIL: $(basename "$profile"): propel warned:"
		grep '^libfabric:.*<warn>' <<<"$out"
		fail=1
	fi
	while IFS='=' read -r name value; do
		n=$((n + 1))
		if ! grep -q "^# $name:" <<<"$out"; then
			echo "FAIL: $(basename "$profile"): $name is not a propel variable"
			fail=1
		elif ! grep -qxF "$name=|$value|" <<<"$out"; then
			echo "FAIL: $(basename "$profile"): $name=$value not read back"
			fail=1
		fi
	done < <(sed -n 's/^export \(FI_[A-Z0-9_]*\)=\(.*\)$/\1=\2/p' "$profile")
done
[ $fail -eq 0 ] && echo "ok: $n settings in $(ls "$dir"/*.env | wc -l) profiles read back"
exit $fail
