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
echo "includes: $n files, none by relative or absolute path"
