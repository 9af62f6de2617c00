/* SPDX-License-Identifier: BSD-2-Clause */
/* A minimal fabric object shared by the test providers. */
#ifndef PROPEL_TESTPROV_FABRIC_H
#define PROPEL_TESTPROV_FABRIC_H

#include <rdma/fabric.h>

int testprov_fabric_open(struct fi_fabric_attr *attr,
			 struct fid_fabric **fabric, void *context);

#endif /* PROPEL_TESTPROV_FABRIC_H */
