#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# check_headers_alone.sh SRCDIR CC [CFLAGS...]
#
# Every header compiles on its own: a translation unit holding nothing but
# '#include "the header"' must compile (-fsyntax-only), so no header
# relies on its includer to have pulled in <stdbool.h>, <stdint.h> or
# another of ours first. The include path is every folder that holds a
# header checked here (each layer's interface and private folders);
# CFLAGS carries the project's defines. Headers under include/rdma/ are
# the ABI's and are checked the same way.
set -uo pipefail
src=$1; shift
cc=$1; shift
cd "$src" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -co --exclude-standard -- '*.h' |
	grep -E '^(include|base|progress|mr_cache|engine|rdm|prov)/' >"$tmp/headers"
inc=(-Iinclude)
while read -r d; do
	inc+=("-I$d")
done < <(grep -v '^include/' "$tmp/headers" | xargs -n1 dirname | sort -u)
fail=0 n=0
while read -r h; do
	case $h in
	include/rdma/*) line="#include <${h#include/}>" ;;
	*) line="#include \"$(basename "$h")\"" ;;
	esac
	printf '%s\n' "$line" >"$tmp/t.c"
	n=$((n + 1))
	if ! $cc "$@" "${inc[@]}" -fsyntax-only \
		-Werror=implicit-function-declaration "$tmp/t.c" >"$tmp/err" 2>&1; then
		echo "FAIL: $h does not compile alone:"
		head -5 "$tmp/err"
		fail=1
	fi
done <"$tmp/headers"
[ "$fail" -eq 0 ] && echo "headers: $n, each compiles alone"
exit "$fail"
