#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# check_includes.sh SRCDIR
#
# The source half of the include rules (docs/architecture.md): a file
# names the headers it includes by their bare name ("pl_cq.h") or, for the
# public ones, as <rdma/...>; which of them it may see is decided by the
# include path its layer's meson.build gives it. A relative path
# ("../engine/cq/pl_cq_int.h") or an absolute one would step around that
# path, so none may appear anywhere in the tree, tests and benchmarks
# included. Prints each offending line and fails when there is one.
#
# The same for the build files: a layer's meson.build names no other
# layer's private include set (*_int_inc), nor all_inc or
# propel_internal_dep (what unit tests of internals link), nor a folder
# above its own; only its own layer's *_int_inc. lib/ declares those sets
# for the tests and is left out; tests/ and perf/ may use them.
set -uo pipefail
src=$1
cd "$src" || exit 1
bad=$(git ls-files -co --exclude-standard -- '*.c' '*.h' 2>/dev/null |
	xargs -r grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<](\.\.?/|/)' 2>/dev/null)
if [ -n "$bad" ]; then
	echo "FAIL: includes by relative or absolute path:"
	echo "$bad"
	exit 1
fi
n=$(git ls-files -co --exclude-standard -- '*.c' '*.h' | wc -l)

fail=0
for layer in base:base progress:progress mr_cache:mrc engine:engine \
	rdm:rdm prov: tuning:; do
	dir=${layer%%:*} own=${layer#*:}
	while read -r f; do
		[ -n "$f" ] || continue
		# every private set or test set named outside comments, and
		# any include_directories() that climbs out of the folder
		hits=$(grep -vE '^[[:space:]]*#' "$f" |
			grep -oE '[a-z]+_int_inc|all_inc|propel_internal_dep|include_directories\([^)]*\.\.' |
			grep -vx "${own:-none}_int_inc" | sort -u || true)
		if [ -n "$hits" ]; then
			echo "FAIL: $f reaches into another layer's private headers:"
			echo "$hits"
			fail=1
		fi
	done < <(git ls-files -co --exclude-standard -- "$dir/meson.build" "$dir/**/meson.build")
done
[ "$fail" -eq 0 ] || exit 1
echo "includes: $n files, none by relative or absolute path; no layer's build names another's private headers"
