/* SPDX-License-Identifier: BSD-2-Clause */
/* Socket and address helpers (tcp_sock.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "tcp_params.h"
#include "tcp_sock.h"

size_t tcp_sock_addrlen(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

bool tcp_sock_addr_ok(const void *addr, size_t len)
{
	size_t need;

	if (!addr || len < sizeof(sa_family_t))
		return false;
	need = tcp_sock_addrlen(addr);
	return need && len >= need;
}

int tcp_sock_open(int family)
{
	int fd, one = 1;

	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -tcp_sock_errno_to_fi(errno);
	if (tcp_params_get()->nodelay)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				 sizeof(one));
	return fd;
}

static void tcp_sock_set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

static int tcp_sock_get_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

int tcp_sock_bind_active(int fd, int family, const struct sockaddr *src)
{
	const struct tcp_params *p = tcp_params_get();
	struct sockaddr_storage ss;
	size_t len;
	int port, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (src) {
		len = tcp_sock_addrlen(src);
		if (!len || src->sa_family != family)
			return -FI_EINVAL;
		memcpy(&ss, src, len);
	} else {
		ss.ss_family = (sa_family_t)family;
		len = tcp_sock_addrlen((struct sockaddr *)&ss);
	}
	if (src && tcp_sock_get_port(src))
		goto plain;
	if (p->port_low || p->port_high) {
		for (port = p->port_low; port <= p->port_high; port++) {
			tcp_sock_set_port(&ss, port);
			if (!bind(fd, (struct sockaddr *)&ss, (socklen_t)len))
				return 0;
			if (errno != EADDRINUSE)
				return -tcp_sock_errno_to_fi(errno);
		}
		return -FI_EADDRINUSE;
	}
	if (!src)
		return 0;
	/* an address with port 0: the port is chosen at connect(), where
	 * only the whole 4-tuple must be unique. bind() would pick one no
	 * other socket holds, TIME_WAIT included: a process that makes and
	 * ends thousands of connections (rxm) found fewer and fewer, each
	 * after a longer search. Best effort (Linux 4.2). */
	(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one,
			 sizeof(one));
plain:
	if (bind(fd, (struct sockaddr *)&ss, (socklen_t)len))
		return -tcp_sock_errno_to_fi(errno);
	return 0;
}

int tcp_sock_send_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	const char *p = buf;
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (poll(&pfd, 1, timeout_ms) <= 0)
				return -FI_ETIMEDOUT;
			continue;
		}
		return -tcp_sock_errno_to_fi(n < 0 ? errno : ECONNRESET);
	}
	return 0;
}

void *tcp_sock_addr_dup(const struct sockaddr *sa, size_t *len_p)
{
	size_t len = tcp_sock_addrlen(sa);
	void *p;

	if (!len)
		return NULL;
	p = malloc(len);
	if (!p)
		return NULL;
	memcpy(p, sa, len);
	*len_p = len;
	return p;
}

int tcp_sock_errno_to_fi(int err)
{
	switch (err) {
	case ECONNREFUSED:	return FI_ECONNREFUSED;
	case ECONNRESET:	return FI_ECONNRESET;
	case EPIPE:		return FI_ECONNRESET;
	case ETIMEDOUT:		return FI_ETIMEDOUT;
	case EHOSTUNREACH:	return FI_EHOSTUNREACH;
	case ENETUNREACH:	return FI_ENETUNREACH;
	case EADDRINUSE:	return FI_EADDRINUSE;
	case EADDRNOTAVAIL:	return FI_EADDRNOTAVAIL;
	case ENOMEM:		return FI_ENOMEM;
	case ENOBUFS:		return FI_ENOMEM;
	case EMFILE:		return FI_EMFILE;
	case EACCES:		return FI_EACCES;
	case EINVAL:		return FI_EINVAL;
	default:		return FI_EIO;
	}
}

void tcp_sock_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(s4->sin_port));
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else {
		snprintf(buf, len, "(unknown)");
	}
}

int tcp_sock_name_out(const struct sockaddr_storage *ss, void *addr,
		      size_t *addrlen)
{
	size_t len = tcp_sock_addrlen((const struct sockaddr *)ss);

	if (!addrlen)
		return -FI_EINVAL;
	if (!len)
		return -FI_EADDRNOTAVAIL;
	if (*addrlen < len) {
		*addrlen = len;
		return -FI_ETOOSMALL;
	}
	if (!addr)
		return -FI_EINVAL;
	memcpy(addr, ss, len);
	*addrlen = len;
	return 0;
}

int tcp_sock_read_cm(int fd, struct tcp_cm_in *in, int expect_kind)
{
	size_t hdr = sizeof(in->hdr), want;
	uint8_t *dst;
	ssize_t n;
	int ret;

	for (;;) {
		if (in->got < hdr) {
			dst = (uint8_t *)&in->hdr + in->got;
			want = hdr - in->got;
		} else {
			if (!in->checked) {
				tcp_proto_cm_swap(&in->hdr);
				ret = tcp_proto_check_cm(&in->hdr, expect_kind);
				if (ret)
					return ret;
				in->checked = true;
			}
			if (in->got == hdr + in->hdr.data_len)
				return 1;
			dst = in->data + (in->got - hdr);
			want = hdr + in->hdr.data_len - in->got;
		}
		n = recv(fd, dst, want, MSG_DONTWAIT);
		if (n > 0) {
			in->got += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return n == 0 ? -FI_ECONNRESET : -tcp_sock_errno_to_fi(errno);
	}
}
