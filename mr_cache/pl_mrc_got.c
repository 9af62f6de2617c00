/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * GOT patching (pl_mrc_got.h).
 *
 * Finding the slots. dl_iterate_phdr hands us every loaded object with
 * its program headers; PT_DYNAMIC gives the symbol and string tables and
 * the two relocation tables that can name an imported function:
 * DT_JMPREL (the PLT's JUMP_SLOT relocations) and DT_RELA (GLOB_DAT).
 * The slot of a relocation is at load bias + r_offset. glibc rewrites
 * the d_ptr entries of a loaded object's dynamic section to absolute
 * addresses and some other loaders do not: a value below the load bias
 * is taken as relative.
 *
 * Writing a slot. Slots in PT_GNU_RELRO are read-only once the loader is
 * done (always with -z now, where the whole GOT is there): the page is
 * made writable for the store and read-only again, as the loader leaves
 * it (the relro end rounded down to a page). Each store is one aligned
 * 8-byte atomic store, so a thread calling through the slot at that
 * moment jumps either to the old function or to the hook.
 *
 * Lazy binding. A JUMP_SLOT not yet used holds an address inside its
 * own object (the PLT stub that calls the resolver). Such a value is
 * never taken as *next (calling it would resolve the symbol and
 * overwrite that object's slot with the real function, bypassing the
 * hook); it is saved for removal only. A thread inside the resolver for
 * that very slot while we patch it can still overwrite the hook (a
 * known limit, see docs/mr-cache.md).
 *
 * Objects that go away. We never write a slot from our table blindly:
 * removal walks the objects loaded now and writes back only slots that
 * hold our hook. A slot found holding something else than our hook while
 * patching replaces whatever our table said of that address (a new
 * object loaded where an unloaded one was).
 *
 * Skipped objects: the sanitizer runtimes and libc itself (their
 * internal calls must not enter instrumented code: a sanitizer's thread
 * start calls pthread_getattr_np, which reallocs through libc's own GOT
 * before the thread exists for the sanitizer), and the dynamic loader.
 * libc calls munmap, madvise and the others internally, never through
 * its GOT; only its malloc calls (free, realloc) are lost, see the
 * limits in docs/mr-cache.md.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_mrc_got.h"

#if defined(__x86_64__) && defined(__LP64__)
#define PL_MRC_GOT_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define PL_MRC_GOT_R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define PL_MRC_GOT_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define PL_MRC_GOT_R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

#define PL_MRC_GOT_MAX_SAVED 4096
#define PL_MRC_GOT_MAX_FNS 16

struct pl_mrc_got_saved {
	uintptr_t slot;
	uintptr_t prev;		/* the value before our hook */
};

/* Everything below: pl_mrc_got_lock, except rescan_pending (atomic). */
static pthread_mutex_t pl_mrc_got_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pl_mrc_got_fn *pl_mrc_got_fns;	/* NULL: not installed */
static size_t pl_mrc_got_nfns;
static struct pl_mrc_got_saved pl_mrc_got_saved[PL_MRC_GOT_MAX_SAVED];
static size_t pl_mrc_got_nsaved;
static size_t pl_mrc_got_missed;
static unsigned long long pl_mrc_got_adds;	/* dlpi_adds at last pass */
/* Set (relaxed) in a forked child and by a dlopen hook that found the
 * lock busy; a later rescan does a full pass. */
static pl_atomic_int pl_mrc_got_rescan_pending;
static pthread_once_t pl_mrc_got_atfork_once = PTHREAD_ONCE_INIT;

struct pl_mrc_got_obj {
	uintptr_t base;
	const ElfW(Sym) *symtab;
	const char *strtab;
	const ElfW(Rela) *rel[2];
	size_t nrel[2];
	uintptr_t lo, hi;		/* extent of its PT_LOAD segments */
	uintptr_t relro_lo, relro_hi;	/* read-only after relocation */
};

static uintptr_t pl_mrc_got_page_mask(void)
{
	return (uintptr_t)sysconf(_SC_PAGESIZE) - 1;
}

static bool pl_mrc_got_skip_name(const char *name)
{
	static const char *const skip[] = {
		"libtsan", "libasan", "libubsan", "liblsan", "libhwasan",
		"libclang_rt", "ld-linux", "linux-vdso", "ld64.so",
		"/libc.so.",
	};
	size_t i;

	for (i = 0; name && i < PL_ARRAY_SIZE(skip); i++)
		if (strstr(name, skip[i]))
			return true;
	return false;
}

static uintptr_t pl_mrc_got_dptr(uintptr_t base, ElfW(Addr) v)
{
	return v < base ? base + v : v;
}

/* Fill o from one object's headers; false when it has nothing to patch. */
static bool pl_mrc_got_obj_parse(const struct dl_phdr_info *info,
				 struct pl_mrc_got_obj *o)
{
	const ElfW(Dyn) *dyn = NULL, *d;
	uintptr_t mask = pl_mrc_got_page_mask();
	size_t relsz = 0, pltsz = 0, relent = sizeof(ElfW(Rela));
	bool rela_plt = true;
	int i;

	if (pl_mrc_got_skip_name(info->dlpi_name))
		return false;
	memset(o, 0, sizeof(*o));
	o->base = info->dlpi_addr;
	o->lo = UINTPTR_MAX;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = o->base + ph->p_vaddr;

		if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)s;
		else if (ph->p_type == PT_LOAD) {
			o->lo = PL_MIN(o->lo, s);
			o->hi = PL_MAX(o->hi, s + ph->p_memsz);
		} else if (ph->p_type == PT_GNU_RELRO) {
			o->relro_lo = s & ~mask;
			o->relro_hi = (s + ph->p_memsz) & ~mask;
		}
	}
	if (!dyn)
		return false;
	for (d = dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			o->symtab = (const ElfW(Sym) *)
				pl_mrc_got_dptr(o->base, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			o->strtab = (const char *)
				pl_mrc_got_dptr(o->base, d->d_un.d_ptr);
			break;
		case DT_JMPREL:
			o->rel[0] = (const ElfW(Rela) *)
				pl_mrc_got_dptr(o->base, d->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			pltsz = d->d_un.d_val;
			break;
		case DT_PLTREL:
			rela_plt = d->d_un.d_val == DT_RELA;
			break;
		case DT_RELA:
			o->rel[1] = (const ElfW(Rela) *)
				pl_mrc_got_dptr(o->base, d->d_un.d_ptr);
			break;
		case DT_RELASZ:
			relsz = d->d_un.d_val;
			break;
		case DT_RELAENT:
			relent = d->d_un.d_val;
			break;
		default:
			break;
		}
	}
	if (!o->symtab || !o->strtab || !rela_plt ||
	    relent != sizeof(ElfW(Rela)))
		return false;
	o->nrel[0] = o->rel[0] ? pltsz / sizeof(ElfW(Rela)) : 0;
	o->nrel[1] = o->rel[1] ? relsz / sizeof(ElfW(Rela)) : 0;
	return o->nrel[0] || o->nrel[1];
}

#ifdef PL_MRC_GOT_R_JUMP_SLOT

/* Calls visit(o, slot, fn index, arg) for each slot naming one of fns. */
static void pl_mrc_got_obj_walk(const struct pl_mrc_got_obj *o,
				void (*visit)(const struct pl_mrc_got_obj *o,
					      pl_atomic_ptr *slot, size_t fn,
					      void *arg),
				void *arg)
{
	size_t t, i, f;

	for (t = 0; t < 2; t++) {
		for (i = 0; i < o->nrel[t]; i++) {
			const ElfW(Rela) *r = &o->rel[t][i];
			unsigned long type = ELF64_R_TYPE(r->r_info);
			unsigned long sym = ELF64_R_SYM(r->r_info);
			const char *name;

			if ((type != PL_MRC_GOT_R_JUMP_SLOT &&
			     type != PL_MRC_GOT_R_GLOB_DAT) || !sym)
				continue;
			name = o->strtab + o->symtab[sym].st_name;
			for (f = 0; f < pl_mrc_got_nfns; f++)
				if (!strcmp(name, pl_mrc_got_fns[f].name))
					visit(o, (pl_atomic_ptr *)(o->base +
						  r->r_offset), f, arg);
		}
	}
}

struct pl_mrc_got_pass {
	void (*visit)(const struct pl_mrc_got_obj *o, pl_atomic_ptr *slot,
		      size_t fn, void *arg);
	void *arg;
	unsigned long long adds;
};

static int pl_mrc_got_pass_cb(struct dl_phdr_info *info, size_t size,
			      void *arg)
{
	struct pl_mrc_got_pass *p = arg;
	struct pl_mrc_got_obj o;

	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) +
		    sizeof(info->dlpi_adds))
		p->adds = info->dlpi_adds;
	if (pl_mrc_got_obj_parse(info, &o))
		pl_mrc_got_obj_walk(&o, p->visit, p->arg);
	return 0;
}

/* One walk over every loaded object (lock held). */
static void pl_mrc_got_pass_run(void (*visit)(const struct pl_mrc_got_obj *,
					      pl_atomic_ptr *, size_t, void *),
				void *arg)
{
	struct pl_mrc_got_pass p = { .visit = visit, .arg = arg };

	dl_iterate_phdr(pl_mrc_got_pass_cb, &p);
	pl_mrc_got_adds = p.adds;
}

static bool pl_mrc_got_is_hook(void *v)
{
	size_t f;

	for (f = 0; f < pl_mrc_got_nfns; f++)
		if (v == pl_mrc_got_fns[f].hook)
			return true;
	return false;
}

/* Pass 1: the first resolved value of each function that is not ours. */
static void pl_mrc_got_visit_choose(const struct pl_mrc_got_obj *o,
				    pl_atomic_ptr *slot, size_t fn, void *arg)
{
	void **cand = arg;
	/* relaxed: the loader wrote the slot before it let us see the
	 * object (dl_iterate_phdr's lock orders it). */
	void *v = pl_load_relaxed(slot);
	uintptr_t a = (uintptr_t)v;

	if (cand[fn] || !v || pl_mrc_got_is_hook(v))
		return;
	if (a >= o->lo && a < o->hi)
		return;		/* a lazy-binding stub, or its own copy */
	cand[fn] = v;
}

static void pl_mrc_got_store(const struct pl_mrc_got_obj *o,
			     pl_atomic_ptr *slot, void *v)
{
	uintptr_t a = (uintptr_t)slot, mask = pl_mrc_got_page_mask();
	void *page = (void *)(a & ~mask);
	bool ro = a >= o->relro_lo && a < o->relro_hi;

	if (ro && mprotect(page, mask + 1, PROT_READ | PROT_WRITE))
		return;		/* cannot write: the slot stays as it is */
	/* release: the hook's *next (G1) is visible to a thread that jumps
	 * through the new value; the store itself is one atomic 8 bytes. */
	pl_store_release(slot, v);
	if (ro)
		(void)mprotect(page, mask + 1, PROT_READ);
}

static struct pl_mrc_got_saved *pl_mrc_got_find(uintptr_t slot)
{
	size_t i;

	for (i = 0; i < pl_mrc_got_nsaved; i++)
		if (pl_mrc_got_saved[i].slot == slot)
			return &pl_mrc_got_saved[i];
	return NULL;
}

/* Pass 2: save and patch every slot not ours yet. */
static void pl_mrc_got_visit_patch(const struct pl_mrc_got_obj *o,
				   pl_atomic_ptr *slot, size_t fn, void *arg)
{
	struct pl_mrc_got_fn *f = &pl_mrc_got_fns[fn];
	size_t *patched = arg;
	struct pl_mrc_got_saved *s;
	void *v = pl_load_relaxed(slot);	/* as in pass 1 */

	if (v == f->hook) {
		patched[fn]++;
		return;
	}
	/* relaxed: written under our lock, by us. */
	if (!pl_load_relaxed(&f->next))
		return;		/* the function does not exist here */
	s = pl_mrc_got_find((uintptr_t)slot);
	if (!s) {
		if (pl_mrc_got_nsaved == PL_MRC_GOT_MAX_SAVED) {
			pl_mrc_got_missed++;
			return;
		}
		s = &pl_mrc_got_saved[pl_mrc_got_nsaved++];
		s->slot = (uintptr_t)slot;
	}
	s->prev = (uintptr_t)v;
	pl_mrc_got_store(o, slot, f->hook);
	if (pl_load_relaxed(slot) == f->hook)
		patched[fn]++;
}

/* Removal: write back what each slot holding our hook held before. */
static void pl_mrc_got_visit_restore(const struct pl_mrc_got_obj *o,
				     pl_atomic_ptr *slot, size_t fn, void *arg)
{
	struct pl_mrc_got_fn *f = &pl_mrc_got_fns[fn];
	struct pl_mrc_got_saved *s;

	(void)arg;
	if (pl_load_relaxed(slot) != f->hook)
		return;
	s = pl_mrc_got_find((uintptr_t)slot);
	pl_mrc_got_store(o, slot, s ? (void *)s->prev :
			 pl_load_relaxed(&f->next));
}

static void pl_mrc_got_atfork_child(void)
{
	/* A thread of the parent may have held the lock at the fork: every
	 * slot is either patched or not (single stores), so the child only
	 * needs a free lock and a full pass later. */
	pthread_mutex_init(&pl_mrc_got_lock, NULL);
	pl_store_relaxed(&pl_mrc_got_rescan_pending, 1);
}

static void pl_mrc_got_atfork_register(void)
{
	(void)pthread_atfork(NULL, NULL, pl_mrc_got_atfork_child);
}

int pl_mrc_got_install(struct pl_mrc_got_fn *fns, size_t n)
{
	void *cand[PL_MRC_GOT_MAX_FNS] = { 0 };
	size_t patched[PL_MRC_GOT_MAX_FNS] = { 0 };
	size_t f;

	if (n > PL_MRC_GOT_MAX_FNS)
		return -FI_EINVAL;
	(void)pthread_once(&pl_mrc_got_atfork_once,
			   pl_mrc_got_atfork_register);
	pthread_mutex_lock(&pl_mrc_got_lock);
	if (pl_mrc_got_fns) {
		pthread_mutex_unlock(&pl_mrc_got_lock);
		return -FI_EBUSY;
	}
	pl_mrc_got_fns = fns;
	pl_mrc_got_nfns = n;
	pl_mrc_got_pass_run(pl_mrc_got_visit_choose, cand);
	for (f = 0; f < n; f++) {
		/* relaxed: only this lock's holders write it. */
		if (pl_load_relaxed(&fns[f].next))
			continue;
		if (!cand[f])
			cand[f] = dlsym(RTLD_DEFAULT, fns[f].name);
		/* G1 release: pairs with the hooks' acquire loads. */
		pl_store_release(&fns[f].next, cand[f]);
	}
	pl_mrc_got_pass_run(pl_mrc_got_visit_patch, patched);
	pl_store_relaxed(&pl_mrc_got_rescan_pending, 0);
	pthread_mutex_unlock(&pl_mrc_got_lock);
	if (!patched[0]) {
		pl_mrc_got_remove();
		return -FI_ENOSYS;
	}
	return 0;
}

static int pl_mrc_got_adds_cb(struct dl_phdr_info *info, size_t size,
			      void *arg)
{
	unsigned long long *adds = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) +
		    sizeof(info->dlpi_adds))
		*adds = info->dlpi_adds;
	return 1;	/* the counters are the same in every entry */
}

void pl_mrc_got_rescan(bool try)
{
	size_t patched[PL_MRC_GOT_MAX_FNS] = { 0 };
	unsigned long long adds = 0;

	if (try) {
		if (pthread_mutex_trylock(&pl_mrc_got_lock)) {
			/* relaxed: a hint for the next rescan. */
			pl_store_relaxed(&pl_mrc_got_rescan_pending, 1);
			return;
		}
	} else {
		pthread_mutex_lock(&pl_mrc_got_lock);
	}
	if (pl_mrc_got_fns) {
		dl_iterate_phdr(pl_mrc_got_adds_cb, &adds);
		if (adds != pl_mrc_got_adds ||
		    pl_load_relaxed(&pl_mrc_got_rescan_pending)) {
			pl_store_relaxed(&pl_mrc_got_rescan_pending, 0);
			pl_mrc_got_pass_run(pl_mrc_got_visit_patch, patched);
		}
	}
	pthread_mutex_unlock(&pl_mrc_got_lock);
}

void pl_mrc_got_remove(void)
{
	pthread_mutex_lock(&pl_mrc_got_lock);
	if (pl_mrc_got_fns) {
		pl_mrc_got_pass_run(pl_mrc_got_visit_restore, NULL);
		pl_mrc_got_nsaved = 0;
		pl_mrc_got_fns = NULL;
		pl_mrc_got_nfns = 0;
	}
	pthread_mutex_unlock(&pl_mrc_got_lock);
}

#else /* no ELF64 RELA platform we know */

int pl_mrc_got_install(struct pl_mrc_got_fn *fns, size_t n)
{
	(void)fns;
	(void)n;
	return -FI_ENOSYS;
}

void pl_mrc_got_rescan(bool try)
{
	(void)try;
}

void pl_mrc_got_remove(void)
{
}

#endif

void pl_mrc_got_counts(size_t *patched_p, size_t *missed_p)
{
	pthread_mutex_lock(&pl_mrc_got_lock);
	*patched_p = pl_mrc_got_nsaved;
	*missed_p = pl_mrc_got_missed;
	pthread_mutex_unlock(&pl_mrc_got_lock);
}
