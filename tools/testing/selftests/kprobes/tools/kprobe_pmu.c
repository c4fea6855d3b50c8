// SPDX-License-Identifier: GPL-2.0
/*
 * The perf kprobe PMU, as BCC and libbpf attach through it: a kprobe (or
 * kretprobe) made by perf_event_open() on the "kprobe" PMU type, counting
 * the calls this process makes, and a BPF program attached to it with
 * PERF_EVENT_IOC_SET_BPF that counts them in a map.  No library: raw
 * syscalls and a hand-assembled BPF program, so that it links statically
 * into the test initramfs.
 *
 *   kprobe_pmu <function> <forks> [ret]
 *
 * Prints "listed=<0|1>" (the probe in debugfs' list while attached),
 * "count=<n>" (the event's count), "bpf=<n>" (the program's runs) and
 * "gone=<0|1>" (not in the list after close).  Exit 0 when all went.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1;

	if (!f || fscanf(f, "%d", &type) != 1)
		type = -1;
	if (f)
		fclose(f);
	return type;
}

static int listed(const char *func)
{
	FILE *f = fopen("/sys/kernel/debug/kprobes/list", "r");
	char line[512];
	int found = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, func);

		if (p && p[strlen(func)] == '+')
			found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

/* An array map of one u64, and a program that adds 1 to it. */
static int load_counter(int *map_fd)
{
	union bpf_attr attr;
	static char log[4096];
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 1;
	*map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	if (*map_fd < 0)
		return -1;

	struct bpf_insn prog[] = {
		/* r1 = map */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = *map_fd },
		{ 0 },
		/* *(u32 *)(r10 - 4) = 0; r2 = r10 - 4 */
		{ .code = BPF_ST | BPF_W | BPF_MEM, .dst_reg = 10, .off = -4 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 2, .imm = -4 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		/* if r0 == 0 goto out */
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = 0, .off = 2 },
		/* r1 = 1; lock *(u64 *)(r0 + 0) += r1 */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 1, .imm = 1 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = 0,
		  .src_reg = 1, .imm = BPF_ADD },
		/* out: return 1 (0 would drop the event: no count) */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		fprintf(stderr, "kprobe_pmu: BPF_PROG_LOAD: %s\n%s\n",
			strerror(errno), log);
	return fd;
}

static uint64_t map_value(int map_fd)
{
	union bpf_attr attr;
	uint32_t key = 0;
	uint64_t value = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)&value;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		return (uint64_t)-1;
	return value;
}

int main(int argc, char **argv)
{
	struct perf_event_attr pe;
	int type, fd, prog, map, i, n, ret;
	uint64_t count = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: kprobe_pmu <function> <forks> [ret]\n");
		return 2;
	}
	n = atoi(argv[2]);
	ret = argc > 3 && !strcmp(argv[3], "ret");
	type = pmu_type();
	if (type < 0) {
		fprintf(stderr, "kprobe_pmu: no kprobe PMU\n");
		return 1;
	}

	memset(&pe, 0, sizeof(pe));
	pe.size = sizeof(pe);
	pe.type = type;
	pe.config = ret;		/* format/retprobe: config:0 */
	pe.kprobe_func = (uintptr_t)argv[1];
	pe.probe_offset = 0;
	pe.sample_period = 1;
	pe.disabled = 1;
	/* This process on any CPU: the forks below are its own calls. */
	fd = syscall(__NR_perf_event_open, &pe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kprobe_pmu: perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	printf("listed=%d\n", listed(argv[1]));

	prog = load_counter(&map);
	if (prog < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog)) {
		fprintf(stderr, "kprobe_pmu: attaching BPF: %s\n", strerror(errno));
		return 1;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = (uint64_t)-1;
	printf("count=%llu\n", (unsigned long long)count);
	printf("bpf=%llu\n", (unsigned long long)map_value(map));
	close(fd);
	close(prog);
	close(map);
	/* The probe goes with the last reference, after an RCU grace period. */
	for (i = 0; i < 50 && listed(argv[1]); i++)
		usleep(100000);
	printf("gone=%d\n", !listed(argv[1]));
	return 0;
}
