/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tuning profile (FI_TUNING_PROFILE): read once, kept for the life of
 * the library, looked up by variable name.
 *
 * Why the warnings are collected instead of logged on the spot: logging
 * reads FI_LOG_* through pl_param_lookup(), which consults this profile.
 * A warning logged from inside the pthread_once routine could start the
 * logging set-up, which would call back into pthread_once here and wait
 * for itself. So the routine only records its problems; the first thread
 * past pthread_once prints them, when the profile is already complete.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_log.h"
#include "pl_tuning_profile.h"

/* More problems than this in one file are summed up in one line. */
#define PL_PROFILE_WARN_MAX 16
/* Length of a malformed line quoted back in its warning. */
#define PL_PROFILE_QUOTE_MAX 80

struct pl_profile_entry {
	char	*key;
	char	*value;
};

/*
 * Written only by pl_profile_load_once(); pthread_once() orders those
 * writes before every return from pthread_once(), so readers take no lock.
 * Nothing is freed afterwards except the warnings, by the one reporter.
 */
static struct {
	char			*path;
	struct pl_profile_entry	*entries;
	size_t			count;
	size_t			cap;
	char			*warnings[PL_PROFILE_WARN_MAX];
	size_t			nwarn;
	size_t			dropped;
} pl_profile;

static pthread_once_t pl_profile_once = PTHREAD_ONCE_INIT;

/*
 * 1 while collected warnings wait to be printed. Set inside the once
 * routine (ordered before our load by pthread_once itself); the exchange
 * elects exactly one thread to print and free them.
 */
static pl_atomic_int pl_profile_report_pending;

static void pl_profile_note(const char *fmt, ...) FI_FORMAT_PRINTF(1, 2);

static void pl_profile_note(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int ret;

	if (pl_profile.nwarn == PL_PROFILE_WARN_MAX) {
		pl_profile.dropped++;
		return;
	}
	va_start(ap, fmt);
	ret = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (ret < 0) {
		pl_profile.dropped++;
		return;
	}
	pl_profile.warnings[pl_profile.nwarn++] = msg;
}

static char *pl_profile_skip_blank(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static void pl_profile_rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/*
 * Split one line in place. Returns 1 with *key_p and *val_p set for an
 * assignment, 0 for a blank or comment line, -1 when malformed.
 */
static int pl_profile_split(char *s, char **key_p, char **val_p)
{
	char *key, *key_end, *val, *p;

	s = pl_profile_skip_blank(s);
	if (*s == '\0' || *s == '#')
		return 0;
	if (!strncmp(s, "export", 6) && (s[6] == ' ' || s[6] == '\t'))
		s = pl_profile_skip_blank(s + 6);

	key = s;
	if (!isalpha((unsigned char)*s) && *s != '_')
		return -1;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	key_end = s;
	s = pl_profile_skip_blank(s);
	if (*s != '=')
		return -1;
	*key_end = '\0';
	val = pl_profile_skip_blank(s + 1);

	if (*val == '"' || *val == '\'') {
		p = strchr(val + 1, *val);
		if (!p)
			return -1;
		*p = '\0';
		val++;
		p = pl_profile_skip_blank(p + 1);
		if (*p != '\0' && *p != '#')
			return -1;
	} else {
		/* As in a shell, '#' opens a comment only after a blank. */
		for (p = val; *p; p++) {
			if (*p == '#' && (p == val || p[-1] == ' ' ||
					  p[-1] == '\t')) {
				*p = '\0';
				break;
			}
		}
		pl_profile_rtrim(val);
	}
	*key_p = key;
	*val_p = val;
	return 1;
}

/* Sourcing a file twice leaves the last assignment: do the same. */
static int pl_profile_set(const char *key, const char *value)
{
	struct pl_profile_entry *grown;
	char *k, *v;
	size_t i;

	v = strdup(value);
	if (!v)
		return -1;
	for (i = 0; i < pl_profile.count; i++) {
		if (!strcmp(pl_profile.entries[i].key, key)) {
			free(pl_profile.entries[i].value);
			pl_profile.entries[i].value = v;
			return 0;
		}
	}
	if (pl_profile.count == pl_profile.cap) {
		size_t cap = pl_profile.cap ? 2 * pl_profile.cap : 16;

		grown = realloc(pl_profile.entries, cap * sizeof(*grown));
		if (!grown)
			goto err_free_value;
		pl_profile.entries = grown;
		pl_profile.cap = cap;
	}
	k = strdup(key);
	if (!k)
		goto err_free_value;
	pl_profile.entries[pl_profile.count].key = k;
	pl_profile.entries[pl_profile.count].value = v;
	pl_profile.count++;
	return 0;

err_free_value:
	free(v);
	return -1;
}

static void pl_profile_read(FILE *f, const char *path)
{
	char quote[PL_PROFILE_QUOTE_MAX + 1];
	char *line = NULL, *key, *val;
	size_t cap = 0;
	unsigned int lineno = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) != -1) {
		lineno++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		snprintf(quote, sizeof(quote), "%s", line);

		switch (pl_profile_split(line, &key, &val)) {
		case 0:
			continue;
		case -1:
			pl_profile_note("%s:%u: malformed line ignored "
					"(expected [export] KEY=VALUE): %s%s",
					path, lineno, quote,
					(size_t)n > PL_PROFILE_QUOTE_MAX ?
					"..." : "");
			continue;
		}
		if (!strcmp(key, "FI_TUNING_PROFILE")) {
			pl_profile_note("%s:%u: FI_TUNING_PROFILE inside a "
					"profile has no effect", path, lineno);
			continue;
		}
		if (pl_profile_set(key, val)) {
			pl_profile_note("%s:%u: out of memory; the rest of "
					"the profile is ignored", path, lineno);
			break;
		}
	}
	if (ferror(f))
		pl_profile_note("FI_TUNING_PROFILE=%s: read error after "
				"line %u (%s); later lines are ignored",
				path, lineno, strerror(errno));
	free(line);
}

static void pl_profile_load_once(void)
{
	const char *path = getenv("FI_TUNING_PROFILE");
	FILE *f;

	if (!path || !*path)
		return;

	f = fopen(path, "re");
	if (!f) {
		pl_profile_note("FI_TUNING_PROFILE=%s: cannot open the file "
				"(%s); no profile defaults apply",
				path, strerror(errno));
		goto out;
	}
	pl_profile.path = strdup(path);
	pl_profile_read(f, path);
	fclose(f);
out:
	if (pl_profile.nwarn || pl_profile.dropped)
		pl_store_relaxed(&pl_profile_report_pending, 1);
}

static void pl_profile_report(void)
{
	size_t i;

	for (i = 0; i < pl_profile.nwarn; i++) {
		PL_WARN(FI_LOG_CORE, "%s\n", pl_profile.warnings[i]);
		free(pl_profile.warnings[i]);
		pl_profile.warnings[i] = NULL;
	}
	if (pl_profile.dropped)
		PL_WARN(FI_LOG_CORE, "FI_TUNING_PROFILE: %zu more problems "
			"not shown\n", pl_profile.dropped);
}

static void pl_profile_load(void)
{
	pthread_once(&pl_profile_once, pl_profile_load_once);

	/* The relaxed peek keeps lookups free of a read-modify-write once the
	 * report is out; the exchange (acq_rel, more than needed since
	 * pthread_once already ordered the warnings) picks one reporter. */
	if (PL_UNLIKELY(pl_load_relaxed(&pl_profile_report_pending)) &&
	    pl_exchange_acq_rel(&pl_profile_report_pending, 0))
		pl_profile_report();
}

const char *pl_tuning_profile_lookup(const char *env_name)
{
	size_t i;

	pl_profile_load();
	if (!env_name)
		return NULL;
	for (i = 0; i < pl_profile.count; i++) {
		if (!strcmp(pl_profile.entries[i].key, env_name))
			return pl_profile.entries[i].value;
	}
	return NULL;
}

const char *pl_tuning_profile_path(void)
{
	pl_profile_load();
	return pl_profile.path;
}
