/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tuning profile: an environment file named by FI_TUNING_PROFILE whose
 * assignments act as defaults for FI_* parameters; a variable set in the
 * real environment always wins (pl_param_lookup applies that order).
 *
 * File format, one assignment per line:
 *
 *	# comment
 *	FI_PROGRESS_SPIN_US=20
 *	export FI_OFI_RXM_BUFFER_SIZE=16384
 *	FI_PROVIDER="shm"		# quotes are stripped
 *
 * Blank lines and lines starting with '#' are skipped; a '#' after
 * whitespace starts a comment; the last assignment of a name wins.
 *
 * The file is read once, on the first lookup, by whichever thread gets
 * there first (pthread_once); the others wait for it. Problems (missing
 * or unreadable file, malformed lines) are warned about once, after the
 * read, so that the warning path may itself look up parameters.
 */
#ifndef PROPEL_PL_TUNING_PROFILE_H
#define PROPEL_PL_TUNING_PROFILE_H

/*
 * The profile's value for the variable env_name, or NULL when there is no
 * profile or it does not set env_name. The string lives until the library
 * is unloaded.
 */
const char *pl_tuning_profile_lookup(const char *env_name);

/* The path the profile was read from, or NULL when none was read. */
const char *pl_tuning_profile_path(void);

#endif /* PROPEL_PL_TUNING_PROFILE_H */
