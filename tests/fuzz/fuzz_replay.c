/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A plain driver for the fuzz targets: feeds every file named on the
 * command line (or found in a directory named there) to
 * LLVMFuzzerTestOneInput once. It lets the seed corpus, and any crash a
 * fuzzing run left, run as an ordinary test with any compiler; a target
 * that finds a broken rule aborts, which fails the test. No input at all
 * is a failure too (a corpus that went missing).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	/* exactly len bytes, so that ASan sees a read past the input */
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 1;
}

static int replay(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[4096];
	int n = 0, r;
	DIR *d;

	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		r = replay(sub);
		if (r < 0) {
			closedir(d);
			return r;
		}
		n += r;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int total = 0, r;

	for (int i = 1; i < argc; i++) {
		r = replay(argv[i]);
		if (r < 0)
			return 1;
		total += r;
	}
	printf("%d inputs replayed\n", total);
	return total ? 0 : 1;
}
