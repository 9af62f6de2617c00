#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# build.sh DIR [meson options...]: configure once, then build.
set -euo pipefail
dir=$1; shift
cd "$(dirname "$0")/.."
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >/dev/null
fi
ninja -C "$dir" >/dev/null
