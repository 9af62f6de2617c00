/* SPDX-License-Identifier: BSD-2-Clause */
/* The FI_TCP_* table (tcp_params.h); help texts are what fi_info -e shows. */
#include <pthread.h>
#include <stdint.h>

#include "pl_compiler.h"
#include "pl_param.h"
#include "tcp_params.h"
#include "tcp_prov.h"

#define TCP_STR_(x) #x
#define TCP_STR(x) TCP_STR_(x)

static const struct pl_param_def tcp_param_table[] = {
	{ "iface", FI_PARAM_STRING, NULL,
	  "Specify interface name (fi_getinfo answers only for it)" },
	{ "port_low_range", FI_PARAM_INT, "0",
	  "define port low range (active endpoints bind their source port "
	  "in [low, high]; 0: any port the kernel picks)" },
	{ "port_high_range", FI_PARAM_INT, "0",
	  "define port high range (see port_low_range)" },
	{ "tx_size", FI_PARAM_SIZE_T, TCP_STR(TCP_TX_SIZE_DEFAULT),
	  "define default tx context size: operations an endpoint may have "
	  "outstanding before posting answers -FI_EAGAIN" },
	{ "rx_size", FI_PARAM_SIZE_T, TCP_STR(TCP_RX_SIZE_DEFAULT),
	  "define default rx context size: receives an endpoint may have "
	  "posted" },
	{ "max_inject", FI_PARAM_SIZE_T, TCP_STR(TCP_MAX_INJECT_DEFAULT),
	  "maximum size of an inject (the bytes are copied at the call)" },
	{ "nodelay", FI_PARAM_BOOL, "true",
	  "overrides default TCP_NODELAY socket setting (on: small messages "
	  "leave at once instead of waiting for Nagle's algorithm)" },
	{ "staging_size", FI_PARAM_SIZE_T, TCP_STR(TCP_STAGING_DEFAULT),
	  "bytes of the per-endpoint receive staging buffer: small messages "
	  "are read many at a time into it; larger payloads go straight "
	  "into the posted buffer" },
	{ "max_unexpected", FI_PARAM_SIZE_T,
	  TCP_STR(TCP_MAX_UNEXPECTED_DEFAULT),
	  "bytes of tagged messages an endpoint holds while no receive "
	  "matches them (they arrived before their fi_trecv); past it, "
	  "the connection waits for receives (flow control)" },
	{ "tx_coalesce", FI_PARAM_BOOL, "true",
	  "with manual data progress, small sends posted between two "
	  "progress calls leave together in one system call at the next "
	  "call (the first of them leaves at once); off: every send is "
	  "written at once" },
	{ "conn_timeout", FI_PARAM_INT, "10000",
	  "milliseconds a connecting peer may take to send its connection "
	  "request before the passive side drops it" },
};

static pthread_once_t tcp_params_define_once = PTHREAD_ONCE_INIT;
static pthread_once_t tcp_params_read_once = PTHREAD_ONCE_INIT;
static struct tcp_params tcp_params_cur;

static void tcp_params_define_cb(void)
{
	(void)pl_param_table_define(&tcp_prov, tcp_param_table,
				    PL_ARRAY_SIZE(tcp_param_table));
}

void tcp_params_define(void)
{
	pthread_once(&tcp_params_define_once, tcp_params_define_cb);
}

static void tcp_params_read(void)
{
	struct tcp_params *p = &tcp_params_cur;
	const char *s;

	tcp_params_define();
	s = pl_param_get_str(&tcp_prov, "iface", NULL);
	p->iface = (s && *s) ? s : NULL;
	p->port_low = pl_param_get_int(&tcp_prov, "port_low_range", 0, 0,
				       65535);
	p->port_high = pl_param_get_int(&tcp_prov, "port_high_range", 0, 0,
					65535);
	if (p->port_high < p->port_low)
		p->port_low = p->port_high = 0;
	p->tx_size = pl_param_get_size(&tcp_prov, "tx_size",
				       TCP_TX_SIZE_DEFAULT, 1, 1u << 16);
	p->rx_size = pl_param_get_size(&tcp_prov, "rx_size",
				       TCP_RX_SIZE_DEFAULT, 1, 1u << 16);
	p->max_inject = pl_param_get_size(&tcp_prov, "max_inject",
					  TCP_MAX_INJECT_DEFAULT, 0, 65536);
	p->nodelay = pl_param_get_bool(&tcp_prov, "nodelay", true);
	p->staging_size = pl_param_get_size(&tcp_prov, "staging_size",
					    TCP_STAGING_DEFAULT, 256,
					    16u << 20);
	p->max_unexpected = pl_param_get_size(&tcp_prov, "max_unexpected",
					      TCP_MAX_UNEXPECTED_DEFAULT, 0,
					      SIZE_MAX / 2);
	p->tx_coalesce = pl_param_get_bool(&tcp_prov, "tx_coalesce", true);
	p->conn_timeout_ms = pl_param_get_int(&tcp_prov, "conn_timeout",
					      10000, 1, 3600000);
}

const struct tcp_params *tcp_params_get(void)
{
	pthread_once(&tcp_params_read_once, tcp_params_read);
	return &tcp_params_cur;
}
