#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# Writes the seed corpus of the rxm fuzz targets (prov/rxm/rxm_cm_proto.h,
# rxm_proto.h): valid CM data of every kind and address family, and valid
# data headers of every op, each with one variant just past a rule, under
# DIR/rxm_cm and DIR/rxm_hdr. The files are committed; rerun after a change
# to either header:  python3 tests/fuzz/gen_corpus_rxm.py tests/fuzz/corpus
import os
import struct
import sys

root = sys.argv[1]


def put(d, name, data):
    os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, d, name), "wb") as f:
        f.write(data)


def waddr(family, port, ip, scope=0):
    return struct.pack("<BBHI16s", family, 0, port, scope, ip)


def cm(kind, reason, inc, addr):
    return struct.pack("<IBBBBQ", 0x314D5852, 1, kind, reason, 0, inc) + addr


v4 = waddr(4, 0x1F90, bytes([127, 0, 0, 1]) + bytes(12))
v6 = waddr(6, 0x2000, bytes(15) + b"\x01", 3)
put("rxm_cm", "req_v4", cm(1, 0, 0x1122334455667788, v4))
put("rxm_cm", "accept_v6", cm(2, 0, 7, v6))
put("rxm_cm", "reject_race", cm(3, 1, 9, v4))
put("rxm_cm", "reject_bad_reason", cm(3, 4, 9, v4))
put("rxm_cm", "short", cm(1, 0, 1, v4)[:39])
put("rxm_cm", "other_version", cm(1, 0, 1, v4)[:4] + b"\x02" +
    cm(1, 0, 1, v4)[5:])


def hdr(op, flags, seg, size, tag=0, data=0, msg_id=0):
    return struct.pack("<BBHIQQQQ", 5, op, flags, seg, size, tag, data,
                       msg_id)


BUF = 4096
PER = BUF - 40
put("rxm_hdr", "eager", hdr(1, 3, 0, 5, 0xAB, 0xCD) + b"hello")
put("rxm_hdr", "eager_empty", hdr(1, 0, 0, 0))
put("rxm_hdr", "eager_short", hdr(1, 0, 0, 6) + b"hello")
put("rxm_hdr", "sar_first", hdr(2, 1, 0, 2 * PER + 9, msg_id=4) +
    bytes(PER))
put("rxm_hdr", "sar_last", hdr(2, 1, 2, 2 * PER + 9, msg_id=4) + bytes(9))
put("rxm_hdr", "sar_past", hdr(2, 1, 3, 2 * PER + 9, msg_id=4) + bytes(9))
req = struct.pack("<II", 2, 0) + struct.pack("<QQQ", 0x1000, 100, 5) + \
    struct.pack("<QQQ", 0x9000, 200, 5)
put("rxm_hdr", "rndv_req", hdr(3, 1, 0, 300, msg_id=8) + req)
put("rxm_hdr", "rndv_req_sum", hdr(3, 1, 0, 301, msg_id=8) + req)
put("rxm_hdr", "rndv_done", hdr(4, 0, 0, 300, msg_id=8))

# RMA and atomics (protocol version 2 on)
rh = struct.pack("<QQ", 0x7000, 42)
put("rxm_hdr", "write", hdr(5, 4 | 2, 0, 16, tag=16, data=5, msg_id=9) + rh +
    bytes(16))
put("rxm_hdr", "write_chunk_past", hdr(5, 0, 1, 17, tag=16, msg_id=9) + rh +
    bytes(17))
put("rxm_hdr", "read_req", hdr(6, 0, 0, 1 << 20, msg_id=10) + rh)
put("rxm_hdr", "read_resp", hdr(7, 0, 0, 8, tag=4096, msg_id=10) + bytes(8))
amo = struct.pack("<BBBBI", 1, 9, 1, 0, 1) + struct.pack("<Q", 5)
put("rxm_hdr", "atomic", hdr(8, 0, 0, len(amo), msg_id=11) + rh + amo)
put("rxm_hdr", "ack", hdr(9, 0, 0, 8, msg_id=11) + bytes(8))
put("rxm_hdr", "ack_err", hdr(9, 0, 13, 0, msg_id=12))
put("rxm_hdr", "ack_bad_errno", hdr(9, 0, 5000, 0, msg_id=12))

# write-based rendezvous (protocol version 3)
put("rxm_hdr", "rndv_req_write", hdr(3, 8 | 1, 0, 1 << 20, msg_id=13))
put("rxm_hdr", "rndv_req_write_payload", hdr(3, 8, 0, 300, msg_id=13) + req)
put("rxm_hdr", "rndv_cts", hdr(10, 0, 0, 300, msg_id=13) + req)
put("rxm_hdr", "rndv_cts_empty", hdr(10, 0, 0, 0, msg_id=13) + req)
put("rxm_hdr", "rndv_fin", hdr(11, 0, 0, 300, msg_id=13))
put("rxm_hdr", "rndv_fin_err", hdr(11, 0, 5000, 0, msg_id=13))

# RMA moved by the core (protocol version 4): the initiator's buffers
# after the rma header
put("rxm_hdr", "write_core", hdr(5, 16 | 4 | 2, 0, 300, tag=300, data=7,
                                  msg_id=14) + rh + req)
put("rxm_hdr", "write_core_not_last", hdr(5, 16, 0, 300, tag=300,
                                           msg_id=14) + rh + req)
put("rxm_hdr", "write_core_sum", hdr(5, 16 | 4, 0, 301, tag=301,
                                      msg_id=14) + rh + req)
put("rxm_hdr", "read_req_core", hdr(6, 16, 0, 300, msg_id=15) + rh + req)
put("rxm_hdr", "read_req_core_short", hdr(6, 16, 0, 300, msg_id=15) + rh +
    req[:4])

# a receive context of a scalable endpoint (protocol version 5): on
# messages, and where it does not belong
put("rxm_hdr", "eager_rx_ctx", hdr(1, 1 | (3 << 8), 0, 5, 0xAB) + b"hello")
put("rxm_hdr", "rndv_done_rx_ctx", hdr(4, 3 << 8, 0, 300, msg_id=8))
