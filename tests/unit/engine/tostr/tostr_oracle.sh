#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# fi_tostr/fi_tostr_r against the reference: the same oracle binary runs
# once on whatever the loader finds without LD_LIBRARY_PATH (Debian's
# libfabric 1.17) and once with LD_LIBRARY_PATH=$PROPEL_LIBDIR (propel);
# both passes must name the library they loaded, and their outputs must be
# byte-identical apart from that line.
set -uo pipefail
oracle=$1
propel_lib=$(realpath "$PROPEL_LIBDIR/libfabric.so.1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

env -u LD_LIBRARY_PATH -u LD_PRELOAD "$oracle" >"$work/ref.out" 2>"$work/ref.err"
rc=$?
if [ $rc -eq 77 ]; then
	echo "SKIP: no reference libfabric.so.1 to compare with: $(head -1 "$work/ref.out")"
	exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: oracle exited $rc on the reference"; cat "$work/ref.err"; exit 1; }
ref_lib=$(sed -n '1s/^lib: //p' "$work/ref.out")
if [ -z "$ref_lib" ] || [ "$(realpath "$ref_lib")" = "$propel_lib" ]; then
	echo "SKIP: without LD_LIBRARY_PATH the loader found '$ref_lib', which is propel's own library: no reference to compare with"
	exit 77
fi

env -u LD_PRELOAD LD_LIBRARY_PATH="$PROPEL_LIBDIR" "$oracle" >"$work/propel.out" 2>"$work/propel.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: oracle exited $rc on propel"; cat "$work/propel.err"; exit 1; }
propel_loaded=$(sed -n '1s/^lib: //p' "$work/propel.out")
if [ "$(realpath "$propel_loaded")" != "$propel_lib" ]; then
	echo "FAIL: with LD_LIBRARY_PATH the oracle loaded '$propel_loaded', not propel ($propel_lib)"
	exit 1
fi

cases=$(sed -n 's/^cases: //p' "$work/ref.out")
if ! grep -q "^cases: $cases\$" "$work/propel.out"; then
	echo "FAIL: the passes ran different case counts"
	exit 1
fi
if ! diff <(tail -n +2 "$work/ref.out") <(tail -n +2 "$work/propel.out") >"$work/diff"; then
	echo "FAIL: $(grep -c '^<' "$work/diff") of $cases cases differ (<: reference $ref_lib, >: propel)"
	head -c 20000 "$work/diff"
	exit 1
fi
echo "PASS: $cases fi_tostr/fi_tostr_r cases byte-identical between $ref_lib and $propel_loaded"
