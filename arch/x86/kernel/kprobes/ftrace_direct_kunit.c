// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the direct call of probes at function entries
 * (CONFIG_KPROBES_FTRACE_DIRECT, ftrace_direct.S): while the Kprobes
 * ftrace_ops is alone on a function, the function's fentry call calls
 * kprobe_ftrace_direct_tramp; while another ftrace user is there (a
 * tracer, a direct ops standing in for a BPF trampoline), ftrace's list
 * runs the probes; a direct ops that comes later owns the direct call,
 * keeps it when the probes leave, and gives it back when it leaves first.
 * The probes keep no entry in ftrace's direct_functions (memory per
 * probe), only the other direct ops does.  Each call of the function runs
 * the probes exactly once, whichever way it takes, while the other CPU
 * calls it and the users come and go.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/uaccess.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/text-patching.h>

#include "kprobes_kunit.h"

static noinline long kpfd_target(long x)
{
	asm volatile("" : "+r" (x));
	return 2 * x + 3;
}

static long (* volatile kpfd_fn)(long) = kpfd_target;

/* A function no probe is on, beside kpfd_target under one direct ops. */
static noinline long kpfd_unprobed(long x)
{
	asm volatile("" : "+r" (x));
	return x - 1;
}

static long (* volatile kpfd_unprobed_fn)(long) = kpfd_unprobed;

/* Where the fentry call at @ip goes, 0 when it is no call. */
static unsigned long call_target(unsigned long ip)
{
	u8 insn[CALL_INSN_SIZE];
	s32 rel;

	if (copy_from_kernel_nofault(insn, (void *)ip, sizeof(insn)) ||
	    insn[0] != CALL_INSN_OPCODE)
		return 0;
	memcpy(&rel, insn + 1, sizeof(rel));
	return ip + CALL_INSN_SIZE + rel;
}

static unsigned long entry_ip(struct kunit *test)
{
	unsigned long ip = ftrace_location((unsigned long)kpfd_target);

	KUNIT_ASSERT_NE(test, ip, 0UL);
	return ip;
}

static const unsigned long tramp = (unsigned long)kprobe_ftrace_direct_tramp;

static atomic_t hits;
static unsigned long hit_ip, hit_sp_word, hit_arg;

static int count_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&hits);
	hit_ip = regs->ip;
	hit_arg = regs->di;
	/* The function's return address, as at an int3 on its entry. */
	hit_sp_word = *(unsigned long *)regs->sp;
	return 0;
}

/* A plain ftrace user of the function: it takes the probes to the list. */
static atomic_t traced;

static void trace_func(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_inc(&traced);
}

static struct ftrace_ops trace_ops = {
	.func = trace_func,
};

/*
 * Another direct caller, as a BPF trampoline is: it counts the calls and
 * returns into the function, changing nothing but the flags (dead at a
 * function's entry).
 */
static atomic_long_t direct_calls;
void kpfd_other_tramp(void);
asm (
"	.pushsection	.text, \"ax\", @progbits\n"
"	.p2align	4\n"
"	.type		kpfd_other_tramp, @function\n"
"kpfd_other_tramp:\n"
	ASM_ENDBR
	CALL_DEPTH_ACCOUNT
"	lock incq	direct_calls(%rip)\n"
	ASM_RET
"	.size		kpfd_other_tramp, .-kpfd_other_tramp\n"
"	.popsection\n"
);

/* The same, counting elsewhere: modify_ftrace_direct()'s new address. */
static atomic_long_t moved_calls;
void kpfd_moved_tramp(void);
asm (
"	.pushsection	.text, \"ax\", @progbits\n"
"	.p2align	4\n"
"	.type		kpfd_moved_tramp, @function\n"
"kpfd_moved_tramp:\n"
	ASM_ENDBR
	CALL_DEPTH_ACCOUNT
"	lock incq	moved_calls(%rip)\n"
	ASM_RET
"	.size		kpfd_moved_tramp, .-kpfd_moved_tramp\n"
"	.popsection\n"
);

static const unsigned long other_tramp = (unsigned long)kpfd_other_tramp;
static const unsigned long moved_tramp = (unsigned long)kpfd_moved_tramp;
static struct ftrace_ops direct_ops;

static int other_direct_on(struct kunit *test, unsigned long ip)
{
	int ret = ftrace_set_filter_ip(&direct_ops, ip, 0, 1);

	if (!ret)
		ret = register_ftrace_direct(&direct_ops, other_tramp);
	return ret;
}

/*
 * The filters of the two ops are freed once, when the suite ends:
 * ftrace_free_filter() leaves an ops that cannot be used again.  Each
 * case sets them anew (reset).
 */
static void other_direct_off(void)
{
	unregister_ftrace_direct(&direct_ops, other_tramp, false);
}

static void free_filters(struct kunit_suite *suite)
{
	ftrace_free_filter(&direct_ops);
	ftrace_free_filter(&trace_ops);
}

/* Is @addr in lone_probe_is_called_directly(), as a return into it is? */
/*
 * Register @kp again at @ip, zeroed first as a probe never registered
 * (an unregistered probe keeps its flags and list), with the hits reset.
 */
static void reregister_probe(struct kunit *test, struct kprobe *kp,
			     unsigned long ip)
{
	memset(kp, 0, sizeof(*kp));
	kp->addr = (kprobe_opcode_t *)ip;
	kp->pre_handler = count_pre;
	atomic_set(&hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
}

static bool returns_here(unsigned long addr);

/*
 * A probe alone on the function is its fentry call's target, with the
 * handlers' view of an ftrace hit (ip past the probe address' first byte,
 * sp at the return address, the argument registers); a tracer on the same
 * function takes the call to ftrace, the probe still hit once per call;
 * the tracer gone, the call is the probe's again.
 */
static void lone_probe_is_called_directly(struct kunit *test)
{
	unsigned long ip = entry_ip(test);
	struct kprobe kp = { .addr = (kprobe_opcode_t *)ip,
			     .pre_handler = count_pre };

	atomic_set(&hits, 0);
	atomic_set(&traced, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&kp));
	KUNIT_EXPECT_EQ(test, call_target(ip), tramp);
	/* Direct with no entry of its own: it costs no memory there. */
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip), 0UL);
	KUNIT_EXPECT_EQ(test, kpfd_fn(4), 11);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
	KUNIT_EXPECT_EQ(test, hit_ip, ip + INT3_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, hit_arg, 4UL);
	KUNIT_EXPECT_TRUE(test, returns_here(hit_sp_word));

	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&trace_ops, ip, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(&trace_ops), 0);
	KUNIT_EXPECT_NE(test, call_target(ip), tramp);
	KUNIT_EXPECT_EQ(test, kpfd_fn(5), 13);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&traced), 1);
	KUNIT_EXPECT_EQ(test, hit_ip, ip + INT3_INSN_SIZE);
	unregister_ftrace_function(&trace_ops);

	KUNIT_EXPECT_EQ(test, call_target(ip), tramp);
	KUNIT_EXPECT_EQ(test, kpfd_fn(6), 15);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 3);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, call_target(ip), 0UL);
	KUNIT_EXPECT_EQ(test, kpfd_fn(7), 17);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 3);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0UL);
}

static bool returns_here(unsigned long addr)
{
	unsigned long size, offset;

	return kallsyms_lookup_size_offset(addr, &size, &offset) &&
	       addr - offset == (unsigned long)lone_probe_is_called_directly;
}

/*
 * Another direct ops on a probed function, both orders: it is not refused
 * (-EBUSY), it is called on every call as the probe is, it owns the direct
 * call once the probe leaves, and a probe that comes to its function does
 * not take it.
 */
static void other_direct_caller_both_orders(struct kunit *test)
{
	unsigned long ip = entry_ip(test);
	struct kprobe kp = { .addr = (kprobe_opcode_t *)ip,
			     .pre_handler = count_pre };
	int ret;

	/* The probe first. */
	atomic_set(&hits, 0);
	atomic_long_set(&direct_calls, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, call_target(ip), tramp);
	ret = other_direct_on(test, ip);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip), other_tramp);
		KUNIT_EXPECT_EQ(test, kpfd_fn(1), 5);
		KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&direct_calls), 1L);
		unregister_kprobe(&kp);
		/* Alone now: the other's own direct call. */
		KUNIT_EXPECT_EQ(test, call_target(ip), other_tramp);
		KUNIT_EXPECT_EQ(test, kpfd_fn(2), 7);
		KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&direct_calls), 2L);

		/* Then the other first, and the probe. */
		reregister_probe(test, &kp, ip);
		KUNIT_EXPECT_NE(test, call_target(ip), tramp);
		KUNIT_EXPECT_NE(test, call_target(ip), other_tramp);
		KUNIT_EXPECT_EQ(test, kpfd_fn(3), 9);
		KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&direct_calls), 3L);
		unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ(test, call_target(ip), other_tramp);
		other_direct_off();
	} else {
		unregister_kprobe(&kp);
	}
	KUNIT_EXPECT_EQ(test, call_target(ip), 0UL);

	/* The other leaves first: the probe gets its direct call back. */
	reregister_probe(test, &kp, ip);
	if (!other_direct_on(test, ip)) {
		KUNIT_EXPECT_NE(test, call_target(ip), tramp);
		other_direct_off();
	}
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip), 0UL);
	KUNIT_EXPECT_EQ(test, call_target(ip), tramp);
	KUNIT_EXPECT_EQ(test, kpfd_fn(8), 19);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, call_target(ip), 0UL);
}

/*
 * One direct ops on a probed function and an unprobed one: the entry of
 * the first waits until the ops has joined, the second's does not; a
 * modify_ftrace_direct() of the ops moves both, with the probe still
 * there; the probe leaving gives the ops the first's direct call, and the
 * ops leaving first gives the probe its own back.
 */
static void direct_ops_over_probed_and_unprobed(struct kunit *test)
{
	unsigned long ip = entry_ip(test);
	unsigned long ip2 = ftrace_location((unsigned long)kpfd_unprobed);
	unsigned long ips[2] = { ip, ip2 };
	struct kprobe kp = { .addr = (kprobe_opcode_t *)ip,
			     .pre_handler = count_pre };
	int ret;

	KUNIT_ASSERT_NE(test, ip2, 0UL);
	atomic_set(&hits, 0);
	atomic_long_set(&direct_calls, 0);
	atomic_long_set(&moved_calls, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	ret = ftrace_set_filter_ips(&direct_ops, ips, 2, 0, 1);
	if (!ret)
		ret = register_ftrace_direct(&direct_ops, other_tramp);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret) {
		unregister_kprobe(&kp);
		return;
	}
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip), other_tramp);
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip2), other_tramp);
	KUNIT_EXPECT_EQ(test, call_target(ip2), other_tramp);
	KUNIT_EXPECT_NE(test, call_target(ip), tramp);
	KUNIT_EXPECT_EQ(test, kpfd_fn(1), 5);
	KUNIT_EXPECT_EQ(test, kpfd_unprobed_fn(1), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&direct_calls), 2L);

	KUNIT_EXPECT_EQ(test, modify_ftrace_direct(&direct_ops, moved_tramp), 0);
	KUNIT_EXPECT_EQ(test, call_target(ip2), moved_tramp);
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip), moved_tramp);
	KUNIT_EXPECT_EQ(test, kpfd_fn(2), 7);
	KUNIT_EXPECT_EQ(test, kpfd_unprobed_fn(2), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&direct_calls), 2L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&moved_calls), 2L);

	/* The probe leaves: the ops' new address at both. */
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, call_target(ip), moved_tramp);
	KUNIT_EXPECT_EQ(test, kpfd_fn(3), 9);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&moved_calls), 3L);
	unregister_ftrace_direct(&direct_ops, moved_tramp, false);
	KUNIT_EXPECT_EQ(test, call_target(ip), 0UL);
	KUNIT_EXPECT_EQ(test, call_target(ip2), 0UL);
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip), 0UL);
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip2), 0UL);

	/* Again, and the ops leaves first: the probe's own direct call. */
	reregister_probe(test, &kp, ip);
	ret = ftrace_set_filter_ips(&direct_ops, ips, 2, 0, 1);
	if (!ret)
		ret = register_ftrace_direct(&direct_ops, other_tramp);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, call_target(ip2), other_tramp);
		other_direct_off();
	}
	KUNIT_EXPECT_EQ(test, call_target(ip), tramp);
	KUNIT_EXPECT_EQ(test, call_target(ip2), 0UL);
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip), 0UL);
	KUNIT_EXPECT_EQ(test, ftrace_find_rec_direct(ip2), 0UL);
	KUNIT_EXPECT_EQ(test, kpfd_fn(4), 11);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, call_target(ip), 0UL);
}

/* The other CPU calls the function without pause, checking each result. */
static atomic_t hammer_wrong, hammer_calls;

static int direct_hammer(void *unused)
{
	long i = 0;

	while (!kthread_should_stop()) {
		if (kpfd_fn(i) != 2 * i + 3)
			atomic_inc(&hammer_wrong);
		atomic_inc(&hammer_calls);
		i = (i + 1) & 0xffff;
		if (!(i & 0xff))
			schedule();
	}
	return 0;
}

/* A state that saw no call of the other CPU's fails the case. */
static int hammer_timeouts;

static void wait_calls(int n)
{
	if (!kpt_wait_calls(&hammer_calls, n))
		hammer_timeouts++;
}

/*
 * A probe stays on the function while the other CPU calls it and, 30
 * times, a tracer and a direct ops come and go, in turn and together:
 * the call site moves between the probe's direct call, ftrace's list,
 * the other's direct call and the ops' trampoline under the caller.  Each
 * of its calls runs the probe exactly once: as many hits as calls, none
 * missed, every result right.
 */
static void each_call_hits_once_while_users_come_and_go(struct kunit *test)
{
	unsigned long ip = entry_ip(test);
	struct kprobe kp = { .addr = (kprobe_opcode_t *)ip,
			     .pre_handler = count_pre };
	struct task_struct *hammer;
	int round, cpu, ret = 0;

	atomic_set(&hits, 0);
	atomic_set(&hammer_wrong, 0);
	atomic_set(&hammer_calls, 0);
	hammer_timeouts = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&trace_ops, ip, 0, 1), 0);
	hammer = kpt_start_hammer(test, direct_hammer, "kprobes-direct-hammer",
				  &cpu);

	for (round = 0; round < 30 && !ret; round++) {
		wait_calls(4);
		if (round % 3 != 1) {
			ret = register_ftrace_function(&trace_ops);
			if (ret)
				break;
			wait_calls(4);
		}
		if (round % 3 != 0) {
			ret = other_direct_on(test, ip);
			if (ret)
				break;
			wait_calls(4);
		}
		if (round % 3 != 1) {
			unregister_ftrace_function(&trace_ops);
			wait_calls(4);
		}
		if (round % 3 != 0)
			other_direct_off();
	}
	kthread_stop(hammer);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, round, 30);
	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_EQ(test, hammer_timeouts, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), atomic_read(&hammer_calls));
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0UL);
	unregister_kprobe(&kp);
	kunit_info(test, "%d calls on CPU%d, %d hits\n",
		   atomic_read(&hammer_calls), cpu, atomic_read(&hits));
}

static struct kunit_case kprobes_ftrace_direct_cases[] = {
	KUNIT_CASE(lone_probe_is_called_directly),
	KUNIT_CASE(other_direct_caller_both_orders),
	KUNIT_CASE(direct_ops_over_probed_and_unprobed),
	KUNIT_CASE_SLOW(each_call_hits_once_while_users_come_and_go),
	{}
};

static struct kunit_suite kprobes_ftrace_direct_suite = {
	.name = "kprobes_ftrace_direct",
	.suite_exit = free_filters,
	.test_cases = kprobes_ftrace_direct_cases,
};

kunit_test_suite(kprobes_ftrace_direct_suite);
