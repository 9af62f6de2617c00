#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Build the fuzz targets of the parsers of foreign bytes (tcp wire
# headers, shm region headers and commands, rxm connection data and
# message headers) with clang's libFuzzer (plus ASan and UBSan) and run
# each for SECONDS (default 60), starting from the
# committed seed corpus. New inputs go to a scratch corpus, never into
# the committed one; a crash leaves its input under OUT/artifacts/ and
# makes the script exit 1.
#
#   tests/fuzz/run_fuzz.sh [SECONDS] [OUT]       # CI: 30 s per target
#   tests/fuzz/run_fuzz.sh 3600 /tmp/fuzz-long   # a long run, an hour each
#
# Replay a crash (or the corpus) without libFuzzer: build/tests/fuzz/
# fuzz_replay_<target> FILE_OR_DIR... (meson test fuzz_<target>_replay
# replays the seeds). Targets: tcp_hdr (tcp_proto_check_hdr), tcp_cm
# (tcp_proto_check_cm), shm_hdr (shm_layout_check), shm_cmd
# (shm_cmd_check), rxm_cm (rxm_cm_parse), rxm_hdr (rxm_proto_check and
# rxm_rndv_check), vrb_cm (vrb_cm_data_parse). TARGETS="shm_hdr shm_cmd"
# runs a subset.
set -euo pipefail

secs=${1:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$(mktemp -d /tmp/propel-fuzz.XXXXXX)}
cc=${CLANG:-clang}
read -r -a targets <<< "${TARGETS:-tcp_hdr tcp_cm shm_hdr shm_cmd rxm_cm rxm_hdr vrb_cm}"
mkdir -p "$out/artifacts"

if ! command -v "$cc" >/dev/null; then
	echo "run_fuzz.sh: $cc not found (set CLANG=...)" >&2
	exit 77
fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	"$cc" -x c -fsanitize=fuzzer - -o "$out/probe" 2>/dev/null; then
	echo "run_fuzz.sh: $cc cannot link -fsanitize=fuzzer" >&2
	exit 77
fi

status=0
for t in "${targets[@]}"; do
	case $t in
	tcp_*)	extra=(-I "$src/prov/tcp" "$src/prov/tcp/tcp_proto.c") ;;
	shm_*)	extra=(-I "$src/base/include" -I "$src/prov/shm"
		       -I "$src/prov/shm/transport"
		       "$src/prov/shm/transport/shm_layout.c") ;;
	rxm_cm)	extra=(-I "$src/prov/rxm" "$src/prov/rxm/rxm_cm_proto.c") ;;
	rxm_hdr) extra=(-I "$src/prov/rxm" "$src/prov/rxm/rxm_proto.c") ;;
	vrb_cm)	extra=(-I "$src/prov/verbs") ;;
	esac
	"$cc" -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -D_GNU_SOURCE \
		-I "$src/include" "${extra[@]}" \
		"$src/tests/fuzz/fuzz_$t.c" -o "$out/fuzz_$t"
	mkdir -p "$out/corpus/$t"
	echo "== fuzz_$t: $secs s"
	if ! "$out/fuzz_$t" -max_total_time="$secs" -error_exitcode=1 \
		-print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" \
		"$out/corpus/$t" "$src/tests/fuzz/corpus/$t" \
		2>"$out/fuzz_$t.log"; then
		echo "fuzz_$t FAILED: see $out/fuzz_$t.log and $out/artifacts/"
		tail -30 "$out/fuzz_$t.log"
		status=1
	else
		grep -E '^stat::(number_of_executed_units|new_units_added)' \
			"$out/fuzz_$t.log" || true
		tail -1 "$out/fuzz_$t.log"
	fi
done
exit $status
