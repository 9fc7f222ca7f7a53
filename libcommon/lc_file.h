/* libcommon/lc_file.h: writing files so that a crash cannot part them from
 * their directory entry (mgmt's commit store, ternsh's save), and opening
 * files to read without ever blocking on one that is not a file. */
#ifndef LC_FILE_H
#define LC_FILE_H

#include <stddef.h>
#include <stdint.h>

struct stat;

/* All of p[0..len) to fd, through EINTR and short writes: 0 or -errno
 * (-EIO for a write of 0). */
int lc_write_all(int fd, const void *p, size_t len);
/* fsync of the directory holding path (".": no slash in it): 0 or -errno. */
int lc_fsync_dir_of(const char *path);

/*
 * Opens path to read (flags: more open flags, O_NOFOLLOW say) so that no
 * kind of file can block the caller: O_NONBLOCK, so a FIFO or a device
 * opens at once, then fstat of what was opened (not a stat before, which a
 * file swapped in meanwhile would pass) and only a regular file of at most
 * max bytes is kept. *fd gets it (O_CLOEXEC; O_NONBLOCK means nothing to a
 * regular file), *st its stat when st is not NULL. 0; -errno of open or
 * fstat; -EISDIR for a directory, -EINVAL for anything else that is not a
 * regular file, -EFBIG over max (st is filled for these three).
 */
int lc_open_regular(const char *path, int flags, uint64_t max, int *fd,
    struct stat *st);
/* The words for lc_open_regular's refusals ("is a directory", "not a
 * regular file", "too big"), strerror() for the others. */
const char *lc_open_regular_str(int rv);

#endif /* LC_FILE_H */
