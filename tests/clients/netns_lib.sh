# SPDX-License-Identifier: BSD-2-Clause
# Two "hosts" for tests: Linux network namespaces joined by a veth pair,
# created here and removed on exit. Traffic of the tests that use them
# goes only to the namespaces' own addresses (10.77.N.1 and 10.77.N.2,
# which exist nowhere else) or to loopback.
#
#   netns_setup         sets NS_A NS_B ADDR_A ADDR_B, or returns 77 with
#                       a message when it cannot (not root, no ip(8))
#   netns_teardown      removes both namespaces (the veth pair goes with
#                       them); safe to call twice
#   in_ns NS CMD...     runs CMD inside namespace NS

netns_setup() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: network namespaces need root"
		return 77
	fi
	if ! command -v ip >/dev/null; then
		echo "SKIP: ip(8) is missing (Debian package iproute2)"
		return 77
	fi
	local tag=$$ net=$(( ($$ % 200) + 20 ))
	NS_A=pl_a_$tag
	NS_B=pl_b_$tag
	ADDR_A=10.77.$net.1
	ADDR_B=10.77.$net.2
	ip netns add "$NS_A" || return 1
	ip netns add "$NS_B" || { ip netns del "$NS_A"; return 1; }
	ip link add "pva$tag" type veth peer name "pvb$tag" &&
	ip link set "pva$tag" netns "$NS_A" &&
	ip link set "pvb$tag" netns "$NS_B" &&
	ip -n "$NS_A" addr add "$ADDR_A/24" dev "pva$tag" &&
	ip -n "$NS_B" addr add "$ADDR_B/24" dev "pvb$tag" &&
	ip -n "$NS_A" link set lo up && ip -n "$NS_B" link set lo up &&
	ip -n "$NS_A" link set "pva$tag" up &&
	ip -n "$NS_B" link set "pvb$tag" up || { netns_teardown; return 1; }
}

netns_teardown() {
	[ -n "${NS_A:-}" ] && ip netns del "$NS_A" 2>/dev/null
	[ -n "${NS_B:-}" ] && ip netns del "$NS_B" 2>/dev/null
	NS_A= NS_B=
	return 0
}

in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}
