#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
#
# usage: abi_compare.sh [OUR_INCLUDE_DIR]
#
# Proves propel's public headers match the reference libfabric headers
# (Debian libfabric-dev, /usr/include/rdma): generates abi_check.c from the
# reference, builds it once against the reference and once against ours,
# runs both and compares the printed sizes, offsets, field types, constant
# values and function prototypes line by line.
#
# Exit: 0 no difference; 1 differences, or ours does not compile;
#       77 skipped (no reference headers, clang or python3); 99 the harness
#       itself failed (generator, or the program against the reference).
#
# Environment: ABI_REF_DIR (reference rdma/ folder, default
# /usr/include/rdma), CC (compiler for the check program, default gcc),
# CLANG, PYTHON, ABI_WORKDIR (keep the generated files there),
# ABI_VERBOSE=1 (also print the full outputs' location).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ours=${1:-$here/../../include}
ref=${ABI_REF_DIR:-/usr/include/rdma}
clang=${CLANG:-clang}
start=$(date +%s%N)

skip() { echo "SKIP: $*"; exit 77; }

# The 14 headers the generator covers; keep in step with HEADERS there.
headers=(fabric.h fi_errno.h fi_domain.h fi_eq.h fi_trigger.h fi_endpoint.h
	 fi_cm.h fi_rma.h fi_tagged.h fi_atomic.h fi_collective.h fi_ext.h
	 providers/fi_prov.h providers/fi_log.h)

for h in "${headers[@]}"; do
	[ -f "$ref/$h" ] ||
		skip "reference header $ref/$h not found (install libfabric-dev)"
done
command -v "$clang" >/dev/null 2>&1 ||
	skip "clang not found (needed to read the reference headers' AST)"
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=$(command -v python3) ||
	skip "python3 not found"
if [ -n "${CC:-}" ]; then
	cc=$CC
elif command -v gcc >/dev/null 2>&1; then
	cc=gcc
else
	cc=$clang
fi

if [ ! -d "$ours/rdma" ]; then
	echo "FAIL: $ours/rdma does not exist (give OUR_INCLUDE_DIR, the folder holding rdma/)"
	exit 1
fi
ours=$(cd "$ours" && pwd)

if [ -n "${ABI_WORKDIR:-}" ]; then
	work=$ABI_WORKDIR
	mkdir -p "$work" || exit 99
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/propel-abi.XXXXXX") || exit 99
	trap 'rm -rf "$work"' EXIT
fi

gen=$here/gen_abi_check.py
src=$work/abi_check.c

# The reference's include root is the folder above rdma/; a system root
# needs no flag (and -isystem on it would reorder the system search).
refroot=$(cd "$ref/.." && pwd)
refinc=()
case "$refroot" in
/usr/include|/usr/local/include) ;;
*) refinc=(-isystem "$refroot") ;;
esac

cflags=(-std=gnu11 -O0 -Wall -Wextra)

"$python" "$gen" generate --ref "$ref" --clang "$clang" -o "$src" 2>&1 ||
	{ echo "ERROR: generating abi_check.c failed"; exit 99; }

# Reference build: must be warning-free, the generator's promise.
if ! $cc "${cflags[@]}" -Werror "${refinc[@]}" "$src" -o "$work/abi_ref" \
		>"$work/ref_build.log" 2>&1; then
	cat "$work/ref_build.log"
	echo "ERROR: abi_check.c does not build cleanly against the reference"
	exit 99
fi

# Our build.  A header missing from ours must not silently resolve to the
# reference copy in /usr/include: a stub that #errors sits right after our
# folder, and the program is told not to include it itself.
mkdir -p "$work/shadow/rdma/providers"
ourflags=(-I "$ours" -I "$work/shadow")
missing=()
for h in "${headers[@]}"; do
	if [ ! -f "$ours/rdma/$h" ]; then
		missing+=("$h")
		echo "#error \"rdma/$h is missing from $ours\"" >"$work/shadow/rdma/$h"
		ourflags+=(-D "ABI_NO_rdma_$(echo "$h" | tr -c 'A-Za-z0-9\n' '_')")
	fi
done
[ ${#missing[@]} -eq 0 ] || echo "missing headers in $ours/rdma: ${missing[*]}"

status=0
"$python" "$gen" build --cc "$cc" -o "$work/abi_ours" "$src" -- \
	"${cflags[@]}" "${ourflags[@]}" >"$work/our_build.log" 2>&1
brc=$?
if [ $brc -ne 0 ]; then
	echo "---- compiler errors building abi_check.c against $ours ----"
	cat "$work/our_build.log"
	echo "---- end of compiler errors ----"
	status=1
	if [ $brc -ne 1 ]; then
		echo "FAIL: abi_check.c does not compile against $ours"
		exit 1
	fi
elif [ -s "$work/our_build.log" ]; then
	cat "$work/our_build.log"	# warnings from our headers: shown, not fatal
fi

"$work/abi_ref" >"$work/ref.out" || { echo "ERROR: reference run failed"; exit 99; }
"$work/abi_ours" >"$work/ours.out" || { echo "FAIL: our build of abi_check crashed"; exit 1; }

"$python" "$gen" compare "$work/ref.out" "$work/ours.out" || status=1

end=$(date +%s%N)
echo "abi_compare: $ref vs $ours, $(( (end - start) / 1000000 )) ms"
[ -z "${ABI_WORKDIR:-}" ] || echo "abi_compare: outputs kept in $work"
exit $status
