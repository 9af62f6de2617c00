#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# cg_pingpong.sh LIBDIR [OUTDIR]: instructions per message on the verbs
# send, receive and completion paths, propel (LIBDIR) against the
# reference (Debian's libfabric), measured with callgrind inside the rxe
# VM (QEMU's software CPU: times mean nothing there, instruction counts
# do). Run it through the VM, from a directory the VM may write:
#   ../shared/tools/rxe-vm/rxe-run.sh -t 600 -- perf/verbs/cg_pingpong.sh build/lib out
# Debian's fi_pingpong -p verbs -e msg -S 8 (fi_inject, fi_recv,
# fi_cq_read) runs natively as the server and under callgrind as the
# client, twice per library (1000 and 3000 iterations): the client spins
# in fi_cq_read for a number of empty polls that depends on timing, and
# two runs with different spin counts separate the cost of a read that
# finds a completion from that of an empty one (cg_paths.py).
set -euo pipefail
lib=$(cd "$1" && pwd)
out=${2:-cg-out}
here=$(cd "$(dirname "$0")" && pwd)
command -v valgrind >/dev/null || { echo "valgrind is missing (apt-get install valgrind)"; exit 77; }
mkdir -p "$out"
cd "$out"
port=47700
for which in ref propel; do
	for n in 1000 3000; do
		port=$((port + 1))
		env=()
		[ "$which" = propel ] && env=(LD_LIBRARY_PATH="$lib")
		env "${env[@]}" fi_pingpong -p verbs -e msg -I "$n" -S 8 \
			-B "$port" >"srv_${which}_$n.txt" 2>&1 &
		sp=$!
		sleep 2	# the server listens before the client connects
		# --vgdb=no: the VM's shared file systems refuse vgdb's FIFOs
		env "${env[@]}" valgrind --vgdb=no --tool=callgrind \
			--callgrind-out-file="cg_${which}_$n.out" \
			fi_pingpong -p verbs -e msg -I "$n" -S 8 -P "$port" \
			10.0.2.15 >"cli_${which}_$n.txt" 2>&1
		wait "$sp"
	done
done
python3 "$here/cg_paths.py" cg_ref_1000.out cg_ref_3000.out \
	cg_propel_1000.out cg_propel_3000.out
