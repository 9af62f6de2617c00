/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_TCP_* variables (fi_info -e, docs/params.md). Read once; the values
 * are immutable afterwards, so any thread reads them without a lock.
 */
#ifndef PROPEL_TCP_PARAMS_H
#define PROPEL_TCP_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#define TCP_TX_SIZE_DEFAULT	256
#define TCP_RX_SIZE_DEFAULT	256
#define TCP_MAX_INJECT_DEFAULT	128
#define TCP_STAGING_DEFAULT	65536
#define TCP_MAX_UNEXPECTED_DEFAULT (1u << 20)

struct tcp_params {
	const char *iface;	/* FI_TCP_IFACE, NULL: every interface */
	int port_low, port_high; /* FI_TCP_PORT_LOW/HIGH_RANGE, 0: any */
	size_t tx_size, rx_size;
	size_t max_inject;
	bool nodelay;
	size_t staging_size;	/* FI_TCP_STAGING_SIZE */
	int conn_timeout_ms;	/* FI_TCP_CONN_TIMEOUT */
	size_t max_unexpected;	/* FI_TCP_MAX_UNEXPECTED */
	bool tx_coalesce;	/* FI_TCP_TX_COALESCE */
};

void tcp_params_define(void);
const struct tcp_params *tcp_params_get(void);

#endif
