// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the classes of arm64 instruction a probe can sit on,
 * whichever arm64 code carries the hit out: for each class that is
 * stepped out of line or simulated, the probed function's result and the
 * handlers that ran; for the classes no probe may sit on, the refusal.
 * What it expects is what arm64 does in upstream's 6.12: the instructions
 * that read the PC (branches, ADR, ADRP, integer literal loads) are
 * carried out by a simulation, the others from a copy; exclusives and
 * whatever lies between a load-exclusive and its store, exception
 * generation and return, MSR and MRS of DAIF are refused.  And one fix
 * of this series: a literal load into an FP register is refused too,
 * where upstream runs it from the copy.  The targets are in
 * paths_kunit_targets.S.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>

#include "paths_kunit.h"

static struct {
	int pre, post;
	unsigned long pre_pc;	/* instruction_pointer() the pre_handler saw */
} seen;

static int kap_init(struct kunit *test)
{
	memset(&seen, 0, sizeof(seen));
	return 0;
}

static int on_pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre++;
	seen.pre_pc = instruction_pointer(regs);
	return 0;
}

static void on_post(struct kprobe *p, struct pt_regs *regs,
		    unsigned long flags)
{
	seen.post++;
}

/*
 * A probe with both handlers at @at, registered, or the test stops.  The
 * caller runs the target and checks its result; kap_done() checks the
 * handlers and unregisters.
 */
static void kap_arm(struct kunit *test, struct kprobe *kp, unsigned long at)
{
	memset(kp, 0, sizeof(*kp));
	kp->addr = (kprobe_opcode_t *)at;
	kp->pre_handler = on_pre;
	kp->post_handler = on_post;
	KUNIT_ASSERT_EQ_MSG(test, register_kprobe(kp), 0, "a probe at %pS", kp->addr);
}

/* @hits calls ran the probed instruction: as many pre and post handlers. */
static void kap_done(struct kunit *test, struct kprobe *kp, int hits)
{
	KUNIT_EXPECT_EQ(test, seen.pre, hits);
	KUNIT_EXPECT_EQ(test, seen.post, hits);
	if (hits)
		KUNIT_EXPECT_EQ(test, seen.pre_pc, (unsigned long)kp->addr);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kp->nmissed, 0UL);
}

/* A data processing instruction, carried out from a copy. */
static void add_from_copy(struct kunit *test)
{
	struct kprobe kp;

	kap_arm(test, &kp, kap_add_at);
	KUNIT_EXPECT_EQ(test, kap_add(10), 15L);
	KUNIT_EXPECT_EQ(test, kap_add(-5), 0L);
	kap_done(test, &kp, 2);
}

/* A probe on @at, one call of @fn, which must return @want. */
static void kap_call_once(struct kunit *test, unsigned long at,
			  u64 (*fn)(void), u64 want)
{
	struct kprobe kp;

	kap_init(test);
	kap_arm(test, &kp, at);
	KUNIT_EXPECT_EQ_MSG(test, fn(), want, "%pS", kp.addr);
	kap_done(test, &kp, 1);
}

/* ADR and ADRP compute from the probed address, not from a copy's. */
static void adr_and_adrp(struct kunit *test)
{
	u64 target = (unsigned long)&kap_adr_target;

	kap_call_once(test, kap_adr_at, kap_adr, target);
	kap_call_once(test, kap_adrp_at, kap_adrp, target & ~0xfffULL);
}

/* Integer literal loads: 64 bits, 32 bits zero-extended, sign-extended. */
static void literal_loads(struct kunit *test)
{
	kap_call_once(test, kap_ldr_x_at, kap_ldr_x, 0x1122334455667788ULL);
	kap_call_once(test, kap_ldr_w_at, kap_ldr_w, 0x89abcdefULL);
	kap_call_once(test, kap_ldrsw_at, kap_ldrsw, (u64)(s64)(s32)0x80000001);
}

/* Conditional branches, each taken and not taken. */
static void conditional_branches(struct kunit *test)
{
	static const struct {
		long (*fn)(long x);
		const unsigned long *at;
		long taken, not_taken;	/* arguments */
	} c[] = {
		{ kap_bcond, &kap_bcond_at, 0, 7 },
		{ kap_cbz, &kap_cbz_at, 0, 3 },
		{ kap_cbnz_w, &kap_cbnz_w_at, 1, 1L << 32 },
		{ kap_tbnz, &kap_tbnz_at, 1L << 33, 1 },
		{ kap_tbz, &kap_tbz_at, 0, 8 },
	};
	struct kprobe kp;
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		kap_init(test);
		kap_arm(test, &kp, *c[i].at);
		KUNIT_EXPECT_EQ_MSG(test, c[i].fn(c[i].taken), 2L, "%pS taken", kp.addr);
		KUNIT_EXPECT_EQ_MSG(test, c[i].fn(c[i].not_taken), 1L,
				    "%pS not taken", kp.addr);
		kap_done(test, &kp, 2);
	}
}

/* B, BL (the link register), BLR, BR and RET. */
static void branches_and_returns(struct kunit *test)
{
	struct kprobe kp;

	kap_call_once(test, kap_b_at, kap_b, 2);
	kap_call_once(test, kap_bl_at, kap_bl, 41);
	kap_call_once(test, kap_br_at, kap_br, 2);

	kap_init(test);
	kap_arm(test, &kp, kap_blr_at);
	KUNIT_EXPECT_EQ(test, kap_blr(kap_leaf), 41L);
	kap_done(test, &kp, 1);

	kap_init(test);
	kap_arm(test, &kp, kap_leaf_ret_at);
	KUNIT_EXPECT_EQ(test, kap_bl(), 41ULL);
	KUNIT_EXPECT_EQ(test, kap_leaf(), 40ULL);
	kap_done(test, &kp, 2);
}

/* Loads and stores from a copy: a pair, a post-index writeback, a store. */
static void loads_and_stores(struct kunit *test)
{
	long a[2] = { 30, 12 }, out = 0, *next;
	struct kprobe kp;

	kap_arm(test, &kp, kap_ldp_at);
	KUNIT_EXPECT_EQ(test, kap_ldp(a), 42L);
	kap_done(test, &kp, 1);

	kap_init(test);
	kap_arm(test, &kp, kap_ldr_post_at);
	next = kap_ldr_post(a, &out);
	KUNIT_EXPECT_PTR_EQ(test, next, &a[1]);
	KUNIT_EXPECT_EQ(test, out, 30L);
	kap_done(test, &kp, 1);

	kap_init(test);
	kap_arm(test, &kp, kap_str_at);
	kap_str(a, 99);
	KUNIT_EXPECT_EQ(test, a[0], 30L);
	KUNIT_EXPECT_EQ(test, a[1], 99L);
	kap_done(test, &kp, 1);
}

static int kap_try(unsigned long at)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)at, .pre_handler = on_pre };
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

/*
 * An exclusive sequence: a probe's exception between the load and the
 * store would clear the monitor, and the store would fail forever.  The
 * instruction after the store may be probed.
 */
static void exclusives_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kap_try(kap_excl_ldxr_at), -EINVAL);
	KUNIT_EXPECT_EQ(test, kap_try(kap_excl_mid_at), -EINVAL);
	KUNIT_EXPECT_EQ(test, kap_try(kap_excl_stxr_at), -EINVAL);
	KUNIT_EXPECT_EQ(test, kap_try(kap_excl_after_at), 0);
}

/*
 * Exception generation and return, MSR, MRS of DAIF (a copy runs with
 * interrupts masked, and would read them so), a literal load into FP.
 */
static void system_instructions_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kap_try(kap_msr_daifset_at), -EINVAL);
	KUNIT_EXPECT_EQ(test, kap_try(kap_mrs_daif_at), -EINVAL);
	KUNIT_EXPECT_EQ(test, kap_try(kap_svc_at), -EINVAL);
	KUNIT_EXPECT_EQ(test, kap_try(kap_brk_at), -EINVAL);
	KUNIT_EXPECT_EQ(test, kap_try(kap_eret_at), -EINVAL);
	KUNIT_EXPECT_EQ(test, kap_try(kap_ldr_lit_fp_at), -EINVAL);
}

/*
 * The other CPU's side of arming_while_called(): one target of each way a
 * hit is carried out (a copy, a simulated branch, a simulated literal
 * load, a simulated call), called in a tight loop, every result checked.
 */
static struct {
	struct completion started;
	unsigned long calls, wrong;
	atomic_t pre, post;
	bool stop;
} churn;

static int churn_caller(void *unused)
{
	complete(&churn.started);
	while (!READ_ONCE(churn.stop)) {
		long i = churn.calls;

		if (kap_add(i) != i + 5 || kap_bcond(i & 1) != 2 - (i & 1) ||
		    kap_ldr_x() != 0x1122334455667788ULL || kap_bl() != 41)
			churn.wrong++;
		churn.calls++;
		cond_resched();
	}
	return 0;
}

static int churn_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&churn.pre);
	return 0;
}

static void churn_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	atomic_inc(&churn.post);
}

#define CHURN_ROUNDS	100

/*
 * Probes come and go, and are disabled and enabled, on the four targets
 * while the other CPU runs through them: each BRK is written into and
 * taken out of text that CPU executes at that moment.  Every call must
 * still compute its result, and the handlers must have run.  A hit under
 * way when its probe is disabled or unregistered may run its pre_handler
 * and not its post_handler (the torture's contract, and upstream's for a
 * probe that shares its address); each such change cuts at most the one
 * hit in flight on the other CPU, so the post_handlers may fall short of
 * the pre_handlers by no more than the changes.
 */
static void arming_while_called(struct kunit *test)
{
	const unsigned long *at[] = {
		&kap_add_at, &kap_bcond_at, &kap_ldr_x_at, &kap_bl_at,
	};
	struct kprobe kps[ARRAY_SIZE(at)], *list[ARRAY_SIZE(at)];
	struct task_struct *caller;
	unsigned int round, i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	memset(&churn, 0, sizeof(churn));
	init_completion(&churn.started);
	caller = kthread_create(churn_caller, NULL, "kap_churn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(caller));
	kthread_bind(caller, cpumask_last(cpu_online_mask));
	get_task_struct(caller);
	wake_up_process(caller);
	wait_for_completion(&churn.started);

	for (round = 0; round < CHURN_ROUNDS; round++) {
		memset(kps, 0, sizeof(kps));
		for (i = 0; i < ARRAY_SIZE(at); i++) {
			kps[i].addr = (kprobe_opcode_t *)*at[i];
			kps[i].pre_handler = churn_pre;
			kps[i].post_handler = churn_post;
			list[i] = &kps[i];
		}
		/* One at a time on even rounds, as a batch on odd ones. */
		if (round & 1) {
			KUNIT_ASSERT_EQ(test, register_kprobes(list, ARRAY_SIZE(at)), 0);
		} else {
			for (i = 0; i < ARRAY_SIZE(at); i++)
				KUNIT_ASSERT_EQ(test, register_kprobe(&kps[i]), 0);
		}
		usleep_range(200, 400);
		disable_kprobe(&kps[round % ARRAY_SIZE(at)]);
		usleep_range(200, 400);
		enable_kprobe(&kps[round % ARRAY_SIZE(at)]);
		unregister_kprobes(list, ARRAY_SIZE(at));
	}

	WRITE_ONCE(churn.stop, true);
	kthread_stop(caller);
	put_task_struct(caller);
	kunit_info(test, "%lu calls on the other CPU, %d handler runs",
		   churn.calls, atomic_read(&churn.pre));
	KUNIT_EXPECT_EQ(test, churn.wrong, 0UL);
	KUNIT_EXPECT_GT(test, churn.calls, 0UL);
	KUNIT_EXPECT_GT(test, atomic_read(&churn.pre), 0);
	KUNIT_EXPECT_LE(test, atomic_read(&churn.post), atomic_read(&churn.pre));
	KUNIT_EXPECT_LE(test, atomic_read(&churn.pre) - atomic_read(&churn.post),
			CHURN_ROUNDS * (1 + (int)ARRAY_SIZE(at)));
}

#ifdef CONFIG_HAVE_KPROBE_SITES
/* This CPU's traps over @fn(@arg), with preemption off. */
static unsigned long traps_of(long (*fn)(long), long arg, long want,
			      struct kunit *test)
{
	unsigned long before;

	preempt_disable();
	before = this_cpu_read(kprobe_traps_taken);
	KUNIT_EXPECT_EQ(test, fn(arg), want);
	before = this_cpu_read(kprobe_traps_taken) - before;
	preempt_enable();
	return before;
}

/*
 * The site code boosts: a hit that needs no post_handler leaves through
 * the copy and a branch back, one trap; a site whose first probe has a
 * post_handler leaves through its post copy, whose head runs the
 * post_handlers, one trap; a post_handler that joins a site built
 * without a post copy steps, two traps; a simulated instruction takes
 * one either way.
 */
static void boosted_hit_takes_one_trap(struct kunit *test)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)kap_add_at,
			     .pre_handler = on_pre };
	struct kprobe late;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, traps_of(kap_add, 1, 6, test), 1UL);
	/* Then a probe with a post_handler joins: the step path. */
	memset(&late, 0, sizeof(late));
	late.addr = (kprobe_opcode_t *)kap_add_at;
	late.post_handler = on_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&late), 0);
	KUNIT_EXPECT_EQ(test, traps_of(kap_add, 2, 7, test), 2UL);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	unregister_kprobe(&late);
	unregister_kprobe(&kp);

	kap_init(test);
	kap_arm(test, &kp, kap_add_at);
	KUNIT_EXPECT_EQ(test, traps_of(kap_add, 1, 6, test), 1UL);
	kap_done(test, &kp, 1);

	kap_init(test);
	kap_arm(test, &kp, kap_cbz_at);
	KUNIT_EXPECT_EQ(test, traps_of(kap_cbz, 0, 2, test), 1UL);
	kap_done(test, &kp, 1);
}
#else
static void boosted_hit_takes_one_trap(struct kunit *test)
{
	kunit_skip(test, "arm64's classic code steps every copy");
}
#endif

static struct kunit_case kap_cases[] = {
	KUNIT_CASE(add_from_copy),
	KUNIT_CASE(adr_and_adrp),
	KUNIT_CASE(literal_loads),
	KUNIT_CASE(conditional_branches),
	KUNIT_CASE(branches_and_returns),
	KUNIT_CASE(loads_and_stores),
	KUNIT_CASE(exclusives_refused),
	KUNIT_CASE(system_instructions_refused),
	KUNIT_CASE(boosted_hit_takes_one_trap),
	KUNIT_CASE_SLOW(arming_while_called),
	{}
};

static struct kunit_suite kap_suite = {
	.name = "kprobes_arm64_paths",
	.init = kap_init,
	.test_cases = kap_cases,
};

kunit_test_suite(kap_suite);
