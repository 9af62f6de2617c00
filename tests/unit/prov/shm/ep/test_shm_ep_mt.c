/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An FI_THREAD_SAFE shm domain used from six threads at once (suites
 * unit and concurrency, run under ThreadSanitizer in CI): four threads
 * send tagged messages (inline and bounce-buffer sizes) from one
 * endpoint and read its send CQ; two threads read the other endpoint's
 * receive CQ, verify each message and post its buffer again. Every
 * message arrives once, intact; every send completes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "shm_conf_test.h"

#define MT_SENDERS	4
#define MT_RECEIVERS	2
#define MT_MSGS		400		/* per sender */
#define MT_SLOTS	64		/* receive buffers */
#define MT_MAXLEN	3000
#define MT_LEN(i)	((i) % 4 == 3 ? MT_MAXLEN : 16 + (size_t)(i) % 150)
#define MT_TOTAL	(MT_SENDERS * MT_MSGS)

static struct cep S, R;
static fi_addr_t to_r;
static uint8_t slots[MT_SLOTS][MT_MAXLEN];
static _Atomic int got, tx_done;
static _Atomic unsigned char seen[MT_SENDERS][MT_MSGS];

static void mt_post(intptr_t slot)
{
	ssize_t r;

	while ((r = fi_trecv(R.ep, slots[slot], MT_MAXLEN, NULL,
			     FI_ADDR_UNSPEC, 0, ~0ULL,
			     (void *)(slot + 1))) == -FI_EAGAIN)
		(void)fi_cq_read(R.rcq, NULL, 0);
	SHM_CHECK(r == 0);
}

static void mt_tx_drain(void)
{
	struct fi_cq_tagged_entry e[8];
	ssize_t n = fi_cq_read(S.tcq, e, 8);

	if (n > 0)
		atomic_fetch_add(&tx_done, (int)n);
	else
		SHM_CHECK(n == -FI_EAGAIN);
}

static void *mt_sender(void *arg)
{
	uint64_t id = (uint64_t)(intptr_t)arg;
	uint8_t *buf = malloc((size_t)MT_MSGS * MT_MAXLEN);

	SHM_CHECK(buf);
	for (uint64_t i = 0; i < MT_MSGS; i++) {
		uint8_t *p = buf + i * MT_MAXLEN;	/* in use until done */
		uint64_t tag = id << 32 | i;
		ssize_t r;

		shm_test_fill(p, MT_LEN(i), tag);
		while ((r = fi_tsend(S.ep, p, MT_LEN(i), NULL, to_r, tag,
				     NULL)) == -FI_EAGAIN)
			mt_tx_drain();
		SHM_CHECK(r == 0);
	}
	while (atomic_load(&tx_done) < MT_TOTAL)
		mt_tx_drain();
	free(buf);
	return NULL;
}

static void *mt_receiver(void *arg)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	ssize_t n;

	(void)arg;
	while (atomic_load(&got) < MT_TOTAL) {
		uint64_t id, i;
		intptr_t slot;

		n = fi_cq_read(R.rcq, &e, 1);
		if (n == -FI_EAGAIN)
			continue;
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			(void)fi_cq_readerr(R.rcq, &err, 0);
			fprintf(stderr, "error completion %d\n", err.err);
		}
		SHM_CHECK(n == 1);
		slot = (intptr_t)e.op_context - 1;
		SHM_CHECK(slot >= 0 && slot < MT_SLOTS);
		id = e.tag >> 32;
		i = e.tag & 0xffffffffu;
		SHM_CHECK(id < MT_SENDERS && i < MT_MSGS);
		SHM_CHECK(e.len == MT_LEN(i));
		SHM_CHECK(shm_test_verify(slots[slot], e.len, e.tag) == 0);
		SHM_CHECK(atomic_fetch_add(&seen[id][i], 1) == 0);
		atomic_fetch_add(&got, 1);
		mt_post(slot);
	}
	return NULL;
}

int main(void)
{
	static const struct cep_opts o;
	pthread_t snd[MT_SENDERS], rcv[MT_RECEIVERS];

	alarm(120);
	SHM_CHECK(conf_open(&C, CONF_CAPS) == 0);
	SHM_CHECK(C.info->domain_attr->threading == FI_THREAD_SAFE);
	SHM_CHECK(cep_open(&C, &S, &o) == 0);
	SHM_CHECK(cep_open(&C, &R, &o) == 0);
	to_r = cep_insert(&S, &R);
	(void)cep_insert(&R, &S);
	for (intptr_t s = 0; s < MT_SLOTS; s++)
		mt_post(s);
	for (intptr_t i = 0; i < MT_RECEIVERS; i++)
		SHM_CHECK(pthread_create(&rcv[i], NULL, mt_receiver,
					 (void *)i) == 0);
	for (intptr_t i = 0; i < MT_SENDERS; i++)
		SHM_CHECK(pthread_create(&snd[i], NULL, mt_sender,
					 (void *)i) == 0);
	for (int i = 0; i < MT_SENDERS; i++)
		SHM_CHECK(pthread_join(snd[i], NULL) == 0);
	for (int i = 0; i < MT_RECEIVERS; i++)
		SHM_CHECK(pthread_join(rcv[i], NULL) == 0);
	SHM_CHECK(atomic_load(&got) == MT_TOTAL);
	SHM_CHECK(atomic_load(&tx_done) == MT_TOTAL);
	for (int s = 0; s < MT_SENDERS; s++)
		for (int i = 0; i < MT_MSGS; i++)
			SHM_CHECK(atomic_load(&seen[s][i]) == 1);
	/* the slots still posted go with the endpoint */
	cep_close(&S);
	cep_close(&R);
	conf_close(&C);
	return 0;
}
