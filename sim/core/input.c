/* input.c - opening input files (scenarios, includes, case CSVs, sweep files,
 * nccl-tests logs) so that no input can hang podsim or exhaust its memory.
 *
 * The file is opened with O_NONBLOCK, so opening a FIFO without a writer
 * returns at once instead of blocking, and fstat(2) on the open descriptor
 * (no race with a rename between a stat and the open) must show a regular
 * file: FIFOs, devices (/dev/zero grows without end, /dev/stdin waits),
 * sockets and directories are refused with their kind. A regular file larger
 * than the caller's cap is refused before reading; reading stops at the cap
 * too, in case the file grows meanwhile. O_NONBLOCK is then cleared (it has
 * no effect on regular files, but the stream should not carry it).
 *
 * Errors are errno values; the kinds podsim adds map onto existing codes
 * (sim_input_strerror words them): ESPIPE a FIFO, ENODEV a device, ENOTSOCK
 * a socket, EISDIR a directory, EFBIG over the cap. */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int kind_err(mode_t m)
{
	return S_ISREG(m)    ? 0
	       : S_ISDIR(m)  ? EISDIR
	       : S_ISFIFO(m) ? ESPIPE
	       : S_ISSOCK(m) ? ENOTSOCK
			     : ENODEV;
}

int sim_input_open(const char *path, size_t max_bytes, FILE **out, sim_file_id *id)
{
	*out = NULL;
	if (!path || !*path)
		return ENOENT;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	struct stat st;
	int err = fstat(fd, &st) != 0 ? errno : kind_err(st.st_mode);
	if (!err && (uint64_t)st.st_size > (uint64_t)max_bytes)
		err = EFBIG;
	int fl = err ? 0 : fcntl(fd, F_GETFL);
	if (!err && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
		err = errno;
	FILE *f = err ? NULL : fdopen(fd, "rb");
	if (!err && !f)
		err = errno;
	if (err) {
		close(fd);
		return err;
	}
	if (id)
		id->dev = (uint64_t)st.st_dev, id->ino = (uint64_t)st.st_ino;
	*out = f;
	return 0;
}

int sim_input_read(const char *path, size_t max_bytes, char **text, size_t *len, sim_file_id *id)
{
	*text = NULL;
	*len = 0;
	FILE *f;
	int err = sim_input_open(path, max_bytes, &f, id);
	if (err)
		return err;
	sim_buf b;
	sim_buf_init(&b);
	char chunk[65536];
	size_t n;
	while (!err && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		sim_buf_append(&b, chunk, n);
		err = b.oom ? ENOMEM : b.len > max_bytes ? EFBIG : 0;
	}
	if (!err && ferror(f))
		err = EIO;
	fclose(f);
	if (!err && !b.data) { /* empty: still a string */
		sim_buf_append(&b, "", 0);
		err = b.oom || !b.data ? ENOMEM : 0;
	}
	if (err) {
		sim_buf_free(&b);
		return err;
	}
	*text = b.data;
	*len = b.len;
	return 0;
}

const char *sim_input_strerror(int err)
{
	switch (err) {
	case ESPIPE:
		return "a FIFO, not a regular file";
	case ENODEV:
		return "a device, not a regular file";
	case ENOTSOCK:
		return "a socket, not a regular file";
	case EISDIR:
		return "a directory, not a regular file";
	case EFBIG:
		return "too large for an input file";
	default:
		return strerror(err);
	}
}
