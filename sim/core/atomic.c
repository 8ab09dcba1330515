/* atomic.c - writing an output file so that it is either complete or absent:
 * the content goes to PATH.tmp, which replaces PATH by rename(2) (atomic on
 * POSIX file systems) only when every write and the close succeeded;
 * otherwise PATH.tmp is removed and PATH is left as it was. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

int sim_write_atomic(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	size_t n = strlen(path) + 5;
	char *tmp = malloc(n);
	if (!tmp)
		return SIM_ENOMEM;
	snprintf(tmp, n, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = f ? SIM_OK : SIM_EIO;
	if (f) {
		rc = fill(f, ctx);
		if (ferror(f) && rc == SIM_OK)
			rc = SIM_EIO;
		if (fclose(f) != 0 && rc == SIM_OK)
			rc = SIM_EIO;
		if (rc == SIM_OK && rename(tmp, path) != 0)
			rc = SIM_EIO;
		if (rc != SIM_OK)
			remove(tmp);
	}
	free(tmp);
	return rc;
}
