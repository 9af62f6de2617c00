#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Asserts the soname and the exact set of exported symbols and version
# nodes of libfabric.so.1, as applications linked against the reference
# will look them up. Anything extra (a leaked internal name, or a libc name
# such as munmap that a memory monitor intercepts) fails the test.
set -euo pipefail
lib=$1
expected=$2

command -v objdump >/dev/null || { echo "SKIP: objdump (binutils) not installed"; exit 77; }

soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
if [ "$soname" != "libfabric.so.1" ]; then
	echo "FAIL: soname is '$soname', expected libfabric.so.1"
	exit 1
fi

# objdump -T prints defined symbols with a section other than *UND*; the
# version column reads "(NODE)" for a hidden (compat) version and "NODE"
# for the default one.
actual=$(objdump -T "$lib" | awk '
	$0 ~ /\*UND\*/ { next }
	NF >= 7 && ($3 == "DF" || $3 == "DO" || $3 == "D" ) {
		ver = $(NF-1); name = $NF
		if (ver ~ /^\(/) { gsub(/[()]/, "", ver); print name "@" ver }
		else if (name == ver) print name
		else print name "@@" ver
	}' | LC_ALL=C sort -u)
want=$(grep -v '^#' "$expected" | grep -v '^$' | LC_ALL=C sort -u)

if [ "$actual" != "$want" ]; then
	echo "FAIL: exported symbols differ from the documented set"
	diff <(echo "$want") <(echo "$actual") | sed 's/^</missing:/; s/^>/unexpected:/' | grep -E '^(missing|unexpected)' || true
	exit 1
fi
echo "PASS: soname libfabric.so.1 and $(echo "$want" | wc -l) documented symbols/nodes, nothing else"
