#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Debian's Open MPI over propel's ofi_rxm on tcp (pml cm, mtl ofi) with
# ranks on two "hosts": network namespaces joined by a veth pair that this
# test creates (netns_lib.sh). mpi_check.c runs with 4 ranks, mapped by
# node so that ranks 0 and 2 are in the first namespace, 1 and 3 in the
# second, and every ping-pong pair (0-1, 2-3) crosses the veth pair;
# then mpi_osc.c (one-sided windows) on the same four ranks.
#
# mpirun runs in the first namespace; its rsh launcher reaches the second
# through an agent script written here (--mca plm_rsh_agent), which runs
# the daemon's command line under "ip netns exec". The hostfile names the
# two veth addresses. Only those addresses carry traffic: Open MPI's
# out-of-band channel and its TCP BTL are held to the veth subnet
# (oob_tcp_if_include, btl_tcp_if_include), and the OFI traffic to the
# veth interface (FI_TCP_IFACE; both ends get the same interface name).
#
# Proof of what ran, for each rank: a wrapper records the rank's network
# namespace, the loader's trace (LD_DEBUG=files) shows propel's
# libfabric.so.1 initialized, the OFI MTL's log (mtl_ofi_verbose, with
# --tag-output) names tcp;ofi_rxm, and rxm's log names the two peers it
# reached over shm (FI_OFI_RXM_USE_SHM, on by default): itself and the
# other rank of its namespace; the ranks of the other namespace went over
# tcp, and the veth pair's byte counters show that traffic.
#
# Skips (77) when not root, without ip(8), or without Open MPI.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns_lib.sh"
lib="$PROPEL_LIBDIR/libfabric.so.1"
np=4
for tool in mpicc mpirun; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool is missing (Debian packages openmpi-bin, libopenmpi-dev)"
		exit 77
	fi
done
if [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null &&
   ! ip netns list >/dev/null 2>&1; then
	echo "SKIP: 'ip netns' does not work here (iproute2 without netns support?)"
	exit 77
fi
netns_setup
rc=$?
[ $rc -ne 0 ] && exit $rc
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'netns_teardown; rm -rf "$tmp"' EXIT

for prog in mpi_check mpi_osc; do
	mpicc -O2 "$here/$prog.c" -o "$tmp/$prog" 2>>"$tmp/cc.log" || break
done
if [ ! -x "$tmp/mpi_check" ] || [ ! -x "$tmp/mpi_osc" ]; then
	echo "FAIL: mpicc could not build mpi_check.c and mpi_osc.c"
	cat "$tmp/cc.log"
	exit 1
fi

# one interface name on both hosts, so that one FI_TCP_IFACE fits both
ifname=plmpi0
for ns in "$NS_A" "$NS_B"; do
	dev=$(ip -n "$ns" -o link show type veth | awk -F': ' '{print $2}' |
	      sed 's/@.*//' | head -n 1)
	if [ -z "$dev" ] ||
	   ! ip -n "$ns" link set "$dev" down ||
	   ! ip -n "$ns" link set "$dev" name "$ifname" ||
	   ! ip -n "$ns" link set "$ifname" up; then
		echo "FAIL: could not name the veth end in $ns $ifname"
		exit 1
	fi
done
subnet=${ADDR_A%.*}.0/24

# the rsh agent: "agent [options] HOST COMMAND..." runs COMMAND in HOST's
# namespace, as ssh would run it on HOST
cat >"$tmp/netns-agent" <<EOF
#!/usr/bin/env bash
while [ \$# -gt 0 ]; do
	case "\$1" in
	-*) shift ;;
	*) break ;;
	esac
done
host=\${1:?host}
shift
case "\$host" in
$ADDR_A) ns=$NS_A ;;
$ADDR_B) ns=$NS_B ;;
*) echo "netns-agent: unknown host \$host" >&2; exit 255 ;;
esac
echo "\$host \$ns" >>"$tmp/agent.log"
exec ip netns exec "\$ns" /bin/sh -c "\$*"
EOF
chmod 755 "$tmp/netns-agent"

printf '%s slots=2\n%s slots=2\n' "$ADDR_A" "$ADDR_B" >"$tmp/hosts"

# each rank: note its namespace, then run mpi_check under the loader's
# trace (and, under the sanitizer build, with the runtime preloaded; the
# wrapper's shell gets neither)
cat >"$tmp/rank" <<EOF
#!/bin/sh
r=\$OMPI_COMM_WORLD_RANK
readlink /proc/self/ns/net >"$tmp/ns.\$r"
export LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld.\$r"
[ -n "\${PL_RANK_PRELOAD:-}" ] && export LD_PRELOAD="\$PL_RANK_PRELOAD"
exec "$tmp/\$PL_RANK_PROG"
EOF
chmod 755 "$tmp/rank"

san=()
if [ -n "${PROPEL_CLIENT_PRELOAD:-}" ]; then
	san=(-x PL_RANK_PRELOAD="$PROPEL_CLIENT_PRELOAD"
	     -x ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
	     -x UBSAN_OPTIONS="${UBSAN_OPTIONS:-}")
fi

# the watchdog (timeout) catches a hang; it does not time the run
run_job() {	# program, output file
	in_ns "$NS_A" timeout -k 10 300 mpirun --allow-run-as-root \
		--oversubscribe \
		-np "$np" --hostfile "$tmp/hosts" --map-by node --tag-output \
		--mca plm_rsh_agent "$tmp/netns-agent" \
		--mca plm_rsh_no_tree_spawn 1 \
		--mca oob_tcp_if_include "$subnet" \
		--mca btl_tcp_if_include "$subnet" \
		--mca pml cm --mca mtl ofi --mca osc pt2pt \
		--mca mtl_ofi_provider_include 'tcp;ofi_rxm' \
		--mca mtl_ofi_verbose 100 \
		-x LD_LIBRARY_PATH="$PROPEL_LIBDIR" -x FI_TCP_IFACE="$ifname" \
		-x FI_LOG_LEVEL=info -x FI_LOG_PROV=ofi_rxm \
		-x PL_RANK_PROG="$1" "${san[@]}" "$tmp/rank" >"$2" 2>&1
}
run_job mpi_check "$tmp/out"
rc=$?
fail=0
if [ $rc -ne 0 ] || ! grep -q "mpi_check: OK $np$" "$tmp/out"; then
	echo "FAIL: mpirun exited $rc"
	tail -40 "$tmp/out"
	exit 1
fi
if ! grep -q "^$ADDR_B $NS_B$" "$tmp/agent.log" 2>/dev/null; then
	echo "FAIL: mpirun never used the agent to reach $ADDR_B"
	fail=1
fi
ns_a=$(in_ns "$NS_A" readlink /proc/self/ns/net)
ns_b=$(in_ns "$NS_B" readlink /proc/self/ns/net)
in_a=0 in_b=0
for ((r = 0; r < np; r++)); do
	ns=$(cat "$tmp/ns.$r" 2>/dev/null)
	want=$([ $((r % 2)) -eq 0 ] && echo "$ns_a" || echo "$ns_b")
	if [ "$ns" != "$want" ]; then
		echo "FAIL: rank $r ran in '$ns', not $want"
		fail=1
	fi
	[ "$ns" = "$ns_a" ] && in_a=$((in_a + 1))
	[ "$ns" = "$ns_b" ] && in_b=$((in_b + 1))
	loaded=$(cat "$tmp/ld.$r".* 2>/dev/null |
		sed -n 's/.*calling init: \(.*\/libfabric\.so\.1\)$/\1/p' |
		head -n 1)
	if [ -z "$loaded" ] ||
	   [ "$(realpath "$loaded")" != "$(realpath "$lib")" ]; then
		echo "FAIL: rank $r loaded '$loaded', not $lib"
		fail=1
	fi
	if ! grep -E "^\[[0-9]+,$r\]<[a-z]+>:.*mtl:ofi:prov: tcp;ofi_rxm$" \
		"$tmp/out" >/dev/null; then
		echo "FAIL: rank $r: the OFI MTL never named tcp;ofi_rxm"
		fail=1
	fi
	# rxm's log, once per peer it reaches over shm: the rank itself and
	# the other rank of its namespace, no more (the two of the other
	# namespace are not node-local: tcp, over the veth pair below)
	shm=$(grep -E "^\[[0-9]+,$r\]<stderr>:.*peer reached over shm" \
		"$tmp/out" | sed 's/.*its shm address //' | sort -u | wc -l)
	if [ "$shm" -ne 2 ]; then
		echo "FAIL: rank $r reached $shm peers over shm, not 2 (itself and its namespace's other rank)"
		fail=1
	fi
done
# the namespaces meet only at the veth pair: the two ping-pongs (4 MiB
# and 1 MiB each way among their sizes) must have crossed it
for ns in "$NS_A" "$NS_B"; do
	rx=$(in_ns "$ns" cat /sys/class/net/$ifname/statistics/rx_bytes)
	if [ "${rx:-0}" -lt $((2 * (5 << 20))) ]; then
		echo "FAIL: only ${rx:-0} bytes arrived on $ifname in $ns"
		fail=1
	fi
	echo "$ns: $rx bytes received on $ifname"
done
grep "mpi_check" "$tmp/out"
# one-sided windows (mpi_osc.c: Open MPI's osc pt2pt over pml cm) with
# the same mixed paths: each rank's near peer over shm, far ones over tcp
run_job mpi_osc "$tmp/out.osc"
rc=$?
if [ $rc -ne 0 ] || ! grep -q "mpi_osc: OK $np$" "$tmp/out.osc"; then
	echo "FAIL: mpi_osc: mpirun exited $rc"
	tail -40 "$tmp/out.osc"
	fail=1
else
	grep "mpi_osc" "$tmp/out.osc"
fi
echo "ranks: $in_a in $NS_A ($ADDR_A), $in_b in $NS_B ($ADDR_B)"
[ $fail -eq 0 ] && echo "PASS: Open MPI (pml cm, mtl ofi) ran over propel's tcp;ofi_rxm on two namespace hosts, each namespace's pair over shm"
exit $fail
