/* libcommon/lc_file.h: writing files so that a crash cannot part them from
 * their directory entry (mgmt's commit store, ternsh's save). */
#ifndef LC_FILE_H
#define LC_FILE_H

#include <stddef.h>

/* All of p[0..len) to fd, through EINTR and short writes: 0 or -errno
 * (-EIO for a write of 0). */
int lc_write_all(int fd, const void *p, size_t len);
/* fsync of the directory holding path (".": no slash in it): 0 or -errno. */
int lc_fsync_dir_of(const char *path);

#endif /* LC_FILE_H */
