/* atomic.c - writing an output file so that it is either complete or absent,
 * and never writing anywhere the user did not name.
 *
 * A regular (or not yet existing) PATH is written through a temporary file
 * created by mkstemp(3) in PATH's own directory: a fresh, unique name opened
 * with O_CREAT | O_EXCL, so two processes writing the same output never share
 * it and a symlink planted at a predictable name is never followed (O_EXCL
 * fails on any existing name, dangling links included). The data is flushed
 * and fsync'ed, then rename(2) replaces PATH (atomic on POSIX file systems;
 * a symlink at PATH itself is replaced, not followed), and the directory is
 * fsync'ed so the rename survives a crash. On any failure the temporary file
 * is removed and PATH is left as it was.
 *
 * A PATH that exists and is not a regular file is written in place, because
 * renaming over it would replace the device with a file: character and block
 * devices (/dev/null, /dev/full, /dev/stdout through its link) and FIFOs
 * (a pipe to a compressor). Such writes cannot be all or nothing; their errors
 * (ENOSPC from /dev/full) are still reported. "-" is standard output.
 * Directories and sockets are refused.
 *
 * On SIM_EIO, errno holds the reason for the caller's message. */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum { OUT_TEMP, OUT_DIRECT, OUT_STDOUT } out_kind;

struct sim_out {
	out_kind kind;
	FILE *f;
	char *path; /* the target */
	char *tmp;  /* OUT_TEMP: the temporary file beside it */
};

/* The file mode a plain fopen(PATH, "w") would give: 0666 less the umask.
 * umask(2) can only be read by setting it, so it is set back at once. */
static mode_t default_mode(void)
{
	mode_t m = umask(022);
	umask(m);
	return (mode_t)(0666 & ~m);
}

int sim_out_check(const char *path, char *why, size_t len)
{
	struct stat st;
	if (!path || !*path) {
		snprintf(why, len, "an empty output file name");
		errno = ENOENT;
		return SIM_EIO;
	}
	if (!strcmp(path, "-"))
		return SIM_OK;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(why, len, "is a directory, not an output file");
			errno = EISDIR;
			return SIM_EIO;
		}
		if (S_ISSOCK(st.st_mode)) {
			snprintf(why, len, "is a socket, not an output file");
			errno = ENXIO;
			return SIM_EIO;
		}
		return SIM_OK;
	}
	if (errno != ENOENT) {
		snprintf(why, len, "%s", strerror(errno));
		return SIM_EIO;
	}
	/* A new file: its directory must exist and be one. */
	const char *slash = strrchr(path, '/');
	if (!slash)
		return SIM_OK;
	if (path[strlen(path) - 1] == '/') {
		snprintf(why, len, "names a directory, not an output file");
		errno = EISDIR;
		return SIM_EIO;
	}
	size_t n = (size_t)(slash - path);
	char *dir = malloc(n + 2);
	if (!dir) {
		snprintf(why, len, "out of memory");
		return SIM_ENOMEM;
	}
	memcpy(dir, path, n);
	dir[n ? n : 1] = '\0';
	if (!n)
		dir[0] = '/';
	int rc = SIM_OK;
	int e = 0;
	if (stat(dir, &st) != 0) {
		snprintf(why, len, "no such directory: %s", dir);
		e = ENOENT;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s is not a directory", dir);
		e = ENOTDIR;
	}
	free(dir);
	if (e) {
		errno = e;
		rc = SIM_EIO;
	}
	return rc;
}

static void out_free(sim_out *o)
{
	if (o) {
		free(o->path);
		free(o->tmp);
		free(o);
	}
}

/* mkstemp in PATH's directory: DIR/.podsim-XXXXXX (short, so a long file
 * name cannot push it past NAME_MAX). */
static int open_temp(sim_out *o)
{
	const char *slash = strrchr(o->path, '/');
	size_t dlen = slash ? (size_t)(slash - o->path) + 1 : 0;
	static const char name[] = ".podsim-XXXXXX";
	o->tmp = malloc(dlen + sizeof name);
	if (!o->tmp)
		return SIM_ENOMEM;
	memcpy(o->tmp, o->path, dlen);
	memcpy(o->tmp + dlen, name, sizeof name);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return SIM_EIO;
	}
	struct stat st;
	mode_t mode = stat(o->path, &st) == 0 ? (mode_t)(st.st_mode & 0777) : default_mode();
	if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		errno = e;
		return SIM_EIO;
	}
	return SIM_OK;
}

int sim_out_open(const char *path, sim_out **out)
{
	*out = NULL;
	char why[160];
	int rc = sim_out_check(path, why, sizeof why);
	if (rc != SIM_OK)
		return rc;
	sim_out *o = calloc(1, sizeof *o);
	if (!o || !(o->path = strdup(path))) {
		out_free(o);
		return SIM_ENOMEM;
	}
	struct stat st;
	if (!strcmp(path, "-")) {
		o->kind = OUT_STDOUT;
		o->f = stdout;
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or FIFO: in place (blocking: a FIFO waits for its reader). */
		o->kind = OUT_DIRECT;
		int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			out_free(o);
			errno = e;
			return SIM_EIO;
		}
	} else if ((rc = open_temp(o)) != SIM_OK) {
		int e = errno;
		out_free(o);
		errno = e;
		return rc;
	}
	*out = o;
	return SIM_OK;
}

FILE *sim_out_file(sim_out *o)
{
	return o->f;
}

/* fsync the directory holding PATH so that the rename is durable. Best
 * effort: some file systems refuse fsync on a directory. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	if (!dir)
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

int sim_out_close(sim_out *o, int rc)
{
	if (!o)
		return rc;
	int e = 0;
	/* Flush first: a full device reports ENOSPC here, not at fwrite. */
	if (fflush(o->f) != 0 || ferror(o->f)) {
		e = errno ? errno : EIO;
		if (rc == SIM_OK)
			rc = SIM_EIO;
	}
	if (o->kind == OUT_TEMP && rc == SIM_OK && fsync(fileno(o->f)) != 0) {
		e = errno;
		rc = SIM_EIO;
	}
	if (o->kind != OUT_STDOUT && fclose(o->f) != 0 && rc == SIM_OK) {
		e = errno;
		rc = SIM_EIO;
	}
	if (o->kind == OUT_TEMP) {
		if (rc == SIM_OK && rename(o->tmp, o->path) != 0) {
			e = errno;
			rc = SIM_EIO;
		}
		if (rc != SIM_OK)
			unlink(o->tmp);
		else
			sync_dir(o->path);
	}
	out_free(o);
	if (rc == SIM_EIO)
		errno = e ? e : EIO;
	return rc;
}

int sim_write_atomic(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	sim_out *o;
	int rc = sim_out_open(path, &o);
	if (rc != SIM_OK)
		return rc;
	errno = 0;
	return sim_out_close(o, fill(o->f, ctx));
}
