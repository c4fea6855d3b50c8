// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of return probes and jump probes: what the handlers see, how
 * entries and returns pair up, the instance pool (maxactive, data_size,
 * exhaustion, tasks that exit mid-call), and removal with calls in flight.
 * In C and through first_arg(), so that every architecture booted here
 * runs it; where the architecture has no jprobes (the classic interface
 * beyond arm64, arm, powerpc, riscv and s390), their cases check that
 * registration says -EOPNOTSUPP.  One more case is
 * about the executable slots every architecture's copies live in, and one
 * about jump optimization wherever there is some.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/static_call.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/objpool.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "internal.h"

/* The probed functions: global and noinline, so that their names stay. */
long kpr_square(long x);
long kpr_fact(long n);
long kpr_sleepy(long ms);
long kpr_exit_inside(long do_exit_now);
long kpr_eight(long a, long b, long c, long d, long e, long f, long g,
	       long h);

/* barrier(): no call may be folded away as a pure one. */
noinline long kpr_square(long x)
{
	barrier();
	return x * x;
}

/* Called through a volatile pointer so that the recursion stays one. */
static long (*volatile kpr_fact_call)(long) = kpr_fact;

noinline long kpr_fact(long n)
{
	return n <= 1 ? 1 : n * kpr_fact_call(n - 1);
}

noinline long kpr_sleepy(long ms)
{
	msleep(ms);
	return ms + 1;
}

noinline long kpr_exit_inside(long do_exit_now)
{
	if (do_exit_now)
		kthread_exit(0);	/* the call never returns */
	return 7;
}

noinline long kpr_eight(long a, long b, long c, long d, long e, long f,
			long g, long h)
{
	barrier();
	return a + b + c + d + e + f + g + h;
}

static struct {
	int entries, returns;
	long ret[8];		/* return values, in order of return */
	long arg[8];		/* the argument each return was paired with */
	long jargs[8];
	int jcalls, kpre, kpost;
} seen;

static int kpr_init(struct kunit *test)
{
	memset(&seen, 0, sizeof(seen));
	return 0;
}

/* Entry: keep the argument in the instance's private data. */
/*
 * The probed function's first argument, at its entry.  32-bit arm has no
 * regs_get_kernel_argument() (HAVE_FUNCTION_ARG_ACCESS_API): its AAPCS
 * passes it in r0.
 */
static long first_arg(struct pt_regs *regs)
{
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
	return regs_get_kernel_argument(regs, 0);
#elif defined(CONFIG_ARM)
	return regs->ARM_r0;
#else
#error "the first argument's register is not known here"
#endif
}

static int keep_arg(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(long *)ri->data = first_arg(regs);
	seen.entries++;
	return 0;
}

static int note_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (seen.returns < ARRAY_SIZE(seen.ret)) {
		seen.ret[seen.returns] = regs_return_value(regs);
		seen.arg[seen.returns] = *(long *)ri->data;
	}
	seen.returns++;
	return 0;
}

static void return_value_seen(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_square",
		.entry_handler = keep_arg,
		.handler = note_return,
		.data_size = sizeof(long),
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpr_square(12), 144L);
	KUNIT_EXPECT_EQ(test, seen.returns, 1);
	KUNIT_EXPECT_EQ(test, seen.ret[0], 144L);
	KUNIT_EXPECT_EQ(test, seen.arg[0], 12L);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.returns, 1);
}

static void recursion_pairs_entries_and_returns(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_fact",
		.entry_handler = keep_arg,
		.handler = note_return,
		.data_size = sizeof(long),
		.maxactive = 8,
	};
	static const long fact[] = { 1, 1, 2, 6, 24, 120 };
	int i;

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpr_fact(5), 120L);
	KUNIT_EXPECT_EQ(test, seen.entries, 5);
	KUNIT_ASSERT_EQ(test, seen.returns, 5);
	/* Innermost first; each return sees its own call's data. */
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, seen.arg[i], (long)i + 1);
		KUNIT_EXPECT_EQ(test, seen.ret[i], fact[i + 1]);
	}
	unregister_kretprobe(&rp);
}

/* Which of two return probes each return went to, in order ('a', 'b'). */
static char ret_by[8];

static int note_return_a(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (seen.returns < ARRAY_SIZE(ret_by))
		ret_by[seen.returns] = 'a';
	return note_return(ri, regs);
}

static int note_return_b(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (seen.returns < ARRAY_SIZE(ret_by))
		ret_by[seen.returns] = 'b';
	return note_return(ri, regs);
}

/*
 * Two return probes on one function: two instances for one stack slot.
 * The entries run in registration order, so @b's instance is the newer
 * and holds the trampoline's address, @a's the real one: the return takes
 * the general path of kretprobe_trampoline_handler() (a lone instance
 * takes its short one), which runs the newer first.  One instance per
 * pool, so an instance that did not go back would be a miss.
 */
static void two_kretprobes_share_a_return(struct kunit *test)
{
	struct kretprobe a = {
		.kp.symbol_name = "kpr_square",
		.entry_handler = keep_arg,
		.handler = note_return_a,
		.data_size = sizeof(long),
		.maxactive = 1,
	};
	struct kretprobe b = a;

	b.handler = note_return_b;
	memset(ret_by, 0, sizeof(ret_by));
	KUNIT_ASSERT_EQ(test, register_kretprobe(&a), 0);
	if (register_kretprobe(&b)) {
		unregister_kretprobe(&a);
		KUNIT_FAIL(test, "the second kretprobe was refused");
		return;
	}
	KUNIT_EXPECT_EQ(test, kpr_square(5), 25L);
	KUNIT_EXPECT_EQ(test, seen.entries, 2);
	KUNIT_EXPECT_EQ(test, seen.returns, 2);
	KUNIT_EXPECT_EQ(test, ret_by[0], 'b');
	KUNIT_EXPECT_EQ(test, ret_by[1], 'a');
	KUNIT_EXPECT_EQ(test, seen.ret[0], 25L);
	KUNIT_EXPECT_EQ(test, seen.ret[1], 25L);
	KUNIT_EXPECT_EQ(test, seen.arg[0], 5L);
	KUNIT_EXPECT_EQ(test, seen.arg[1], 5L);
	/* A disabled probe takes no instance: @a's alone, the short path. */
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(6), 36L);
	KUNIT_EXPECT_EQ(test, seen.entries, 3);
	KUNIT_EXPECT_EQ(test, seen.returns, 3);
	KUNIT_EXPECT_EQ(test, ret_by[2], 'a');
	KUNIT_EXPECT_EQ(test, seen.ret[2], 36L);
	KUNIT_EXPECT_EQ(test, seen.arg[2], 6L);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&b), 0);
	/* Both pools have their one instance back: no miss. */
	KUNIT_EXPECT_EQ(test, kpr_square(7), 49L);
	KUNIT_EXPECT_EQ(test, seen.returns, 5);
	KUNIT_EXPECT_EQ(test, ret_by[3], 'b');
	KUNIT_EXPECT_EQ(test, ret_by[4], 'a');
	KUNIT_EXPECT_EQ(test, seen.ret[3], 49L);
	KUNIT_EXPECT_EQ(test, seen.ret[4], 49L);
	unregister_kretprobe(&b);
	unregister_kretprobe(&a);
	KUNIT_EXPECT_EQ(test, a.nmissed, 0);
	KUNIT_EXPECT_EQ(test, b.nmissed, 0);
}

static int skip_odd(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	seen.entries++;
	return first_arg(regs) & 1;
}

static void entry_handler_can_skip(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_square",
		.entry_handler = skip_odd,
		.handler = note_return,
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(1), 1L);
	KUNIT_EXPECT_EQ(test, kpr_square(2), 4L);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.entries, 3);
	KUNIT_EXPECT_EQ(test, seen.returns, 1);
	KUNIT_EXPECT_EQ(test, seen.ret[0], 4L);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	unregister_kretprobe(&rp);
}

/* A thread that calls kpr_sleepy() once. */
struct sleeper {
	struct completion done;
	long ms, ret;
};

static int sleeper_fn(void *arg)
{
	struct sleeper *s = arg;

	s->ret = kpr_sleepy(s->ms);
	complete(&s->done);
	return 0;
}

static void start_sleeper(struct kunit *test, struct sleeper *s, long ms)
{
	init_completion(&s->done);
	s->ms = ms;
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(sleeper_fn, s, "kpr-sleeper")));
}

static void maxactive_exhaustion_counted(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_sleepy",
		.entry_handler = keep_arg,
		.handler = note_return,
		.data_size = sizeof(long),
		.maxactive = 1,
	};
	struct sleeper s[3];
	int i;

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 0; i < 3; i++)
		start_sleeper(test, &s[i], 200);
	for (i = 0; i < 3; i++) {
		wait_for_completion(&s[i].done);
		KUNIT_EXPECT_EQ(test, s[i].ret, 201L);
	}
	/* One instance: one call seen, the other two missed, entries too. */
	KUNIT_EXPECT_EQ(test, seen.returns, 1);
	KUNIT_EXPECT_EQ(test, seen.entries, 1);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 2);
	unregister_kretprobe(&rp);
}

static int exiter_fn(void *arg)
{
	kpr_exit_inside(1);
	return 0;
}

static void task_exit_returns_instance(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_exit_inside",
		.entry_handler = keep_arg,
		.handler = note_return,
		.data_size = sizeof(long),
		.maxactive = 1,
	};
	int tries;

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(exiter_fn, NULL, "kpr-exiter")));
	/*
	 * The exiting thread took the only instance (its entry ran).  Not an
	 * assertion: the probe lives on this stack and must be unregistered.
	 */
	for (tries = 0; tries < 100 && !READ_ONCE(seen.entries); tries++)
		msleep(10);
	KUNIT_EXPECT_EQ(test, READ_ONCE(seen.entries), 1);
	/*
	 * The instance left with the dead thread.  It comes back when the
	 * task is freed; until then a call is missed.
	 */
	for (tries = 0; tries < 100; tries++) {
		msleep(20);
		rcu_barrier();
		rp.nmissed = 0;
		if (kpr_exit_inside(0) == 7 && !rp.nmissed)
			break;
	}
	KUNIT_EXPECT_LT(test, tries, 100);
	KUNIT_EXPECT_EQ(test, seen.returns, 1);
	KUNIT_EXPECT_EQ(test, seen.ret[0], 7L);
	KUNIT_EXPECT_EQ(test, seen.entries, 2);	/* the exiter's, then ours */
	unregister_kretprobe(&rp);
}

/* Set by the entry handler: no lock may be taken in a handler. */
static bool sleepy_entered;

static int note_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	seen.entries++;
	WRITE_ONCE(sleepy_entered, true);
	return 0;
}

static void unregister_with_calls_in_flight(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_sleepy",
		.entry_handler = note_entry,
		.handler = note_return,
		.data_size = sizeof(long),
	};
	struct sleeper s;
	int tries;

	WRITE_ONCE(sleepy_entered, false);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	start_sleeper(test, &s, 300);
	/* The call is in flight: it took an instance and has not returned. */
	for (tries = 0; tries < 100 && !READ_ONCE(sleepy_entered); tries++)
		msleep(2);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(sleepy_entered));
	KUNIT_EXPECT_FALSE(test, completion_done(&s.done));
	unregister_kretprobe(&rp);
	wait_for_completion(&s.done);
	KUNIT_EXPECT_EQ(test, s.ret, 301L);
	/* It returned through the trampoline, without a handler. */
	KUNIT_EXPECT_EQ(test, seen.returns, 0);
	KUNIT_EXPECT_EQ(test, kpr_sleepy(1), 2L);
}

static int inner_returns;

static int count_inner(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	inner_returns++;
	return 0;
}

/* A return handler that calls a function with another return probe. */
static int call_probed(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	seen.returns++;
	seen.ret[1] = kpr_square(5);
	return 0;
}

static void handler_hits_another_kretprobe(struct kunit *test)
{
	struct kretprobe outer = {
		.kp.symbol_name = "kpr_fact",
		.handler = call_probed,
	};
	struct kretprobe inner = {
		.kp.symbol_name = "kpr_square",
		.handler = count_inner,
	};

	inner_returns = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&inner), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&outer), 0);
	KUNIT_EXPECT_EQ(test, kpr_fact(1), 1L);
	KUNIT_EXPECT_EQ(test, seen.returns, 1);
	KUNIT_EXPECT_EQ(test, seen.ret[1], 25L);
	/* From inside a handler, the inner probe's hit is a miss. */
	KUNIT_EXPECT_EQ(test, inner_returns, 0);
	KUNIT_EXPECT_EQ(test, inner.kp.nmissed, 1UL);
	/* Outside, it works. */
	KUNIT_EXPECT_EQ(test, kpr_square(2), 4L);
	KUNIT_EXPECT_EQ(test, inner_returns, 1);
	unregister_kretprobe(&outer);
	unregister_kretprobe(&inner);
}

/* Where a probe at @sym+0 goes (past an ENDBR64 on x86 with IBT). */
static kprobe_opcode_t *entry_of(const char *sym)
{
	bool on_entry;

	return arch_adjust_kprobe_addr((unsigned long)kprobe_lookup_name(sym, 0),
				       0, &on_entry);
}

/* get_kprobe() at @addr, as its callers must call it: an RCU reader. */
static struct kprobe *probe_at(void *addr)
{
	struct kprobe *p;

	rcu_read_lock();
	p = get_kprobe(addr);
	rcu_read_unlock();
	return p;
}


/*
 * Jprobes on an architecture that has none: registration must say so,
 * and leave nothing behind.  True when the case has nothing more to do.
 */
static bool no_jprobes_here(struct kunit *test, struct jprobe *jp)
{
#if !defined(CONFIG_KPROBES_CLASSIC_ARCH) || defined(KPROBE_CLASSIC_JPROBES)
	return false;
#endif
	KUNIT_EXPECT_EQ(test, register_jprobe(jp), -EOPNOTSUPP);
	KUNIT_EXPECT_NULL(test, get_kprobe(entry_of(jp->kp.symbol_name)));
	return true;
}

static void kretprobe_refusals(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_square",
		.kp.offset = 1,
		.handler = note_return,
	};

	/*
	 * An earlier case's optimized probe on kpr_square may have left its
	 * site parked (register.c), which get_kprobe() still reports on a
	 * classic architecture, as upstream reports an optimized aggregate
	 * until its optimizer has run: remove it first.
	 */
	kprobe_optimizer_flush();
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	rp.kp.offset = 0;
	rp.data_size = KRETPROBE_MAX_DATA_SIZE + 1;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -E2BIG);
	rp.data_size = 0;
	/* As upstream, whose rethook pool refuses it: no -E2BIG. */
	rp.maxactive = OBJPOOL_NR_OBJECT_MAX + 1;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -ENOMEM);
	rp.maxactive = 0;
	/* Functions that do not return on their own stack. */
	rp.kp.symbol_name = "do_exit";
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	rp.kp.symbol_name = "__switch_to";
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	KUNIT_EXPECT_NULL(test, get_kprobe(entry_of("do_exit")));
	KUNIT_EXPECT_NULL(test, get_kprobe(entry_of("kpr_square")));
}

static int count_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	seen.returns++;
	return 0;
}

/*
 * maxactive 0 or below asks for the default pool, as on upstream: 10
 * instances, or two per possible CPU where there are more than five.
 */
static void kretprobe_default_pool(struct kunit *test)
{
	int want = max_t(int, 10, 2 * num_possible_cpus());
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_square",
		.handler = count_return,
	};
	int asked[] = { 0, -1, INT_MIN };
	int i;

	for (i = 0; i < ARRAY_SIZE(asked); i++) {
		memset(&rp.kp, 0, sizeof(rp.kp));
		rp.kp.symbol_name = "kpr_square";
		rp.maxactive = asked[i];
		KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
		KUNIT_EXPECT_EQ(test, rp.maxactive, want);
		KUNIT_EXPECT_EQ(test, kpr_square(4), 16L);
		unregister_kretprobe(&rp);
	}
	KUNIT_EXPECT_EQ(test, seen.returns, (int)ARRAY_SIZE(asked));
}

/*
 * A kretprobe refused before any probe of its batch was published can
 * have no instance out, so the refusal waits for no grace period: a sweep
 * of return events over candidates, many of them refused, pays a lookup
 * for each instead of a grace period.  The refusal here is the
 * blacklist's, which comes after the kretprobe's own checks (a bad symbol
 * or size never reaches the registration).  Any grace period that ends
 * elsewhere during the call counts too, hence a few tries, after the
 * optimizer and the reaper of parked sites (which wait for grace periods
 * of their own) have been drained.  A batch refused at its second probe
 * must leave nothing behind.
 */
static bool kretprobe_accepted(struct kunit *test, struct kretprobe **rps,
			       int num)
{
	int ret = register_kretprobes(rps, num);

	if (ret) {
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);	/* the blacklist's */
		return false;
	}
	unregister_kretprobes(rps, num);	/* do not leave it on the stack */
	KUNIT_FAIL(test, "a kretprobe on %s was accepted",
		   rps[num - 1]->kp.symbol_name);
	return true;
}

static void refused_kretprobe_waits_for_nothing(struct kunit *test)
{
	struct kretprobe good = { .kp.symbol_name = "kpr_square",
				  .handler = count_return };
	struct kretprobe bad = { .kp.symbol_name = "kprobe_flush_task",
				 .handler = count_return };
	struct kretprobe *rps[] = { &good, &bad };
	unsigned long cookie;
	bool waited = true;
	int try;

	kprobe_optimizer_flush();
	for (try = 0; try < 3 && waited; try++) {
		cookie = get_state_synchronize_rcu();
		if (kretprobe_accepted(test, &rps[1], 1))
			return;
		waited = poll_state_synchronize_rcu(cookie);
	}
	KUNIT_EXPECT_FALSE_MSG(test, waited,
			       "a refused kretprobe waited for a grace period");
	KUNIT_EXPECT_NULL(test, bad.rph);

	if (kretprobe_accepted(test, rps, 2))
		return;
	KUNIT_EXPECT_NULL(test, good.rph);
	KUNIT_EXPECT_NULL(test, get_kprobe(entry_of("kpr_square")));
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.returns, 0);
	/* Nothing of either stays: both register again. */
	bad.kp.symbol_name = "kpr_fact";
	KUNIT_ASSERT_EQ(test, register_kretprobes(rps, 2), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.returns, 1);
	unregister_kretprobes(rps, 2);
}

static long j_eight(long a, long b, long c, long d, long e, long f, long g,
		    long h)
{
	long args[] = { a, b, c, d, e, f, g, h };

	memcpy(seen.jargs, args, sizeof(args));
	seen.jcalls++;
	jprobe_return();
	return 0;
}

static void jprobe_sees_eight_arguments(struct kunit *test)
{
	struct jprobe jp = {
		.kp.symbol_name = "kpr_eight",
		.entry = j_eight,
	};
	int i;

	if (no_jprobes_here(test, &jp))
		return;
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, kpr_eight(1, 2, 3, 4, 5, 6, 70, 800), 891L);
	KUNIT_EXPECT_EQ(test, seen.jcalls, 1);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, seen.jargs[i], (long)i + 1);
	KUNIT_EXPECT_EQ(test, seen.jargs[6], 70L);	/* on the stack */
	KUNIT_EXPECT_EQ(test, seen.jargs[7], 800L);
	unregister_jprobe(&jp);
	KUNIT_EXPECT_EQ(test, kpr_eight(1, 1, 1, 1, 1, 1, 1, 1), 8L);
	KUNIT_EXPECT_EQ(test, seen.jcalls, 1);
}

static int count_kpre(struct kprobe *p, struct pt_regs *regs)
{
	seen.kpre++;
	return 0;
}

static void count_kpost(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	seen.kpost++;
}

static void jprobe_and_kprobe_share_entry(struct kunit *test)
{
	struct jprobe jp = { .kp.symbol_name = "kpr_eight", .entry = j_eight };
	struct jprobe jp2 = { .kp.symbol_name = "kpr_eight", .entry = j_eight };
	struct kprobe kp = {
		.symbol_name = "kpr_eight",
		.pre_handler = count_kpre,
		.post_handler = count_kpost,
	};

	if (no_jprobes_here(test, &jp))
		return;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp2), -EBUSY);
	KUNIT_EXPECT_EQ(test, kpr_eight(1, 2, 3, 4, 5, 6, 7, 8), 36L);
	KUNIT_EXPECT_EQ(test, seen.jcalls, 1);
	KUNIT_EXPECT_EQ(test, seen.kpre, 1);
	KUNIT_EXPECT_EQ(test, seen.kpost, 1);
	KUNIT_EXPECT_EQ(test, seen.jargs[7], 8L);
	unregister_jprobe(&jp);
	unregister_kprobe(&kp);
}

static void batch_failure_rolls_back(struct kunit *test)
{
	struct kprobe a = { .symbol_name = "kpr_square", .pre_handler = count_kpre };
	struct kprobe b = { .symbol_name = "kpr_fact", .pre_handler = count_kpre };
	struct kprobe bad = { .symbol_name = "kpr_no_such_function" };
	struct kprobe *kps[] = { &a, &b, &bad };

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 3), -ENOENT);
	KUNIT_EXPECT_EQ(test, kpr_square(2), 4L);
	KUNIT_EXPECT_EQ(test, kpr_fact(3), 6L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 0);
	KUNIT_EXPECT_NULL(test, get_kprobe(a.addr));
	KUNIT_EXPECT_NULL(test, get_kprobe(b.addr));
	/* Nothing of the batch stays: each entry registers again. */
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 2), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(2), 4L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 1);
	unregister_kprobes(kps, 2);
}

/*
 * Serialising every CPU is an IPI to each, and kprobe events register
 * their probes one by one, disabled, most candidates of a sweep refused:
 * a call that wrote no text serialises nothing (and a refused one waits
 * for no grace period either: it skips the removal path altogether).
 */
static unsigned long text_syncs(void)
{
	return READ_ONCE(kprobe_text_syncs);
}

/*
 * A probe with only a pre_handler and one with only a post_handler at one
 * address: each handler runs once a hit, whichever path the site's hits
 * take (a classic architecture runs a lone pre_handler's probe without
 * the walk, and must not lose the other's post_handler).
 */
static void pre_only_and_post_only_share(struct kunit *test)
{
	struct kprobe a = { .symbol_name = "kpr_square", .pre_handler = count_kpre };
	struct kprobe b = { .symbol_name = "kpr_square", .post_handler = count_kpost };

	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 1);
	if (register_kprobe(&b)) {
		unregister_kprobe(&a);
		KUNIT_FAIL(test, "the post_handler's probe was refused");
		return;
	}
	KUNIT_EXPECT_EQ(test, kpr_square(4), 16L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 2);
	KUNIT_EXPECT_EQ(test, seen.kpost, 1);
	unregister_kprobe(&b);
	KUNIT_EXPECT_EQ(test, kpr_square(5), 25L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 3);
	KUNIT_EXPECT_EQ(test, seen.kpost, 1);
	unregister_kprobe(&a);
}

static void no_sync_without_text_change(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "kpr_square", .pre_handler = count_kpre,
			     .flags = KPROBE_FLAG_DISABLED };
	struct kprobe bad = { .symbol_name = "kpr_no_such_function" };
	struct kprobe *kps[] = { &bad, &kp };
	unsigned long syncs;

	/*
	 * From a quiet state: an earlier case's probe that was optimized
	 * leaves its site parked, and the work that removes it later syncs
	 * (as on arm64, where a one-instruction function's entry gets a jump).
	 */
	kprobe_optimizer_flush();
	syncs = text_syncs();

	KUNIT_EXPECT_EQ(test, register_kprobe(&bad), -ENOENT);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 2), -ENOENT);
	KUNIT_EXPECT_EQ(test, text_syncs(), syncs);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, text_syncs(), syncs);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 0);
	/* Enabling writes the int3 (or moves the ftrace site): one sync. */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, text_syncs(), syncs + 1);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 1);
	/* Enabled already: nothing to write. */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, text_syncs(), syncs + 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, text_syncs(), syncs + 2);
}

static void partial_unregister_clears_bad_entry(struct kunit *test)
{
	struct kprobe a = { .symbol_name = "kpr_square", .pre_handler = count_kpre };
	struct kprobe b = { .symbol_name = "kpr_eight", .pre_handler = count_kpre };
	struct kprobe never = { .addr = (void *)kpr_fact };
	struct kprobe *reg[] = { &a, &b };
	struct kprobe *unreg[] = { &a, &never, &b };

	KUNIT_ASSERT_EQ(test, register_kprobes(reg, 2), 0);
	unregister_kprobes(unreg, 3);
	KUNIT_EXPECT_NULL(test, never.addr);
	KUNIT_EXPECT_NOT_NULL(test, a.addr);
	KUNIT_EXPECT_NULL(test, get_kprobe(a.addr));
	KUNIT_EXPECT_NULL(test, get_kprobe(b.addr));
	KUNIT_EXPECT_EQ(test, kpr_square(2), 4L);
	KUNIT_EXPECT_EQ(test, kpr_eight(1, 1, 1, 1, 1, 1, 1, 1), 8L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 0);
}

/*
 * kprobe_flush_task() runs from an RCU callback in softirq, so it can
 * interrupt a handler that runs with interrupts on, such as a kretprobe's.
 * The handler must find itself still the CPU's current probe afterwards,
 * or a probe it hits next would run its handlers reentrantly.
 */
static struct task_struct *flush_victim;
static bool flush_kept_current;

static int flush_from_handler(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct kprobe *self = kprobe_running();

	kprobe_flush_task(flush_victim);	/* as the softirq would */
	flush_kept_current = self && kprobe_running() == self;
	seen.returns++;
	return 0;
}

static void flush_keeps_current_probe(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpr_square",
		.handler = flush_from_handler,
	};

	flush_victim = kunit_kzalloc(test, sizeof(*flush_victim), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, flush_victim);
	init_llist_head(&flush_victim->kretprobe_instances);
	flush_kept_current = false;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, seen.returns, 1);
	KUNIT_EXPECT_TRUE(test, flush_kept_current);
}

static long j_square(long x)
{
	seen.jargs[0] = x;
	seen.jcalls++;
	jprobe_return();
	return 0;
}

/* Batches of jprobes, and enabling and disabling one of them. */
static void jprobe_batch_enable_disable(struct kunit *test)
{
	struct jprobe a = { .kp.symbol_name = "kpr_eight", .entry = j_eight };
	struct jprobe b = { .kp.symbol_name = "kpr_square", .entry = j_square };
	struct jprobe *jps[] = { &a, &b };

	if (no_jprobes_here(test, &a))
		return;
	KUNIT_ASSERT_EQ(test, register_jprobes(jps, 2), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(4), 16L);
	KUNIT_EXPECT_EQ(test, kpr_eight(1, 1, 1, 1, 1, 1, 1, 1), 8L);
	KUNIT_EXPECT_EQ(test, seen.jcalls, 2);
	KUNIT_EXPECT_EQ(test, disable_jprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(5), 25L);
	KUNIT_EXPECT_EQ(test, seen.jcalls, 2);
	KUNIT_EXPECT_EQ(test, enable_jprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(6), 36L);
	KUNIT_EXPECT_EQ(test, seen.jcalls, 3);
	KUNIT_EXPECT_EQ(test, seen.jargs[0], 6L);
	unregister_jprobes(jps, 2);
	KUNIT_EXPECT_EQ(test, kpr_square(7), 49L);
	KUNIT_EXPECT_EQ(test, seen.jcalls, 3);
	KUNIT_EXPECT_EQ(test, disable_jprobe(&b), -EINVAL);
}

/* A batch of nothing, or of a negative count, is refused and changes nothing. */
static void batches_of_no_probes(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "kpr_square", .pre_handler = count_kpre };
	struct kretprobe rp = { .kp.symbol_name = "kpr_square", .handler = note_return };
	struct jprobe jp = { .kp.symbol_name = "kpr_square", .entry = j_square };
	struct kprobe *kps[] = { &kp };
	struct kretprobe *rps[] = { &rp };
	struct jprobe *jps[] = { &jp };

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_jprobes(jps, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_jprobes(jps, -1), -EINVAL);
	unregister_kprobes(kps, 0);
	unregister_kretprobes(rps, -1);
	unregister_jprobes(jps, 0);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.kpre + seen.returns + seen.jcalls, 0);
	KUNIT_EXPECT_NULL(test, kp.addr);
}

/*
 * Several probes at one address run in registration order, pre_handlers
 * and post_handlers alike, and each runs as kprobe_running().
 */
static struct kprobe *order_probes[2];
static int order_log[8], order_n;
static bool order_running_ok;

static int order_pre(struct kprobe *p, struct pt_regs *regs)
{
	order_log[order_n++] = p == order_probes[0] ? 1 : 2;
	order_running_ok &= kprobe_running() == p;
	return 0;
}

static void order_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	order_log[order_n++] = p == order_probes[0] ? 11 : 12;
	order_running_ok &= kprobe_running() == p;
}

/* kprobe_running() from a test's own (preemptible) context. */
static struct kprobe *running_here(void)
{
	struct kprobe *p;

	preempt_disable();
	p = kprobe_running();
	preempt_enable();
	return p;
}

static void handler_order_and_running(struct kunit *test)
{
	struct kprobe a = { .symbol_name = "kpr_square", .pre_handler = order_pre,
			    .post_handler = order_post };
	struct kprobe b = a;
	static const int want[] = { 1, 2, 11, 12 };
	int i;

	order_probes[0] = &a;
	order_probes[1] = &b;
	order_n = 0;
	order_running_ok = true;
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_EXPECT_NULL(test, running_here());
	KUNIT_EXPECT_EQ(test, kpr_square(2), 4L);
	KUNIT_EXPECT_NULL(test, running_here());
	unregister_kprobe(&b);
	unregister_kprobe(&a);
	KUNIT_ASSERT_EQ(test, order_n, 4);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, order_log[i], want[i]);
	KUNIT_EXPECT_TRUE(test, order_running_ok);
}

/*
 * Two probes with pre_handlers alone, as ->single's pair runs them (on a
 * classic architecture, what its breakpoint handler gets): in order, each
 * current in its own, and both missed when the CPU is inside Kprobes.
 */
static void two_pre_handlers_in_order(struct kunit *test)
{
	struct kprobe a = { .symbol_name = "kpr_square", .pre_handler = order_pre };
	struct kprobe b = a;

	order_probes[0] = &a;
	order_probes[1] = &b;
	order_n = 0;
	order_running_ok = true;
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, order_n, 2);
	KUNIT_EXPECT_EQ(test, order_log[0], 1);
	KUNIT_EXPECT_EQ(test, order_log[1], 2);
	KUNIT_EXPECT_TRUE(test, order_running_ok);
	/*
	 * As a classic arch counts a hit it cannot run: on what get_kprobe()
	 * gave it (the site interface counts in its own handlers).
	 */
	if (IS_ENABLED(CONFIG_KPROBES_CLASSIC_ARCH)) {
		rcu_read_lock();
		kprobes_inc_nmissed_count(get_kprobe(a.addr));
		rcu_read_unlock();
		KUNIT_EXPECT_EQ(test, a.nmissed, 1UL);
		KUNIT_EXPECT_EQ(test, b.nmissed, 1UL);
	}
	unregister_kprobe(&b);
	unregister_kprobe(&a);
}

/* A jump label's site belongs to the jump-label code: refused. */
static DEFINE_STATIC_KEY_FALSE(kpr_key);

static noinline long kpr_keyed(void)
{
	if (static_branch_unlikely(&kpr_key))
		return 2;
	return 1;
}

/* A probe at @addr, or at @name, is refused with -EINVAL, leaving none. */
static void expect_einval(struct kunit *test, void *addr, const char *name)
{
	struct kprobe kp = { .addr = addr, .symbol_name = name,
			     .pre_handler = count_kpre };
	int ret = register_kprobe(&kp);

	KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "at %s%pS", name ?: "", addr);
	if (addr)
		KUNIT_EXPECT_NULL(test, get_kprobe(addr));
	if (!ret)
		unregister_kprobe(&kp);	/* it lives on this stack */
}

static void jump_label_site_refused(struct kunit *test)
{
	struct jump_entry *e = (struct jump_entry *)
		(kpr_key.key.type & ~JUMP_TYPE_MASK);

	KUNIT_ASSERT_NOT_NULL(test, e);
	expect_einval(test, (void *)jump_entry_code(e), NULL);
	KUNIT_EXPECT_EQ(test, kpr_keyed(), 1L);
}

#ifdef CONFIG_HAVE_STATIC_CALL
/* A static call, with a trampoline, and with an inline site where objtool runs. */
DEFINE_STATIC_CALL(kpr_sc, kpr_square);

static noinline long kpr_via_static_call(long x)
{
	return static_call(kpr_sc)(x);
}

static noinline long kpr_cube(long x)
{
	return x * x * x;
}

/*
 * Every byte of a static call's trampoline is refused: static_call_update()
 * rewrites it (here: to another function, then to a return of 0), and a
 * probe's copy of the old jump, or the byte its disarm writes back, would
 * be stale.  The calls through it go where the last update said.
 */
static void static_call_trampoline_refused(struct kunit *test)
{
	u8 *tramp = (u8 *)STATIC_CALL_TRAMP_ADDR(kpr_sc);
	unsigned int off;

	for (off = 0; off < 8; off++)
		expect_einval(test, tramp + off, NULL);
	/* By name, as kprobe events and perf probe would. */
	expect_einval(test, NULL, STATIC_CALL_TRAMP_STR(kpr_sc));

	static_call_update(kpr_sc, kpr_cube);
	KUNIT_EXPECT_EQ(test, static_call(kpr_sc)(3), 27L);
	static_call_update(kpr_sc, (void *)__static_call_return0);
	KUNIT_EXPECT_EQ(test, static_call(kpr_sc)(3), 0L);
	static_call_update(kpr_sc, kpr_square);
	KUNIT_EXPECT_EQ(test, kpr_via_static_call(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 0);
}
#else
static void static_call_trampoline_refused(struct kunit *test)
{
	kunit_skip(test, "no static call trampolines in this kernel");
}
#endif

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE

/* The site objtool recorded for kpr_sc (the kernel's table of them). */
extern struct static_call_site __start_static_call_sites[],
			       __stop_static_call_sites[];

static unsigned long kpr_sc_site(void)
{
	struct static_call_site *s;
	unsigned long key;

	for (s = __start_static_call_sites; s < __stop_static_call_sites; s++) {
		key = ((unsigned long)&s->key + s->key) & ~STATIC_CALL_SITE_FLAGS;
		if (key == (unsigned long)&STATIC_CALL_KEY(kpr_sc))
			return (unsigned long)&s->addr + s->addr;
	}
	return 0;
}

static void static_call_site_refused(struct kunit *test)
{
	unsigned long site = kpr_sc_site();

	KUNIT_ASSERT_NE(test, site, 0UL);
	expect_einval(test, (void *)site, NULL);
	KUNIT_EXPECT_EQ(test, kpr_via_static_call(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.kpre, 0);
}
#else
static void static_call_site_refused(struct kunit *test)
{
	kunit_skip(test, "no inline static calls in this kernel");
}
#endif

/*
 * Init text: at the end of boot kprobe_free_init_mem() turns the probes
 * there GONE (this suite runs before; the call is what the kernel makes).
 * start_kernel() never runs again, so its int3 can stay until the text is
 * freed.  A gone probe cannot be enabled and still unregisters.
 */
static void init_text_probe_turns_gone(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "start_kernel",
			     .pre_handler = count_kpre };

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_gone(&kp));
	kprobe_free_init_mem();
	KUNIT_EXPECT_TRUE(test, kprobe_gone(&kp));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&kp));
	KUNIT_EXPECT_NULL(test, get_kprobe(kp.addr));
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), -EINVAL);
	unregister_kprobe(&kp);
}

/* The slot pages in use: the kprobe_insn_page symbols. */
static unsigned int slot_pages(void)
{
	char sym[KSYM_NAME_LEN], type;
	unsigned long value;
	unsigned int n = 0;

	while (!kprobe_get_kallsym(n, &value, &type, sym))
		n++;
	return n;
}

/*
 * A slot is taken at KPROBE_SLOT_SIZE and trimmed to what its copies use:
 * 64 slots of one byte each fit in one page more (x86-64 would need six
 * untrimmed), every one is a slot of its own, and freeing them gives the
 * pages back.
 */
static void trimmed_slots_share_a_page(struct kunit *test)
{
	kprobe_opcode_t *slot[64];
	unsigned int before, i, j, n = 0;
	bool apart = true;

	mutex_lock(&kprobe_mutex);
	before = slot_pages();
	for (; n < ARRAY_SIZE(slot); n++) {
		slot[n] = kprobe_slot_alloc();
		if (!slot[n])
			break;
		kprobe_slot_trim(slot[n], 1);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			apart &= slot[i] != slot[j];
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(slot));
	KUNIT_EXPECT_TRUE(test, apart);
	KUNIT_EXPECT_LE(test, slot_pages(), before + 1);
	while (n)
		kprobe_slot_free(slot[--n]);
	KUNIT_EXPECT_LE(test, slot_pages(), max(before, 1U));
	mutex_unlock(&kprobe_mutex);
}

/*
 * Every probed address costs a struct kprobe_site, and most nothing more:
 * on x86-64 it is a 128-byte slab object (asm/kprobes.h packs the arch
 * part for that).  (A lone probe with only a pre_handler at an ftrace
 * location costs no site at all, ftrace.c: the post_handler here makes
 * it a site on every kernel.)
 */
static void site_is_a_small_slab_object(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "kpr_square",
			     .pre_handler = count_kpre,
			     .post_handler = count_kpost };

	if (!IS_ENABLED(CONFIG_X86_64))
		kunit_skip(test, "the size is x86-64's");
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	mutex_lock(&kprobe_mutex);
	KUNIT_EXPECT_LE(test, ksize(kprobe_site_of(&kp)), 128);
	mutex_unlock(&kprobe_mutex);
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9);
	unregister_kprobe(&kp);
}

/*
 * On a classic architecture without ftrace's probes or jump optimization
 * (KPROBE_CLASSIC_BARE), a probe alone at a breakpoint has no site: the
 * arch prepares and arms the probe itself (classic_bare.c).  Its own
 * breakpoint comes and goes with disabling, enabling and debugfs'
 * enabled (its hits say so: an instruction's bytes are the arch's to
 * compare), and its registration is undone in full.
 */
#ifdef KPROBE_CLASSIC_BARE
static const bool classic_bare = true;
#else
static const bool classic_bare;
#endif

static void alone_probe_goes_bare(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "kpr_square",
			     .pre_handler = count_kpre };
	int base;

	if (!classic_bare)
		kunit_skip(test, "probes alone have sites here");
	kprobe_optimizer_flush();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	mutex_lock(&kprobe_mutex);
	KUNIT_EXPECT_NULL(test, kprobe_site_of(&kp));
	KUNIT_EXPECT_TRUE(test, kprobe_bare_registered(&kp));
	mutex_unlock(&kprobe_mutex);
	KUNIT_EXPECT_PTR_EQ(test, probe_at(kp.addr), &kp);
	base = seen.kpre;
	KUNIT_EXPECT_EQ(test, kpr_square(3), 9L);
	KUNIT_EXPECT_EQ(test, seen.kpre, base + 1);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(4), 16L);
	KUNIT_EXPECT_EQ(test, seen.kpre, base + 1);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(5), 25L);
	KUNIT_EXPECT_EQ(test, seen.kpre, base + 2);
	KUNIT_EXPECT_EQ(test, kprobes_set_armed(false), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(6), 36L);
	KUNIT_EXPECT_EQ(test, seen.kpre, base + 2);
	KUNIT_EXPECT_EQ(test, kprobes_set_armed(true), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(7), 49L);
	KUNIT_EXPECT_EQ(test, seen.kpre, base + 3);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_NULL(test, probe_at(entry_of("kpr_square")));
	KUNIT_EXPECT_EQ(test, kpr_square(8), 64L);
	KUNIT_EXPECT_EQ(test, seen.kpre, base + 3);
}

/*
 * A fault in a pre_handler goes to that probe's fault_handler, on every
 * architecture booted here (mips, arc and parisc never call the hook).
 * The handler reads an unmapped user address (x86-64 stops such a read
 * from a kernel thread before it faults) and the guard page after a
 * vmalloc() area (which arm64 does not offer Kprobes: its hook sees
 * faults below TASK_SIZE only); each architecture's page fault path
 * offers at least one of the two to Kprobes (kprobe_page_fault()).  The fault_handler declines, and each access's
 * own fixup makes its read fail.
 */
static struct {
	int faults, trapnr;
	struct kprobe *probe;
	long user_read, kernel_read;
	char *guard;
} fault_seen;

static int pre_that_faults(struct kprobe *p, struct pt_regs *regs)
{
	char c;

	fault_seen.user_read = copy_from_user_nofault(&c,
				(const void __user *)PAGE_SIZE, 1);
	fault_seen.kernel_read = copy_from_kernel_nofault(&c, fault_seen.guard,
							  1);
	return 0;
}

static int note_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	fault_seen.faults++;
	fault_seen.trapnr = trapnr;
	fault_seen.probe = p;
	return 0;	/* not mended here */
}

static void fault_handler_sees_fault_in_pre_handler(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "kpr_square",
			     .pre_handler = pre_that_faults,
			     .fault_handler = note_fault };
	char *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, area);
	memset(&fault_seen, 0, sizeof(fault_seen));
	fault_seen.guard = area + PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpr_square(5), 25L);
	unregister_kprobe(&kp);
	vfree(area);
	KUNIT_EXPECT_EQ(test, fault_seen.user_read, (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, fault_seen.kernel_read, (long)-EFAULT);
	KUNIT_EXPECT_GE(test, fault_seen.faults, 1);
	KUNIT_EXPECT_PTR_EQ(test, fault_seen.probe, &kp);
	kunit_info(test, "%d fault(s), trap %d\n", fault_seen.faults,
		   fault_seen.trapnr);
}

/*
 * Jump optimization, on every architecture that has it (x86's site code,
 * arm's and powerpc's own detours through classic_opt.c): a probe found
 * somewhere in a body of plain arithmetic is reached through a branch
 * written over its breakpoint, and fires there; then, with another CPU
 * calling the function in a loop and checking every result, the branch is
 * taken out and put back, and the probe disabled and enabled, round after
 * round.
 */
long kpr_opt_target(long x);

noinline long kpr_opt_target(long x)
{
	long y = x * 3 + 1;

	barrier();
	y ^= x >> 2;
	barrier();
	return y + x * 7;
}

static long kpr_opt_expected(long x)
{
	return ((x * 3 + 1) ^ (x >> 2)) + x * 7;
}

static atomic_long_t opt_hits;

static int count_opt_hit(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&opt_hits);
	return 0;
}

struct opt_caller {
	long calls, wrong;
};

static int opt_caller_fn(void *arg)
{
	struct opt_caller *c = arg;
	long x = 0;

	while (!kthread_should_stop()) {
		if (kpr_opt_target(x) != kpr_opt_expected(x))
			c->wrong++;
		c->calls++;
		/*
		 * cond_resched() is no RCU Tasks quiescent state on a
		 * preemptible kernel, and the optimizer waits for one.
		 */
		if (!(++x & 1023))
			cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/* The text at @addr, as the CPU fetches it. */
static kprobe_opcode_t text_at(kprobe_opcode_t *addr)
{
	return READ_ONCE(*addr);
}

/*
 * Register @kp at the first offset of kpr_opt_target that gets a jump.
 * Return: true, with the breakpoint's text in @brk; false if none does.
 */
static bool probe_where_optimized(struct kprobe *kp, kprobe_opcode_t *brk)
{
	unsigned long size, off;

	if (!kallsyms_lookup_size_offset((unsigned long)kpr_opt_target,
					 &size, &off))
		return false;
	for (off = sizeof(kprobe_opcode_t); off < size;
	     off += sizeof(kprobe_opcode_t)) {
		memset(kp, 0, sizeof(*kp));
		kp->symbol_name = "kpr_opt_target";
		kp->offset = off;
		kp->pre_handler = count_opt_hit;
		kprobes_set_optimization(false);
		if (register_kprobe(kp))
			continue;
		*brk = text_at(kp->addr);
		kprobes_set_optimization(true);
		kprobe_optimizer_flush();
		if (kprobe_optimized(kp))
			return true;
		unregister_kprobe(kp);
	}
	kprobes_set_optimization(true);
	return false;
}

/*
 * Has @count gone past @n (a handler run since)?  Waits up to two seconds:
 * the other vCPU is a host thread, which a busy host may leave unscheduled
 * for longer than any fixed pause of ours.
 */
static bool counted_since(atomic_long_t *count, long n)
{
	unsigned long end = jiffies + 2 * HZ;

	while (atomic_long_read(count) <= n) {
		if (time_after(jiffies, end))
			return false;
		msleep(1);
	}
	return true;
}

static void optimized_probe_fires_through_jump(struct kunit *test)
{
	struct opt_caller caller = {};
	struct task_struct *t;
	kprobe_opcode_t brk, orig;
	struct kprobe kp;
	long i, hits;
	int round;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no jump optimization on this architecture");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	KUNIT_ASSERT_TRUE_MSG(test, probe_where_optimized(&kp, &brk),
			      "no instruction of kpr_opt_target was optimized");
	mutex_lock(&kprobe_mutex);
	orig = kprobe_site_of(&kp)->opcode;
	mutex_unlock(&kprobe_mutex);

	/* Neither the breakpoint nor the original: the branch is in. */
	KUNIT_EXPECT_NE(test, text_at(kp.addr), brk);
	KUNIT_EXPECT_NE(test, text_at(kp.addr), orig);
	atomic_long_set(&opt_hits, 0);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, kpr_opt_target(i), kpr_opt_expected(i));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&opt_hits), 100L);

	t = kthread_run(opt_caller_fn, &caller, "kpr_opt_caller");
	if (IS_ERR(t)) {
		unregister_kprobe(&kp);
		KUNIT_FAIL(test, "no caller thread: %ld", PTR_ERR(t));
		return;
	}
	for (round = 0; round < 20; round++) {
		hits = atomic_long_read(&opt_hits);
		kprobes_set_optimization(false);
		KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
		KUNIT_EXPECT_EQ(test, text_at(kp.addr), brk);
		msleep(2);
		kprobes_set_optimization(true);
		kprobe_optimizer_flush();
		KUNIT_EXPECT_TRUE(test, kprobe_optimized(&kp));
		msleep(2);
		disable_kprobe(&kp);
		KUNIT_EXPECT_EQ(test, text_at(kp.addr), orig);
		msleep(2);
		enable_kprobe(&kp);
		kprobe_optimizer_flush();
		msleep(2);
		/* The other CPU went on calling: the probe kept firing. */
		KUNIT_EXPECT_TRUE_MSG(test, counted_since(&opt_hits, hits),
				      "round %d: the probe did not fire", round);
	}
	kthread_stop(t);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, caller.wrong, 0L);
	KUNIT_EXPECT_GT(test, caller.calls, 0L);
	kunit_info(test, "offset %u, %ld calls, %ld hits\n", kp.offset,
		   caller.calls, atomic_long_read(&opt_hits));
}

/*
 * A jprobe comes and goes, is disabled and enabled, and every probe is
 * disarmed and armed again, while the other CPU calls its function in a
 * loop, checking each result: on that CPU the
 * handler is entered with the arguments, comes back, and the function
 * then runs as if nothing had happened, whatever the change under way.
 */
static atomic_long_t jchurn_hits, jchurn_bad_args;

static long j_churn(long a, long b, long c, long d, long e, long f, long g,
		    long h)
{
	if (b != a + 1 || c != a + 2 || d != a + 3 || e != a + 4 ||
	    f != a + 5 || g != a + 6 || h != a + 7)
		atomic_long_inc(&jchurn_bad_args);
	atomic_long_inc(&jchurn_hits);
	jprobe_return();
	return 0;
}

static int jchurn_caller_fn(void *arg)
{
	struct opt_caller *c = arg;
	long x = 0;

	while (!kthread_should_stop()) {
		if (kpr_eight(x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6,
			      x + 7) != 8 * x + 28)
			c->wrong++;
		c->calls++;
		if (!(++x & 1023))
			cond_resched_tasks_rcu_qs();	/* as opt_caller_fn() */
	}
	return 0;
}

static void jprobe_churn_while_called(struct kunit *test)
{
	struct opt_caller caller = {};
	struct task_struct *t;
	struct jprobe jp;
	long hits;
	int round;

	jp = (struct jprobe){ .kp.symbol_name = "kpr_eight", .entry = j_churn };
	if (no_jprobes_here(test, &jp))
		return;
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	atomic_long_set(&jchurn_hits, 0);
	atomic_long_set(&jchurn_bad_args, 0);
	t = kthread_run(jchurn_caller_fn, &caller, "kpr_jprobe_caller");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	while (!READ_ONCE(caller.calls))
		msleep(1);
	for (round = 0; round < 20; round++) {
		hits = atomic_long_read(&jchurn_hits);
		jp = (struct jprobe){ .kp.symbol_name = "kpr_eight",
				      .entry = j_churn };
		if (register_jprobe(&jp)) {
			KUNIT_FAIL(test, "round %d: jprobe refused", round);
			break;
		}
		KUNIT_EXPECT_TRUE_MSG(test, counted_since(&jchurn_hits, hits),
				      "round %d: the handler did not run", round);
		KUNIT_EXPECT_EQ(test, disable_jprobe(&jp), 0);
		msleep(1);
		KUNIT_EXPECT_EQ(test, enable_jprobe(&jp), 0);
		msleep(2);
		/* Every probe disarmed, as debugfs' enabled does. */
		KUNIT_EXPECT_EQ(test, kprobes_set_armed(false), 0);
		msleep(1);
		KUNIT_EXPECT_EQ(test, kprobes_set_armed(true), 0);
		msleep(2);
		unregister_jprobe(&jp);
		msleep(1);
	}
	kthread_stop(t);
	KUNIT_EXPECT_EQ(test, caller.wrong, 0L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&jchurn_bad_args), 0L);
	KUNIT_EXPECT_GT(test, caller.calls, 0L);
	kunit_info(test, "%ld calls, %ld handler runs, %s\n", caller.calls,
		   atomic_long_read(&jchurn_hits),
		   kprobe_ftrace(&jp.kp) ? "through ftrace" : "through a breakpoint");
}

/*
 * A probe alone at its address is what get_kprobe() returns, as upstream's
 * was, whatever came and went beside it; on a classic architecture it is
 * also what the breakpoint handler works with (sites.c), with the site's
 * copy lent to it.  The other CPU calls the function throughout, checking
 * every result, while the probe comes and goes alone, and while a second
 * probe comes and goes beside it, so that its hits switch between the
 * probe and the site's aggregate under it (and a bare probe's breakpoint
 * is written, taken over by a site, and removed).  Every hit
 * of the first probe runs its post_handler after its pre_handler, with
 * the probe current in both.
 */
static struct kprobe alone_kp[2];
static atomic_long_t alone_pres[2], alone_posts[2], alone_wrong_current;
static bool alone_through_ftrace;

static int alone_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (kprobe_running() != p)
		atomic_long_inc(&alone_wrong_current);
	atomic_long_inc(&alone_pres[p - alone_kp]);
	return 0;
}

static void alone_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	if (kprobe_running() != p)
		atomic_long_inc(&alone_wrong_current);
	atomic_long_inc(&alone_posts[p - alone_kp]);
}

static int alone_caller_fn(void *arg)
{
	struct opt_caller *c = arg;
	long x = 0;

	while (!kthread_should_stop()) {
		if (kpr_square(x & 0xffff) != (x & 0xffff) * (x & 0xffff))
			c->wrong++;
		c->calls++;
		if (!(++x & 1023))
			cond_resched_tasks_rcu_qs();	/* as opt_caller_fn() */
	}
	return 0;
}

static int alone_register(int i)
{
	alone_kp[i] = (struct kprobe){ .symbol_name = "kpr_square",
				       .pre_handler = alone_pre,
				       .post_handler = alone_post };
	return register_kprobe(&alone_kp[i]);
}

static void alone_probe_is_get_kprobe_while_called(struct kunit *test)
{
	struct opt_caller caller = {};
	struct kprobe *a = &alone_kp[0];
	struct task_struct *t;
	int round, i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	for (i = 0; i < 2; i++) {
		atomic_long_set(&alone_pres[i], 0);
		atomic_long_set(&alone_posts[i], 0);
	}
	atomic_long_set(&alone_wrong_current, 0);
	t = kthread_run(alone_caller_fn, &caller, "kpr_alone_caller");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	while (!READ_ONCE(caller.calls))
		msleep(1);
	for (round = 0; round < 10; round++) {
		/* Alone from registration to removal (bare, where it may be). */
		if (alone_register(0)) {
			KUNIT_FAIL(test, "round %d: the probe was refused", round);
			break;
		}
		KUNIT_EXPECT_TRUE(test, counted_since(&alone_pres[0],
					atomic_long_read(&alone_pres[0])));
		unregister_kprobe(a);
		/* Then joined by a second, which leaves again. */
		if (alone_register(0)) {
			KUNIT_FAIL(test, "round %d: the probe was refused", round);
			break;
		}
		KUNIT_EXPECT_PTR_EQ(test, probe_at(a->addr), a);
		alone_through_ftrace = kprobe_ftrace(a);
		KUNIT_EXPECT_TRUE(test, counted_since(&alone_pres[0],
					atomic_long_read(&alone_pres[0])));
		if (alone_register(1)) {
			KUNIT_FAIL(test, "round %d: the second was refused", round);
			unregister_kprobe(a);
			break;
		}
		KUNIT_EXPECT_TRUE(test, counted_since(&alone_pres[1],
					atomic_long_read(&alone_pres[1])));
		unregister_kprobe(&alone_kp[1]);
		KUNIT_EXPECT_PTR_EQ(test, probe_at(a->addr), a);
		KUNIT_EXPECT_TRUE(test, counted_since(&alone_pres[0],
					atomic_long_read(&alone_pres[0])));
		unregister_kprobe(a);
	}
	kthread_stop(t);
	kprobe_optimizer_flush();
	KUNIT_EXPECT_NULL(test, probe_at(entry_of("kpr_square")));
	KUNIT_EXPECT_EQ(test, caller.wrong, 0L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&alone_wrong_current), 0L);
	/*
	 * Including the hits in flight when it leaves: the site keeps it
	 * until it is disarmed (register.c's dying sites).
	 */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&alone_posts[0]),
			atomic_long_read(&alone_pres[0]));
	kunit_info(test, "%ld calls, %ld and %ld hits, %ld post_handlers missing%s\n",
		   caller.calls, atomic_long_read(&alone_pres[0]),
		   atomic_long_read(&alone_pres[1]),
		   atomic_long_read(&alone_pres[0]) -
		   atomic_long_read(&alone_posts[0]),
		   alone_through_ftrace ? " (through ftrace)" : "");
}

static struct kunit_case kprobes_return_jump_cases[] = {
	KUNIT_CASE(return_value_seen),
	KUNIT_CASE(recursion_pairs_entries_and_returns),
	KUNIT_CASE(two_kretprobes_share_a_return),
	KUNIT_CASE(entry_handler_can_skip),
	KUNIT_CASE_SLOW(maxactive_exhaustion_counted),
	KUNIT_CASE_SLOW(task_exit_returns_instance),
	KUNIT_CASE_SLOW(unregister_with_calls_in_flight),
	KUNIT_CASE(handler_hits_another_kretprobe),
	KUNIT_CASE(kretprobe_refusals),
	KUNIT_CASE(kretprobe_default_pool),
	KUNIT_CASE(refused_kretprobe_waits_for_nothing),
	KUNIT_CASE(jprobe_sees_eight_arguments),
	KUNIT_CASE(jprobe_and_kprobe_share_entry),
	KUNIT_CASE(batch_failure_rolls_back),
	KUNIT_CASE(pre_only_and_post_only_share),
	KUNIT_CASE(no_sync_without_text_change),
	KUNIT_CASE(partial_unregister_clears_bad_entry),
	KUNIT_CASE(flush_keeps_current_probe),
	KUNIT_CASE(jprobe_batch_enable_disable),
	KUNIT_CASE(batches_of_no_probes),
	KUNIT_CASE(handler_order_and_running),
	KUNIT_CASE(two_pre_handlers_in_order),
	KUNIT_CASE(jump_label_site_refused),
	KUNIT_CASE(static_call_site_refused),
	KUNIT_CASE(static_call_trampoline_refused),
	KUNIT_CASE(init_text_probe_turns_gone),
	KUNIT_CASE(trimmed_slots_share_a_page),
	KUNIT_CASE(site_is_a_small_slab_object),
	KUNIT_CASE(alone_probe_goes_bare),
	KUNIT_CASE(fault_handler_sees_fault_in_pre_handler),
	KUNIT_CASE_SLOW(optimized_probe_fires_through_jump),
	KUNIT_CASE_SLOW(jprobe_churn_while_called),
	KUNIT_CASE_SLOW(alone_probe_is_get_kprobe_while_called),
	{}
};

static struct kunit_suite kprobes_return_jump_suite = {
	.name = "kprobes_return_jump",
	.init = kpr_init,
	.test_cases = kprobes_return_jump_cases,
};

kunit_test_suite(kprobes_return_jump_suite);

MODULE_DESCRIPTION("KUnit tests of kretprobes and jprobes");
MODULE_LICENSE("GPL");
