/* tests/unit/fwd/fwd_test_netns.h: the namespace topology of tests/lib/netns.sh for fwd's root-only C tests: create it, enter a namespace, remove it (also when the test is killed). */
#ifndef FWD_TEST_NETNS_H
#define FWD_TEST_NETNS_H

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/lib/netns.h"

/* "" when there is no topology: the tests that need it skip */
static char suffix[32];
static char ns_client[64], ns_router[64], ns_server[64];
static int ns_root_fd = -1;

/* Enters namespace name (NULL: the one the test started in). 0 or -1. */
static int
enter_ns(const char *name)
{
	int back;

	if (name == NULL)
		return (setns(ns_root_fd, CLONE_NEWNET));
	if ((back = tt_netns_enter(name)) < 0)
		return (-1);
	close(back);
	return (0);
}

/* Killed (e.g. by the test runner's timeout): remove the namespaces. */
static void
tn_on_term(int sig)
{
	char cmd[160];

	(void)sig;
	if (suffix[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "bash tests/lib/netns.sh cleanup %s",
		    suffix);
		if (system(cmd) != 0)
			_exit(3);
	}
	_exit(3);
}

/*
 * Creates client, router and server namespaces named tern-{c,r,s}-<tag><pid>
 * with netns.sh. 0, or -1 when they could not be made (suffix is then "",
 * and the caller skips).
 */
static int
tn_create(char tag)
{
	char cmd[256];

	snprintf(suffix, sizeof(suffix), "%c%d", tag, (int)getpid());
	snprintf(ns_client, sizeof(ns_client), "tern-c-%s", suffix);
	snprintf(ns_router, sizeof(ns_router), "tern-r-%s", suffix);
	snprintf(ns_server, sizeof(ns_server), "tern-s-%s", suffix);
	snprintf(cmd, sizeof(cmd),
	    "timeout 30 bash tests/lib/netns.sh create %s", suffix);
	if (system(cmd) != 0) {
		suffix[0] = '\0';
		return (-1);
	}
	ns_root_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	signal(SIGTERM, tn_on_term);
	signal(SIGINT, tn_on_term);
	return (0);
}

/* Back to the first namespace, and the topology removed. */
static void
tn_destroy(void)
{
	char cmd[256];

	if (suffix[0] != '\0') {
		enter_ns(NULL);
		snprintf(cmd, sizeof(cmd),
		    "timeout 30 bash tests/lib/netns.sh cleanup %s", suffix);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup failed\n");
		suffix[0] = '\0';
	}
	if (ns_root_fd >= 0)
		close(ns_root_fd);
	ns_root_fd = -1;
}

#endif
