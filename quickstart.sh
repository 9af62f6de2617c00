#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The two commands of the README's quick start, on a fresh Debian 12
# machine as root:
#   ./quickstart.sh demo   install what is needed, build, run the shm ping-pong
#   ./quickstart.sh test   install what is needed, build, run the whole suite
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
demo)
	scripts/install-deps.sh
	scripts/build.sh build
	exec scripts/demo.sh build
	;;
test)
	scripts/install-deps.sh
	exec scripts/run-tests.sh
	;;
*)
	echo "usage: $0 demo|test" >&2
	exit 2
	;;
esac
