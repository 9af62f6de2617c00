#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# docs/params.md is what tuning/gen_param_docs prints from the parameter
# tables of the library built here: a parameter added, removed or
# reworded without regenerating the page fails this test.
#   $1: the gen_param_docs binary   $2: the committed docs/params.md
set -uo pipefail
gen=$1 page=$2
if [ ! -f "$page" ]; then
	echo "FAIL: $page is missing; run: ninja -C <build> param-docs"
	exit 1
fi
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
if ! env -u FI_PROVIDER -u FI_PROVIDER_PATH -u FI_TUNING_PROFILE \
	LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" "$gen" >"$fresh"; then
	echo "FAIL: gen_param_docs failed"
	exit 1
fi
# sanity: the generator saw the core's and the providers' tables
for v in FI_LOG_LEVEL FI_PROGRESS_SPIN_US FI_MR_CACHE_MONITOR; do
	grep -q "\`$v\`" "$fresh" || { echo "FAIL: $v missing from the generated page"; exit 1; }
done
if ! diff -u "$page" "$fresh"; then
	echo "FAIL: $page is stale; run: ninja -C <build> param-docs"
	exit 1
fi
echo "ok: $page matches the parameter tables ($(grep -c '^| `' "$fresh") variables)"
