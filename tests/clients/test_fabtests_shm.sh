#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The reference's conformance suite, fabtests 1.17 `-t quick`, on propel's
# shm provider (../shared/tools/fabtests/fabtests.sh builds it once against
# Debian's libfabric-dev and runs it through LD_LIBRARY_PATH). Fails on any
# failing test (docs/fabtests.md lists every "Notrun" with its reason)
# and when fewer than 56 pass. Skips (77) when fabtests cannot be found or built, and on
# sanitizer builds (an instrumented library under ~90 uninstrumented
# client processes proves little and takes long).
set -uo pipefail
src=${PROPEL_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
ft=${PROPEL_FABTESTS_SH:-$src/../shared/tools/fabtests/fabtests.sh}
if [ -n "${PROPEL_CLIENT_PRELOAD:-}" ]; then
	echo "SKIP: sanitizer build (fabtests run against the release build)"
	exit 77
fi
if [ ! -x "$ft" ] && [ ! -f "$ft" ]; then
	echo "SKIP: no fabtests runner at $ft"
	exit 77
fi
if ! bash "$ft" --build >/dev/null 2>&1; then
	echo "SKIP: fabtests could not be built (bash $ft --build; needs"
	echo "      autoconf/automake/libtool and libfabric-dev, root to install them)"
	exit 77
fi

# Known failures: a test at fault that the reference hides
# (docs/fabtests.md). None today; the loop below keeps the mechanism.
known=()

out=$(mktemp)
trap 'rm -f "$out"' EXIT
bash "$ft" "$PROPEL_LIBDIR" quick shm >"$out" 2>&1
grep -E '^# Total (Pass|Notrun|Fail)' "$out"
fail=0
while IFS= read -r line; do
	name=$(sed -E 's/:[[:space:]]+Fail$//' <<<"$line")
	ok=0
	for k in "${known[@]}"; do
		[ "$name" = "$k" ] && ok=1
	done
	if [ $ok = 1 ]; then
		echo "known failure: $name"
	else
		echo "FAIL: $name"
		fail=1
	fi
done < <(grep -E ':[[:space:]]+Fail$' "$out")
if ! grep -q '^# Total Pass' "$out"; then
	echo "FAIL: no summary from runfabtests.sh. Output:"
	tail -40 "$out"
	exit 1
fi
for k in "${known[@]}"; do
	grep -qF "$k:" "$out" && ! grep -F "$k:" "$out" | grep -q 'Fail$' &&
		echo "note: known failure now passes: $k"
done
# at least this many pass (docs/fabtests.md), so that a test turning
# Notrun is noticed
min_pass=56
pass=$(awk '/Total Pass/{print $NF}' "$out" | tail -1)
if [ "${pass:-0}" -lt $min_pass ]; then
	echo "FAIL: $pass tests passed, fewer than $min_pass"
	fail=1
fi
[ $fail = 0 ] && echo "PASS: fabtests quick shm, no failures but the known ones"
exit $fail
