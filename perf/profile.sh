#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Profiles any command with perf's software clock (this kernel has no
# hardware counters): perf record -g -e cpu-clock, then a flame-graph SVG
# (perf/flamegraph.py) and a top-N text report.
#
#   perf/profile.sh [-o DIR] [-F HZ] [-n TOP] [-c COMM] -- COMMAND [ARGS...]
#   perf/profile.sh [-o DIR] -p PID [-d SECONDS]      # attach to a process
#
# -G dwarf unwinds through code built without frame pointers (Debian's
# reference library, libc) at the price of much larger perf.data; propel
# keeps frame pointers (meson.build), so the default fp works for it.
# -c COMM keeps one thread name in the flame graph (fi_progress: the
# progress threads). Writes DIR/perf.data, perf.script, flame.svg, top.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=perf/results/profile freq=999 top=25 comm="" pid="" duration=10 graph=fp
while getopts "o:F:n:c:p:d:G:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	F) freq=$OPTARG ;;
	n) top=$OPTARG ;;
	c) comm=$OPTARG ;;
	p) pid=$OPTARG ;;
	d) duration=$OPTARG ;;
	G) graph=$OPTARG ;;
	*) sed -n '2,17p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ -z "$pid" ] && [ $# -eq 0 ]; then
	sed -n '2,17p' "$0" >&2
	exit 2
fi
command -v perf >/dev/null || { echo "profile: perf is missing (Debian package linux-perf)" >&2; exit 1; }
mkdir -p "$out"
data="$out/perf.data"
if [ -n "$pid" ]; then
	perf record -q --call-graph "$graph" -e cpu-clock -F "$freq" -o "$data" -p "$pid" -- sleep "$duration"
else
	# the command's own exit status is reported, the profile kept either way
	set +e
	perf record -q --call-graph "$graph" -e cpu-clock -F "$freq" -o "$data" -- "$@"
	rc=$?
	set -e
	[ $rc -eq 0 ] || echo "profile: the command exited $rc" >&2
fi
perf script -i "$data" >"$out/perf.script" 2>/dev/null
python3 "$here/flamegraph.py" ${comm:+--comm "$comm"} \
	--title "cpu-clock: ${*:-pid $pid}" <"$out/perf.script" >"$out/flame.svg"
perf report -i "$data" --stdio --no-children -g none --sort comm,dso,symbol \
	${comm:+--comms "$comm"} 2>/dev/null | grep -v '^$' | head -n $((top + 12)) >"$out/top.txt"
cat "$out/top.txt"
echo "profile: wrote $out/flame.svg, $out/top.txt, $out/perf.data"
