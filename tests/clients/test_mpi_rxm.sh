#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Debian's Open MPI over propel's ofi_rxm on tcp, on its main path (pml cm,
# mtl ofi): mpi_check.c built with Debian's mpicc, run with 2 and 4 ranks
# on this host, node-local peers over shm (FI_OFI_RXM_USE_SHM, the
# default), then 4 ranks with it off (all over tcp); then mpi_osc.c
# (one-sided: put, get, accumulate, fetch-and-op, compare-and-swap) with
# 4 ranks both ways. Open MPI 4.1 carries windows over pml cm through
# osc pt2pt (named below): its osc sm crashes inside btl vader in
# Debian's build on the reference as well, and osc rdma finds no btl
# (btl ofi makes no module on either library). Proof of what ran:
# the OFI MTL's own log names the provider (mtl_ofi_verbose), the
# loader's trace (LD_DEBUG=files) of every rank shows propel's
# libfabric.so.1 initialized, and rxm's log (FI_LOG_LEVEL=info) says,
# from every rank's process, that it reached its peers over shm (or,
# with it off, from none).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib="$PROPEL_LIBDIR/libfabric.so.1"
for tool in mpicc mpirun; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool is missing (Debian packages openmpi-bin, libopenmpi-dev)"
		exit 77
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for prog in mpi_check mpi_osc; do
	if ! mpicc -O2 "$here/$prog.c" -o "$tmp/$prog" 2>"$tmp/cc.log"; then
		echo "FAIL: mpicc could not build $prog.c"
		cat "$tmp/cc.log"
		exit 1
	fi
done
# under the sanitizer build the ranks (uninstrumented Debian binaries)
# get the runtime preloaded, as every client test does, and its options
san=()
if [ -n "${PROPEL_CLIENT_PRELOAD:-}" ]; then
	san=(-x LD_PRELOAD="$PROPEL_CLIENT_PRELOAD"
	     -x ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
	     -x UBSAN_OPTIONS="${UBSAN_OPTIONS:-}")
fi
fail=0
# node-local peers over shm (rxm's default), then all over tcp
for run in mpi_check:2:1 mpi_check:4:1 mpi_check:4:0 mpi_osc:4:1 mpi_osc:4:0; do
	IFS=: read -r prog np use_shm <<<"$run"
	what="$prog, $np ranks, FI_OFI_RXM_USE_SHM=$use_shm"
	out="$tmp/out.$prog.$np.$use_shm"
	rm -f "$tmp"/ld.*
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$np" \
		--mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include 'tcp;ofi_rxm' \
		--mca mtl_ofi_verbose 100 --mca osc pt2pt \
		-x LD_LIBRARY_PATH="$PROPEL_LIBDIR" -x LD_DEBUG=files \
		-x LD_DEBUG_OUTPUT="$tmp/ld" "${san[@]}" \
		-x FI_OFI_RXM_USE_SHM="$use_shm" \
		-x FI_LOG_LEVEL=info -x FI_LOG_PROV=ofi_rxm \
		"$tmp/$prog" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "^$prog: OK $np$" "$out"; then
		echo "FAIL: $what: mpirun exited $rc"
		grep -v "LD_DEBUG" "$out" | tail -30
		fail=1
		continue
	fi
	if ! grep -q "tcp;ofi_rxm" "$out"; then
		echo "FAIL: $what: the OFI MTL never named tcp;ofi_rxm"
		fail=1
	fi
	# every rank's loader trace: propel's library initialized
	ranks=0
	for f in "$tmp"/ld.*; do
		loaded=$(sed -n 's/.*calling init: \(.*\/libfabric\.so\.1\)$/\1/p' "$f" | head -n 1)
		[ -z "$loaded" ] && continue	# mpirun, orted: no libfabric
		ranks=$((ranks + 1))
		if [ "$(realpath "$loaded")" != "$(realpath "$lib")" ]; then
			echo "FAIL: $what: a process loaded $loaded, not $lib"
			fail=1
		fi
	done
	if [ "$ranks" -lt "$np" ]; then
		echo "FAIL: $what: only $ranks processes loaded libfabric"
		fail=1
	fi
	# rxm's log line, once per peer an endpoint reaches over shm, with
	# the process id: every rank reached its peers over shm, or none did
	shm_ranks=$(grep "peer reached over shm" "$out" | cut -d: -f2 |
		    sort -u | wc -l)
	want=$([ "$use_shm" = 1 ] && echo "$np" || echo 0)
	if [ "$shm_ranks" -ne "$want" ]; then
		echo "FAIL: $what: $shm_ranks ranks reached peers over shm, not $want"
		fail=1
	fi
	echo "$what: $shm_ranks ranks reached their peers over shm"
	grep "^$prog" "$out"
done
[ $fail -eq 0 ] && echo "PASS: Open MPI (pml cm, mtl ofi) ran over propel's tcp;ofi_rxm"
exit $fail
