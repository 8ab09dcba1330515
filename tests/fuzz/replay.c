/* replay.c - replays a libFuzzer corpus without libFuzzer.
 *
 * Usage: replay_<target> DIR...
 * Calls LLVMFuzzerTestOneInput (linked in from fuzz_conf.c or fuzz_csv.c) on
 * every regular file of each directory, in sorted name order so runs are
 * deterministic, then prints "N inputs replayed". Any compiler builds it, so
 * the corpus runs as an ordinary `meson test` (suite 'fuzz') under gcc; a
 * crash or sanitizer report fails the test. Exit status 1 if a directory or
 * file cannot be read, or if a directory holds no inputs at all.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read the whole file into a fresh buffer (exactly *size bytes, so ASan sees
 * overreads). Returns NULL on failure. */
static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return NULL;
	}
	if (len)
		memcpy(exact, buf, len);
	free(buf);
	*size = len;
	return exact;
}

/* Replay every regular file in dir; returns the count, or -1 on error. */
static long replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "%s: cannot open directory\n", dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn)
				abort();
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (!names[n])
			abort();
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_names);

	long count = 0;
	for (size_t i = 0; i < n; i++) {
		size_t plen = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(plen);
		if (!path)
			abort();
		snprintf(path, plen, "%s/%s", dir, names[i]);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			size_t size = 0;
			uint8_t *data = read_file(path, &size);
			if (!data) {
				fprintf(stderr, "%s: cannot read\n", path);
				count = -1;
			} else {
				LLVMFuzzerTestOneInput(data, size);
				free(data);
				if (count >= 0)
					count++;
			}
		}
		free(path);
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR...\n", argv[0]);
		return 2;
	}
	long total = 0;
	int status = 0;
	for (int i = 1; i < argc; i++) {
		long n = replay_dir(argv[i]);
		if (n <= 0) {
			if (n == 0)
				fprintf(stderr, "%s: no inputs\n", argv[i]);
			status = 1;
		} else {
			total += n;
		}
	}
	printf("%ld inputs replayed\n", total);
	return status;
}
