/* tests/lib/netns.c: enter and leave network namespaces by name (netns.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "netns.h"

int
tt_netns_enter(const char *name)
{
	char path[300];
	int self, fd, e;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	if ((self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    setns(fd, CLONE_NEWNET) != 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		close(self);
		errno = e;
		return (-1);
	}
	close(fd);
	return (self);
}

int
tt_netns_leave(int fd)
{
	int rv = setns(fd, CLONE_NEWNET), e = errno;

	close(fd);
	errno = e;
	return (rv);
}
