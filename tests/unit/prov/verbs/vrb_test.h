/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers of the verbs tests (test_vrb_ep.c, and the shared receive
 * context, fi_cancel and fork tests): failing with a message, waiting
 * for an EQ event or a completion with a deadline (a hang is a failure,
 * never a timing threshold on success), and opening fabric, domain and
 * a listening passive endpoint on the rxe VM's verbs device. Static
 * inline functions: each test program is one translation unit and uses
 * some of them.
 */
#ifndef PROPEL_TEST_VRB_TEST_H
#define PROPEL_TEST_VRB_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#define VT_TIMEOUT_S 20

static inline void vt_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

#define CHECK(call) do {						\
	long ret_ = (long)(call);					\
	if (ret_)							\
		vt_fail("%s:%d %s = %ld (%s)", __FILE__, __LINE__,	\
			#call, ret_, fi_strerror((int)-ret_));		\
} while (0)

#define EXPECT(cond) do {						\
	if (!(cond))							\
		vt_fail("%s:%d %s", __FILE__, __LINE__, #cond);		\
} while (0)

struct vt {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_pep *pep;
	struct fid_eq *eq;		/* the listener's, and accepted eps' */
	struct fid_cq *drive;		/* read to progress (manual) */
};

static inline double vt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Next event of eq; an error entry comes back as its negative err with
 * *errp filled. */
static inline int vt_eq_wait(struct vt *t, struct fid_eq *eq, uint32_t *event,
		      void *buf, size_t len, struct fi_eq_err_entry *errp)
{
	double end = vt_now() + VT_TIMEOUT_S;
	ssize_t ret;

	while (vt_now() < end) {
		ret = fi_eq_read(eq, event, buf, len, 0);
		if (ret >= 0)
			return (int)ret;
		if (ret == -FI_EAVAIL) {
			memset(errp, 0, sizeof(*errp));
			CHECK(fi_eq_readerr(eq, errp, 0) < 0);
			return -errp->err;
		}
		if (ret != -FI_EAGAIN)
			vt_fail("fi_eq_read: %zd", ret);
		if (t->drive)
			(void)fi_cq_read(t->drive, NULL, 0);
	}
	vt_fail("no EQ event in %d s", VT_TIMEOUT_S);
	return 0;
}

/* Next completion of cq (an error entry as -err with *errp). */
static inline int vt_cq_wait(struct fid_cq *cq, struct fi_cq_data_entry *e,
		      struct fi_cq_err_entry *errp)
{
	double end = vt_now() + VT_TIMEOUT_S;
	ssize_t ret;

	while (vt_now() < end) {
		ret = fi_cq_read(cq, e, 1);
		if (ret == 1)
			return 0;
		if (ret == -FI_EAVAIL) {
			memset(errp, 0, sizeof(*errp));
			CHECK(fi_cq_readerr(cq, errp, 0) != 1);
			return -errp->err;
		}
		if (ret != -FI_EAGAIN)
			vt_fail("fi_cq_read: %zd", ret);
	}
	vt_fail("no completion in %d s", VT_TIMEOUT_S);
	return 0;
}

/* fi_getinfo for verbs MSG with FI_MR_LOCAL; hints_edit may change the
 * hints first. Skips (77) where no verbs device answers. */
static inline void vt_open(struct vt *t, void (*hints_edit)(struct fi_info *))
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_eq_attr ea = { .wait_obj = FI_WAIT_UNSPEC };
	int ret;

	memset(t, 0, sizeof(*t));
	hints->ep_attr->type = FI_EP_MSG;
	hints->caps = FI_MSG;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = strdup("verbs");
	hints->addr_format = FI_SOCKADDR_IN;
	if (hints_edit)
		hints_edit(hints);
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &t->info);
	fi_freeinfo(hints);
	if (ret == -FI_ENODATA) {
		printf("SKIP: no verbs device with an IPv4 address here (run "
		       "inside the rxe VM: tests/unit/prov/verbs/rxe_wrap.sh)\n");
		exit(77);
	}
	CHECK(ret);
	CHECK(fi_fabric(t->info->fabric_attr, &t->fabric, NULL));
	CHECK(fi_domain(t->fabric, t->info, &t->domain, NULL));
	CHECK(fi_eq_open(t->fabric, &ea, &t->eq, NULL));
	CHECK(fi_passive_ep(t->fabric, t->info, &t->pep, NULL));
	CHECK(fi_pep_bind(t->pep, &t->eq->fid, 0));
	CHECK(fi_listen(t->pep));
}

static inline void vt_close(struct vt *t)
{
	CHECK(fi_close(&t->pep->fid));
	CHECK(fi_close(&t->eq->fid));
	CHECK(fi_close(&t->domain->fid));
	CHECK(fi_close(&t->fabric->fid));
	fi_freeinfo(t->info);
}

static inline struct fid_mr *vt_reg(struct vt *t, void *buf, size_t len,
			     uint64_t access)
{
	struct fid_mr *mr;

	CHECK(fi_mr_reg(t->domain, buf, len, access, 0, 0, 0, &mr, NULL));
	return mr;
}

#endif
