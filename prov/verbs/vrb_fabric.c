/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs fabric: the factory of domains and passive endpoints, and the
 * home of connection management (vrb_prov.h): one rdma_cm event channel
 * for every id of the fabric, read by one auto-progress context whose
 * thread sleeps on the channel's descriptor. EQs, wait sets and
 * fi_trywait are the engine's.
 */
#include <fcntl.h>
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_trywait.h"
#include "pl_wait_set.h"
#include "vrb_prov.h"

/*
 * One pass: read the channel's events (nonblocking) and hand each to the
 * object its id names. The lock makes the handler and an object's
 * detach (vrb_fabric_id_destroy) exclusive; the event is acknowledged
 * after the lock is dropped, since rdma_destroy_id in a closing thread
 * waits for that acknowledgement.
 */
static int vrb_fabric_cm_poll(struct pl_progress_source *src, unsigned budget)
{
	struct vrb_fabric *fab = pl_container_of(src, struct vrb_fabric,
						 cm_src);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *drop;
	struct vrb_cm_handler *h;
	unsigned n;

	for (n = 0; n < budget; n++) {
		if (rdma_get_cm_event(fab->ch, &ev))
			break;	/* EAGAIN: the channel is empty */
		pthread_mutex_lock(&fab->cm_lock);
		/* a request reaches the listener's handler: its new id has
		 * no context yet */
		h = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ?
		    ev->listen_id->context : ev->id->context;
		drop = (h && h->handle(h, ev)) ? ev->id : NULL;
		pthread_mutex_unlock(&fab->cm_lock);
		rdma_ack_cm_event(ev);
		/* a handler cannot destroy the id of the event it holds
		 * (rdma_destroy_id waits for this acknowledgement) */
		if (drop)
			rdma_destroy_id(drop);
	}
	return (int)n;
}

void vrb_fabric_id_attach(struct vrb_fabric *fab, struct rdma_cm_id *id,
			  struct vrb_cm_handler *h)
{
	pthread_mutex_lock(&fab->cm_lock);
	id->context = h;
	pthread_mutex_unlock(&fab->cm_lock);
}

void vrb_fabric_id_destroy(struct vrb_fabric *fab, struct rdma_cm_id *id)
{
	if (!id)
		return;
	vrb_fabric_id_attach(fab, id, NULL);
	rdma_destroy_id(id);
}

static int vrb_fabric_close(struct fid *fid)
{
	struct vrb_fabric *fab = pl_container_of(fid, struct vrb_fabric,
						 base.fabric_fid.fid);
	int ret;

	ret = pl_fabric_obj_fini(&fab->base);
	if (ret)
		return ret;	/* children remain: -FI_EBUSY */
	(void)pl_progress_source_remove(fab->cm_ctx, &fab->cm_src);
	(void)pl_progress_ctx_close(fab->cm_ctx);
	rdma_destroy_event_channel(fab->ch);
	pthread_mutex_destroy(&fab->cm_lock);
	free(fab);
	return 0;
}

static struct fi_ops vrb_fabric_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = vrb_fabric_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_fabric vrb_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = vrb_domain_open,
	.passive_ep = vrb_pep_open,
	.eq_open = pl_eq_open,
	.wait_open = pl_wait_open,
	.trywait = pl_trywait,
	.domain2 = pl_fid_nosys_fabric_domain2,
};

int vrb_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context)
{
	struct vrb_fabric *fab;
	int ret, fl;

	if (!attr || !fabric_p)
		return -FI_EINVAL;
	ret = vrb_fork_check();
	if (ret)
		return ret;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	pthread_mutex_init(&fab->cm_lock, NULL);
	fab->ch = rdma_create_event_channel();
	if (!fab->ch) {
		ret = -FI_ENODEV;
		goto err_free;
	}
	/* the poll pass must never block in rdma_get_cm_event */
	fl = fcntl(fab->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(fab->ch->fd, F_SETFL, fl | O_NONBLOCK)) {
		ret = -FI_EIO;
		goto err_ch;
	}
	/* connection set-up must advance while the application only
	 * waits on its EQ (control_progress FI_PROGRESS_AUTO): a thread,
	 * asleep in epoll on the channel while nothing happens */
	ret = pl_progress_ctx_open(FI_PROGRESS_AUTO, FI_THREAD_SAFE, NULL,
				   &fab->cm_ctx);
	if (ret)
		goto err_ch;
	fab->cm_src.poll = vrb_fabric_cm_poll;
	fab->cm_src.arm = NULL;	/* the channel fd is level-triggered */
	fab->cm_src.fd = fab->ch->fd;
	fab->cm_src.name = "verbs cm";
	ret = pl_progress_source_add(fab->cm_ctx, &fab->cm_src);
	if (ret)
		goto err_ctx;
	pl_fabric_obj_init(&fab->base, attr->api_version, context);
	fab->base.fabric_fid.fid.ops = &vrb_fabric_fid_ops;
	fab->base.fabric_fid.ops = &vrb_fabric_ops;
	*fabric_p = &fab->base.fabric_fid;
	return 0;

err_ctx:
	(void)pl_progress_ctx_close(fab->cm_ctx);
err_ch:
	rdma_destroy_event_channel(fab->ch);
err_free:
	pthread_mutex_destroy(&fab->cm_lock);
	free(fab);
	return ret;
}
