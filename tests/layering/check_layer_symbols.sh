#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# check_layer_symbols.sh ALLOWED LEVEL:NAME:ARCHIVE...
#
# The link-level half of the layering rule (docs/architecture.md, "Include
# rules"): no layer's objects reference a symbol that only a layer above
# it, or a sibling at its own level (one provider and another), defines.
# Each argument names a static library and its level (0 = base, counting
# up). For every undefined symbol of a library, the libraries that may
# define it are the library itself and those at a lower level; when it is
# defined by none of those but by another of ours, that is a reference
# upward or sideways, and the check fails, naming both ends. Symbols none
# of our libraries define (libc, liburcu) are not ours to judge.
#
# ALLOWED lists the upward references the design makes on purpose, one
# "NAME SYMBOL" per line with the reason in a comment (the table of
# built-in providers, which the engine reads and lib/ defines).
set -uo pipefail
allowed=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

levels=() names=() archives=()
for spec in "$@"; do
	IFS=: read -r lvl name path <<<"$spec"
	if [ ! -f "$path" ]; then
		echo "no such archive: $path" >&2
		exit 1
	fi
	levels+=("$lvl") names+=("$name") archives+=("$path")
	# defined, global: every symbol type but U (undefined) and w/v
	# (weak undefined)
	nm -g -P --defined-only "$path" 2>/dev/null |
		awk 'NF >= 2 && $1 !~ /:$/ { print $1 }' | sort -u >"$tmp/def.$name"
	nm -u -P "$path" 2>/dev/null |
		awk 'NF >= 2 && $1 !~ /:$/ { print $1 }' | sort -u >"$tmp/und.$name"
done

n=${#names[@]}
fail=0
for ((i = 0; i < n; i++)); do
	me=${names[$i]}
	: >"$tmp/below"
	: >"$tmp/others"
	for ((j = 0; j < n; j++)); do
		if [ "$j" -eq "$i" ] || [ "${levels[$j]}" -lt "${levels[$i]}" ]; then
			cat "$tmp/def.${names[$j]}" >>"$tmp/below"
		else
			sed "s/\$/ ${names[$j]}/" "$tmp/def.${names[$j]}" >>"$tmp/others"
		fi
	done
	sort -u -o "$tmp/below" "$tmp/below"
	# undefined here, not defined here or below
	comm -23 "$tmp/und.$me" "$tmp/below" >"$tmp/missing"
	while read -r sym; do
		owner=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$tmp/others")
		[ -n "$owner" ] || continue
		if grep -qx "$me $sym" <(grep -v '^[[:space:]]*#' "$allowed"); then
			continue
		fi
		echo "FAIL: $me (level ${levels[$i]}) references $sym, defined only by $owner above or beside it"
		fail=1
	done <"$tmp/missing"
done
if [ "$fail" -eq 0 ]; then
	echo "layering: $n libraries, no reference upward or sideways"
fi
exit "$fail"
