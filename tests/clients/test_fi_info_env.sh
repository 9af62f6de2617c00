#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Debian's fi_info -e, run on propel through LD_LIBRARY_PATH, lists the
# parameters propel defines: FI_LOG_LEVEL (which the reference has too) and
# FI_PROGRESS_SPIN_US (which only propel has, so seeing it proves propel
# answered), with the value from the environment, and a value supplied by
# a tuning profile.
set -uo pipefail
fi_info=/usr/bin/fi_info
if [ ! -x "$fi_info" ]; then
	echo "SKIP: $fi_info is missing (Debian package libfabric-bin)"
	exit 77
fi

# The check must be able to tell the libraries apart.
ref_out=$(env -u LD_LIBRARY_PATH "$fi_info" -e 2>&1)
if grep -q '^# FI_PROGRESS_SPIN_US:' <<<"$ref_out"; then
	echo "FAIL: the reference already lists FI_PROGRESS_SPIN_US; it proves nothing"
	exit 1
fi

profile=$(mktemp)
printf '# test profile\nexport FI_UNIVERSE_SIZE=4242\n' >"$profile"

raw=$(mktemp)
trap 'rm -f "$profile" "$raw"' EXIT
# $1: a folder of external providers (FI_PROVIDER_PATH), so that
# fi_getinfo() has something to return on any host.
LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" LD_LIBRARY_PATH="$PROPEL_LIBDIR" FI_PROVIDER_PATH="${1:-}" FI_PROGRESS_SPIN_US=17 \
	FI_TUNING_PROFILE="$profile" "$fi_info" -e >"$raw" 2>&1
rc=$?
# fi_info prints a value between two NUL bytes; make them visible.
out=$(tr '\0' '|' <"$raw")

# fi_info -e needs more than the parameters: it first calls fi_allocinfo()
# (fi_dupinfo(NULL)) and fi_getinfo(), and stops (exit 1) if either fails.
if [ $rc -ne 0 ]; then
	echo "FAIL: fi_info -e exited $rc on propel. Output:"
	echo "$out"
	if [ -z "$out" ]; then
		echo "(nothing printed: fi_info gives up silently when fi_allocinfo() returns NULL)"
	elif grep -q '^fi_getinfo: ' <<<"$out"; then
		echo "(fi_info lists parameters only after fi_getinfo() finds a provider)"
	fi
	exit 1
fi

fail=0
expect() {
	if ! grep -qxF -- "$1" <<<"$out"; then
		echo "FAIL: missing line: $1"
		fail=1
	fi
}
expect '# FI_LOG_LEVEL: String'
expect '# FI_PROGRESS_SPIN_US: Integer'
expect 'FI_PROGRESS_SPIN_US=|17|'
expect '# FI_UNIVERSE_SIZE: size_t'
expect 'FI_UNIVERSE_SIZE=|4242|'
if [ $fail -ne 0 ]; then
	echo "--- fi_info -e output on propel:"
	echo "$out"
	exit 1
fi

# fi_info -l lists the providers propel's registry found in
# FI_PROVIDER_PATH. The reference would list them too, so the loader's own
# trace (LD_DEBUG=files, on stderr) must show propel's library initialized.
list_err=$(mktemp)
list=$(LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" LD_LIBRARY_PATH="$PROPEL_LIBDIR" \
	LD_DEBUG=files FI_PROVIDER_PATH="${1:-}" "$fi_info" -l 2>"$list_err")
loaded=$(sed -n 's/.*calling init: \(.*\/libfabric\.so\.1\)$/\1/p' "$list_err" | head -n 1)
rm -f "$list_err"
if [ -z "$loaded" ] || [ "$(realpath "$loaded")" != "$(realpath "$PROPEL_LIBDIR/libfabric.so.1")" ]; then
	echo "FAIL: fi_info -l loaded '$loaded', not propel's $PROPEL_LIBDIR/libfabric.so.1"
	exit 1
fi
for p in testprov ofi_testutil; do
	if ! grep -qx "$p:" <<<"$list"; then
		echo "FAIL: fi_info -l on propel does not list $p:"
		echo "$list"
		exit 1
	fi
done
echo "PASS: fi_info -e on propel lists propel's parameters with their values"
echo "PASS: fi_info -l on propel lists the providers of FI_PROVIDER_PATH"
