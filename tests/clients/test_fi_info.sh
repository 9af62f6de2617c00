#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Our fi_info (tuning/) against the reference tool (Debian libfabric-bin):
# for each option combination, both tools run against the SAME library
# and must print the same bytes on stdout and stderr and exit the same.
#
#   pass "reference": both on the reference libfabric.so.1, where real
#     providers (tcp, udp, shm, sockets, rxm, ...) exercise every listing;
#   pass "propel": both on build/lib/libfabric.so.1, with whatever
#     providers propel has so far (the error paths included).
#
# Each pass first proves which libfabric.so.1 each tool loads (the loader's
# own LD_DEBUG=files trace, in the environment the pass then uses). The
# reference pass sets LD_LIBRARY_PATH to the reference library's folder
# rather than leaving it unset, because our tool carries a build RUNPATH
# to build/lib and would otherwise load propel.
#
# Usage: test_fi_info.sh OUR_FI_INFO   (env: PROPEL_LIBDIR, PROPEL_BUILDDIR;
#        FI_INFO_REF overrides /usr/bin/fi_info)
set -uo pipefail

ours=$1
ref=${FI_INFO_REF:-/usr/bin/fi_info}

if [ ! -x "$ref" ]; then
	echo "SKIP: no reference fi_info at $ref (Debian package libfabric-bin)"
	exit 77
fi

fail() { echo "FAIL: $*"; exit 1; }

# Our tool must be our build, run by its path, not something found on PATH.
ours_real=$(realpath -e "$ours") || fail "our fi_info '$ours' does not exist"
[ "$ours_real" = "$(realpath "$PROPEL_BUILDDIR")/tuning/fi_info" ] ||
	fail "'$ours_real' is not the fi_info of build tree $PROPEL_BUILDDIR"
cmp -s "$ours_real" "$(realpath "$ref")" &&
	fail "'$ours_real' is the reference binary itself"

propel_lib=$(realpath -e "$PROPEL_LIBDIR/libfabric.so.1") ||
	fail "no libfabric.so.1 in PROPEL_LIBDIR=$PROPEL_LIBDIR"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The libfabric.so.1 a tool loads with LD_LIBRARY_PATH=$1 (empty: unset),
# as the dynamic loader reports it.
loaded_lib() {
	(
		unset LD_LIBRARY_PATH
		[ -n "$1" ] && export LD_LIBRARY_PATH=$1
		export LD_DEBUG=files
		# sanitizer builds: the runtime must come first in uninstrumented tools
		[ -n "${PROPEL_CLIENT_PRELOAD:-}" ] && export LD_PRELOAD=$PROPEL_CLIENT_PRELOAD
		exec -a fi_info "$2" --version
	) 2>&1 >/dev/null |
		sed -n 's/.*calling init: \(.*\/libfabric\.so\.1\)$/\1/p' | head -n 1
}

ref_lib=$(loaded_lib "" "$ref")
[ -n "$ref_lib" ] || fail "cannot tell which libfabric.so.1 $ref loads"
ref_lib=$(realpath "$ref_lib")
[ "$ref_lib" != "$propel_lib" ] ||
	fail "without LD_LIBRARY_PATH the reference tool loads propel; the passes cannot be told apart"
ref_dir=$(dirname "$ref_lib")

# Option combinations, one per line, words split on blanks. @EMPTY@ is an
# empty argument; a leading %NAME=VALUE word sets a variable for both runs.
combos=$(cat <<'EOF'

-v
-l
-l -v
-e
-g tcp
-g TCP
-g log_level
-g no_such_variable
-g @EMPTY@
%FI_LOG_LEVEL=warn -e
%FI_TCP_IFACE=lo -g tcp_iface
-p tcp
-p tcp -v
-p shm -v
-p udp
-p sockets -v
-p no_such_prov
-l -p no_such_prov
-e -p no_such_prov
-c FI_MSG|FI_RMA
-c fi_msg|Fi_Rma -v
-c FI_TAGGED -c FI_RMA
-c FI_MSG||FI_RMA|
-c FI_MSG|bogus
-c @EMPTY@
-c FI_ATOMIC|FI_READ|FI_WRITE|FI_REMOTE_READ|FI_REMOTE_WRITE
-c FI_MULTI_RECV|FI_SOURCE|FI_DIRECTED_RECV -v
-c FI_HMEM
-c FI_RMA_PMEM
-m FI_CONTEXT
-m FI_CONTEXT|FI_MSG_PREFIX -v
-m FI_CONTEXT -m FI_RX_CQ_DATA
-m |
-m bogus
-m FI_BUFFERED_RECV
-t FI_EP_MSG
-t fi_ep_dgram -v
-t FI_EP_RDM -p tcp
-t FI_EP_SOCK_STREAM
-t bogus
-t FI_EP_MSG|FI_EP_RDM
-t @EMPTY@
-a FI_SOCKADDR_IN
-a FI_SOCKADDR_IN6 -v
-a FI_ADDR_STR
-a FI_SOCKADDR_IB
-a bogus
-n 127.0.0.1
-n 127.0.0.1 -P 4711 -v
-s 127.0.0.1 -p tcp -v
-s 127.0.0.1 -n 127.0.0.1
-f 127.0.0.1/32
-d lo -v
-f no_such_fabric
-d lo -t FI_EP_MSG -p tcp -v
-i FI_EP_MSG
-i fi_proto_shm
-i @EMPTY@ -p shm
-i = -p shm
-l -i psm
-l -v -i FI_EP_DGRAM
-i tcp -g FI_LOG
-g FI_LOG -i tcp
-e -l
-e -v
--version
-h
--help
-x
--bogus
--ver
--e
--p
-c
--caps=FI_MSG
--provider=tcp --ep_type=FI_EP_MSG
--list --verbose
--env=x
--getenv=mr_cache
--info=FI_SOCKADDR_IN6 --provider tcp
extra -p no_such_prov
-- -p no_such_prov
--version -t bogus
-t bogus --version
-h -t bogus
-vl
-pshm
EOF
)

# Run one tool: $1 LD_LIBRARY_PATH, $2 tool, $3 output prefix, rest: words.
# argv[0] is "fi_info" for both tools, since usage text and getopt messages
# print it. shm addresses carry the pid and log lines the pid and time:
# those are rewritten to fixed text, and so are the lengths of an entry
# whose address is the pid's (they count its digits), nothing else is.
run_tool() {
	local libdir=$1 tool=$2 out=$3
	shift 3
	local -a vars=() args=()
	local w pid
	for w in "$@"; do
		case "$w" in
		%*) vars+=("${w#%}") ;;
		@EMPTY@) args+=("") ;;
		*) args+=("$w") ;;
		esac
	done
	(
		export LD_LIBRARY_PATH=$libdir
		[ -n "${PROPEL_CLIENT_PRELOAD:-}" ] && export LD_PRELOAD=$PROPEL_CLIENT_PRELOAD
		for w in "${vars[@]}"; do export "$w"; done
		echo "$BASHPID" >"$out.pid"
		exec -a fi_info "$tool" "${args[@]}"
	) >"$out.stdout" 2>"$out.stderr"
	echo "exit status $?" >"$out.status"
	pid=$(cat "$out.pid")
	sed -i "s#fi_shm://$pid\\b#fi_shm://<pid>#g" "$out.stdout"
	# an entry prints its lengths just before its addresses (fi_tostr)
	perl -0pi -e 's/(src_addrlen: )\d+(\n\s*dest_addrlen: )\d+(\n\s*src_addr: fi_shm:\/\/<pid>\n)/$1<len>$2<len>$3/g' "$out.stdout"
	sed -i -E 's/^libfabric:[0-9]+:[0-9]+::/libfabric:<pid>:<time>::/' "$out.stderr"
}

failures=0

# $1 pass name, $2 LD_LIBRARY_PATH for both tools, $3 library they must load.
run_pass() {
	local name=$1 libdir=$2 want=$3
	local got line n=0 same=0 f bad
	local -a words

	for tool in "$ref" "$ours_real"; do
		got=$(loaded_lib "$libdir" "$tool")
		[ -n "$got" ] && got=$(realpath "$got")
		if [ "$got" != "$want" ]; then
			echo "FAIL [$name]: $tool loaded '$got', not $want"
			failures=$((failures + 1))
			return
		fi
	done
	echo "[$name] both tools load $want"

	while IFS= read -r line; do
		read -r -a words <<<"$line"
		n=$((n + 1))
		run_tool "$libdir" "$ref" "$work/ref" "${words[@]}"
		run_tool "$libdir" "$ours_real" "$work/ours" "${words[@]}"
		bad=
		for f in status stdout stderr; do
			if ! cmp -s "$work/ref.$f" "$work/ours.$f"; then
				bad="$bad $f"
			fi
		done
		if [ -z "$bad" ]; then
			same=$((same + 1))
			continue
		fi
		failures=$((failures + 1))
		echo "DIFF [$name] fi_info $line:$bad differ (< reference, > ours)"
		for f in status stdout stderr; do
			cmp -s "$work/ref.$f" "$work/ours.$f" && continue
			echo "  -- $f:"
			diff -a "$work/ref.$f" "$work/ours.$f" | head -n 20 | sed 's/^/  /'
		done
	done <<<"$combos"
	echo "[$name] $n option combinations: $same identical, $((n - same)) different"
}

run_pass reference "$ref_dir" "$ref_lib"
run_pass propel "$PROPEL_LIBDIR" "$propel_lib"

if [ "$failures" -ne 0 ]; then
	echo "FAIL: $failures difference(s) between our fi_info and the reference tool"
	exit 1
fi
echo "PASS: our fi_info matches the reference tool byte for byte on both libraries"
