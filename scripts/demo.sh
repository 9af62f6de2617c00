#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# demo.sh BUILD_DIR: a ping-pong between two processes over propel's shm
# provider (Debian's fi_pingpong, run on propel through LD_LIBRARY_PATH),
# printing latency (usec/xfer: one-way, half the round trip) and
# bandwidth (MB/sec) for a few sizes, one size class each.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
lib="$build/lib"

echo "propel: $(realpath "$lib/libfabric.so.1")"
providers=$(LD_LIBRARY_PATH="$lib" fi_info -l 2>/dev/null | sed -n 's/^\([a-z_;]*\):$/\1/p' | sort -u | tr '\n' ' ')
echo "providers: ${providers:-none}"

if ! grep -qw shm <<<"$providers"; then
	echo "error: propel's fi_info -l lists no shm provider" >&2
	exit 1
fi

# fi_pingpong's client does not retry: wait until the server listens
# (read the socket table; a probe connection would be taken as the client)
wait_listen() {
	local hex
	hex=$(printf '%04X' "$1")
	for _ in $(seq 200); do
		awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' \
			/proc/net/tcp /proc/net/tcp6 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

rc=0
printf '%10s %12s %12s\n' bytes 'usec/xfer' 'MB/sec'
# size:iterations -- inline, bounce buffers, single copy
for spec in 1:20000 64:20000 4096:10000 65536:2000 1048576:300 4194304:100; do
	size=${spec%%:*}
	iters=${spec##*:}
	port=$((20000 + RANDOM % 20000))
	LD_LIBRARY_PATH="$lib" fi_pingpong -p shm -e rdm -I "$iters" -S "$size" \
		-B "$port" >/tmp/propel-demo-server.$$ 2>&1 &
	server=$!
	wait_listen "$port"
	out=$(LD_LIBRARY_PATH="$lib" fi_pingpong -p shm -e rdm -I "$iters" \
		-S "$size" -P "$port" localhost 2>&1)
	crc=$?
	wait "$server" || crc=1
	if [ $crc -ne 0 ]; then
		echo "fi_pingpong failed for $size bytes:"
		echo "$out"
		rc=1
		continue
	fi
	# columns: bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
	awk -v sz="$size" 'NR > 1 { printf "%10s %12s %12s\n", sz, $7, $6 }' <<<"$out"
done
rm -f /tmp/propel-demo-server.$$
exit $rc
