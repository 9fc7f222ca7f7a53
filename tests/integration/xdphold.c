/* tests/integration/xdphold.c: holds a device's XDP slot with a BPF link
 * (an XDP_PASS program), so that another program cannot be attached there
 * (a netlink attach over a link fails with EBUSY) until this exits.
 * Usage: xdphold IFNAME (in the device's namespace); prints "held" once the
 * link exists, then waits for a signal. The scripts use it to make AF_XDP
 * fail on a device (tern-fwd's port-backend auto then falls back). */
#include <errno.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long
bpf(int cmd, union bpf_attr *a)
{
	return (syscall(__NR_bpf, cmd, a, sizeof(*a)));
}

int
main(int argc, char **argv)
{
	/* r0 = XDP_PASS; exit */
	struct bpf_insn insn[2] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K,
		.dst_reg = BPF_REG_0,
		.imm = XDP_PASS},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr a;
	unsigned ifindex;
	long prog, link;

	if (argc != 2 || (ifindex = if_nametoindex(argv[1])) == 0) {
		fprintf(stderr, "usage: xdphold IFNAME (an existing device)\n");
		return (2);
	}
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.insns = (unsigned long)insn;
	a.insn_cnt = 2;
	a.license = (unsigned long)"GPL";
	if ((prog = bpf(BPF_PROG_LOAD, &a)) < 0) {
		fprintf(stderr, "xdphold: load: %s\n", strerror(errno));
		return (1);
	}
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (unsigned)prog;
	a.link_create.target_ifindex = ifindex;
	a.link_create.attach_type = BPF_XDP;
	if ((link = bpf(BPF_LINK_CREATE, &a)) < 0) {
		fprintf(stderr, "xdphold: link on %s: %s\n", argv[1],
		    strerror(errno));
		return (1);
	}
	printf("held\n");
	fflush(stdout);
	for (;;)
		pause(); /* the link goes with the process */
}
