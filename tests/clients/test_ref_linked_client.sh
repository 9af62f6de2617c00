#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A program compiled and linked against the reference libfabric runs on
# propel through LD_LIBRARY_PATH: no "version not found", same answers,
# and propel is provably the library that ran (the same binary run without
# the path must load the reference, so the check can tell them apart).
set -uo pipefail
client=$1
propel_lib=$(realpath "$PROPEL_LIBDIR/libfabric.so.1")

# Meson puts the build's library directory on LD_LIBRARY_PATH for tests:
# the reference pass must run without it.
ref_out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD "$client" 2>&1) || { echo "FAIL: client fails on the reference:"; echo "$ref_out"; exit 1; }
ref_loaded=$(sed -n 's/^loaded: //p' <<<"$ref_out")
if [ "$(realpath "$ref_loaded")" = "$propel_lib" ]; then
	echo "FAIL: without LD_LIBRARY_PATH the client loaded propel; the test cannot tell the libraries apart"
	exit 1
fi

out=$(LD_LIBRARY_PATH="$PROPEL_LIBDIR" LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" "$client" 2>&1)
rc=$?
echo "$out"
if grep -q "not found" <<<"$out"; then
	echo "FAIL: the dynamic loader could not bind the client to propel"
	exit 1
fi
[ $rc -eq 0 ] || { echo "FAIL: client exited $rc on propel"; exit 1; }
loaded=$(sed -n 's/^loaded: //p' <<<"$out")
if [ "$(realpath "$loaded")" != "$propel_lib" ]; then
	echo "FAIL: client loaded '$loaded', not propel ($propel_lib)"
	exit 1
fi
# Same observable answers as the reference, apart from the path line.
if ! diff <(grep -v '^loaded:' <<<"$ref_out") <(grep -v '^loaded:' <<<"$out"); then
	echo "FAIL: answers differ from the reference (left: reference, right: propel)"
	exit 1
fi
echo "PASS: reference-linked client ran on $loaded with the reference's answers"
