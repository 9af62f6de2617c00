#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Installs the Debian 12 packages propel builds, tests and benchmarks with
# (DESIGN.md section 9). Idempotent: does nothing when all are present.
set -euo pipefail

pkgs=(
	build-essential meson ninja-build pkg-config python3 clang binutils
	liburcu-dev libnuma-dev libcmocka-dev
	libibverbs-dev librdmacm-dev rdma-core
	# the reference libfabric: ABI oracle, real clients, baseline
	libfabric1 libfabric-bin libfabric-dev
	openmpi-bin libopenmpi-dev
	gnuplot-nox procps
)

missing=()
for p in "${pkgs[@]}"; do
	[ "${p#\#}" = "$p" ] || continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "propel: missing packages: ${missing[*]}; run as root (or with sudo) to install them" >&2
	exit 1
fi
echo "propel: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
