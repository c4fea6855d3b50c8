// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of jump optimization on x86-64: which functions get a jump
 * and which stay on int3, that optimized probes see the right registers and
 * leave results alone, every transition of a site between int3 and jump,
 * and hits on the other CPU while sites flip back and forth.
 *
 * The probed functions are in opt_kunit_targets.S.  "Optimized" is read
 * twice: from the probe's KPROBE_FLAG_OPTIMIZED (what debugfs' list
 * prints) and from the text itself (a jmp, or int3, at the probe).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/error-injection.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ptrace.h>
#include <linux/unaligned.h>
#include <asm/nospec-branch.h>
#include <asm/text-patching.h>

#include "kprobes_kunit.h"

/* Read by kpo_rip(); the targets are declared in kprobes_kunit.h. */
long kpo_data;
ALLOW_ERROR_INJECTION(kpo_inject, ERRNO);

static struct {
	int pre, post, ret;
	unsigned long ip, di, sp, ret_ax;
} seen;

static int opt_pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre++;
	seen.ip = regs->ip;
	seen.di = regs->di;
	seen.sp = regs->sp;
	return 0;
}

static void opt_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	seen.post++;
}

static int opt_init(struct kunit *test)
{
	memset(&seen, 0, sizeof(seen));
	kpo_data = 100;
	return 0;
}

/* The text at the probe: a jmp (0xe9) when optimized, int3 when not. */
static u8 text_at(struct kprobe *p)
{
	return *(u8 *)p->addr;
}

/* Let the optimizer run, then: is @p reached through a jump? */
static bool settled_optimized(struct kunit *test, struct kprobe *p)
{
	bool flag;

	kprobe_optimizer_flush();
	flag = kprobe_optimized(p);
	KUNIT_EXPECT_EQ(test, text_at(p),
			flag ? JMP32_INSN_OPCODE : INT3_INSN_OPCODE);
	return flag;
}

static void plain_function_is_optimized(struct kunit *test)
{
	struct kprobe kp = { .addr = (void *)kpo_plain, .pre_handler = opt_pre };

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	/* Queued for the delayed optimizer: not optimized yet, int3 in. */
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_EQ(test, text_at(&kp), INT3_INSN_OPCODE);
	/* Hit before the optimizer ran: the detour's copy, same result. */
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 6L);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &kp));

	KUNIT_EXPECT_EQ(test, kpo_plain(7), 12L);
	KUNIT_EXPECT_EQ(test, seen.pre, 2);
	KUNIT_EXPECT_EQ(test, seen.di, 7UL);
	KUNIT_EXPECT_EQ(test, seen.ip, (unsigned long)kp.addr + 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 6L);
	KUNIT_EXPECT_EQ(test, seen.pre, 2);
}

/* Each relocatable class in a region: RIP-relative, short jcc, stack ops. */
static void relocated_regions_keep_results(struct kunit *test)
{
	struct kprobe rip = { .addr = (void *)kpo_rip, .pre_handler = opt_pre };
	struct kprobe jcc = { .addr = (void *)kpo_jcc, .pre_handler = opt_pre };
	struct kprobe stk = { .addr = (void *)kpo_stack, .pre_handler = opt_pre };
	struct kprobe spp = { .addr = (void *)kpo_sp, .pre_handler = opt_pre };
	unsigned long sp;

	KUNIT_ASSERT_EQ(test, register_kprobe(&rip), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&jcc), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&stk), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&spp), 0);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &rip));
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &jcc));
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &stk));
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &spp));

	KUNIT_EXPECT_EQ(test, kpo_rip(), 101L);
	KUNIT_EXPECT_EQ(test, kpo_jcc(1), 10L);
	KUNIT_EXPECT_EQ(test, kpo_jcc(0), 20L);
	KUNIT_EXPECT_EQ(test, seen.di, 0UL);
	KUNIT_EXPECT_EQ(test, kpo_stack(41), 42L);
	KUNIT_EXPECT_EQ(test, seen.di, 41UL);
	KUNIT_EXPECT_EQ(test, seen.pre, 4);
	/* The handler's sp is exactly the probed code's, as kpo_sp() reads it. */
	sp = kpo_sp();
	KUNIT_EXPECT_EQ(test, seen.pre, 5);
	KUNIT_EXPECT_EQ(test, seen.sp, sp);

	unregister_kprobe(&spp);
	unregister_kprobe(&stk);
	unregister_kprobe(&jcc);
	unregister_kprobe(&rip);
}

/* Each function breaks one rule: the probe stays on int3 and still fires. */
static void rule_breakers_stay_int3(struct kunit *test)
{
	static void * const fns[] = {
		kpo_call, kpo_jump_in, kpo_indirect, kpo_extable, kpo_short,
	};
	static const char * const why[] = {
		"a call in the region", "a jump into the region", "an indirect jump in the function",
		"an exception-table entry in the function",
		"a region past the function's end",
	};
	struct kprobe kp;
	int i;

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = fns[i];
		kp.pre_handler = opt_pre;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		KUNIT_EXPECT_FALSE_MSG(test, settled_optimized(test, &kp),
				       "optimized despite %s", why[i]);
		unregister_kprobe(&kp);
	}
}

static void rule_breakers_still_fire(struct kunit *test)
{
	struct kprobe kps[5] = {
		{ .addr = (void *)kpo_call, .pre_handler = opt_pre },
		{ .addr = (void *)kpo_jump_in, .pre_handler = opt_pre },
		{ .addr = (void *)kpo_indirect, .pre_handler = opt_pre },
		{ .addr = (void *)kpo_extable, .pre_handler = opt_pre },
		{ .addr = (void *)kpo_short, .pre_handler = opt_pre },
	};
	struct kprobe *ptrs[5];
	long data = 5;
	int i;

	for (i = 0; i < 5; i++)
		ptrs[i] = &kps[i];
	KUNIT_ASSERT_EQ(test, register_kprobes(ptrs, 5), 0);
	kprobe_optimizer_flush();
	KUNIT_EXPECT_EQ(test, kpo_call(), 42L);
	KUNIT_EXPECT_EQ(test, kpo_jump_in(3), 10L);
	KUNIT_EXPECT_EQ(test, kpo_indirect(1, 0, NULL), 3L);
	KUNIT_EXPECT_EQ(test, kpo_extable(1, &data), 4L);
	KUNIT_EXPECT_EQ(test, kpo_short(1), 3L);
	KUNIT_EXPECT_EQ(test, seen.pre, 5);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kps[i]));
	unregister_kprobes(ptrs, 5);
}

/*
 * A near ret in the region is copied as it is, as upstream's optimizer
 * does: the copy returns to the caller straight from the detour.  The
 * torture's ktt_ret puts such regions under the other CPU's calls.
 */
/*
 * The detour's copy of kpo_ret_last's region (mov %rdi,%rax; nop; ret)
 * ends as the kernel's own returns do: a ret and an int3, or a jmp to the
 * return thunk where the CPU wants one at the copy's address.
 */
static void expect_ret_copied_as_kernel_does(struct kunit *test, u8 *addr)
{
	static const u8 head[] = { 0x48, 0x89, 0xf8, 0x90 };
	u8 *detour, *r = NULL;
	unsigned int i;

	/* Expectations only: the probe lives on the caller's stack. */
	KUNIT_EXPECT_EQ(test, addr[0], (u8)JMP32_INSN_OPCODE);
	if (addr[0] != JMP32_INSN_OPCODE)
		return;
	detour = addr + JMP32_INSN_SIZE + get_unaligned((s32 *)(addr + 1));
	for (i = 0; i + sizeof(head) + JMP32_INSN_SIZE <= KPROBE_SLOT_SIZE -
		    KPROBE_DETOUR_OFFSET && !r; i++)
		if (!memcmp(detour + i, head, sizeof(head)))
			r = detour + i + sizeof(head);
	KUNIT_EXPECT_NOT_NULL_MSG(test, r, "the region's copy is in the detour");
	if (!r)
		return;
	if (cpu_wants_rethunk_at(r)) {
		KUNIT_EXPECT_EQ(test, r[0], (u8)JMP32_INSN_OPCODE);
		KUNIT_EXPECT_PTR_EQ(test, (void *)(r + JMP32_INSN_SIZE +
				    get_unaligned((s32 *)(r + 1))),
				    (void *)x86_return_thunk);
	} else {
		KUNIT_EXPECT_EQ(test, r[0], (u8)RET_INSN_OPCODE);
		KUNIT_EXPECT_EQ(test, r[1], (u8)INT3_INSN_OPCODE);
	}
	kunit_info(test, "the copied ret: %s",
		   cpu_wants_rethunk_at(r) ? "the return thunk" : "ret; int3");
}

static void ret_in_region_is_optimized(struct kunit *test)
{
	struct kprobe kp = { .addr = (void *)kpo_ret_last, .pre_handler = opt_pre };

	memset(&seen, 0, sizeof(seen));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &kp));
	expect_ret_copied_as_kernel_does(test, (u8 *)kp.addr);
	KUNIT_EXPECT_EQ(test, kpo_ret_last(9), 9L);
	KUNIT_EXPECT_EQ(test, kpo_ret_last(-3), -3L);
	KUNIT_EXPECT_EQ(test, seen.pre, 2);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpo_ret_last(7), 7L);
}

static long kpo_jentry(long x)
{
	jprobe_return();
	return 0;
}

static int opt_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	seen.ret++;
	seen.ret_ax = regs_return_value(regs);
	return 0;
}

/*
 * Every reason to leave the jump, and its going away: the flag (what the
 * list shows) and the text follow at each step.
 */
static void transitions(struct kunit *test)
{
	struct kprobe kp = { .addr = (void *)kpo_plain, .pre_handler = opt_pre };
	struct kprobe post = { .addr = (void *)kpo_plain,
			       .pre_handler = opt_pre, .post_handler = opt_post };
	struct jprobe jp = { .kp.addr = (void *)kpo_plain, .entry = kpo_jentry };
	struct kprobe inner = { .pre_handler = opt_pre };
	u8 orig[16];

	kprobe_optimizer_flush();	/* no site parked by an earlier case */
	memcpy(orig, (u8 *)kpo_plain, sizeof(orig));	/* as built */
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, settled_optimized(test, &kp));

	/* A post_handler joins: int3 at once; it leaves: the jump again. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_FALSE(test, settled_optimized(test, &kp));
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 6L);
	KUNIT_EXPECT_EQ(test, seen.pre, 2);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	unregister_kprobe(&post);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &kp));

	/* A jprobe joins. */
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_FALSE(test, settled_optimized(test, &kp));
	KUNIT_EXPECT_EQ(test, kpo_plain(2), 7L);
	unregister_jprobe(&jp);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &kp));

	/* Another probe lands inside the region (on the add). */
	inner.addr = kp.addr + 3;
	KUNIT_ASSERT_EQ(test, register_kprobe(&inner), 0);
	KUNIT_EXPECT_FALSE(test, settled_optimized(test, &kp));
	seen.pre = 0;
	KUNIT_EXPECT_EQ(test, kpo_plain(3), 8L);
	KUNIT_EXPECT_EQ(test, seen.pre, 2);	/* both fire */
	unregister_kprobe(&inner);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &kp));

	/* Disabled: every original byte back, not even int3; no hit. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_EQ(test, text_at(&kp), (u8)0x48);	/* mov %rdi, %rax */
	KUNIT_EXPECT_EQ(test, memcmp((u8 *)kpo_plain, orig, sizeof(orig)), 0);
	seen.pre = 0;
	KUNIT_EXPECT_EQ(test, kpo_plain(5), 10L);
	KUNIT_EXPECT_EQ(test, seen.pre, 0);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &kp));

	/* Everything disarmed (debugfs' enabled = 0), then re-armed. */
	kprobes_set_armed(false);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_EQ(test, text_at(&kp), (u8)0x48);
	KUNIT_EXPECT_EQ(test, memcmp((u8 *)kpo_plain, orig, sizeof(orig)), 0);
	KUNIT_EXPECT_EQ(test, kpo_plain(6), 11L);
	KUNIT_EXPECT_EQ(test, seen.pre, 0);
	kprobes_set_armed(true);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &kp));

	/* The sysctl. */
	kprobes_set_optimization(false);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_EQ(test, text_at(&kp), INT3_INSN_OPCODE);
	KUNIT_EXPECT_FALSE(test, settled_optimized(test, &kp));
	kprobes_set_optimization(true);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &kp));

	seen.pre = 0;
	KUNIT_EXPECT_EQ(test, kpo_plain(4), 9L);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	unregister_kprobe(&kp);
	kprobe_optimizer_flush();	/* the parked site goes */
	KUNIT_EXPECT_EQ(test, memcmp((u8 *)kpo_plain, orig, sizeof(orig)), 0);
}

/*
 * An optimized probe cannot redirect: the detour goes on with the copied
 * region whatever the pre_handler returns or does to regs->ip.
 */
static int redirecting_pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre++;
	regs->ip = (unsigned long)kpo_rip;
	regs->ax = 0x77;
	return 1;
}

static void optimized_ignores_pre_return(struct kunit *test)
{
	struct kprobe kp = { .addr = (void *)kpo_plain,
			     .pre_handler = redirecting_pre };

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_TRUE(test, settled_optimized(test, &kp));
	seen.pre = 0;
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 6L);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	unregister_kprobe(&kp);
}

#ifdef CONFIG_FUNCTION_ERROR_INJECTION
/* What fail_function and bpf_override_return() do: return -5 at once. */
static int injecting_pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre++;
	regs_set_return_value(regs, -5);
	override_function_with_return(regs);
	return 1;
}
#endif

/*
 * A pre_handler-only probe at the entry of a function open to error
 * injection: it would be worth a jump, but the detour cannot leave the
 * function as an injection must, so it stays on int3 and every call
 * returns the injected error.
 */
static void injectable_entry_stays_int3(struct kunit *test)
{
#ifdef CONFIG_FUNCTION_ERROR_INJECTION
	struct kprobe kp = { .addr = (void *)kpo_inject,
			     .pre_handler = injecting_pre };
	int i;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, settled_optimized(test, &kp));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kpo_inject(1), -5L);
	KUNIT_EXPECT_EQ(test, seen.pre, 3);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpo_inject(1), 6L);
#else
	kunit_skip(test, "no CONFIG_FUNCTION_ERROR_INJECTION");
#endif
}

static void kretprobe_entry_is_optimized(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (void *)kpo_plain,
		.handler = opt_ret,
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &rp.kp));
	KUNIT_EXPECT_EQ(test, kpo_plain(10), 15L);
	KUNIT_EXPECT_EQ(test, seen.ret, 1);
	KUNIT_EXPECT_EQ(test, seen.ret_ax, 15UL);
	unregister_kretprobe(&rp);
}

/*
 * Two probes at an optimized site run through ->single as a pair (a
 * probe of the core's own, not either of theirs): both pre_handlers, in
 * registration order, each as kprobe_running().  A third takes the site
 * to the list walk, and the pair follows disabling and removal.
 */
static struct kprobe *pair_probes[3];
static int pair_log[16], pair_n, pair_ret;
static bool pair_running_ok;
static void *pair_caller;

static int pair_pre(struct kprobe *p, struct pt_regs *regs)
{
	int i = 0;

	while (i < 3 && pair_probes[i] != p)
		i++;
	if (!pair_n)
		pair_caller = __builtin_return_address(0);
	if (pair_n < ARRAY_SIZE(pair_log))
		pair_log[pair_n++] = i;
	pair_running_ok &= kprobe_running() == p;
	/* Non-zero asks for a redirect, which the detour never makes. */
	return pair_ret;
}

/* Who called the hit's first handler: the pair's, or the list walk. */
static bool first_called_by(const char *fn)
{
	char name[KSYM_SYMBOL_LEN];

	snprintf(name, sizeof(name), "%ps", pair_caller);
	return !strcmp(name, fn);
}

/* ->single of @p's site: 0 for none, 1 for one of ours, 2 for a pair. */
static int single_kind(struct kprobe *p)
{
	struct kprobe_site *site = kprobe_site_lookup(p->addr);
	struct kprobe *single;
	int i;

	if (!site)
		return -1;
	single = rcu_access_pointer(site->single);
	if (!single)
		return 0;
	for (i = 0; i < 3; i++)
		if (single == pair_probes[i])
			return 1;
	return single->pre_handler != pair_pre ? 2 : -1;
}

/* One call of kpo_plain: the handlers that ran, as digits in order. */
static int pair_call(struct kunit *test)
{
	int i, digits = 0;

	pair_n = 0;
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 6L);
	for (i = 0; i < pair_n; i++)
		digits = digits * 10 + pair_log[i] + 1;
	return digits;
}

static void two_probes_run_as_a_pair(struct kunit *test)
{
	struct kprobe a = { .addr = (void *)kpo_plain, .pre_handler = pair_pre };
	struct kprobe b = a, c = a;

	pair_probes[0] = &a;
	pair_probes[1] = &b;
	pair_probes[2] = &c;
	pair_running_ok = true;
	pair_ret = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &a));
	KUNIT_EXPECT_EQ(test, single_kind(&a), 2);
	KUNIT_EXPECT_EQ(test, pair_call(test), 12);
	KUNIT_EXPECT_TRUE(test, first_called_by("kprobe_pair_pre_all"));
	/* The detour's pair runs both whatever the first returns. */
	pair_ret = 1;
	KUNIT_EXPECT_EQ(test, pair_call(test), 12);
	pair_ret = 0;

	KUNIT_ASSERT_EQ(test, register_kprobe(&c), 0);
	KUNIT_EXPECT_EQ(test, single_kind(&a), 0);
	KUNIT_EXPECT_EQ(test, pair_call(test), 123);
	KUNIT_EXPECT_TRUE(test, first_called_by("kprobe_site_pre_handlers_passing"));

	KUNIT_EXPECT_EQ(test, disable_kprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, single_kind(&a), 2);
	KUNIT_EXPECT_EQ(test, pair_call(test), 23);

	unregister_kprobe(&c);
	KUNIT_EXPECT_EQ(test, single_kind(&a), 1);
	KUNIT_EXPECT_EQ(test, pair_call(test), 2);

	KUNIT_EXPECT_EQ(test, enable_kprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, single_kind(&a), 2);
	KUNIT_EXPECT_EQ(test, pair_call(test), 12);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&a));
	KUNIT_EXPECT_NULL(test, kprobe_running());

	unregister_kprobe(&b);
	unregister_kprobe(&a);
	KUNIT_EXPECT_EQ(test, pair_call(test), 0);
	KUNIT_EXPECT_TRUE(test, pair_running_ok);
}

static atomic_t hammer_calls, hammer_wrong, hammer_hits;

static int hammer_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&hammer_hits);
	return 0;
}

static int opt_hammer(void *unused)
{
	long i = 0;

	while (!kthread_should_stop()) {
		if (kpo_plain(i) != i + 5 || kpo_jcc(i & 1) != (i & 1 ? 10 : 20) ||
		    kpo_stack(i) != i + 1)
			atomic_inc(&hammer_wrong);
		atomic_inc(&hammer_calls);
		/*
		 * A voluntary context switch now and then: the optimizer
		 * waits for an RCU Tasks grace period, which needs one from
		 * every task, and on a preemptible kernel cond_resched() is
		 * none.  Not a sleep, which lasts a tick or more without
		 * high-resolution timers: the hammer must keep running.
		 */
		if (!(++i & 63))
			schedule();
	}
	return 0;
}

/* Flip three sites between jump and int3 while the other CPU runs them. */
static void hits_while_flipping(struct kunit *test)
{
	struct kprobe kps[3] = {
		{ .addr = (void *)kpo_plain, .pre_handler = hammer_pre },
		{ .addr = (void *)kpo_jcc, .pre_handler = hammer_pre },
		{ .addr = (void *)kpo_stack, .pre_handler = hammer_pre },
	};
	struct kprobe *ptrs[3] = { &kps[0], &kps[1], &kps[2] };
	struct task_struct *hammer;
	int round, cpu, flips = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	atomic_set(&hammer_calls, 0);
	atomic_set(&hammer_wrong, 0);
	atomic_set(&hammer_hits, 0);
	hammer = kpt_start_hammer(test, opt_hammer, "kprobes-opt-hammer", &cpu);

	KUNIT_ASSERT_EQ(test, register_kprobes(ptrs, 3), 0);
	for (round = 0; round < 30; round++) {
		kprobe_optimizer_flush();
		flips += kprobe_optimized(&kps[0]);
		udelay(200);
		switch (round % 3) {
		case 0:
			kprobes_set_optimization(false);
			udelay(200);
			kprobes_set_optimization(true);
			break;
		case 1:		/* each of the three in turn */
			KUNIT_EXPECT_EQ(test, disable_kprobe(&kps[round / 3 % 3]), 0);
			udelay(200);
			KUNIT_EXPECT_EQ(test, enable_kprobe(&kps[round / 3 % 3]), 0);
			break;
		case 2:
			kprobes_set_armed(false);
			udelay(200);
			kprobes_set_armed(true);
			break;
		}
	}
	unregister_kprobes(ptrs, 3);
	kthread_stop(hammer);

	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&hammer_hits), 0);
	KUNIT_EXPECT_GT(test, flips, 20);
	kunit_info(test, "%d calls, %d hits on CPU%d, %d rounds optimized\n",
		   atomic_read(&hammer_calls), atomic_read(&hammer_hits), cpu,
		   flips);
}

/*
 * An optimized site with one probe runs it through ->single, without the
 * list, and with two through a pair; a second probe coming and going, or
 * being disabled, switches the site between the two while the other CPU
 * calls the function.  The
 * first probe must see every call exactly once, and the second none after
 * its unregistration returned.
 */
static atomic_t single_calls, single_a, single_b;

static int single_pre_a(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&single_a);
	return 0;
}

static int single_pre_b(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&single_b);
	return 0;
}

static int single_hammer(void *unused)
{
	long i = 0;

	while (!kthread_should_stop()) {
		if (kpo_plain(i) != i + 5)
			atomic_inc(&hammer_wrong);
		atomic_inc(&single_calls);
		if (!(++i & 63))
			schedule();	/* as opt_hammer() */
	}
	return 0;
}

/*
 * Wait until the hammer has made a whole call since now (two more ends
 * of a call: the one under way may have begun before), or five seconds
 * have gone by.  A fixed delay is no window at all when the host does not
 * run the other vCPU meanwhile, or the debug kernel's hammer is slow.  A
 * wait that runs out means the rounds saw no call: the case fails then.
 */
static int single_wait_timeouts;	/* waits the second ran out: a stalled hammer */

static void single_wait_for_a_call(void)
{
	int from = atomic_read(&single_calls);
	unsigned long end = jiffies + 5 * HZ;

	while (atomic_read(&single_calls) - from < 2 && time_before(jiffies, end))
		cpu_relax();
	if (atomic_read(&single_calls) - from < 2)
		single_wait_timeouts++;
}

static void single_probe_switches_under_hits(struct kunit *test)
{
	struct kprobe a = { .addr = (void *)kpo_plain, .pre_handler = single_pre_a };
	struct kprobe b = { .addr = (void *)kpo_plain, .pre_handler = single_pre_b };
	struct task_struct *hammer;
	int round, cpu, b_after;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	single_wait_timeouts = 0;
	atomic_set(&single_calls, 0);
	atomic_set(&single_a, 0);
	atomic_set(&single_b, 0);
	atomic_set(&hammer_wrong, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, &a));
	hammer = kpt_start_hammer(test, single_hammer, "kprobes-single", &cpu);

	for (round = 0; round < 40; round++) {
		memset(&b, 0, sizeof(b));
		b.addr = (void *)kpo_plain;
		b.pre_handler = single_pre_b;
		if (round & 1)
			b.flags = KPROBE_FLAG_DISABLED;
		KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
		single_wait_for_a_call();
		KUNIT_EXPECT_EQ(test, (round & 1) ? enable_kprobe(&b) :
						    disable_kprobe(&b), 0);
		single_wait_for_a_call();
		unregister_kprobe(&b);
		b_after = atomic_read(&single_b);
		udelay(100);
		KUNIT_EXPECT_EQ(test, atomic_read(&single_b), b_after);
	}
	kthread_stop(hammer);
	/* A hammer that stalled would leave the rounds without hits. */
	KUNIT_EXPECT_EQ(test, single_wait_timeouts, 0);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&a));
	unregister_kprobe(&a);

	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&single_a), atomic_read(&single_calls));
	KUNIT_EXPECT_GT(test, atomic_read(&single_b), 0);
	kunit_info(test, "%d calls on CPU%d, the second probe saw %d\n",
		   atomic_read(&single_calls), cpu, atomic_read(&single_b));
}

/*
 * The last probe of an optimized site goes while the other CPU calls the
 * function: the site parks, jump and detour in, calling no handler, and a
 * new probe there (another struct kprobe, as a tool replacing its probe
 * registers) is optimized at once.  Every few rounds the parked site is
 * reaped instead, and the original bytes are back.  Whether a round finds
 * the site still parked depends on the reaper's timer, so the case asks
 * for most rounds, not all; and only of the rounds that came back within
 * a quarter of the parking time (PARK_DELAY, register.c): on a host
 * busy elsewhere a guest's wait for the other CPU's call can outlast it.
 */
static void single_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
}

static void parked_site_taken_up_again(struct kunit *test)
{
	struct kprobe probes[2];
	struct kprobe *p, *gone;
	struct kprobe_site *site;
	struct task_struct *hammer;
	int round, cpu, taken_up = 0, expected = 0, late = 0, before;
	unsigned long parked_at = 0;
	bool back_in_time;
	u8 orig[16];

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	kprobe_optimizer_flush();	/* no site parked by an earlier case */
	memcpy(orig, (u8 *)kpo_plain, sizeof(orig));
	single_wait_timeouts = 0;
	atomic_set(&single_calls, 0);
	atomic_set(&single_a, 0);
	atomic_set(&single_b, 0);
	atomic_set(&hammer_wrong, 0);
	hammer = kpt_start_hammer(test, single_hammer, "kprobes-parked", &cpu);

	gone = NULL;
	for (round = 0; round < 24; round++) {
		p = &probes[round & 1];
		memset(p, 0, sizeof(*p));
		p->addr = (void *)kpo_plain;
		p->pre_handler = (round & 1) ? single_pre_b : single_pre_a;
		back_in_time = time_before(jiffies, parked_at + HZ / 40 + 1);
		KUNIT_ASSERT_EQ(test, register_kprobe(p), 0);
		if (gone && back_in_time) {
			expected++;
			taken_up += kprobe_optimized(p);
		} else if (gone) {
			late++;
		}
		KUNIT_EXPECT_TRUE(test, settled_optimized(test, p));
		single_wait_for_a_call();
		unregister_kprobe(p);
		parked_at = jiffies;
		/* Parked: calls go on through the jump, the handler is gone. */
		before = atomic_read((round & 1) ? &single_b : &single_a);
		single_wait_for_a_call();
		KUNIT_EXPECT_EQ(test, atomic_read((round & 1) ? &single_b :
							      &single_a), before);
		gone = p;
		if (round % 6 == 5) {
			kprobe_optimizer_flush();
			KUNIT_EXPECT_MEMEQ(test, (u8 *)kpo_plain, orig,
					   sizeof(orig));
			KUNIT_EXPECT_NULL(test, kprobe_site_lookup(gone->addr));
			gone = NULL;
		}
	}

	/* A probe with a post_handler gets a site of its own, built for it. */
	p = &probes[0];
	memset(p, 0, sizeof(*p));
	p->addr = (void *)kpo_plain;
	p->pre_handler = single_pre_a;
	KUNIT_ASSERT_EQ(test, register_kprobe(p), 0);
	KUNIT_EXPECT_TRUE(test, settled_optimized(test, p));
	site = kprobe_site_lookup(p->addr);
	unregister_kprobe(p);
	memset(p, 0, sizeof(*p));
	p->addr = (void *)kpo_plain;
	p->post_handler = single_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(p), 0);
	KUNIT_EXPECT_PTR_NE(test, kprobe_site_lookup(p->addr), site);
	unregister_kprobe(p);

	kthread_stop(hammer);
	/* A hammer that stalled would leave the rounds without hits. */
	KUNIT_EXPECT_EQ(test, single_wait_timeouts, 0);
	kprobe_optimizer_flush();
	KUNIT_EXPECT_MEMEQ(test, (u8 *)kpo_plain, orig, sizeof(orig));

	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&single_a), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&single_b), 0);
	KUNIT_EXPECT_GE(test, taken_up * 2, expected);
	kunit_info(test, "%d calls on CPU%d, %d of %d new probes optimized at once (%d came back late)\n",
		   atomic_read(&single_calls), cpu, taken_up, expected, late);
}

/*
 * Undoing a jump while the other CPU runs through it.  The jump goes away
 * in three steps (int3 over the e9, the rel32 back to the original bytes,
 * syncs between); a CPU that meets the int3 in between must leave through
 * the detour's copy of the whole region, never through a copy of the first
 * instruction alone, which would return into the rel32.  Each round
 * settles kpo_plain optimized, then undoes the jump one way: a post_handler
 * joins (the post copy, which the site has because it was created for a
 * probe with a post_handler), a jprobe joins (the step copy; and the jprobe must
 * never run from the detour, which would leave the caller with interrupts
 * off), or the sysctl goes to 0 while the hammer also reaches kpo_plain
 * from inside a handler (a nested hit, which takes the step copy).
 */
static atomic_t undo_calls, undo_wrong, undo_irqs_off, undo_jcalls;

static int undo_nest_pre(struct kprobe *p, struct pt_regs *regs)
{
	/* A hit on kpo_plain from here is a nested one. */
	if (kpo_plain(3) != 8)
		atomic_inc(&undo_wrong);
	return 0;
}

/*
 * The probe whose post_handler undoes the jump: each of its pre_handlers
 * must be followed by its post_handler on that CPU before its next
 * pre_handler there (upstream's contract), also while the jump is being
 * undone.  A pre_handler run from the detour has no post_handler.
 */
static DEFINE_PER_CPU(bool, undo_post_due);
static atomic_t undo_unpaired, undo_paired;

static int undo_post_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (__this_cpu_read(undo_post_due))
		atomic_inc(&undo_unpaired);
	__this_cpu_write(undo_post_due, true);
	return 0;
}

static void undo_post_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
	if (!__this_cpu_read(undo_post_due))
		atomic_inc(&undo_unpaired);
	else
		atomic_inc(&undo_paired);
	__this_cpu_write(undo_post_due, false);
}

static long undo_jentry(long x)
{
	atomic_inc(&undo_jcalls);
	jprobe_return();
	return 0;
}

static int undo_hammer(void *unused)
{
	long i = 0;

	while (!kthread_should_stop()) {
		if (kpo_plain(i) != i + 5 || kpo_jcc(i & 1) != (i & 1 ? 10 : 20))
			atomic_inc(&undo_wrong);
		if (irqs_disabled()) {
			atomic_inc(&undo_irqs_off);
			local_irq_enable();
		}
		atomic_inc(&undo_calls);
		/*
		 * A voluntary context switch for RCU Tasks, as above, but
		 * without sleeping: a sleep lasts a tick or more here, and
		 * the hammer must be running through the sites all along.
		 */
		if (!(++i & 63))
			schedule();
	}
	return 0;
}

enum undo_way { UNDO_BY_POST, UNDO_BY_JPROBE, UNDO_BY_SYSCTL };

static void undo_jump_rounds(struct kunit *test, enum undo_way way)
{
	struct kprobe kp = { .addr = (void *)kpo_plain, .pre_handler = hammer_pre };
	struct kprobe nest = { .addr = (void *)kpo_jcc,
			       .pre_handler = undo_nest_pre };
	struct kprobe post = { .addr = (void *)kpo_plain,
			       .pre_handler = undo_post_pre,
			       .post_handler = undo_post_post };
	struct jprobe jp = { .entry = undo_jentry };
	struct task_struct *hammer;
	struct kpt_windows win;
	int round, cpu, c, undone = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	kpt_windows_start(&win);
	atomic_set(&undo_calls, 0);
	atomic_set(&undo_wrong, 0);
	atomic_set(&undo_irqs_off, 0);
	atomic_set(&undo_jcalls, 0);
	atomic_set(&hammer_hits, 0);
	atomic_set(&undo_unpaired, 0);
	atomic_set(&undo_paired, 0);
	for_each_possible_cpu(c)
		per_cpu(undo_post_due, c) = false;
	/* The site is prepared for its first probe: give it a post copy. */
	if (way == UNDO_BY_POST)
		KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	if (way == UNDO_BY_POST)
		unregister_kprobe(&post);
	if (way == UNDO_BY_SYSCTL)
		KUNIT_ASSERT_EQ(test, register_kprobe(&nest), 0);

	hammer = kpt_start_hammer(test, undo_hammer, "kprobes-undo-hammer", &cpu);

	for (round = 0; round < 20; round++) {
		kprobe_optimizer_flush();
		if (!kprobe_optimized(&kp))
			continue;
		undone++;
		switch (way) {
		case UNDO_BY_POST:
			memset(&post, 0, sizeof(post));
			post.addr = (void *)kpo_plain;
			post.pre_handler = undo_post_pre;
			post.post_handler = undo_post_post;
			KUNIT_EXPECT_EQ(test, register_kprobe(&post), 0);
			udelay(100);
			unregister_kprobe(&post);
			/*
			 * A hit that ran its pre_handler as it left may see no
			 * post_handler (upstream's too): the next round starts
			 * anew.  Nothing of it runs after unregister_kprobe().
			 */
			for_each_possible_cpu(c)
				per_cpu(undo_post_due, c) = false;
			break;
		case UNDO_BY_JPROBE:
			memset(&jp.kp, 0, sizeof(jp.kp));
			jp.kp.addr = (void *)kpo_plain;
			KUNIT_EXPECT_EQ(test, register_jprobe(&jp), 0);
			udelay(100);
			unregister_jprobe(&jp);
			break;
		case UNDO_BY_SYSCTL:
			kprobes_set_optimization(false);
			udelay(100);
			kprobes_set_optimization(true);
			break;
		}
	}
	kthread_stop(hammer);
	if (way == UNDO_BY_SYSCTL)
		unregister_kprobe(&nest);
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, atomic_read(&undo_wrong), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&undo_irqs_off), 0);
	KUNIT_EXPECT_GE(test, undone, 15);
	if (way == UNDO_BY_POST) {
		KUNIT_EXPECT_EQ(test, atomic_read(&undo_unpaired), 0);
		kunit_info(test, "the joining probe: %d pre/post pairs, %d unpaired\n",
			   atomic_read(&undo_paired), atomic_read(&undo_unpaired));
	}
	KUNIT_EXPECT_GT(test, atomic_read(&hammer_hits), 0);
	if (way == UNDO_BY_JPROBE)
		KUNIT_EXPECT_GT(test, atomic_read(&undo_jcalls), 0);
	kunit_info(test, "%d calls, %d hits on CPU%d, %d jumps undone, %d jprobe calls\n",
		   atomic_read(&undo_calls), atomic_read(&hammer_hits), cpu,
		   undone, atomic_read(&undo_jcalls));
	kpt_windows_report(test, &win);
	/*
	 * The windows these rounds exist for: a hit on the int3 while the
	 * jump goes (every way: millions with a thread per vCPU), and one
	 * nested in a handler (the sysctl's, whose second probe is hit from
	 * the first's handler).
	 */
	KUNIT_EXPECT_GE(test, kpt_window_entered(&win, KPROBE_WINDOW_IN_FLUX), 1000);
	if (way == UNDO_BY_SYSCTL)
		KUNIT_EXPECT_GT(test, kpt_window_entered(&win, KPROBE_WINDOW_MISSED), 0);
}

static void undo_jump_for_post_handler(struct kunit *test)
{
	undo_jump_rounds(test, UNDO_BY_POST);
}

static void undo_jump_for_jprobe(struct kunit *test)
{
	undo_jump_rounds(test, UNDO_BY_JPROBE);
}

static void undo_jump_by_sysctl_nested_hits(struct kunit *test)
{
	undo_jump_rounds(test, UNDO_BY_SYSCTL);
}

static struct kunit_case opt_cases[] = {
	KUNIT_CASE(plain_function_is_optimized),
	KUNIT_CASE(relocated_regions_keep_results),
	KUNIT_CASE(rule_breakers_stay_int3),
	KUNIT_CASE(rule_breakers_still_fire),
	KUNIT_CASE(ret_in_region_is_optimized),
	KUNIT_CASE(transitions),
	KUNIT_CASE(kretprobe_entry_is_optimized),
	KUNIT_CASE(optimized_ignores_pre_return),
	KUNIT_CASE(two_probes_run_as_a_pair),
	KUNIT_CASE(injectable_entry_stays_int3),
	KUNIT_CASE_SLOW(hits_while_flipping),
	KUNIT_CASE_SLOW(single_probe_switches_under_hits),
	KUNIT_CASE_SLOW(parked_site_taken_up_again),
	KUNIT_CASE_SLOW(undo_jump_for_post_handler),
	KUNIT_CASE_SLOW(undo_jump_for_jprobe),
	KUNIT_CASE_SLOW(undo_jump_by_sysctl_nested_hits),
	{}
};

static struct kunit_suite kprobes_opt_suite = {
	.name = "kprobes_optimization",
	.init = opt_init,
	.test_cases = opt_cases,
};

kunit_test_suite(kprobes_opt_suite);
