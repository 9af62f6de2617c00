/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The parameter registry: fi_param_define, fi_param_get, fi_getparams,
 * fi_freeparams, and the table mechanism and typed getters of pl_param.h.
 *
 * Registry: an append-only list under one mutex (definitions are rare and
 * come from provider set-up, never from a data path). A record never
 * changes once linked and is never freed, so a pointer found under the
 * lock stays usable after it is released. Enumeration snapshots the count
 * under the lock and walks that many records without it: record i+1 was
 * linked, and record i's next written, before the count that includes
 * them, and the lock hand-over makes those writes visible.
 *
 * Lock rule: nothing logs while pl_params.lock is held, because logging
 * reads parameters.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#include "pl_compiler.h"
#include "pl_core_params.h"
#include "pl_log.h"
#include "pl_param.h"
#include "pl_tuning_profile.h"

/* Longest variable name pl_param_lookup builds on its stack. */
#define PL_PARAM_ENV_MAX 256

struct pl_param_rec {
	struct pl_param_rec		*next;	/* written once, under lock */
	const struct fi_provider	*prov;	/* never NULL: core is &pl_core_prov */
	struct pl_param_info		info;	/* strings owned by the record */
};

static struct {
	pthread_mutex_t		lock;
	struct pl_param_rec	*head;		/* lock */
	struct pl_param_rec	**tail;		/* lock */
	size_t			count;		/* lock */
	void			(*discover)(void);	/* lock */
} pl_params = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.head = NULL,
	.tail = &pl_params.head,
};

static const struct fi_provider *pl_param_owner(const struct fi_provider *prov)
{
	return prov ? prov : &pl_core_prov;
}

static bool pl_param_is_core(const struct fi_provider *prov)
{
	return pl_param_owner(prov) == &pl_core_prov;
}

/* ---- names ---- */

static size_t pl_param_put_upper(char *dst, const char *src)
{
	size_t n;

	for (n = 0; src[n]; n++)
		dst[n] = isalnum((unsigned char)src[n]) ?
			 (char)toupper((unsigned char)src[n]) : '_';
	return n;
}

int pl_param_env_name(const struct fi_provider *prov, const char *name,
		      char *buf, size_t len)
{
	const char *pname = NULL;
	size_t need, n;

	if (!name || !*name || !buf)
		return -FI_EINVAL;
	if (!pl_param_is_core(prov)) {
		pname = prov->name;
		if (!pname || !*pname)
			return -FI_EINVAL;
	}
	need = 3 + (pname ? strlen(pname) + 1 : 0) + strlen(name) + 1;
	if (need > len || need > INT_MAX)
		return -FI_ETOOSMALL;

	memcpy(buf, "FI_", 3);
	n = 3;
	if (pname) {
		n += pl_param_put_upper(buf + n, pname);
		buf[n++] = '_';
	}
	n += pl_param_put_upper(buf + n, name);
	buf[n] = '\0';
	return (int)n;
}

/* ---- values ---- */

static const char *pl_param_value(const char *env_name,
				  enum pl_param_src *src_p)
{
	const char *text = getenv(env_name);
	enum pl_param_src src = PL_PARAM_SRC_ENV;

	if (!text) {
		text = pl_tuning_profile_lookup(env_name);
		src = text ? PL_PARAM_SRC_PROFILE : PL_PARAM_SRC_NONE;
	}
	if (src_p)
		*src_p = src;
	return text;
}

const char *pl_param_lookup(const struct fi_provider *prov, const char *name,
			    enum pl_param_src *src_p)
{
	char env[PL_PARAM_ENV_MAX];

	if (pl_param_env_name(prov, name, env, sizeof(env)) < 0) {
		if (src_p)
			*src_p = PL_PARAM_SRC_NONE;
		return NULL;
	}
	return pl_param_value(env, src_p);
}

/* ---- definitions ---- */

static struct pl_param_rec *pl_param_find_locked(const struct fi_provider *prov,
						 const char *name)
{
	struct pl_param_rec *rec;

	for (rec = pl_params.head; rec; rec = rec->next) {
		if (rec->prov == prov && !strcmp(rec->info.name, name))
			return rec;
	}
	return NULL;
}

static const struct pl_param_rec *pl_param_find(const struct fi_provider *prov,
						const char *name)
{
	const struct pl_param_rec *rec;

	pthread_mutex_lock(&pl_params.lock);
	rec = pl_param_find_locked(pl_param_owner(prov), name);
	pthread_mutex_unlock(&pl_params.lock);
	return rec;
}

static void pl_param_rec_free(struct pl_param_rec *rec)
{
	free((void *)rec->info.name);
	free((void *)rec->info.env_name);
	free((void *)rec->info.help);
	free((void *)rec->info.def);
	free(rec);
}

void pl_param_release_all(void)
{
	struct pl_param_rec *rec, *next;

	pthread_mutex_lock(&pl_params.lock);
	rec = pl_params.head;
	pl_params.head = NULL;
	pl_params.tail = &pl_params.head;
	pl_params.count = 0;
	pthread_mutex_unlock(&pl_params.lock);
	for (; rec; rec = next) {
		next = rec->next;
		pl_param_rec_free(rec);
	}
}

/*
 * Build the record outside the lock, then link it unless (prov, name) is
 * already there. The help gets the provider prefix the reference shows
 * for non-core parameters ("tcp: ...") and, for table rows, the default.
 */
static int pl_param_add(const struct fi_provider *prov, const char *name,
			enum fi_param_type type, const char *help,
			const char *def)
{
	struct pl_param_rec *rec;
	char env[PL_PARAM_ENV_MAX];
	int ret;

	if (!name || !*name || !help || !*help)
		return -FI_EINVAL;
	if (type < FI_PARAM_STRING || type > FI_PARAM_SIZE_T)
		return -FI_EINVAL;
	prov = pl_param_owner(prov);
	ret = pl_param_env_name(prov, name, env, sizeof(env));
	if (ret < 0)
		return -FI_EINVAL;

	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -FI_ENOMEM;
	rec->prov = prov;
	rec->info.prov_name = prov->name;
	rec->info.type = type;
	rec->info.name = strdup(name);
	rec->info.env_name = strdup(env);
	rec->info.def = def ? strdup(def) : NULL;
	ret = asprintf((char **)&rec->info.help, "%s%s%s%s%s%s",
		       prov == &pl_core_prov ? "" : prov->name,
		       prov == &pl_core_prov ? "" : ": ", help,
		       def ? " (default: " : "", def ? def : "",
		       def ? ")" : "");
	if (ret < 0) {
		rec->info.help = NULL;
		goto err_free_rec;
	}
	if (!rec->info.name || !rec->info.env_name || (def && !rec->info.def))
		goto err_free_rec;

	pthread_mutex_lock(&pl_params.lock);
	if (pl_param_find_locked(prov, name)) {
		pthread_mutex_unlock(&pl_params.lock);
		/* The reference answers 0 to a redefinition too; it keeps a
		 * duplicate entry, we keep the first definition only. */
		pl_param_rec_free(rec);
		return 0;
	}
	*pl_params.tail = rec;
	pl_params.tail = &rec->next;
	pl_params.count++;
	pthread_mutex_unlock(&pl_params.lock);
	return 0;

err_free_rec:
	pl_param_rec_free(rec);
	return -FI_ENOMEM;
}

PL_EXPORT int fi_param_define(const struct fi_provider *provider,
			      const char *param_name, enum fi_param_type type,
			      const char *help_string_fmt, ...)
{
	va_list ap;
	char *help;
	int ret;

	if (!param_name || !help_string_fmt)
		return -FI_EINVAL;
	va_start(ap, help_string_fmt);
	ret = vasprintf(&help, help_string_fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -FI_ENOMEM;
	ret = pl_param_add(provider, param_name, type, help, NULL);
	free(help);
	return ret;
}

int pl_param_table_define(const struct fi_provider *prov,
			  const struct pl_param_def *table, size_t count)
{
	int ret, first = 0;
	size_t i;

	if (!table && count)
		return -FI_EINVAL;
	for (i = 0; i < count; i++) {
		ret = pl_param_add(prov, table[i].name, table[i].type,
				   table[i].help, table[i].def);
		if (ret && !first)
			first = ret;
	}
	return first;
}

void pl_param_discover_hook_set(void (*hook)(void))
{
	pthread_mutex_lock(&pl_params.lock);
	pl_params.discover = hook;
	pthread_mutex_unlock(&pl_params.lock);
}

/* Make every parameter that can exist defined, then snapshot the list. */
static struct pl_param_rec *pl_param_snapshot(size_t *count_p)
{
	struct pl_param_rec *head;
	void (*hook)(void);

	pl_core_params_init();
	pthread_mutex_lock(&pl_params.lock);
	hook = pl_params.discover;
	pthread_mutex_unlock(&pl_params.lock);
	if (hook)
		hook();

	pthread_mutex_lock(&pl_params.lock);
	head = pl_params.head;
	*count_p = pl_params.count;
	pthread_mutex_unlock(&pl_params.lock);
	return head;
}

int pl_param_foreach(int (*fn)(const struct pl_param_info *info, void *arg),
		     void *arg)
{
	struct pl_param_rec *rec;
	size_t i, count;
	int ret;

	if (!fn)
		return -FI_EINVAL;
	rec = pl_param_snapshot(&count);
	for (i = 0; i < count; i++, rec = rec->next) {
		ret = fn(&rec->info, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- parsing ---- */

static const char *pl_param_skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static int pl_param_parse_int(const char *text, int min, int max, int *out)
{
	const char *s = pl_param_skip_space(text);
	char *end;
	long long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (end == s || errno == ERANGE || *pl_param_skip_space(end))
		return -1;
	if (v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

/* "-1" is the one negative accepted: it spells SIZE_MAX, as reference
 * providers document for their size_t variables. */
static int pl_param_parse_size(const char *text, size_t min, size_t max,
			       size_t *out)
{
	const char *s = pl_param_skip_space(text);
	unsigned long long v;
	char *end;

	if (*s == '-') {
		if (s[1] != '1' || *pl_param_skip_space(s + 2))
			return -1;
		v = SIZE_MAX;
	} else {
		if (!isdigit((unsigned char)*s) && *s != '+')
			return -1;
		errno = 0;
		v = strtoull(s, &end, 0);
		if (end == s || errno == ERANGE || v > SIZE_MAX ||
		    *pl_param_skip_space(end))
			return -1;
	}
	if (v < min || v > max)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int pl_param_parse_bool(const char *text, int *out)
{
	static const struct {
		const char	*word;
		int		value;
	} words[] = {
		{ "1", 1 }, { "yes", 1 }, { "true", 1 }, { "on", 1 },
		{ "0", 0 }, { "no", 0 }, { "false", 0 }, { "off", 0 },
	};
	const char *s = pl_param_skip_space(text);
	size_t len = strlen(s), i;

	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	for (i = 0; i < PL_ARRAY_SIZE(words); i++) {
		if (strlen(words[i].word) == len &&
		    !strncasecmp(s, words[i].word, len)) {
			*out = words[i].value;
			return 0;
		}
	}
	return -1;
}

/* ---- reporting ---- */

static const char *pl_param_src_text(enum pl_param_src src)
{
	return src == PL_PARAM_SRC_PROFILE ? "tuning profile" : "environment";
}

static void pl_param_accepted(enum fi_param_type type, long long imin,
			      long long imax, size_t zmin, size_t zmax,
			      char *buf, size_t len)
{
	switch (type) {
	case FI_PARAM_INT:
		snprintf(buf, len, "an integer in [%lld, %lld] (decimal, "
			 "0x hex or 0-prefixed octal)", imin, imax);
		break;
	case FI_PARAM_SIZE_T:
		snprintf(buf, len, "a size in [%zu, %zu] (decimal, 0x hex or "
			 "0-prefixed octal, no unit suffix%s)", zmin, zmax,
			 zmax == SIZE_MAX ? "; -1 means the largest" : "");
		break;
	case FI_PARAM_BOOL:
		snprintf(buf, len, "a boolean: 0/1, yes/no, true/false or "
			 "on/off, in any case");
		break;
	default:
		snprintf(buf, len, "a string");
		break;
	}
}

/* One warning per rejected value: variable, value, where it came from,
 * what is accepted, and what happens instead (outcome). */
static void pl_param_warn_invalid(const struct pl_param_rec *rec,
				  const char *text, enum pl_param_src src,
				  const char *accepted, const char *outcome)
{
	PL_LOG(rec->prov, FI_LOG_WARN, FI_LOG_CORE,
	       "%s=\"%s\" (from the %s) is not valid: expected %s; %s\n",
	       rec->info.env_name, text, pl_param_src_text(src), accepted,
	       outcome);
}

static void pl_param_note_read(const struct pl_param_rec *rec,
			       const char *text, enum pl_param_src src)
{
	PL_LOG(rec->prov, FI_LOG_INFO, FI_LOG_CORE, "%s=%s (from the %s)\n",
	       rec->info.env_name, text, pl_param_src_text(src));
}

/* ---- fi_param_get ---- */

PL_EXPORT int fi_param_get(struct fi_provider *provider,
			   const char *param_name, void *value)
{
	const struct pl_param_rec *rec;
	enum pl_param_src src;
	char accepted[160];
	const char *text;
	int ret, iv;
	size_t zv;

	if (!param_name || !value)
		return -FI_EINVAL;
	/* Core variables may be read before anything asked for fi_getparams;
	 * their definitions must exist for fi_param_get to find them. */
	if (pl_param_is_core(provider))
		pl_core_params_init();
	rec = pl_param_find(provider, param_name);
	if (!rec)
		return -FI_ENOENT;
	text = pl_param_value(rec->info.env_name, &src);
	if (!text)
		return -FI_ENODATA;

	switch (rec->info.type) {
	case FI_PARAM_STRING:
		*(char **)value = (char *)text;
		ret = 0;
		break;
	case FI_PARAM_INT:
		ret = pl_param_parse_int(text, INT_MIN, INT_MAX, &iv);
		if (!ret)
			*(int *)value = iv;
		break;
	case FI_PARAM_BOOL:
		ret = pl_param_parse_bool(text, &iv);
		if (!ret)
			*(int *)value = iv;
		break;
	case FI_PARAM_SIZE_T:
		ret = pl_param_parse_size(text, 0, SIZE_MAX, &zv);
		if (!ret)
			*(size_t *)value = zv;
		break;
	default:
		ret = -1;
		break;
	}
	if (ret) {
		pl_param_accepted(rec->info.type, INT_MIN, INT_MAX, 0, SIZE_MAX,
				  accepted, sizeof(accepted));
		pl_param_warn_invalid(rec, text, src, accepted,
				      "the value is ignored");
		return -FI_EINVAL;
	}
	pl_param_note_read(rec, text, src);
	return 0;
}

/* ---- typed getters ---- */

/* The definition and raw text of (prov, name), or NULL (use the default). */
static const char *pl_param_fetch(const struct fi_provider *prov,
				  const char *name,
				  const struct pl_param_rec **rec_p,
				  enum pl_param_src *src_p)
{
	const struct pl_param_rec *rec;

	if (!name)
		return NULL;
	if (pl_param_is_core(prov))
		pl_core_params_init();
	rec = pl_param_find(prov, name);
	if (!rec) {
		PL_WARN(FI_LOG_CORE, "parameter \"%s\" of provider %s read "
			"before it was defined (coding error); using its "
			"default\n", name, pl_param_owner(prov)->name ?
			pl_param_owner(prov)->name : "(unnamed)");
		return NULL;
	}
	*rec_p = rec;
	return pl_param_value(rec->info.env_name, src_p);
}

int pl_param_get_int(const struct fi_provider *prov, const char *name,
		     int def, int min, int max)
{
	const struct pl_param_rec *rec;
	char accepted[160], outcome[64];
	enum pl_param_src src;
	const char *text;
	int v;

	text = pl_param_fetch(prov, name, &rec, &src);
	if (!text)
		return def;
	if (pl_param_parse_int(text, min, max, &v)) {
		pl_param_accepted(FI_PARAM_INT, min, max, 0, 0, accepted,
				  sizeof(accepted));
		snprintf(outcome, sizeof(outcome), "using the default %d", def);
		pl_param_warn_invalid(rec, text, src, accepted, outcome);
		return def;
	}
	pl_param_note_read(rec, text, src);
	return v;
}

size_t pl_param_get_size(const struct fi_provider *prov, const char *name,
			 size_t def, size_t min, size_t max)
{
	const struct pl_param_rec *rec;
	char accepted[160], outcome[64];
	enum pl_param_src src;
	const char *text;
	size_t v;

	text = pl_param_fetch(prov, name, &rec, &src);
	if (!text)
		return def;
	if (pl_param_parse_size(text, min, max, &v)) {
		pl_param_accepted(FI_PARAM_SIZE_T, 0, 0, min, max, accepted,
				  sizeof(accepted));
		snprintf(outcome, sizeof(outcome), "using the default %zu",
			 def);
		pl_param_warn_invalid(rec, text, src, accepted, outcome);
		return def;
	}
	pl_param_note_read(rec, text, src);
	return v;
}

bool pl_param_get_bool(const struct fi_provider *prov, const char *name,
		       bool def)
{
	const struct pl_param_rec *rec;
	char accepted[160], outcome[64];
	enum pl_param_src src;
	const char *text;
	int v;

	text = pl_param_fetch(prov, name, &rec, &src);
	if (!text)
		return def;
	if (pl_param_parse_bool(text, &v)) {
		pl_param_accepted(FI_PARAM_BOOL, 0, 0, 0, 0, accepted,
				  sizeof(accepted));
		snprintf(outcome, sizeof(outcome), "using the default %s",
			 def ? "yes" : "no");
		pl_param_warn_invalid(rec, text, src, accepted, outcome);
		return def;
	}
	pl_param_note_read(rec, text, src);
	return v != 0;
}

const char *pl_param_get_str(const struct fi_provider *prov, const char *name,
			     const char *def)
{
	const struct pl_param_rec *rec;
	enum pl_param_src src;
	const char *text;

	text = pl_param_fetch(prov, name, &rec, &src);
	if (!text)
		return def;
	pl_param_note_read(rec, text, src);
	return text;
}

/* ---- fi_getparams / fi_freeparams ---- */

PL_EXPORT void fi_freeparams(struct fi_param *params)
{
	struct fi_param *p;

	if (!params)
		return;
	/* The array ends with a zeroed entry, as the reference's does. */
	for (p = params; p->name; p++) {
		free((void *)p->name);
		free((void *)p->help_string);
		free((void *)p->value);
	}
	free(params);
}

PL_EXPORT int fi_getparams(struct fi_param **params, int *count)
{
	const struct pl_param_rec *rec;
	struct fi_param *vec;
	size_t i, n;
	const char *text;

	if (!params || !count)
		return -FI_EINVAL;
	rec = pl_param_snapshot(&n);
	if (n > INT_MAX - 1)
		return -FI_EOVERFLOW;
	vec = calloc(n + 1, sizeof(*vec));
	if (!vec)
		return -FI_ENOMEM;

	for (i = 0; i < n; i++, rec = rec->next) {
		vec[i].type = rec->info.type;
		vec[i].name = strdup(rec->info.env_name);
		vec[i].help_string = strdup(rec->info.help);
		text = pl_param_value(rec->info.env_name, NULL);
		vec[i].value = text ? strdup(text) : NULL;
		if (!vec[i].name || !vec[i].help_string ||
		    (text && !vec[i].value))
			goto err_free_vec;
	}
	*params = vec;
	*count = (int)n;
	return 0;

err_free_vec:
	/* fi_freeparams stops at the first NULL name: free entry i by hand. */
	free((void *)vec[i].name);
	vec[i].name = NULL;
	free((void *)vec[i].help_string);
	free((void *)vec[i].value);
	fi_freeparams(vec);
	return -FI_ENOMEM;
}
