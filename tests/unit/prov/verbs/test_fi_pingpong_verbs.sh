#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Debian's own fi_pingpong (libfabric-bin, unmodified) over propel's verbs
# provider, FI_EP_MSG over RC (-p verbs -e msg), run inside the rxe VM by
# rxe_wrap.sh (LD_LIBRARY_PATH names propel's build): every size with data
# checks (-S all -c, 20 iterations each), then 20,000 iterations of a
# small message with data checks (connection set-up lands in the timed
# loop). The loader's trace (LD_DEBUG=files) proves that each side
# initialized propel's libfabric.so.1, not the reference.
# A first argument "rxm" runs the same over ofi_rxm on verbs (-p
# 'verbs;ofi_rxm' -e rdm); "rxm_write" runs every size over rxm with
# write-based rendezvous (FI_OFI_RXM_USE_RNDV_WRITE=1: the sender writes
# into the receiver's buffer; rxm's default reads it).
set -uo pipefail
pp=/usr/bin/fi_pingpong
if [ ! -x "$pp" ]; then
	echo "SKIP: $pp is missing (Debian package libfabric-bin)"
	exit 77
fi
if [ ! -e /sys/class/infiniband/rxe0 ] && [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	echo "SKIP: no verbs device here (run through rxe_wrap.sh, inside the rxe VM)"
	exit 77
fi
pp_args=(-p verbs -e msg)
mode=${1:-msg}
if [ "$mode" = rxm_write ]; then
	export FI_OFI_RXM_USE_RNDV_WRITE=1
	# rxm's debug line for each write-based rendezvous is the proof
	# that the variable took effect (checked below)
	export FI_LOG_LEVEL=debug FI_LOG_PROV=ofi_rxm FI_LOG_SUBSYS=ep_data
fi
if [ "$mode" != msg ]; then
	pp_args=(-p "verbs;ofi_rxm" -e rdm)
	# both sides share the VM: rxm would reach its peer through shm
	# (FI_OFI_RXM_USE_SHM, on by default), not verbs
	export FI_OFI_RXM_USE_SHM=0
fi
lib="${PROPEL_LIBDIR:?}/libfabric.so.1"
addr=${RXE_ADDR:-10.0.2.15}
tmp=$(mktemp -d)
srv_pid=
cleanup() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
port=$((9300 + RANDOM % 500))

# run_pair NAME ARGS...: both sides must exit 0 and must have loaded propel
run_pair() {
	local name=$1 rc_s rc_c side loaded fail=0 try
	shift
	port=$((port + 1))
	# the sanitizer runtime for an uninstrumented client on a
	# sanitized build (PROPEL_CLIENT_PRELOAD, tests/meson.build)
	LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" \
	LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/$name.server.ld" \
		timeout 120 "$pp" "${pp_args[@]}" -B "$port" "$@" \
		>"$tmp/$name.server" 2>&1 &
	srv_pid=$!
	# an rdma_cm listener shows in no socket table: the client tries
	# again while the server is not listening yet (the VM is slow)
	for try in $(seq 30); do
		sleep 0.5
		LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" \
		LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/$name.client.ld" \
			timeout 120 "$pp" "${pp_args[@]}" -P "$port" "$@" \
			"$addr" >"$tmp/$name.client" 2>&1
		rc_c=$?
		grep -q 'Connection refused\|ECONNREFUSED' "$tmp/$name.client" ||
			break
		kill -0 "$srv_pid" 2>/dev/null || break
	done
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
			tail -n 1)
		if [ -z "$loaded" ] ||
		   [ "$(realpath "$loaded")" != "$(realpath "$lib")" ]; then
			echo "FAIL: $name: $side loaded '$loaded', not $lib"
			fail=1
		fi
	done
	return $fail
}

start=$(date +%s)
run_pair all -I "${PINGPONG_ITERS:-20}" -S all -c || exit 1
# -S all stops at fi_getinfo's max_msg_size: over rxm, the sizes past
# its segmentation limit (16 KiB) need rendezvous, which the layering's
# core answer must allow (engine/registry/pl_layering.c, FI_MR_LOCAL)
sizes="1 64 1k 4k 64k 1m"
for sz in $sizes; do
	if ! grep -q "^$sz " "$tmp/all.client"; then
		echo "FAIL: the client printed no result for size $sz"
		cat "$tmp/all.client"
		exit 1
	fi
done
grep -v '^libfabric:' "$tmp/all.client"
if [ "$mode" = rxm_write ]; then
	if ! grep -q 'rendezvous by write' "$tmp/all.server" "$tmp/all.client"; then
		echo "FAIL: no 'rendezvous by write' line from rxm: FI_OFI_RXM_USE_RNDV_WRITE had no effect"
		exit 1
	fi
	echo "PASS: Debian fi_pingpong ${pp_args[*]} with write-based rendezvous ran on propel ($lib) in $(( $(date +%s) - start )) s"
	exit 0
fi
run_pair small -I "${PINGPONG_ITERS_SMALL:-20000}" -S 8 -c || exit 1
grep -q "^8 " "$tmp/small.client" || { cat "$tmp/small.client"; exit 1; }
cat "$tmp/small.client"
echo "PASS: Debian fi_pingpong ${pp_args[*]} ran on propel ($lib) in $(( $(date +%s) - start )) s"
