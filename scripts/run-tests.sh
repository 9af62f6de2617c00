#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The whole test suite, as CI runs it (.ci/run calls ./quickstart.sh test):
#   build/       release: every suite (abi, unit, integration, clients, stress,
#                rxe: the verbs provider inside the rxe VM)
#   build-asan/  AddressSanitizer + UBSan: unit, integration, clients
#   build-tsan/  ThreadSanitizer: the concurrency tests (suites stress and
#                concurrency), with the reviewed liburcu suppressions
# Prints one closing line "tests: N passed, N failed, N skipped" and exits
# non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=$(nproc)
status=0
logs=()

build() {
	local dir=$1; shift
	echo "== building $dir $*"
	if ! scripts/build.sh "$dir" "$@"; then
		echo "BUILD FAILED: $dir"
		ninja -C "$dir" 2>&1 | tail -40
		status=1
		return 1
	fi
}

# run_suites DIR LOGNAME SUITE... : runs the named suites that exist in DIR.
run_suites() {
	local dir=$1 name=$2; shift 2
	local have args=() s
	have=$(meson test -C "$dir" --list 2>/dev/null | sed -n 's/^[^:]*:\([^ ]*\) \/ .*/\1/p' | tr '+' '\n' | sort -u)
	for s in "$@"; do
		grep -qx "$s" <<<"$have" && args+=(--suite "$s")
	done
	if [ ${#args[@]} -eq 0 ]; then
		echo "== $dir: no tests in suites $* yet"
		return 0
	fi
	echo "== $dir: suites $*"
	meson test -C "$dir" --num-processes "$jobs" --print-errorlogs \
		--logbase "$name" "${args[@]}" || status=1
	logs+=("$dir/meson-logs/$name.json")
}

tsan_supp="$root/tests/tsan.supp"

# The verbs provider's suite runs inside the rxe VM (a real soft-RoCE
# device, ../shared/tools/rxe-vm/README.md): set it up once here when the
# runner is beside the checkout (about 20-70 s, root); without it the
# suite's tests skip and say why.
rxe_run="$root/../shared/tools/rxe-vm/rxe-run.sh"
if [ -x "$rxe_run" ] && [ ! -f "${RXEVM_DIR:-/var/cache/rxe-vm}/initramfs.cpio" ]; then
	echo "== setting up the rxe VM ($rxe_run --setup)"
	"$rxe_run" --setup >/tmp/propel-rxe-setup.log 2>&1 ||
		{ echo "rxe VM setup failed (its tests will skip):"; tail -5 /tmp/propel-rxe-setup.log; }
fi

if build build; then
	run_suites build release abi unit integration clients stress rxe
fi

if build build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		run_suites build-asan asan unit integration
	# Clients are uninstrumented Debian binaries (libasan is preloaded for
	# them); their own leaks are not ours to report.
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		run_suites build-asan asan-clients clients
fi

if build build-tsan -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debugoptimized; then
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$tsan_supp" \
		run_suites build-tsan tsan stress concurrency
fi

/usr/bin/python3 - "${logs[@]}" <<'PY' || status=1
import json, sys
passed = failed = skipped = 0
failures = []
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        t = json.loads(line)
        r = t.get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
            failures.append((path, t))
# The failures again, last, where a reader of only the end of the log
# (a CI summary) sees them: which log, which test, how it ended, and the
# end of what it printed.
for path, t in failures:
    print(f"== FAILED in {path}: {t.get('name')} ({t.get('result')}, "
          f"rc {t.get('returncode')}, {t.get('duration', 0):.2f} s)")
    out = (t.get("stdout") or "") + (t.get("stderr") or "")
    for l in out.splitlines()[-25:]:
        print("   | " + l)
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
PY
exit $status
