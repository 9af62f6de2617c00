#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# rxe_wrap.sh CMD [ARGS...]: run CMD inside the rxe VM (a real verbs
# device: soft-RoCE, ../shared/tools/rxe-vm/README.md), from the build
# directory, with LD_LIBRARY_PATH naming propel's libfabric.so.1.
# Skips (exit 77, saying what is missing) where the VM cannot run: no
# rxe-run.sh, no QEMU, or rxe-run.sh --setup never ran. Anything else is
# the command's own status (125: the VM failed to boot, a failure).
# PROPEL_RXE_RUN overrides where rxe-run.sh is; RXEVM_DIR is rxe-run.sh's.
set -uo pipefail
src=${PROPEL_SRCDIR:?}
rxe_run=${PROPEL_RXE_RUN:-$src/../shared/tools/rxe-vm/rxe-run.sh}
vmdir=${RXEVM_DIR:-/var/cache/rxe-vm}
if [ ! -x "$rxe_run" ]; then
	echo "SKIP: $rxe_run is missing (the rxe VM runner; set PROPEL_RXE_RUN)"
	exit 77
fi
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "SKIP: qemu-system-x86_64 is missing (Debian package qemu-system-x86; then $rxe_run --setup)"
	exit 77
fi
if [ ! -f "$vmdir/initramfs.cpio" ] || ! ls "$vmdir"/vmlinu* >/dev/null 2>&1; then
	echo "SKIP: the rxe VM is not set up in $vmdir (run $rxe_run --setup as root)"
	exit 77
fi
if [ ! -e /usr/include/infiniband/verbs.h ] && ! ldconfig -p | grep -q libibverbs.so.1; then
	echo "SKIP: libibverbs is missing (Debian package libibverbs1)"
	exit 77
fi
cd "${PROPEL_BUILDDIR:?}" || exit 1
"$rxe_run" -t "${RXE_TIMEOUT:-300}" -- env LD_LIBRARY_PATH="$PROPEL_LIBDIR" "$@"
rc=$?
# a skip inside the VM (no device there) is not a pass either: pass it on
exit $rc
