/* libcommon/lc_proc.c: see lc_proc.h. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libcommon/lc_proc.h"

uint64_t
lc_proc_starttime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return (0);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields start after the last
	 * ')'. */
	if ((p = strrchr(buf, ')')) == NULL)
		return (0);
	p++;
	/* A zombie has exited: it is not a live process. */
	if (strncmp(p, " Z ", 3) == 0 || strncmp(p, " X ", 3) == 0)
		return (0);
	/* field 3 (state) is the first after ')'; starttime is field 22. */
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return (0);
	}
	if (sscanf(p, " %llu", &st) != 1)
		return (0);
	return ((uint64_t)st);
}
