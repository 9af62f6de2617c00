/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_VERBS_* variables (fi_info -e, docs/params.md), with the reference's
 * names and meanings where the knob is the same. Read once; immutable
 * afterwards, so any thread reads them without a lock.
 */
#ifndef PROPEL_VRB_PARAMS_H
#define PROPEL_VRB_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#define VRB_TX_SIZE_DEFAULT	384
#define VRB_RX_SIZE_DEFAULT	384
#define VRB_IOV_LIMIT_DEFAULT	4
#define VRB_INLINE_SIZE_DEFAULT	64
#define VRB_MIN_RNR_TIMER_DEFAULT 12
#define VRB_BUNCH_DEFAULT	8

struct vrb_params {
	const char *iface;	/* FI_VERBS_IFACE, NULL: every interface */
	const char *device;	/* FI_VERBS_DEVICE_NAME, NULL: every device */
	int gid_idx;		/* FI_VERBS_GID_IDX, -1: chosen per port */
	size_t tx_size, rx_size;
	size_t tx_iov_limit, rx_iov_limit;
	size_t inline_size;
	int min_rnr_timer;
	unsigned bunch;		/* FI_VERBS_CQREAD_BUNCH_SIZE */
	bool use_odp;		/* FI_VERBS_USE_ODP */
};

void vrb_params_define(void);
const struct vrb_params *vrb_params_get(void);

#endif
