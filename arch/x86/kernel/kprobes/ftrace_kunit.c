// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for probes at ftrace locations (kernels with
 * CONFIG_KPROBES_ON_FTRACE): a probe at a function's entry is reached
 * through ftrace, never through an int3 on the fentry call, and behaves
 * as any other probe: handlers with the int3 conventions for regs->ip,
 * kretprobes, jprobes, redirection by a pre_handler, several probes at
 * one address, enable/disable and the global switch, and arming and
 * disarming while the other CPU calls the function.
 *
 * The targets are C functions of this file, so they begin with the
 * compiler's fentry call (after ENDBR64 on an IBT kernel).  They are
 * called through volatile pointers: no call is inlined or specialised.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/text-patching.h>

#include "kprobes_kunit.h"

static noinline long kpft_target(long x)
{
	asm volatile("" : "+r" (x));
	return 3 * x + 1;
}

static noinline long kpft_other(long x)
{
	asm volatile("" : "+r" (x));
	return x + 100;
}

static long (* volatile kpft_fn)(long) = kpft_target;
static long (* volatile kpft_other_fn)(long) = kpft_other;

/* The probe address of kpft_target: its fentry call, which must be one. */
static kprobe_opcode_t *target_entry(struct kunit *test)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)kpft_fn };
	kprobe_opcode_t *addr;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	addr = kp.addr;
	unregister_kprobe(&kp);
	KUNIT_ASSERT_EQ(test, ftrace_location((unsigned long)addr),
			(unsigned long)addr);
	return addr;
}

static atomic_t pre_hits, post_hits;
static unsigned long pre_ip, post_ip, pre_arg;

static int count_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&pre_hits);
	pre_ip = regs->ip;
	pre_arg = regs->di;
	return 0;
}

static void count_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	atomic_inc(&post_hits);
	post_ip = regs->ip;
}

static void reset_counts(void)
{
	atomic_set(&pre_hits, 0);
	atomic_set(&post_hits, 0);
	pre_ip = 0;
	post_ip = 0;
	pre_arg = 0;
}

/*
 * The probe is [FTRACE], the text at its address is still ftrace's (no
 * int3), and the handlers see the int3 conventions: ip one past the
 * probe address before, past the five-byte call after.
 */
static void entry_probe_goes_through_ftrace(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpft_fn,
		.pre_handler = count_pre,
		.post_handler = count_post,
	};

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, kp.addr, addr);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&kp));
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_NE(test, *addr, (kprobe_opcode_t)INT3_INSN_OPCODE);

	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&post_hits), 1);
	KUNIT_EXPECT_EQ(test, pre_ip, (unsigned long)addr + INT3_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, post_ip, (unsigned long)addr + CALL_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, pre_arg, 5);
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, kpft_fn(6), 19);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	KUNIT_EXPECT_NE(test, *addr, (kprobe_opcode_t)INT3_INSN_OPCODE);
}

/*
 * One probe with a pre_handler and another with only a post_handler: the
 * lone pre_handler's shortcut (ftrace_handler.c) still runs the other
 * probe's post_handler, past the call.
 */
static void post_handler_of_another_probe(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct kprobe pre = {
		.addr = (kprobe_opcode_t *)kpft_fn,
		.pre_handler = count_pre,
	};
	struct kprobe post = {
		.addr = (kprobe_opcode_t *)kpft_fn,
		.post_handler = count_post,
	};

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(&pre), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&post_hits), 1);
	KUNIT_EXPECT_EQ(test, post_ip, (unsigned long)addr + CALL_INSN_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, kprobe_running(), NULL);
	unregister_kprobe(&post);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&post_hits), 1);
	unregister_kprobe(&pre);
}

static atomic_t ret_hits, entry_hits;
static long ret_value;

static int ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(long *)ri->data = regs->di;
	atomic_inc(&entry_hits);
	return 0;
}

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (*(long *)ri->data == 7)
		ret_value = regs_return_value(regs);
	atomic_inc(&ret_hits);
	return 0;
}

/* A kretprobe at the entry: through ftrace, sees the argument and the result. */
static void kretprobe_at_ftrace_entry(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpft_fn,
		.entry_handler = ret_entry,
		.handler = ret_handler,
		.data_size = sizeof(long),
	};

	atomic_set(&ret_hits, 0);
	atomic_set(&entry_hits, 0);
	ret_value = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&rp.kp));
	KUNIT_EXPECT_EQ(test, kpft_fn(7), 22);
	KUNIT_EXPECT_EQ(test, kpft_fn(8), 25);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&entry_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&ret_hits), 2);
	KUNIT_EXPECT_EQ(test, ret_value, 22);
}

static int redirect_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&pre_hits);
	regs->ip = (unsigned long)kpft_other_fn;
	return 1;
}

/*
 * A pre_handler that changes regs->ip and returns non-zero sends the CPU
 * there, with the arguments and stack of the call: the way fail_function
 * and bpf_override_return() work.  No post_handler runs.
 */
static void pre_handler_redirects_at_ftrace_site(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpft_fn,
		.pre_handler = redirect_pre,
		.post_handler = count_post,
	};

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 105);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 101);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&post_hits), 0);
}

/*
 * Moves regs->ip on every hit, and says so only on odd ones: an even one
 * leaves the change unclaimed.
 */
static atomic_t move_hits;

static int odd_redirect_pre(struct kprobe *p, struct pt_regs *regs)
{
	regs->ip = (unsigned long)kpft_other_fn;
	return atomic_inc_return(&move_hits) & 1;
}

static void moving_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	atomic_inc(&post_hits);
	regs->ip = (unsigned long)kpft_other_fn;
}

/*
 * Only a pre_handler's non-zero return makes its regs->ip stand: a change
 * it leaves unclaimed, and any by a post_handler, is dropped, and the
 * function runs, as upstream's ftrace handler has it.  Alone on the
 * function the probe is reached through our direct call, whose trampoline
 * goes to regs->ip only when told to; as a bare probe, with a
 * post_handler (a site), and as a pair, hit by hit.
 */
static void only_a_claimed_ip_change_stands(struct kunit *test)
{
	struct kprobe kp, other;
	int round, i;

	for (round = 0; round < 3; round++) {
		reset_counts();
		atomic_set(&move_hits, 0);
		kp = (struct kprobe){ .addr = (kprobe_opcode_t *)kpft_fn,
				      .pre_handler = odd_redirect_pre };
		if (round == 1)
			kp.post_handler = moving_post;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		if (round == 2) {
			other = (struct kprobe){
				.addr = (kprobe_opcode_t *)kpft_fn,
				.pre_handler = count_pre,
			};
			KUNIT_ASSERT_EQ(test, register_kprobe(&other), 0);
		}
		for (i = 1; i <= 6; i++)
			KUNIT_EXPECT_EQ_MSG(test, kpft_fn(5), i & 1 ? 105 : 16,
					    "round %d, hit %d", round, i);
		if (round == 2)
			unregister_kprobe(&other);
		unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
		KUNIT_EXPECT_EQ(test, atomic_read(&move_hits), 6);
		/* A pair's second runs only after an unclaimed hit of the first. */
		KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), round == 2 ? 3 : 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&post_hits),
				round == 1 ? 3 : 0);
	}
}

static atomic_t later_hits;
static void *later_caller;

static int later_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&later_hits);
	later_caller = __builtin_return_address(0);
	return 0;
}

/*
 * Two probes at an ftrace site run through ->single as a pair: one whose
 * pre_handler redirects stops the one behind it, as the list walk does,
 * and the one in front of it still runs.
 */
static void pair_stops_at_redirect(struct kunit *test)
{
	struct kprobe first = {
		.addr = (kprobe_opcode_t *)kpft_fn,
		.pre_handler = redirect_pre,
	};
	struct kprobe later = {
		.addr = (kprobe_opcode_t *)kpft_fn,
		.pre_handler = later_pre,
	};
	char name[KSYM_SYMBOL_LEN];

	reset_counts();
	atomic_set(&later_hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&later), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 105);
	unregister_kprobe(&later);
	unregister_kprobe(&first);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&later_hits), 0);

	/* The other order: the counting one first, then the redirect. */
	later_caller = NULL;
	first = (struct kprobe){ .addr = (kprobe_opcode_t *)kpft_fn,
				 .pre_handler = redirect_pre };
	later = (struct kprobe){ .addr = (kprobe_opcode_t *)kpft_fn,
				 .pre_handler = later_pre };
	KUNIT_ASSERT_EQ(test, register_kprobe(&later), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 105);
	unregister_kprobe(&first);
	unregister_kprobe(&later);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&later_hits), 1);
	/* Through the pair's handler, not the list walk. */
	snprintf(name, sizeof(name), "%ps", later_caller);
	KUNIT_EXPECT_STREQ(test, name, "kprobe_pair_pre");
}

static atomic_t jhits, jirqs_on;
static long jarg;

static long jentry(long x)
{
	jarg = x;
	if (!irqs_disabled())
		atomic_inc(&jirqs_on);
	atomic_inc(&jhits);
	jprobe_return();
	return 0;
}

/* A jprobe at an ftrace site: the handler gets the argument, IRQs off. */
static void jprobe_at_ftrace_entry(struct kunit *test)
{
	struct jprobe jp = {
		.kp.addr = (kprobe_opcode_t *)kpft_fn,
		.entry = jentry,
	};
	int i;

	atomic_set(&jhits, 0);
	atomic_set(&jirqs_on, 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&jp.kp));
	for (i = 0; i < 100; i++)
		if (kpft_fn(i) != 3 * i + 1)
			break;
	KUNIT_EXPECT_EQ(test, jarg, 99);
	unregister_jprobe(&jp);
	KUNIT_EXPECT_EQ(test, i, 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&jhits), 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&jirqs_on), 0);
	KUNIT_EXPECT_TRUE(test, !irqs_disabled());
}

static atomic_t second_hits;

static int second_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&second_hits);
	return 0;
}

/*
 * Two kprobes and a kretprobe at one ftrace address; each disabled and
 * enabled alone, then all of them by the global switch (debugfs enabled).
 */
static void several_probes_enable_disable(struct kunit *test)
{
	struct kprobe a = { .addr = (kprobe_opcode_t *)kpft_fn,
			    .pre_handler = count_pre };
	struct kprobe b = { .addr = (kprobe_opcode_t *)kpft_fn,
			    .pre_handler = second_pre };
	struct kretprobe rp = { .kp.addr = (kprobe_opcode_t *)kpft_fn,
				.handler = ret_handler,
				.data_size = sizeof(long) };

	reset_counts();
	atomic_set(&second_hits, 0);
	atomic_set(&ret_hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);

	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);	/* nothing armed */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);
	kprobes_set_armed(false);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);	/* all disarmed */
	kprobes_set_armed(true);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);

	unregister_kretprobe(&rp);
	unregister_kprobe(&b);
	unregister_kprobe(&a);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&second_hits), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&ret_hits), 4);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 3);
}

/* The other CPU calls kpft_target without pause and checks each result. */
static atomic_t hammer_wrong, hammer_calls;

static int ftrace_hammer(void *unused)
{
	long i = 0;

	while (!kthread_should_stop()) {
		if (kpft_fn(i) != 3 * i + 1)
			atomic_inc(&hammer_wrong);
		atomic_inc(&hammer_calls);
		i = (i + 1) & 0xffff;
		if (!(i & 0xff))
			schedule();
	}
	return 0;
}

/*
 * Wait until the other CPU has called the function @n more times.  A wait
 * that runs out means a state saw no call: the case fails then.
 */
static int hammer_timeouts;	/* waits that ran out: a stalled hammer */

static void wait_for_hammer_calls(int n)
{
	if (!kpt_wait_calls(&hammer_calls, n))
		hammer_timeouts++;
}

/*
 * Register, disable, enable and unregister probes of every kind at the
 * ftrace site while the other CPU runs through it: every result right,
 * no handler of a removed probe afterwards.  Each state lasts until the
 * other CPU has made a few calls in it.
 */
static void arming_while_called(struct kunit *test)
{
	struct task_struct *hammer;
	struct kprobe kp;
	struct kretprobe rp;
	int round, cpu, hits;

	reset_counts();
	atomic_set(&ret_hits, 0);
	atomic_set(&hammer_wrong, 0);
	atomic_set(&hammer_calls, 0);
	hammer_timeouts = 0;
	hammer = kpt_start_hammer(test, ftrace_hammer, "kprobes-ftrace-hammer", &cpu);

	for (round = 0; round < 60; round++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = (kprobe_opcode_t *)kpft_fn;
		kp.pre_handler = count_pre;
		memset(&rp, 0, sizeof(rp));
		rp.kp.addr = (kprobe_opcode_t *)kpft_fn;
		rp.handler = ret_handler;
		rp.data_size = sizeof(long);
		if (register_kprobe(&kp))
			break;
		if (register_kretprobe(&rp)) {
			unregister_kprobe(&kp);
			break;
		}
		wait_for_hammer_calls(4);
		disable_kprobe(&kp);
		wait_for_hammer_calls(2);
		enable_kprobe(&kp);
		wait_for_hammer_calls(2);
		unregister_kretprobe(&rp);
		unregister_kprobe(&kp);
		hits = atomic_read(&pre_hits);
		udelay(100);
		KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), hits);
	}
	kthread_stop(hammer);
	KUNIT_EXPECT_EQ(test, hammer_timeouts, 0);

	KUNIT_EXPECT_EQ(test, round, 60);
	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&pre_hits), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&ret_hits), 0);
	kunit_info(test, "%d calls, %d kprobe and %d kretprobe hits on CPU%d\n",
		   atomic_read(&hammer_calls), atomic_read(&pre_hits),
		   atomic_read(&ret_hits), cpu);
}

static atomic_t counted_hits;

static int count_only(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&counted_hits);
	return 0;
}

/*
 * A jprobe comes to and leaves a function that a counting kprobe watches,
 * 40 times, while the other CPU calls it: each call is a hit or a miss of
 * the counting probe, none goes uncounted, whichever ftrace_ops the
 * function is reached through meanwhile (kernel/kprobes/ftrace.c).
 */
static void jprobe_coming_and_going_loses_no_hit(struct kunit *test)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)kpft_fn,
			     .pre_handler = count_only };
	struct task_struct *hammer;
	struct jprobe jp;
	int round, cpu, calls, seen;

	atomic_set(&counted_hits, 0);
	atomic_set(&jhits, 0);
	atomic_set(&hammer_wrong, 0);
	atomic_set(&hammer_calls, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	hammer_timeouts = 0;
	hammer = kpt_start_hammer(test, ftrace_hammer, "kprobes-ftrace-hammer", &cpu);

	for (round = 0; round < 40; round++) {
		memset(&jp, 0, sizeof(jp));
		jp.kp.addr = (kprobe_opcode_t *)kpft_fn;
		jp.entry = jentry;
		if (register_jprobe(&jp))
			break;
		wait_for_hammer_calls(4);
		unregister_jprobe(&jp);
		wait_for_hammer_calls(4);
	}
	kthread_stop(hammer);
	KUNIT_EXPECT_EQ(test, hammer_timeouts, 0);
	calls = atomic_read(&hammer_calls);
	seen = atomic_read(&counted_hits) + kp.nmissed;
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, round, 40);
	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&jhits), 0);
	KUNIT_EXPECT_EQ(test, seen, calls);
	kunit_info(test, "%d calls on CPU%d: %d hits, %lu missed, %d through the jprobe\n",
		   calls, cpu, atomic_read(&counted_hits), kp.nmissed,
		   atomic_read(&jhits));
}

/*
 * A probe with a pre_handler and nothing else, alone at an ftrace
 * location, goes without a site (kernel/kprobes/ftrace.c, "Bare probes"):
 * no site in the hash, get_kprobe() finds the probe itself.  It behaves
 * as any probe there: the int3 conventions, enable and disable, the
 * global switch, a kretprobe alike; registering it twice is refused, and
 * once unregistered nothing of it runs or is found.
 */
static void lone_pre_handler_probe_goes_bare(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpft_fn,
		.pre_handler = count_pre,
	};
	struct kretprobe rp = { .kp.addr = (kprobe_opcode_t *)kpft_other_fn,
				.handler = ret_handler,
				.data_size = sizeof(long) };

	reset_counts();
	atomic_set(&ret_hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_BARE);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&kp));
	KUNIT_EXPECT_NULL(test, kprobe_site_lookup(addr));
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(addr), &kp);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);

	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	KUNIT_EXPECT_EQ(test, pre_ip, (unsigned long)addr + INT3_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, pre_arg, 5);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	kprobes_set_armed(false);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	kprobes_set_armed(true);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 3);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_TRUE(test, rp.kp.flags & KPROBE_FLAG_BARE);
	KUNIT_EXPECT_EQ(test, kpft_other_fn(1), 101);
	KUNIT_EXPECT_EQ(test, atomic_read(&ret_hits), 1);
	unregister_kretprobe(&rp);

	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 3);
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, get_kprobe(addr));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpft_other_fn(1), 101);
	KUNIT_EXPECT_EQ(test, atomic_read(&ret_hits), 1);
}

/*
 * The bare probe's handler checks that it runs exactly once for each
 * call of the other CPU's, while the test says so: the hammer's arguments
 * follow each other.  Not while the probe is being registered: ftrace
 * lets calls by while it starts the ops (registering the first of its
 * addresses), on either kernel.
 */
static bool bare_checking;
static atomic_t bare_skipped;
static long bare_last_arg, bare_skip_from, bare_skip_to;
static int bare_stage, bare_skip_stage;	/* round * 10 + step, for the log */

static int consecutive_pre(struct kprobe *p, struct pt_regs *regs)
{
	long arg = regs->di;

	atomic_inc(&pre_hits);
	if (!READ_ONCE(bare_checking))
		return 0;
	smp_rmb();	/* pairs with the test's smp_wmb() */
	if (bare_last_arg >= 0 && arg != ((bare_last_arg + 1) & 0xffff) &&
	    atomic_inc_return(&bare_skipped) == 1) {
		bare_skip_from = bare_last_arg;
		bare_skip_to = arg;
		bare_skip_stage = READ_ONCE(bare_stage);
	}
	bare_last_arg = arg;
	return 0;
}

static int fault_never(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	return 0;
}

/*
 * A bare probe gets a site when a second probe comes to its address, of
 * each kind; the site is built before the hash shows it.  With the
 * other CPU calling the function without pause, the bare probe's handler
 * must run exactly once for every call from its registration until its
 * removal: no call missed while the site takes over, none run twice.
 * The window it exists for is a hit that misses the site, then the bare
 * probe, because the site took over in between: the hit path stalls
 * there while it runs, and it must have been entered.
 */
static void bare_probe_gets_a_site_while_called(struct kunit *test)
{
	struct kprobe bare, second;
	struct kretprobe rp;
	struct jprobe jp;
	struct task_struct *hammer;
	struct kpt_windows win;
	int round, cpu, second_kind;
	bool promoted = true;

	kpt_windows_start(&win);
	WRITE_ONCE(kprobe_window_stall_us[KPROBE_WINDOW_BARE_TO_SITE], 50);
	reset_counts();
	atomic_set(&bare_skipped, 0);
	atomic_set(&hammer_wrong, 0);
	atomic_set(&hammer_calls, 0);
	hammer_timeouts = 0;
	hammer = kpt_start_hammer(test, ftrace_hammer, "kprobes-bare-hammer", &cpu);

	for (round = 0; round < 40; round++) {
		second_kind = round % 5;
		memset(&bare, 0, sizeof(bare));
		bare.addr = (kprobe_opcode_t *)kpft_fn;
		bare.pre_handler = consecutive_pre;
		WRITE_ONCE(bare_stage, round * 10);
		if (register_kprobe(&bare))
			break;
		WRITE_ONCE(bare_stage, round * 10 + 1);
		bare_last_arg = -1;
		smp_wmb();	/* pairs with the handler's read of the two */
		WRITE_ONCE(bare_checking, true);
		promoted &= !!(bare.flags & KPROBE_FLAG_BARE);
		wait_for_hammer_calls(4);

		memset(&second, 0, sizeof(second));
		memset(&rp, 0, sizeof(rp));
		second.addr = (kprobe_opcode_t *)kpft_fn;
		rp.kp.addr = (kprobe_opcode_t *)kpft_fn;
		rp.handler = ret_handler;
		rp.data_size = sizeof(long);
		memset(&jp, 0, sizeof(jp));
		jp.kp.addr = (kprobe_opcode_t *)kpft_fn;
		jp.entry = jentry;
		if (second_kind == 0)
			second.pre_handler = second_pre;
		else if (second_kind == 1)
			second.post_handler = count_post;
		else if (second_kind == 2)
			second.fault_handler = fault_never;
		WRITE_ONCE(bare_stage, round * 10 + 2);
		if (second_kind == 3 ? register_kretprobe(&rp) :
		    second_kind == 4 ? register_jprobe(&jp) :
				       register_kprobe(&second)) {
			unregister_kprobe(&bare);
			break;
		}
		WRITE_ONCE(bare_stage, round * 10 + 3);
		/* Never bare again: its site stays while it is registered. */
		promoted &= !(bare.flags & KPROBE_FLAG_BARE) &&
			    kprobe_site_lookup(bare.addr);
		wait_for_hammer_calls(4);
		WRITE_ONCE(bare_stage, round * 10 + 4);
		if (second_kind == 3)
			unregister_kretprobe(&rp);
		else if (second_kind == 4)
			unregister_jprobe(&jp);
		else
			unregister_kprobe(&second);
		WRITE_ONCE(bare_stage, round * 10 + 5);
		wait_for_hammer_calls(4);
		WRITE_ONCE(bare_stage, round * 10 + 6);
		WRITE_ONCE(bare_checking, false);
		unregister_kprobe(&bare);
		KUNIT_EXPECT_EQ(test, bare.nmissed, 0);
	}
	kthread_stop(hammer);
	WRITE_ONCE(kprobe_window_stall_us[KPROBE_WINDOW_BARE_TO_SITE], 0);
	KUNIT_EXPECT_EQ(test, hammer_timeouts, 0);

	KUNIT_EXPECT_EQ(test, round, 40);
	KUNIT_EXPECT_TRUE(test, promoted);
	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&bare_skipped), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&pre_hits), 0);
	kunit_info(test, "%d calls, %d hits of the bare probe on CPU%d\n",
		   atomic_read(&hammer_calls), atomic_read(&pre_hits), cpu);
	kpt_windows_report(test, &win);
	KUNIT_EXPECT_GE(test, kpt_window_entered(&win, KPROBE_WINDOW_BARE_TO_SITE), 5);
	if (atomic_read(&bare_skipped))
		kunit_info(test, "first skip: %ld then %ld, at stage %d\n",
			   bare_skip_from, bare_skip_to, bare_skip_stage);
}

/* Post_handlers that check ip on every hit, for the case below. */
static atomic_t lone_post_hits, other_post_hits, wrong_post_ip;
static unsigned long post_ip_wanted;

static void lone_post(struct kprobe *p, struct pt_regs *regs,
		      unsigned long flags)
{
	atomic_inc(&lone_post_hits);
	if (regs->ip != post_ip_wanted || kprobe_running() != p)
		atomic_inc(&wrong_post_ip);
}

static void other_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	atomic_inc(&other_post_hits);
	if (regs->ip != post_ip_wanted || kprobe_running() != p)
		atomic_inc(&wrong_post_ip);
}

/*
 * A second probe's pre_handler that takes its time: a hit that ran the
 * pair is then likely to be between its pre and post steps when the
 * probe is unregistered on the other CPU.
 */
static int slow_second_pre(struct kprobe *p, struct pt_regs *regs)
{
	udelay(20);
	return second_pre(p, regs);
}

/*
 * A lone probe with both handlers gets its post_handler without the walk
 * (ftrace_handler.c); a second probe with a post_handler sends the hit
 * back to the walk, which runs both.  In order first, then with the
 * second probe coming and going while the other CPU calls the function:
 * the lone probe's post_handler runs once for each of its pre_handlers,
 * the other's runs too, each past the call as its current probe, and
 * nothing of the other runs once it is unregistered.  In two rounds of
 * three the second probe has a pre_handler too, or only that.
 */
static void lone_post_handler_while_others_come_and_go(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct kprobe lone = {
		.addr = (kprobe_opcode_t *)kpft_fn,
		.pre_handler = count_pre,
		.post_handler = lone_post,
	};
	struct kprobe other;
	struct task_struct *hammer;
	int round, cpu, others, wait;

	reset_counts();
	atomic_set(&lone_post_hits, 0);
	atomic_set(&other_post_hits, 0);
	atomic_set(&wrong_post_ip, 0);
	post_ip_wanted = (unsigned long)addr + CALL_INSN_SIZE;
	KUNIT_ASSERT_EQ(test, register_kprobe(&lone), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&lone_post_hits), 1);

	memset(&other, 0, sizeof(other));
	other.addr = (kprobe_opcode_t *)kpft_fn;
	other.post_handler = other_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&other), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&lone_post_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&other_post_hits), 1);
	unregister_kprobe(&other);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&lone_post_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&other_post_hits), 1);
	/* The other ahead of the lone one in the list: the walk again. */
	unregister_kprobe(&lone);
	memset(&other, 0, sizeof(other));
	other.addr = (kprobe_opcode_t *)kpft_fn;
	other.post_handler = other_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&other), 0);
	lone = (struct kprobe){ .addr = (kprobe_opcode_t *)kpft_fn,
				.pre_handler = count_pre,
				.post_handler = lone_post };
	KUNIT_ASSERT_EQ(test, register_kprobe(&lone), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&lone_post_hits), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&other_post_hits), 2);
	unregister_kprobe(&other);

	atomic_set(&hammer_wrong, 0);
	atomic_set(&hammer_calls, 0);
	hammer_timeouts = 0;
	hammer = kpt_start_hammer(test, ftrace_hammer, "kprobes-ftrace-post", &cpu);
	atomic_set(&second_hits, 0);
	for (round = 0; round < 40; round++) {
		memset(&other, 0, sizeof(other));
		other.addr = (kprobe_opcode_t *)kpft_fn;
		/*
		 * One round in three, a post_handler only; the others make
		 * ->single a pair whose second probe, current after it,
		 * has a pre_handler only, or both handlers.  A hit that ran
		 * the pair may find the lone probe alone again by its post
		 * step, and must still call the lone one's post_handler.
		 */
		if (round % 3)
			other.pre_handler = slow_second_pre;
		if (round % 3 != 1)
			other.post_handler = other_post;
		if (register_kprobe(&other))
			break;
		/*
		 * Until the other CPU has run the pair (at most 100 ms), then
		 * a while more: on a loaded host its vCPU can stand still
		 * through any fixed delay (seen under KASAN in CI).
		 */
		others = atomic_read(&other_post_hits) +
			 atomic_read(&second_hits);
		for (wait = 0; wait < 1000 &&
		     atomic_read(&other_post_hits) +
		     atomic_read(&second_hits) == others; wait++)
			udelay(100);
		udelay(200);
		unregister_kprobe(&other);
		others = atomic_read(&other_post_hits) +
			 atomic_read(&second_hits);
		udelay(200);
		KUNIT_EXPECT_EQ(test, atomic_read(&other_post_hits) +
				atomic_read(&second_hits), others);
	}
	kthread_stop(hammer);
	KUNIT_EXPECT_EQ(test, hammer_timeouts, 0);
	unregister_kprobe(&lone);

	KUNIT_EXPECT_EQ(test, round, 40);
	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&wrong_post_ip), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&lone_post_hits),
			atomic_read(&pre_hits));
	KUNIT_EXPECT_GT(test, atomic_read(&other_post_hits), 1);
	KUNIT_EXPECT_GT(test, atomic_read(&second_hits), 1);
	kunit_info(test, "%d calls, %d lone and %d other post_handlers, %d other pre_handlers on CPU%d\n",
		   atomic_read(&hammer_calls), atomic_read(&lone_post_hits),
		   atomic_read(&other_post_hits), atomic_read(&second_hits),
		   cpu);
}

/*
 * Handlers that note whether interrupts were off, and one that faults on
 * a hole (the page after a vmalloc'ed one) for the fault_handler below.
 */
static atomic_t irqs_off_pre, irqs_off_post, fault_hits;
static long *irq_case_hole;
static int irq_case_fault_ret;

static int irqs_pre(struct kprobe *p, struct pt_regs *regs)
{
	long v;

	atomic_inc(&pre_hits);
	if (irqs_disabled())
		atomic_inc(&irqs_off_pre);
	if (irq_case_hole)
		irq_case_fault_ret = copy_from_kernel_nofault(&v, irq_case_hole,
							      sizeof(v));
	return 0;
}

static void irqs_post(struct kprobe *p, struct pt_regs *regs,
		      unsigned long flags)
{
	atomic_inc(&post_hits);
	if (irqs_disabled())
		atomic_inc(&irqs_off_post);
}

static int irq_case_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	atomic_inc(&fault_hits);
	return 0;
}

/*
 * The usual hit, one probe without a fault_handler, runs its handlers with
 * interrupts as the function had them (on here), as upstream's handler
 * does; the walk of post_handlers after it, and a probe with a
 * fault_handler, get them off, as on the int3 path, so that no
 * interrupt's fault reaches that handler; its handlers' own faults do.
 */
static void interrupts_off_only_for_fault_handlers(struct kunit *test)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)kpft_fn,
			     .pre_handler = irqs_pre,
			     .post_handler = irqs_post };
	char *area;

	KUNIT_ASSERT_FALSE(test, irqs_disabled());
	reset_counts();
	atomic_set(&irqs_off_pre, 0);
	atomic_set(&irqs_off_post, 0);
	atomic_set(&fault_hits, 0);
	irq_case_hole = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&post_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&irqs_off_pre), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&irqs_off_post), 0);

	/*
	 * A post_handler of another probe comes from the walk, which a
	 * probe with a fault_handler may have joined since the hit read
	 * ->single: interrupts off there.
	 */
	{
		struct kprobe pre = { .addr = (kprobe_opcode_t *)kpft_fn,
				      .pre_handler = irqs_pre };
		struct kprobe post = { .addr = (kprobe_opcode_t *)kpft_fn,
				       .post_handler = irqs_post };
		struct kprobe *both[] = { &pre, &post };

		reset_counts();
		KUNIT_ASSERT_EQ(test, register_kprobes(both, 2), 0);
		KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
		unregister_kprobes(both, 2);
		KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&post_hits), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&irqs_off_pre), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&irqs_off_post), 1);
		atomic_set(&irqs_off_post, 0);
	}

	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	irq_case_hole = (long *)(area + PAGE_SIZE);
	irq_case_fault_ret = 0;
	kp = (struct kprobe){ .addr = (kprobe_opcode_t *)kpft_fn,
			      .pre_handler = irqs_pre,
			      .post_handler = irqs_post,
			      .fault_handler = irq_case_fault };
	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(5), 16);
	unregister_kprobe(&kp);
	irq_case_hole = NULL;
	vfree(area);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&post_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&irqs_off_pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&irqs_off_post), 1);
	/* Offered to the fault_handler, which declined: the fixup ran. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fault_hits), 1);
	KUNIT_EXPECT_EQ(test, irq_case_fault_ret, -EFAULT);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
}

/* Inside the fentry call there is no instruction: refused, as upstream. */
static void inside_fentry_call_refused(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct kprobe kp = { .addr = addr + 1, .pre_handler = count_pre };

	/* No instruction starts there: -EILSEQ, as upstream says. */
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kpft_fn(2), 7);
}

/*
 * While some site anywhere is jump-optimized, decoding reads every byte
 * through the sites it may lie under; an ftrace site's bytes are ftrace's
 * (a call once armed), never one of our int3s to see through.  A probe on
 * the instruction after the fentry call must still be accepted, and the
 * function still right.
 */
static void probe_after_ftrace_site_while_jumped(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct kprobe jumped = { .addr = (kprobe_opcode_t *)kpo_plain,
				 .pre_handler = second_pre };
	struct kprobe entry = { .addr = addr, .pre_handler = count_pre };
	struct kprobe next = { .addr = addr + CALL_INSN_SIZE,
			       .pre_handler = second_pre };
	int ret;

	reset_counts();
	atomic_set(&second_hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&jumped), 0);
	kprobe_optimizer_flush();
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&jumped));
	KUNIT_ASSERT_EQ(test, register_kprobe(&entry), 0);
	ret = register_kprobe(&next);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(3), 10);
	if (!ret)
		unregister_kprobe(&next);
	unregister_kprobe(&entry);
	unregister_kprobe(&jumped);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&second_hits), ret ? 0 : 1);
}

/* Another IPMODIFY user of kpft_target, as a livepatch would be. */
static void ipmodify_nop(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops other_ipmodify = {
	.func	= ipmodify_nop,
	.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/*
 * A jprobe's handler replaces the function for a while: its site holds a
 * claim on our IPMODIFY ops, so ftrace keeps any other IPMODIFY user (a
 * livepatch) off the function, in both orders, with -EBUSY.  A kprobe there does
 * not: it shares the function.
 */
static void jprobe_excludes_other_ipmodify(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct jprobe jp = { .kp.addr = addr, .entry = jentry };
	struct kprobe kp = { .addr = addr, .pre_handler = count_pre };
	int ret;

	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&other_ipmodify,
						   (unsigned long)addr, 0, 1), 0);
	/* A kprobe joins a function that another IPMODIFY user holds. */
	KUNIT_ASSERT_EQ(test, register_ftrace_function(&other_ipmodify), 0);
	reset_counts();
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 1);
	/* A jprobe does not, and nothing of it stays. */
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EBUSY);
	KUNIT_EXPECT_EQ(test, kpft_fn(2), 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&pre_hits), 2);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, unregister_ftrace_function(&other_ipmodify), 0);

	/* The other order: the jprobe first, then the other user is refused. */
	atomic_set(&jhits, 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	ret = register_ftrace_function(&other_ipmodify);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	if (!ret)
		unregister_ftrace_function(&other_ipmodify);
	KUNIT_EXPECT_EQ(test, kpft_fn(3), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&jhits), 1);
	unregister_jprobe(&jp);
	ftrace_set_filter_ip(&other_ipmodify, (unsigned long)addr, 1, 1);
}

/*
 * The claim a jprobe's site wants is refused when Kprobes are armed again
 * while another IPMODIFY user holds the function: arming says -EBUSY and
 * the jprobe misses its hits.  Once that user has gone, arming again (or
 * enabling the jprobe again) asks for the claim again, and the jprobe
 * takes over again.
 */
static void refused_claim_retried(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct jprobe jp = { .kp.addr = addr, .entry = jentry };

	atomic_set(&jhits, 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&jhits), 1);
	KUNIT_EXPECT_EQ(test, kprobes_set_armed(false), 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&other_ipmodify,
						   (unsigned long)addr, 0, 1), 0);
	if (register_ftrace_function(&other_ipmodify)) {
		kprobes_set_armed(true);
		unregister_jprobe(&jp);
		ftrace_set_filter_ip(&other_ipmodify, (unsigned long)addr, 1, 1);
		KUNIT_FAIL(test, "the other IPMODIFY ops was refused");
		return;
	}
	KUNIT_EXPECT_EQ(test, kprobes_set_armed(true), -EBUSY);
	KUNIT_EXPECT_EQ(test, kpft_fn(2), 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&jhits), 1);	/* missed */
	KUNIT_EXPECT_EQ(test, unregister_ftrace_function(&other_ipmodify), 0);
	ftrace_set_filter_ip(&other_ipmodify, (unsigned long)addr, 1, 1);

	KUNIT_EXPECT_EQ(test, kprobes_set_armed(true), 0);
	KUNIT_EXPECT_EQ(test, kpft_fn(3), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&jhits), 2);
	/* The claim holds again: the other user is kept off. */
	KUNIT_EXPECT_EQ(test, ftrace_set_filter_ip(&other_ipmodify,
						   (unsigned long)addr, 0, 1), 0);
	KUNIT_EXPECT_EQ(test, register_ftrace_function(&other_ipmodify), -EBUSY);
	ftrace_set_filter_ip(&other_ipmodify, (unsigned long)addr, 1, 1);
	unregister_jprobe(&jp);
}

/*
 * Park an optimized site at kpo_plain: a probe there, its jump in, then
 * removed.  The site stays PARK_DELAY (register.c); a slow grace period in
 * the removal can outlast that, hence a few tries.
 * Return: the parked site's address (kpo_plain, past its ENDBR64 on an
 * IBT kernel), or NULL when no site stayed parked.
 */
static kprobe_opcode_t *park_site_at_kpo_plain(struct kunit *test)
{
	struct kprobe kp;
	bool parked = false;
	int try;

	for (try = 0; try < 5 && !parked; try++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = (kprobe_opcode_t *)kpo_plain;
		kp.pre_handler = second_pre;
		if (register_kprobe(&kp)) {
			KUNIT_FAIL(test, "no probe at kpo_plain");
			return NULL;
		}
		kprobe_optimizer_flush();
		if (!kprobe_optimized(&kp)) {
			unregister_kprobe(&kp);
			return NULL;
		}
		unregister_kprobe(&kp);
		rcu_read_lock();
		parked = kprobe_site_lookup(kp.addr);
		rcu_read_unlock();
	}
	return parked ? kp.addr : NULL;
}

/*
 * A batch's later probe with a post_handler, at a parked site, removes
 * that site on the spot, and the removal commits what the batch's earlier
 * entries queued.  When ftrace refuses one of those there (a jprobe at a
 * function another IPMODIFY user holds: -EBUSY), the batch fails as a
 * whole, as it does when ftrace refuses at its end; it must not return 0
 * with a probe that is never hit.  Should the reaper take the parked
 * site between its check and the batch (PARK_DELAY is 100 ms), the case
 * runs the end's refusal instead and passes without the path; without
 * the fix it failed every time it was run.
 */
static void ftrace_refusal_mid_batch_fails_it(struct kunit *test)
{
	kprobe_opcode_t *addr = target_entry(test);
	struct jprobe jp = { .kp.addr = addr, .kp.pre_handler = jprobe_setjmp,
			     .entry = jentry };
	struct kprobe post = { .addr = (kprobe_opcode_t *)kpo_plain,
			       .pre_handler = second_pre,
			       .post_handler = count_post };
	struct kprobe *batch[] = { &jp.kp, &post };
	kprobe_opcode_t *parked;
	int ret;

	kprobe_optimizer_flush();	/* no site parked by an earlier case */
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&other_ipmodify,
						   (unsigned long)addr, 0, 1), 0);
	if (register_ftrace_function(&other_ipmodify)) {
		ftrace_set_filter_ip(&other_ipmodify, (unsigned long)addr, 1, 1);
		KUNIT_FAIL(test, "the other IPMODIFY ops was refused");
		return;
	}
	parked = park_site_at_kpo_plain(test);
	if (parked) {
		reset_counts();
		atomic_set(&jhits, 0);
		atomic_set(&second_hits, 0);
		ret = register_kprobes(batch, ARRAY_SIZE(batch));
		KUNIT_EXPECT_EQ(test, ret, -EBUSY);
		/* Nothing of the batch stays, the parked site neither. */
		KUNIT_EXPECT_EQ(test, kpft_fn(1), 4);
		KUNIT_EXPECT_EQ(test, kpo_plain(1), 6);
		rcu_read_lock();
		KUNIT_EXPECT_NULL(test, kprobe_site_lookup(parked));
		KUNIT_EXPECT_NULL(test, kprobe_site_lookup(addr));
		rcu_read_unlock();
		KUNIT_EXPECT_EQ(test, atomic_read(&jhits), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&second_hits), 0);
		/* Whatever a regression left registered must not outlive the case. */
		unregister_kprobes(batch, ARRAY_SIZE(batch));
	}
	KUNIT_EXPECT_EQ(test, unregister_ftrace_function(&other_ipmodify), 0);
	ftrace_set_filter_ip(&other_ipmodify, (unsigned long)addr, 1, 1);
	/* A skip would hide a failure of the helper's. */
	if (!parked && test->status != KUNIT_FAILURE)
		kunit_skip(test, "no parked site at kpo_plain");
}

/*
 * Two return hooks on one stack: a kretprobe on kpft_inner() and an
 * fprobe exit (rethook's trampoline) on kpft_outer(), its caller.  A
 * stack trace taken in kpft_leaf(), which kpft_inner() calls, meets both
 * trampolines in the return slots; the unwinder must find each real
 * return address in its own list (the kretprobe instances, rethook's
 * nodes: two layouts), so kpft_outer() and this case show in the trace
 * and neither trampoline does.
 */
#define KPFT_TRACE_MAX	32
static unsigned long kpft_trace[KPFT_TRACE_MAX];
static unsigned int kpft_trace_len;

static noinline long kpft_leaf(long x)
{
	kpft_trace_len = stack_trace_save(kpft_trace, KPFT_TRACE_MAX, 0);
	asm volatile("" : "+r" (x));
	return x + 1;
}

static long (* volatile kpft_leaf_fn)(long) = kpft_leaf;

static noinline long kpft_inner(long x)
{
	return kpft_leaf_fn(x) * 2;
}

static long (* volatile kpft_inner_fn)(long) = kpft_inner;

static noinline long kpft_outer(long x)
{
	return kpft_inner_fn(x) + 3;
}

static long (* volatile kpft_outer_fn)(long) = kpft_outer;

static atomic_t inner_returns, outer_returns;

static int inner_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&inner_returns);
	return 0;
}

#ifdef CONFIG_FPROBE
static void outer_exit(struct fprobe *fp, unsigned long entry_ip,
		       unsigned long ret_ip, struct pt_regs *regs,
		       void *entry_data)
{
	atomic_inc(&outer_returns);
}
#endif

/* Is there an address of @fn's body in the trace; of a trampoline? */
static bool trace_has_function(void *fn)
{
	unsigned long size, offset, start = (unsigned long)fn;
	unsigned int i;

	if (!kallsyms_lookup_size_offset(start, &size, &offset))
		return false;
	start -= offset;
	for (i = 0; i < kpft_trace_len; i++)
		if (kpft_trace[i] - start < size)
			return true;
	return false;
}

static bool trace_has_trampoline(void)
{
	unsigned int i;

	for (i = 0; i < kpft_trace_len; i++) {
		if (is_kretprobe_trampoline(kpft_trace[i]))
			return true;
#ifdef CONFIG_RETHOOK
		if (is_rethook_trampoline(kpft_trace[i]))
			return true;
#endif
	}
	return false;
}

static void trace_through_kretprobe_and_rethook(struct kunit *test)
{
#ifdef CONFIG_FPROBE
	struct kretprobe rp = { .kp.addr = (kprobe_opcode_t *)kpft_inner_fn,
				.handler = inner_ret };
	unsigned long outer = (unsigned long)kpft_outer_fn;
	struct fprobe fp = { .exit_handler = outer_exit };
	unsigned int i;

	atomic_set(&inner_returns, 0);
	atomic_set(&outer_returns, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	if (register_fprobe_ips(&fp, &outer, 1)) {
		unregister_kretprobe(&rp);
		KUNIT_FAIL(test, "the fprobe was refused");
		return;
	}
	KUNIT_EXPECT_EQ(test, kpft_outer_fn(5), 15);
	unregister_fprobe(&fp);
	unregister_kretprobe(&rp);

	/* Both hooks were in the slots while the trace was taken. */
	KUNIT_EXPECT_EQ(test, atomic_read(&inner_returns), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer_returns), 1);
	KUNIT_EXPECT_TRUE(test, trace_has_function(kpft_leaf));
	KUNIT_EXPECT_TRUE(test, trace_has_function(kpft_inner));
	KUNIT_EXPECT_TRUE(test, trace_has_function(kpft_outer));
	KUNIT_EXPECT_TRUE(test,
		trace_has_function(trace_through_kretprobe_and_rethook));
	KUNIT_EXPECT_FALSE(test, trace_has_trampoline());
	if (test->status == KUNIT_FAILURE)
		for (i = 0; i < kpft_trace_len; i++)
			kunit_info(test, "trace: %pS\n", (void *)kpft_trace[i]);
#else
	kunit_skip(test, "no fprobe on this kernel");
#endif
}

/*
 * The series' ftrace patch lets a filter change of a few functions update
 * only their records.  Another ftrace_ops adds and removes single
 * functions of its filter, one at a time, while the other CPU calls four
 * functions and a kprobe sits at the entry of one of them: each function
 * must reach the ops exactly while it is in the filter, the probe must
 * fire throughout (its site goes from its own trampoline to the list
 * caller and back), and once both are gone every entry is a NOP again.
 */
static noinline long kpft_f2(long x)
{
	asm volatile("" : "+r" (x));
	return x ^ 0x55;
}

static noinline long kpft_f3(long x)
{
	asm volatile("" : "+r" (x));
	return x * 7;
}

static long (* volatile kpft_fns[4])(long) = {
	kpft_target, kpft_other, kpft_f2, kpft_f3,
};
static unsigned long fn_entry[4];
static atomic_t fn_watched[4], fn_wrong;

static long expected_result(int i, long x)
{
	switch (i) {
	case 0: return 3 * x + 1;
	case 1: return x + 100;
	case 2: return x ^ 0x55;
	default: return x * 7;
	}
}

static int four_hammer(void *unused)
{
	long x = 0;
	int i;

	while (!kthread_should_stop()) {
		for (i = 0; i < 4; i++)
			if (kpft_fns[i](x) != expected_result(i, x))
				atomic_inc(&fn_wrong);
		atomic_inc(&hammer_calls);
		x = (x + 1) & 0xffff;
		if (!(x & 0xff))
			schedule();
	}
	return 0;
}

static void watch_func(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	int i;

	for (i = 0; i < 4; i++)
		if (ip == fn_entry[i])
			atomic_inc(&fn_watched[i]);
}

static struct ftrace_ops watch_ops = {
	.func = watch_func,
};

/* Whether ftrace left a call at the entry @ip rather than its NOP. */
static bool entry_is_call(unsigned long ip)
{
	u8 op;

	return !copy_from_kernel_nofault(&op, (void *)ip, 1) &&
	       op == CALL_INSN_OPCODE;
}

/* Hits of function @i over a few calls of the other CPU. */
static int watched_while_called(int i)
{
	int before = atomic_read(&fn_watched[i]);

	wait_for_hammer_calls(8);
	return atomic_read(&fn_watched[i]) - before;
}

static void filter_changes_one_function_while_called(struct kunit *test)
{
	struct task_struct *hammer;
	struct kprobe kp = { .pre_handler = count_pre };
	int round, i, cpu, probe_hits;

	for (i = 0; i < 4; i++) {
		fn_entry[i] = ftrace_location((unsigned long)kpft_fns[i]);
		KUNIT_ASSERT_NE(test, fn_entry[i], 0UL);
		atomic_set(&fn_watched[i], 0);
	}
	reset_counts();
	atomic_set(&fn_wrong, 0);
	atomic_set(&hammer_calls, 0);
	hammer_timeouts = 0;

	/* One function always in the filter: an empty one means all. */
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&watch_ops, fn_entry[0], 0, 1), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(&watch_ops), 0);
	kp.addr = (kprobe_opcode_t *)fn_entry[1];
	if (register_kprobe(&kp)) {
		unregister_ftrace_function(&watch_ops);
		KUNIT_FAIL(test, "the probe was refused");
		return;
	}
	hammer = kpt_start_hammer(test, four_hammer, "kprobes-filter-hammer", &cpu);

	for (round = 0; round < 12; round++) {
		i = 1 + round % 3;
		KUNIT_EXPECT_EQ(test, watched_while_called(i), 0);
		probe_hits = atomic_read(&pre_hits);
		if (ftrace_set_filter_ip(&watch_ops, fn_entry[i], 0, 0)) {
			KUNIT_FAIL(test, "adding %ps to the filter failed", kpft_fns[i]);
			break;
		}
		KUNIT_EXPECT_TRUE(test, entry_is_call(fn_entry[i]));
		KUNIT_EXPECT_GT(test, watched_while_called(i), 0);
		KUNIT_EXPECT_GT(test, watched_while_called(0), 0);
		if (ftrace_set_filter_ip(&watch_ops, fn_entry[i], 1, 0)) {
			KUNIT_FAIL(test, "removing %ps from the filter failed", kpft_fns[i]);
			break;
		}
		/* A call under way when the filter changed may still count. */
		watched_while_called(i);
		KUNIT_EXPECT_EQ(test, watched_while_called(i), 0);
		KUNIT_EXPECT_GT(test, atomic_read(&pre_hits), probe_hits);
		KUNIT_EXPECT_TRUE(test, entry_is_call(fn_entry[1]));
		if (i != 1)
			KUNIT_EXPECT_FALSE(test, entry_is_call(fn_entry[i]));
	}
	kthread_stop(hammer);
	unregister_kprobe(&kp);
	unregister_ftrace_function(&watch_ops);
	ftrace_free_filter(&watch_ops);

	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_FALSE(test, entry_is_call(fn_entry[i]));
	KUNIT_EXPECT_EQ(test, atomic_read(&fn_wrong), 0);
	KUNIT_EXPECT_EQ(test, hammer_timeouts, 0);
	kunit_info(test, "%d calls of four functions on CPU%d, %d probe hits\n",
		   atomic_read(&hammer_calls), cpu, atomic_read(&pre_hits));
}

static struct kunit_case kprobes_ftrace_cases[] = {
	KUNIT_CASE(entry_probe_goes_through_ftrace),
	KUNIT_CASE(post_handler_of_another_probe),
	KUNIT_CASE(kretprobe_at_ftrace_entry),
	KUNIT_CASE(pre_handler_redirects_at_ftrace_site),
	KUNIT_CASE(pair_stops_at_redirect),
	KUNIT_CASE(only_a_claimed_ip_change_stands),
	KUNIT_CASE(jprobe_at_ftrace_entry),
	KUNIT_CASE(several_probes_enable_disable),
	KUNIT_CASE(interrupts_off_only_for_fault_handlers),
	KUNIT_CASE(inside_fentry_call_refused),
	KUNIT_CASE(probe_after_ftrace_site_while_jumped),
	KUNIT_CASE(jprobe_excludes_other_ipmodify),
	KUNIT_CASE(refused_claim_retried),
	KUNIT_CASE(ftrace_refusal_mid_batch_fails_it),
	KUNIT_CASE(trace_through_kretprobe_and_rethook),
	KUNIT_CASE_SLOW(arming_while_called),
	KUNIT_CASE_SLOW(jprobe_coming_and_going_loses_no_hit),
	KUNIT_CASE_SLOW(lone_post_handler_while_others_come_and_go),
	KUNIT_CASE(lone_pre_handler_probe_goes_bare),
	KUNIT_CASE_SLOW(bare_probe_gets_a_site_while_called),
	KUNIT_CASE_SLOW(filter_changes_one_function_while_called),
	{}
};

static struct kunit_suite kprobes_ftrace_suite = {
	.name = "kprobes_ftrace",
	.test_cases = kprobes_ftrace_cases,
};

kunit_test_suite(kprobes_ftrace_suite);
