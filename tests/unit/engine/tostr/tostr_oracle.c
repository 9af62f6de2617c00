/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Differential oracle for fi_tostr/fi_tostr_r. It loads whichever
 * libfabric.so.1 the dynamic loader picks (the reference when run plainly,
 * propel under LD_LIBRARY_PATH), runs a large deterministic set of inputs
 * through the public API and prints one line per case; tostr_oracle.sh runs
 * it both ways and diffs the two outputs.
 *
 * The library is dlopen'ed rather than linked so that no build-time RUNPATH
 * can decide which implementation runs; the first output line names the
 * file the symbols came from, which the script checks for each pass.
 *
 * Pointer values differ from run to run (ASLR, different allocators), so
 * every pointer the oracle hands to the library is registered and printed
 * back as a symbolic name.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fabric.h>

#include "tostr_oracle.h"

typedef char *(*tostr_fn)(const void *, enum fi_type);
typedef char *(*tostr_r_fn)(char *, size_t, const void *, enum fi_type);

static tostr_fn p_tostr;
static tostr_r_fn p_tostr_r;
static unsigned long ncases;

/* ---- pointer registry: raw addresses become stable names ---- */

struct oracle_ptr {
	const void *base;
	size_t size;
	char name[32];
};

static struct oracle_ptr ptrs[256];
static int nptrs;

void oracle_ptr_register(const void *base, size_t size, const char *name)
{
	if (nptrs == (int)(sizeof(ptrs) / sizeof(ptrs[0]))) {
		fprintf(stderr, "oracle: pointer registry full\n");
		exit(2);
	}
	ptrs[nptrs].base = base;
	ptrs[nptrs].size = size;
	snprintf(ptrs[nptrs].name, sizeof(ptrs[nptrs].name), "%s", name);
	nptrs++;
}

static const struct oracle_ptr *ptr_find(uintptr_t v)
{
	for (int i = 0; i < nptrs; i++) {
		uintptr_t b = (uintptr_t)ptrs[i].base;

		if (v >= b && v < b + ptrs[i].size)
			return &ptrs[i];
	}
	return NULL;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * A registered pointer printed as "0x<hex>" at s[i]: its name is written
 * and the number of characters consumed returned, else 0.
 */
static size_t emit_pointer(const char *s, size_t i, size_t n)
{
	const struct oracle_ptr *p;
	uintptr_t v = 0;
	size_t j = i + 2;

	if (s[i] != '0' || i + 2 >= n || s[i + 1] != 'x')
		return 0;
	while (j < n && j - i - 2 < 16 && hex_digit(s[j]) >= 0)
		v = v * 16 + (uintptr_t)hex_digit(s[j++]);
	/* Small numbers are field values, never one of our addresses. */
	if (j == i + 2 || v <= 0xffffff || !(p = ptr_find(v)))
		return 0;
	printf("<%s+%zu>", p->name, (size_t)(v - (uintptr_t)p->base));
	return j - i;
}

/* Escape to one line and replace registered pointers by their names. */
static void emit_escaped(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t used = emit_pointer(s, i, n);

		if (used) {
			i += used - 1;
			continue;
		}
		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* ---- the callbacks a fid's tostr op lands in ---- */

static char *cur_base;	/* buffer of the fi_tostr_r call in progress */

static int cb_note(const struct fid *fid, char *buf, size_t len)
{
	int n = snprintf(buf, len, "<cb fclass=%zu off=%td len=%zu pre=%zu>",
			 fid->fclass, cur_base ? buf - cur_base : (ptrdiff_t)-1,
			 len, cur_base ? strlen(cur_base) : (size_t)0);
	return n;
}

static int cb_long(const struct fid *fid, char *buf, size_t len)
{
	char big[601];

	memset(big, 'L', 600);
	big[600] = '\0';
	snprintf(buf, len, "%s", big);
	return 0;
}

static int cb_neg(const struct fid *fid, char *buf, size_t len)
{
	snprintf(buf, len, "neg");
	return -22;
}

static int cb_empty(const struct fid *fid, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	return 0;
}

static struct fi_ops ops_note = { .size = sizeof(struct fi_ops), .tostr = cb_note };
static struct fi_ops ops_long = { .size = sizeof(struct fi_ops), .tostr = cb_long };
static struct fi_ops ops_neg = { .size = sizeof(struct fi_ops), .tostr = cb_neg };
static struct fi_ops ops_empty = { .size = sizeof(struct fi_ops), .tostr = cb_empty };
static struct fi_ops ops_notostr = { .size = sizeof(struct fi_ops) };
static struct fi_ops ops_short = {
	.size = offsetof(struct fi_ops, tostr), .tostr = cb_note };
static struct fi_ops ops_exact = {
	.size = offsetof(struct fi_ops, tostr) + 1, .tostr = cb_note };

static struct fid fids[9];
static struct fid_nic nics[9];
const int oracle_nfids = 9;

static void fids_init(void)
{
	struct fi_ops *ops[9] = { NULL, &ops_note, &ops_long, &ops_neg,
				  &ops_empty, &ops_notostr, &ops_short,
				  &ops_exact, &ops_note };

	for (int i = 0; i < 9; i++) {
		char name[32];

		fids[i].fclass = i == 8 ? 0xdeadbeefUL : (size_t)i;
		fids[i].ops = ops[i];
		nics[i].fid.fclass = FI_CLASS_NIC;
		nics[i].fid.ops = ops[i];
		snprintf(name, sizeof(name), "fid%d", i);
		oracle_ptr_register(&fids[i], sizeof(fids[i]), name);
		snprintf(name, sizeof(name), "nic%d", i);
		oracle_ptr_register(&nics[i], sizeof(nics[i]), name);
	}
}

struct fid *oracle_fid(int i)
{
	return &fids[i];
}

int oracle_fid_has_tostr(int i)
{
	const struct fi_ops *ops = fids[i].ops;

	return ops && ops->size > offsetof(struct fi_ops, tostr) && ops->tostr;
}

struct fid_nic *oracle_nic(int i)
{
	return &nics[i];
}

/* ---- case runners ---- */

#define GUARD 32
#define BIG_LEN 65536

/*
 * One fi_tostr_r call into a fresh buffer of len bytes followed by a guard
 * zone. Full text when 'full', else length, hash and tail (truncation
 * sweeps print thousands of near-identical strings).
 */
static void run_r(const char *name, const void *data, int type, size_t len,
		  int full)
{
	char *buf = malloc(len + GUARD);
	char *ret;
	int guard_ok = 1;

	if (!buf) {
		fprintf(stderr, "oracle: out of memory\n");
		exit(2);
	}
	memset(buf, 0xa5, len + GUARD);
	cur_base = buf;
	ret = p_tostr_r(buf, len, data, (enum fi_type)type);
	cur_base = NULL;
	for (size_t i = len; i < len + GUARD; i++)
		if ((unsigned char)buf[i] != 0xa5)
			guard_ok = 0;

	ncases++;
	printf("%s len=%zu ret=%s guard=%s", name, len,
	       ret == NULL ? "NULL" : ret == buf ? "buf" : "other",
	       guard_ok ? "ok" : "OVERRUN");
	if (ret == buf) {
		size_t n = strnlen(buf, len);

		if (n == len) {
			printf(" UNTERMINATED\n");
		} else if (full) {
			printf(" strlen=%zu: ", n);
			emit_escaped(buf, n);
			putchar('\n');
		} else {
			size_t tail = n > 48 ? n - 48 : 0;

			printf(" strlen=%zu hash=%016llx tail=", n,
			       (unsigned long long)fnv1a(buf, n));
			emit_escaped(buf + tail, n - tail);
			putchar('\n');
		}
	} else {
		putchar('\n');
	}
	free(buf);
}

void oracle_case(const char *name, const void *data, int type)
{
	run_r(name, data, type, BIG_LEN, 1);
}

/* Every buffer length from 0 to past the full text. */
void oracle_sweep(const char *name, const void *data, int type)
{
	char *buf = malloc(BIG_LEN);
	size_t full;

	if (!buf)
		exit(2);
	buf[0] = '\0';
	if (!p_tostr_r(buf, BIG_LEN, data, (enum fi_type)type))
		buf[0] = '\0';
	full = strlen(buf);
	free(buf);
	for (size_t len = 0; len <= full + 3; len++) {
		char label[160];

		snprintf(label, sizeof(label), "sweep %s", name);
		run_r(label, data, type, len, 0);
	}
}

/* fi_tostr: the library's own buffer; report text and buffer reuse. */
void oracle_static(const char *name, const void *data, int type)
{
	char *a, *b;
	size_t n;

	cur_base = NULL;
	a = p_tostr(data, (enum fi_type)type);
	ncases++;
	printf("static %s ret=%s", name, a ? "buf" : "NULL");
	if (!a) {
		putchar('\n');
		return;
	}
	n = strlen(a);
	printf(" strlen=%zu hash=%016llx head=", n,
	       (unsigned long long)fnv1a(a, n));
	emit_escaped(a, n > 200 ? 200 : n);
	b = p_tostr(data, (enum fi_type)type);
	printf(" reuse=%s\n", a == b ? "same" : "different");
}

char *oracle_tostr_r_raw(char *buf, size_t len, const void *data, int type)
{
	return p_tostr_r(buf, len, data, (enum fi_type)type);
}

void oracle_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	ncases++;
}

int main(void)
{
	void *lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
	Dl_info dli;

	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (!lib) {
		printf("lib: none (%s)\n", dlerror());
		return 77;
	}
	p_tostr = (tostr_fn)dlsym(lib, "fi_tostr");
	p_tostr_r = (tostr_r_fn)dlsym(lib, "fi_tostr_r");
	if (!p_tostr || !p_tostr_r) {
		printf("lib: missing fi_tostr/fi_tostr_r\n");
		return 1;
	}
	if (!dladdr((void *)p_tostr_r, &dli) || !dli.dli_fname) {
		printf("lib: dladdr failed\n");
		return 1;
	}
	printf("lib: %s\n", dli.dli_fname);

	fids_init();
	oracle_scalars();
	oracle_flags();
	oracle_addrs();
	oracle_attrs();
	oracle_infos();
	oracle_edges();

	printf("cases: %lu\n", ncases);
	return 0;
}
