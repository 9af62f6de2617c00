#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Debian's own fi_pingpong (libfabric-bin, unmodified) over propel's tcp
# provider, FI_EP_MSG: connect/accept through passive endpoints, then
# every size with data checks (-S all -c, 100 iterations each), then
# 20,000 iterations of a small message with data checks (connection
# set-up lands in fi_pingpong's timed loop, so many iterations; every size
# 20,000 times would move about 0.9 TB, since -S all goes up to 6 MiB).
# Mode "lo": both sides in one namespace over loopback; mode "lo6": the
# same over ::1 (fi_pingpong -6, every size only); mode "netns": server
# and client in two namespaces joined by a veth pair (netns_lib.sh). The
# loader's trace (LD_DEBUG=files) proves that each side initialized
# propel's libfabric.so.1.
#
# A second argument "rxm" runs the same over ofi_rxm on tcp (FI_EP_RDM:
# -p 'tcp;ofi_rxm' -e rdm, connections made on demand by the first send).
set -uo pipefail
here=$(dirname "$0")
. "$here/netns_lib.sh"
mode=${1:-lo}
pp_args=(-p tcp -e msg)
if [ "${2:-tcp}" = rxm ]; then
	pp_args=(-p "tcp;ofi_rxm" -e rdm)
fi
pp=/usr/bin/fi_pingpong
if [ ! -x "$pp" ]; then
	echo "SKIP: $pp is missing (Debian package libfabric-bin)"
	exit 77
fi
lib="$PROPEL_LIBDIR/libfabric.so.1"
iters_all=${PINGPONG_ITERS:-100}
iters_small=${PINGPONG_ITERS_SMALL:-20000}

tmp=$(mktemp -d)
srv_pid=
cleanup() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	netns_teardown
	rm -rf "$tmp"
}
trap cleanup EXIT

srv_ns=() cli_ns=() dest=127.0.0.1 v6=()
if [ "$mode" = lo6 ]; then
	dest=::1
	v6=(-6)
fi
if [ "$mode" = netns ]; then
	netns_setup
	rc=$?
	[ $rc -ne 0 ] && exit $rc
	srv_ns=(ip netns exec "$NS_A")
	cli_ns=(ip netns exec "$NS_B")
	dest=$ADDR_A
fi

free_port() {
	"${srv_ns[@]}" python3 -c 'import socket; s=socket.socket(); s.bind(("0.0.0.0", 0)); print(s.getsockname()[1])'
}

wait_listen() {	# $1: port, in the server's namespace
	local hexport
	hexport=$(printf '%04X' "$1")
	for _ in $(seq 400); do
		if "${srv_ns[@]}" awk -v p=":$hexport" \
			'$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' \
			/proc/net/tcp /proc/net/tcp6 2>/dev/null; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# run_pair NAME ARGS...: server and client with the same fi_pingpong
# arguments; both must exit 0 and both must have loaded propel.
run_pair() {
	local name=$1 port rc_s rc_c side loaded fail=0
	shift
	port=$(free_port)
	# the variables are set inside the namespace (env), so that ip(8)
	# itself neither loads propel nor the sanitizer preload
	"${srv_ns[@]}" env LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" \
		LD_LIBRARY_PATH="$PROPEL_LIBDIR" LD_DEBUG=files \
		LD_DEBUG_OUTPUT="$tmp/$name.server.ld" \
		timeout 600 "$pp" "${pp_args[@]}" "${v6[@]}" -B "$port" "$@" \
		>"$tmp/$name.server" 2>&1 &
	srv_pid=$!
	if ! wait_listen "$port"; then
		echo "FAIL: $name: the server never listened on $port"
		cat "$tmp/$name.server"
		return 1
	fi
	"${cli_ns[@]}" env LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" \
		LD_LIBRARY_PATH="$PROPEL_LIBDIR" LD_DEBUG=files \
		LD_DEBUG_OUTPUT="$tmp/$name.client.ld" \
		timeout 600 "$pp" "${pp_args[@]}" "${v6[@]}" -P "$port" "$@" \
		"$dest" >"$tmp/$name.client" 2>&1
	rc_c=$?
	wait "$srv_pid"
	rc_s=$?
	srv_pid=
	for side in server client; do
		rc=$([ $side = server ] && echo $rc_s || echo $rc_c)
		if [ "$rc" -ne 0 ]; then
			echo "FAIL: $name: fi_pingpong $side exited $rc"
			cat "$tmp/$name.$side"
			fail=1
		fi
		loaded=$(cat "$tmp/$name.$side.ld".* 2>/dev/null |
			sed -n 's/.*calling init: \(.*\/libfabric\.so\.1\)$/\1/p' |
			head -n 1)
		if [ -z "$loaded" ] ||
		   [ "$(realpath "$loaded")" != "$(realpath "$lib")" ]; then
			echo "FAIL: $name: $side loaded '$loaded', not $lib"
			fail=1
		fi
	done
	return $fail
}

run_pair all -I "$iters_all" -S all -c || exit 1
for sz in 1 64 1k 4k 64k 1m 4m 6m; do
	if ! grep -q "^$sz " "$tmp/all.client"; then
		echo "FAIL: the client printed no result for size $sz"
		cat "$tmp/all.client"
		exit 1
	fi
done
cat "$tmp/all.client"
if [ "$mode" = lo6 ]; then
	echo "PASS: Debian fi_pingpong ${pp_args[*]} -6 ran on propel over ::1"
	exit 0
fi
run_pair small -I "$iters_small" -S 8 -c || exit 1
grep -q "^8 " "$tmp/small.client" || { cat "$tmp/small.client"; exit 1; }
cat "$tmp/small.client"
echo "PASS: Debian fi_pingpong ${pp_args[*]} ran on propel ($mode)"
