/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one wire structure of the verbs provider: the header in front of
 * the application's CM data in rdma_cm's private data (connect, accept,
 * reject). rdma_cm hands the receiver the whole private data area of the
 * transport (zero-padded past what the sender gave), so the length the
 * application sent travels here. Everything in it is foreign bytes
 * (DESIGN.md section 7a): vrb_cm_data_parse checks it before use.
 */
#ifndef PROPEL_VRB_CM_DATA_H
#define PROPEL_VRB_CM_DATA_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VRB_CM_DATA_VERSION	1
#define VRB_CM_DATA_MAGIC	0x7662	/* "vb" */

struct vrb_cm_hdr {
	uint16_t magic;		/* VRB_CM_DATA_MAGIC, host order: both ends
				 * are propel on one architecture family;
				 * a foreign peer fails the check */
	uint8_t version;	/* VRB_CM_DATA_VERSION */
	uint8_t len;		/* application bytes that follow */
};
static_assert(sizeof(struct vrb_cm_hdr) == 4, "wire layout");

/* The smallest private data rdma_cm carries over IB/RoCE is a reject's
 * (148 bytes); connect carries 56 on RC. The application may use what
 * is left of a connect's after the header (FI_OPT_CM_DATA_SIZE). */
#define VRB_CM_PRIV_MAX		56
#define VRB_CM_DATA_MAX		(VRB_CM_PRIV_MAX - sizeof(struct vrb_cm_hdr))

/* Build header + data into buf (VRB_CM_PRIV_MAX bytes); the length to
 * hand rdma_cm. len must be <= VRB_CM_DATA_MAX (checked by callers). */
static inline uint8_t vrb_cm_data_build(uint8_t *buf, const void *data,
					size_t len)
{
	struct vrb_cm_hdr h = { .magic = VRB_CM_DATA_MAGIC,
				.version = VRB_CM_DATA_VERSION,
				.len = (uint8_t)len };

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), data, len);
	return (uint8_t)(sizeof(h) + len);
}

/* Check what rdma_cm delivered: the application's bytes and their
 * length, or -1 for data that is not ours (too short, wrong magic or
 * version, a length past what arrived). No data at all is valid (a peer
 * that sent none, an event without private data): *len_p = 0. */
static inline int vrb_cm_data_parse(const void *priv, size_t priv_len,
				    const void **data_p, size_t *len_p)
{
	struct vrb_cm_hdr h;

	*data_p = NULL;
	*len_p = 0;
	if (!priv || !priv_len)
		return 0;
	if (priv_len < sizeof(h))
		return -1;
	memcpy(&h, priv, sizeof(h));
	if (h.magic != VRB_CM_DATA_MAGIC || h.version != VRB_CM_DATA_VERSION)
		return -1;
	if (h.len > VRB_CM_DATA_MAX || sizeof(h) + h.len > priv_len)
		return -1;
	*data_p = (const uint8_t *)priv + sizeof(h);
	*len_p = h.len;
	return 0;
}

#endif /* PROPEL_VRB_CM_DATA_H */
