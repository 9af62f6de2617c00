#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Debian's own fi_pingpong (libfabric-bin, unmodified) over propel's shm
# provider: server and client both load propel through LD_LIBRARY_PATH,
# run every size (-S all) with data checks (-c), and must both succeed.
# The loader's trace (LD_DEBUG=files) proves which libfabric.so.1 each
# side initialized.
set -uo pipefail
pp=/usr/bin/fi_pingpong
if [ ! -x "$pp" ]; then
	echo "SKIP: $pp is missing (Debian package libfabric-bin)"
	exit 77
fi
lib="$PROPEL_LIBDIR/libfabric.so.1"
iters=${PINGPONG_ITERS:-200}

tmp=$(mktemp -d)
trap 'kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# A free TCP port for fi_pingpong's out-of-band address exchange.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

run() {	# $1: out file, rest: fi_pingpong arguments
	local out=$1
	shift
	LD_PRELOAD="${PROPEL_CLIENT_PRELOAD:-}" LD_LIBRARY_PATH="$PROPEL_LIBDIR" \
		LD_DEBUG=files LD_DEBUG_OUTPUT="$out.ld" \
		timeout 240 "$pp" -p shm -e rdm -I "$iters" -S all -c "$@" \
		>"$out" 2>&1
}

run "$tmp/server" -B "$port" &
srv_pid=$!
# fi_pingpong's client does not retry its connect: start it once the
# server listens. Watch the socket table, never connect to probe (the
# server would take the probe for its client).
hexport=$(printf '%04X' "$port")
for _ in $(seq 200); do
	if awk -v p=":$hexport" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null; then
		break
	fi
	sleep 0.05
done
run "$tmp/client" -P "$port" localhost
cli_rc=$?
wait "$srv_pid"
srv_rc=$?

fail=0
for side in server client; do
	rc=$([ $side = server ] && echo $srv_rc || echo $cli_rc)
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: fi_pingpong $side exited $rc"
		cat "$tmp/$side"
		fail=1
	fi
	loaded=$(cat "$tmp/$side.ld".* 2>/dev/null |
		sed -n 's/.*calling init: \(.*\/libfabric\.so\.1\)$/\1/p' | head -n 1)
	if [ -z "$loaded" ] || [ "$(realpath "$loaded")" != "$(realpath "$lib")" ]; then
		echo "FAIL: fi_pingpong $side loaded '$loaded', not propel's $lib"
		fail=1
	fi
done
[ $fail -ne 0 ] && exit 1

# sizes of every protocol class of -S all (which ends at 6m), each
# printed with its figures
for sz in 1 64 1k 4k 64k 1m 4m 6m; do
	if ! grep -q "^$sz " "$tmp/client"; then
		echo "FAIL: the client printed no result for size $sz"
		cat "$tmp/client"
		exit 1
	fi
done
cat "$tmp/client"
echo "PASS: Debian fi_pingpong -p shm -S all -c ran on propel (both sides)"
