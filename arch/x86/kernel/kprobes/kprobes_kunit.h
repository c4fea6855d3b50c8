/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions of kprobes_kunit_targets.S and opt_kunit_targets.S, for
 * the KUnit suites, and what the x86 KUnit suites share.
 */
#ifndef _X86_KPROBES_KUNIT_H
#define _X86_KPROBES_KUNIT_H

#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/sched.h>

/* The targets; see kprobes_kunit_targets.S. */
extern long kpt_data;
long kpt_args(long a, long b, long c);
long kpt_post(void);
long kpt_rip_load(void);
long kpt_helper(void);
long kpt_rel_call(void);
long kpt_rel_jmp(long x);
long kpt_jcc(long x);
long kpt_jcc32(long x);
long kpt_ret(void);
long kpt_push_pop(long x);
long kpt_call_reg(long (*fn)(void));
long kpt_call_mem(long (**fnp)(void));
unsigned long kpt_pushf(void);
unsigned long kpt_if_changes(void);
long kpt_prefixed(long *p);
long kpt_fault_load(long *p);
long kpt_loop(long n);
long kpt_jrcxz(long x);
long kpt_jmp_reg(long (*fn)(void));
long kpt_jmp_mem(long (**fnp)(void));
long kpt_kgdb_target(void);

/* The targets of the optimization suite; see opt_kunit_targets.S. */
extern long kpo_data;
long kpo_plain(long x);
long kpo_inject(long x);
long kpo_rip(void);
long kpo_jcc(long x);
long kpo_stack(long x);
long kpo_call(void);
long kpo_ret_last(long x);
long kpo_jump_in(long x);
long kpo_indirect(long x, long y, void *z);
long kpo_extable(long x, long *p);
long kpo_short(long x);
unsigned long kpo_sp(void);

/* Indices into kpt_points[], in the order of the .S file. */
enum {
	KPT_POST, KPT_POST_NEXT, KPT_RIP, KPT_CALL, KPT_JMP, KPT_JCC,
	KPT_JCC32, KPT_RET, KPT_PUSH, KPT_LEA, KPT_POP, KPT_CALLR, KPT_CALLM,
	KPT_PUSHF, KPT_LOAD, KPT_LOAD_DONE, KPT_LOOP, KPT_JRCXZ, KPT_JMPR,
	KPT_KGDB, KPT_CLI, KPT_STI, KPT_POPF, KPT_GS, KPT_O16, KPT_LOCK,
	KPT_JMPM,
};

extern const struct kpt_point {
	unsigned long fn, offset;
} kpt_points[];

/* Breakpoints Kprobes took on each CPU (int3.c, test kernels only). */
DECLARE_PER_CPU(unsigned long, kprobe_traps_taken);

/*
 * Start @fn as a kthread on a CPU other than this one, for the cross-CPU
 * cases; *@cpu gets that CPU.  The case fails if the thread cannot start.
 *
 * The case's own thread (a kthread of its own, gone with the case) stays
 * on this CPU from now on: the scheduler may otherwise wake it, after a
 * grace period, on the hammer's CPU, where its udelay() windows would run
 * with the hammer waiting, and a probe that lives only in those windows
 * would see no hit at all (single_probe_switches_under_hits did, about
 * one boot in ten).
 */
static inline struct task_struct *kpt_start_hammer(struct kunit *test,
						   int (*fn)(void *),
						   const char *name, int *cpu)
{
	int this_cpu = raw_smp_processor_id();
	struct task_struct *t;

	/* May sleep and move us back to this_cpu; it stays online. */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(this_cpu)), 0);
	*cpu = cpumask_any_but(cpu_online_mask, this_cpu);
	t = kthread_create(fn, NULL, "%s", name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, *cpu);
	wake_up_process(t);
	return t;
}

/*
 * Wait until *@calls, which a hammer counts up, has grown by @n (five
 * seconds at most).  A fixed delay is not enough: on a loaded host, QEMU
 * can leave the other vCPU without a host CPU for longer than the delay.
 * Return: false when the wait ran out, a state that saw no call.
 */
static inline bool kpt_wait_calls(atomic_t *calls, int n)
{
	int start = atomic_read(calls);
	unsigned long timeout = jiffies + 5 * HZ;

	while (atomic_read(calls) - start < n && time_before(jiffies, timeout))
		cpu_relax();
	return atomic_read(calls) - start >= n;
}

/*
 * The rare paths a cross-CPU case exists to reach (enum kprobe_window):
 * their counts when the case starts, then how often the case entered each.
 */
struct kpt_windows {
	unsigned long at_start[KPROBE_WINDOWS];
};

static inline void kpt_windows_start(struct kpt_windows *w)
{
	int i;

	for (i = 0; i < KPROBE_WINDOWS; i++)
		w->at_start[i] = kprobe_window_total(i);
}

static inline unsigned long kpt_window_entered(const struct kpt_windows *w,
					       enum kprobe_window which)
{
	return kprobe_window_total(which) - w->at_start[which];
}

/* One line for the log: every window's count since kpt_windows_start(). */
static inline void kpt_windows_report(struct kunit *test,
				      const struct kpt_windows *w)
{
	kunit_info(test, "windows: int3_gone=%lu late_site=%lu in_flux=%lu missed=%lu bare_to_site=%lu stale_text=%lu\n",
		   kpt_window_entered(w, KPROBE_WINDOW_INT3_GONE),
		   kpt_window_entered(w, KPROBE_WINDOW_LATE_SITE),
		   kpt_window_entered(w, KPROBE_WINDOW_IN_FLUX),
		   kpt_window_entered(w, KPROBE_WINDOW_MISSED),
		   kpt_window_entered(w, KPROBE_WINDOW_BARE_TO_SITE),
		   kpt_window_entered(w, KPROBE_WINDOW_STALE_TEXT));
}

#endif /* _X86_KPROBES_KUNIT_H */
