/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Named (shared) AVs: several processes opening the same name each map one
 * table in shared memory. The other processes are this very binary run
 * again (fork + exec, argv[1] == "--child"), so each opens the AV itself
 * after it starts and inherits nothing; they talk to the test over pipes,
 * one line per step.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

extern char **environ;

#include "pl_av_shared.h"
#include "pl_av_test_util.h"

#define WATCHDOG_S 120
#define CREATOR_ID 1000
#define WRITER_ID 5000

static char self_exe[4096];

/* ------------------------------------------------------------------ */
/* Children                                                             */
/* ------------------------------------------------------------------ */

#define CHILD_CHECK(cond)                                                    \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "child %s:%d: %s\n", __FILE__,       \
				__LINE__, #cond);                            \
			exit(1);                                             \
		}                                                            \
	} while (0)

static struct fid_av *child_open(const char *name, uint64_t flags)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 64,
				   .name = name, .flags = flags };
	struct fid_av *av = NULL;

	CHILD_CHECK(pl_av_open(NULL, &attr, sizeof(struct test_addr),
			       &test_ops, &av, NULL) == 0);
	return av;
}

static long long child_id_at(struct fid_av *av, fi_addr_t fa)
{
	struct test_addr out;
	size_t len = sizeof(out);

	if (fi_av_lookup(av, fa, &out, &len))
		return -1;
	return (long long)out.id;
}

/* Create the AV, insert n addresses, print their handles, then answer
 * "check HANDLE ID" lines until "quit". */
static int child_creator(const char *name, int n)
{
	struct fid_av *av = child_open(name, 0);
	char line[128];
	int i;

	printf("ready");
	for (i = 0; i < n; i++) {
		struct test_addr a = test_addr_make(CREATOR_ID + i, 1);
		fi_addr_t fa;

		CHILD_CHECK(fi_av_insert(av, &a, 1, &fa, 0, NULL) == 1);
		printf(" %llu", (unsigned long long)fa);
	}
	printf("\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long fa, id;

		if (sscanf(line, "check %llu %llu", &fa, &id) == 2) {
			printf("%s\n", child_id_at(av, fa) == (long long)id ?
				       "ok" : "bad");
			fflush(stdout);
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	CHILD_CHECK(fi_close(&av->fid) == 0);
	return 0;
}

/* Open read-only: the creator's n addresses are there at the same
 * fi_addr_t values, which the table at map_addr lists too (an
 * application reads them there, as fabtests' fi_rdm_shared_av does), and
 * nothing can be changed. */
static int child_reader(const char *name, int n)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 64,
				   .name = name, .flags = FI_READ };
	struct test_addr a = test_addr_make(CREATOR_ID + 5, 1);
	struct fid_av *av = NULL;
	const fi_addr_t *table;
	fi_addr_t fa = 0;
	int i;

	CHILD_CHECK(pl_av_open(NULL, &attr, sizeof(struct test_addr),
			       &test_ops, &av, NULL) == 0);
	table = attr.map_addr;
	CHILD_CHECK(table != NULL);
	for (i = 0; i < n; i++) {
		CHILD_CHECK(child_id_at(av, (fi_addr_t)i) == CREATOR_ID + i);
		CHILD_CHECK(table[i] == (fi_addr_t)i);
	}
	CHILD_CHECK(table[n] == FI_ADDR_NOTAVAIL);
	CHILD_CHECK(child_id_at(av, (fi_addr_t)n) == -1);
	CHILD_CHECK(fi_av_insert(av, &a, 1, &fa, 0, NULL) == -FI_EOPBADSTATE);
	CHILD_CHECK(fi_av_remove(av, &fa, 1, 0) == -FI_EOPBADSTATE);
	pl_rcu_read_lock();
	CHILD_CHECK(pl_av_reverse_lookup(av, &a, &fa, NULL) == 0);
	pl_rcu_read_unlock();
	CHILD_CHECK(fa == 5);
	CHILD_CHECK(fi_close(&av->fid) == 0);
	printf("ok\n");
	return 0;
}

/* Open read-write and append m addresses (growing the table past the
 * creator's mapping); an address the creator inserted comes back with
 * the creator's handle. */
static int child_writer(const char *name, int m)
{
	struct fid_av *av = child_open(name, 0);
	struct test_addr dup = test_addr_make(CREATOR_ID + 3, 1);
	fi_addr_t fa;
	int j;

	printf("handles");
	for (j = 0; j < m; j++) {
		struct test_addr a = test_addr_make(WRITER_ID + j, 2);

		CHILD_CHECK(fi_av_insert(av, &a, 1, &fa, 0, NULL) == 1);
		printf(" %llu", (unsigned long long)fa);
	}
	printf("\n");
	CHILD_CHECK(fi_av_insert(av, &dup, 1, &fa, 0, NULL) == 1);
	CHILD_CHECK(fa == 3);
	/* Undo our insert only: the creator's one keeps it alive. */
	CHILD_CHECK(fi_av_remove(av, &fa, 1, 0) == 0);
	CHILD_CHECK(child_id_at(av, 3) == CREATOR_ID + 3);
	CHILD_CHECK(fi_close(&av->fid) == 0);
	return 0;
}

/* Open, insert, and die without closing (a crashed job). */
static int child_crash(const char *name)
{
	struct fid_av *av = child_open(name, 0);
	struct test_addr a = test_addr_make(42, 1);
	fi_addr_t fa;

	CHILD_CHECK(fi_av_insert(av, &a, 1, &fa, 0, NULL) == 1);
	fflush(stdout);
	_exit(0);
}

static int child_main(int argc, char **argv)
{
	int n = argc > 4 ? atoi(argv[4]) : 0;

	alarm(WATCHDOG_S);
	if (argc < 4)
		return 2;
	if (!strcmp(argv[2], "creator"))
		return child_creator(argv[3], n);
	if (!strcmp(argv[2], "reader"))
		return child_reader(argv[3], n);
	if (!strcmp(argv[2], "writer"))
		return child_writer(argv[3], n);
	if (!strcmp(argv[2], "crash"))
		return child_crash(argv[3]);
	return 2;
}

/* ------------------------------------------------------------------ */
/* The test side                                                        */
/* ------------------------------------------------------------------ */

struct child {
	pid_t pid;
	FILE *to;	/* the child's stdin */
	FILE *from;	/* the child's stdout */
};

/* posix_spawn, not fork + exec: glibc's posix_spawn runs no atfork
 * handlers, and the AV's child handler starts liburcu's call_rcu worker,
 * which ThreadSanitizer refuses in a child of a multi-threaded process. */
static void spawn(struct child *c, const char *role, const char *name,
		  int n)
{
	char *argv[] = { self_exe, "--child", (char *)role, (char *)name,
			 NULL, NULL };
	posix_spawn_file_actions_t fa;
	int in[2], out[2];
	char nbuf[16];

	snprintf(nbuf, sizeof(nbuf), "%d", n);
	argv[4] = nbuf;
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	fflush(stdout);
	fflush(stderr);
	assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
	assert_int_equal(posix_spawn_file_actions_adddup2(&fa, in[0],
							  STDIN_FILENO), 0);
	assert_int_equal(posix_spawn_file_actions_adddup2(&fa, out[1],
							  STDOUT_FILENO), 0);
	assert_int_equal(posix_spawn_file_actions_addclose(&fa, in[0]), 0);
	assert_int_equal(posix_spawn_file_actions_addclose(&fa, in[1]), 0);
	assert_int_equal(posix_spawn_file_actions_addclose(&fa, out[0]), 0);
	assert_int_equal(posix_spawn_file_actions_addclose(&fa, out[1]), 0);
	assert_int_equal(posix_spawn(&c->pid, self_exe, &fa, NULL, argv,
				     environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	c->to = fdopen(in[1], "w");
	c->from = fdopen(out[0], "r");
	assert_non_null(c->to);
	assert_non_null(c->from);
}

static void expect_line(struct child *c, char *line, size_t len)
{
	assert_non_null(fgets(line, (int)len, c->from));
}

static int reap(struct child *c)
{
	int status;

	fclose(c->to);
	fclose(c->from);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void unique_name(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "pl_av_test/%s.%d", what, (int)getpid());
}

static bool shm_exists(const char *name)
{
	char shm[256];
	int fd;

	assert_int_equal(pl_av_shared_shm_name(name, shm, sizeof(shm)), 0);
	fd = shm_open(shm, O_RDONLY, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static void test_processes_share_entries_and_handles(void **state)
{
	struct child creator, reader, writer;
	char name[128], line[4096], *p;
	unsigned long long h;
	int i;

	unique_name(name, sizeof(name), "share");
	spawn(&creator, "creator", name, 100);
	expect_line(&creator, line, sizeof(line));
	assert_int_equal(strncmp(line, "ready", 5), 0);
	for (i = 0, p = line + 5; i < 100; i++) {
		h = strtoull(p, &p, 10);
		assert_int_equal(h, i);	/* a table: 0, 1, 2... */
	}
	/* A read-only opener sees them at the same fi_addr_t values. */
	spawn(&reader, "reader", name, 100);
	expect_line(&reader, line, sizeof(line));
	assert_string_equal(line, "ok\n");
	assert_int_equal(reap(&reader), 0);
	/* Another writer appends past the creator's mapping (64 -> 256). */
	spawn(&writer, "writer", name, 60);
	expect_line(&writer, line, sizeof(line));
	assert_int_equal(strncmp(line, "handles", 7), 0);
	for (i = 0, p = line + 7; i < 60; i++) {
		h = strtoull(p, &p, 10);
		assert_int_equal(h, 100 + i);
	}
	assert_int_equal(reap(&writer), 0);
	/* The creator resolves the writer's last address. */
	fprintf(creator.to, "check %d %d\n", 159, WRITER_ID + 59);
	fflush(creator.to);
	expect_line(&creator, line, sizeof(line));
	assert_string_equal(line, "ok\n");
	fprintf(creator.to, "check %d %d\n", 3, CREATOR_ID + 3);
	fflush(creator.to);
	expect_line(&creator, line, sizeof(line));
	assert_string_equal(line, "ok\n");
	assert_true(shm_exists(name));
	fprintf(creator.to, "quit\n");
	fflush(creator.to);
	assert_int_equal(reap(&creator), 0);
	/* The last closer took the name away. */
	assert_false(shm_exists(name));
}

static struct fid_av *open_named(const char *name, size_t addrlen,
				 uint64_t flags, int *ret_p)
{
	struct fi_av_attr attr = { .type = FI_AV_UNSPEC, .name = name,
				   .flags = flags };
	struct fid_av *av = NULL;

	*ret_p = pl_av_open(NULL, &attr, addrlen, &test_ops, &av, NULL);
	return av;
}

static void test_read_only_open_needs_an_existing_av(void **state)
{
	char name[128];
	int ret;

	unique_name(name, sizeof(name), "missing");
	assert_null(open_named(name, sizeof(struct test_addr), FI_READ, &ret));
	assert_int_equal(ret, -FI_ENOENT);
	assert_false(shm_exists(name));
}

static void test_two_opens_in_one_process_share(void **state)
{
	struct test_addr a = test_addr_make(7, 7), out;
	char name[128], shm[256];
	struct fid_av *rw, *ro;
	size_t len = sizeof(out);
	struct stat st;
	fi_addr_t fa;
	int ret, fd;

	struct fi_av_attr ro_attr = { .type = FI_AV_UNSPEC, .flags = FI_READ };
	const fi_addr_t *table;

	unique_name(name, sizeof(name), "inproc");
	rw = open_named(name, sizeof(a), 0, &ret);
	assert_int_equal(ret, 0);
	ro_attr.name = name;
	assert_int_equal(pl_av_open(NULL, &ro_attr, sizeof(a), &test_ops, &ro,
				    NULL), 0);
	table = ro_attr.map_addr;	/* the fi_addr_t table */
	assert_int_equal(table[0], FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_av_insert(rw, &a, 1, &fa, 0, NULL), 1);
	assert_int_equal(table[fa], fa);
	assert_int_equal(fi_av_lookup(ro, fa, &out, &len), 0);
	assert_int_equal(out.id, 7);
	assert_int_equal(fi_av_insert(ro, &a, 1, &fa, 0, NULL),
			 -FI_EOPBADSTATE);
	/* Mode 0600, so only this user's processes can map it. */
	assert_int_equal(pl_av_shared_shm_name(name, shm, sizeof(shm)), 0);
	fd = shm_open(shm, O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	close(fd);
	assert_int_equal(fi_av_remove(rw, &fa, 1, 0), 0);
	assert_int_equal(fi_av_lookup(ro, fa, &out, &len), -FI_ENODATA);
	assert_int_equal(table[fa], FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_close(&ro->fid), 0);
	assert_true(shm_exists(name));	/* rw still has it open */
	assert_int_equal(fi_close(&rw->fid), 0);
	assert_false(shm_exists(name));
}

static void test_crashed_job_content_is_discarded(void **state)
{
	struct test_addr out;
	size_t len = sizeof(out);
	struct child crash;
	struct fid_av *av;
	char name[128];
	int ret;

	unique_name(name, sizeof(name), "crash");
	spawn(&crash, "crash", name, 0);
	assert_int_equal(reap(&crash), 0);
	assert_true(shm_exists(name));		/* left behind */
	av = open_named(name, sizeof(out), 0, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(fi_av_lookup(av, 0, &out, &len), -FI_ENODATA);
	assert_int_equal(fi_close(&av->fid), 0);
	assert_false(shm_exists(name));
}

static void test_address_size_must_match(void **state)
{
	struct fid_av *av, *other;
	char name[128];
	int ret;

	unique_name(name, sizeof(name), "addrlen");
	av = open_named(name, 16, 0, &ret);
	assert_int_equal(ret, 0);
	other = open_named(name, 24, 0, &ret);
	assert_null(other);
	assert_int_equal(ret, -FI_EINVAL);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_attributes_and_unsupported_user_id(void **state)
{
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	struct test_addr a = test_addr_make(1, 1);
	struct fid_av *av, *second;
	fi_addr_t fa = 5;
	char name[128];
	int ret;

	unique_name(name, sizeof(name), "attr");
	attr.name = name;
	assert_int_equal(pl_av_open(NULL, &attr, sizeof(a), &test_ops, &av,
				    NULL), 0);
	assert_non_null(attr.map_addr);	/* 0 in, the table's out */
	second = open_named(name, sizeof(a), 0, &ret);	/* FI_AV_UNSPEC */
	assert_int_equal(ret, 0);
	assert_int_equal(fi_av_insert(av, &a, 1, &fa, FI_AV_USER_ID, NULL),
			 -FI_EOPNOTSUPP);
	assert_int_equal(fi_close(&second->fid), 0);
	assert_int_equal(fi_close(&av->fid), 0);
	/* The creator's type is what an FI_AV_UNSPEC opener gets. */
	attr.map_addr = NULL;
	assert_int_equal(pl_av_open(NULL, &attr, sizeof(a), &test_ops, &av,
				    NULL), 0);
	{
		struct fi_av_attr a2 = { .type = FI_AV_UNSPEC, .name = name };

		assert_int_equal(pl_av_open(NULL, &a2, sizeof(a), &test_ops,
					    &second, NULL), 0);
		assert_int_equal(a2.type, FI_AV_MAP);
		/* each open maps the fi_addr_t table for itself */
		assert_non_null(a2.map_addr);
		assert_int_equal(fi_close(&second->fid), 0);
	}
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_foreign_or_open_mode_object_is_refused(void **state)
{
	char name[128], shm[256];
	int fd, ret;

	unique_name(name, sizeof(name), "squat");
	assert_int_equal(pl_av_shared_shm_name(name, shm, sizeof(shm)), 0);
	fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	close(fd);
	assert_null(open_named(name, 16, 0, &ret));
	assert_int_equal(ret, -FI_EACCES);
	shm_unlink(shm);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_processes_share_entries_and_handles),
		cmocka_unit_test(test_read_only_open_needs_an_existing_av),
		cmocka_unit_test(test_two_opens_in_one_process_share),
		cmocka_unit_test(test_crashed_job_content_is_discarded),
		cmocka_unit_test(test_address_size_must_match),
		cmocka_unit_test(test_attributes_and_unsupported_user_id),
		cmocka_unit_test(test_foreign_or_open_mode_object_is_refused),
	};
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child_main(argc, argv);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		printf("cannot find /proc/self/exe: skipped\n");
		return 77;
	}
	self_exe[n] = '\0';
	alarm(WATCHDOG_S);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
