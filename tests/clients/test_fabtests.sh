#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The reference's own conformance suite (fabtests 1.17, from
# ../shared/tools/fabtests, built against Debian's headers and unmodified)
# run on propel: test_fabtests.sh SET PROVIDER [EXCLUDE_REGEX [MIN_PASS]].
# Every test that runs must pass, and at least MIN_PASS (default 1) must
# pass, so that tests turning into Notrun are noticed; the counts are
# printed, and the closing line of runfabtests.sh is checked so that a run
# that executed nothing fails.
# Skips (77) with a message when the tool is not beside the checkout or
# cannot be built here.
set -uo pipefail
set_name=${1:?set} prov=${2:?provider} exclude=${3:-} min_pass=${4:-1}
tool="$PROPEL_SRCDIR/../shared/tools/fabtests/fabtests.sh"
if [ ! -x "$tool" ] && [ ! -f "$tool" ]; then
	echo "SKIP: $tool is missing (the fabtests tool of shared/tools)"
	exit 77
fi
if ! bash "$tool" --build >/tmp/propel-fabtests-build.$$ 2>&1; then
	echo "SKIP: fabtests could not be built here:"
	tail -5 /tmp/propel-fabtests-build.$$
	rm -f /tmp/propel-fabtests-build.$$
	exit 77
fi
rm -f /tmp/propel-fabtests-build.$$
args=()
[ -n "$exclude" ] && args=(-e "$exclude")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bash "$tool" "$PROPEL_LIBDIR" "$set_name" "$prov" "${args[@]}" >"$out" 2>&1
rc=$?
grep -E ':[[:space:]]+(Pass|Fail|Notrun|Excluded)$' "$out" | sed 's/^/  /'
pass=$(awk '/Total Pass/{print $NF}' "$out" | tail -1)
fail=$(awk '/Total Fail/{print $NF}' "$out" | tail -1)
echo "fabtests -t $set_name '$prov' on propel: ${pass:-?} passed, ${fail:-?} failed"
if [ -z "$pass" ] || [ -z "$fail" ]; then
	echo "FAIL: runfabtests.sh printed no totals"
	tail -20 "$out"
	exit 1
fi
if [ "$rc" -ne 0 ] || [ "$fail" -ne 0 ]; then
	echo "FAIL: $fail fabtests failed"
	exit 1
fi
if [ "$pass" -lt "$min_pass" ]; then
	echo "FAIL: $pass fabtests passed, fewer than $min_pass"
	exit 1
fi
exit 0
