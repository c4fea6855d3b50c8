// SPDX-License-Identifier: GPL-2.0
/*
 * A module with a function to probe, for the selftests of probes in
 * modules: reading /sys/kernel/debug/kprobes_target/call calls it once.
 *
 * With init_probe=1 the module also probes a function of its own __init
 * code from its init, calls it, and shows the hits in .../init_hits: the
 * probe must fire while the code is there and turn [GONE] when the kernel
 * frees it at the end of the load.  The exit unregisters it.  Its init
 * also leaves async work that calls the function again once the module is
 * live (and the probe gone), before the kernel frees the code; its result
 * is in .../late_result.
 *
 * With probe_sym=NAME the module keeps a probe with only a pre_handler on
 * that kernel function while it is loaded: one that may be optimized;
 * with sym_disabled=1 too, the probe is registered disabled.
 *
 * With refusals=1 the module tries two places that must be refused and
 * shows the errnos in .../refusals: its own noinstr function (from its
 * init), and its own __init function once the module is live (from a
 * module notifier called after the kernel's, while that text still exists).
 *
 * Two functions open to error injection (ALLOW_ERROR_INJECTION, ERRNO):
 * reading .../may_fail and .../may_fail_notrace calls them and shows what
 * they returned (0 unless an injection made them fail).  The second is
 * notrace: no ftrace site, so a probe at its entry is an int3 one.
 *
 * With exit_call=1 the module's exit leaves async work that calls
 * kprobes_target_func() and kprobes_target_opt() (notrace, with a first
 * instruction a jump can replace) once the module is GOING (after
 * Kprobes' own notifier), as delete_module() lets it before the text is
 * freed; the work logs the results.  .../body_offset gives the offset of that
 * function's first instruction after the entry's ftrace call (0 on a
 * kernel without one): a probe there is an int3 or a jump of ours.
 *
 * With refusals=1, .../refusals also shows what within_kprobe_blacklist()
 * says of the module's noinstr, .kprobes.text and NOKPROBE_SYMBOL()
 * functions and of a plain one.
 */
#include <linux/async.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/error-injection.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ftrace.h>

/* The size of ftrace's call at an entry, where there is one (else unused). */
#ifdef MCOUNT_INSN_SIZE
#define FENTRY_CALL_SIZE	MCOUNT_INSN_SIZE
#else
#define FENTRY_CALL_SIZE	0
#endif

static char *probe_sym;
module_param(probe_sym, charp, 0400);
MODULE_PARM_DESC(probe_sym, "keep a pre_handler-only probe on this symbol");

static bool init_probe;
module_param(init_probe, bool, 0400);
MODULE_PARM_DESC(init_probe, "probe a function of the module's __init code");

static bool sym_disabled;
module_param(sym_disabled, bool, 0400);
MODULE_PARM_DESC(sym_disabled, "register the probe_sym probe disabled");

static bool refusals;
module_param(refusals, bool, 0400);
MODULE_PARM_DESC(refusals, "try to probe our noinstr and (once live) __init code");

noinline int kprobes_target_func(int x);
noinline int kprobes_target_func(int x)
{
	return x * 3 + 1;
}

/*
 * What the two return when nothing is injected.  Read, not a constant:
 * clang propagates a noinline function's constant return value into its
 * callers, which would then never see the injected error.
 */
static int may_fail_ret;

noinline int kprobes_target_may_fail(void);
noinline int kprobes_target_may_fail(void)
{
	return READ_ONCE(may_fail_ret);
}
ALLOW_ERROR_INJECTION(kprobes_target_may_fail, ERRNO);

/* Long enough for a jmp: an optimizable entry, were it not injectable. */
static int may_fail_calls;
noinline notrace int kprobes_target_may_fail_notrace(void);
noinline notrace int kprobes_target_may_fail_notrace(void)
{
	WRITE_ONCE(may_fail_calls, READ_ONCE(may_fail_calls) + 1);
	return READ_ONCE(may_fail_ret);
}
ALLOW_ERROR_INJECTION(kprobes_target_may_fail_notrace, ERRNO);

static int may_fail_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%d\n", kprobes_target_may_fail());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(may_fail);

static int may_fail_notrace_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%d\n", kprobes_target_may_fail_notrace());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(may_fail_notrace);

static int calls;

static int call_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%d\n", kprobes_target_func(calls++));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(call);

static u32 init_hits;

static int init_pre(struct kprobe *p, struct pt_regs *regs)
{
	init_hits++;
	return 0;
}

static struct kprobe init_kp = {
	.symbol_name	= "kprobes_target_init_work",
	.pre_handler	= init_pre,
};

noinline int __init kprobes_target_init_work(int x);
noinline int __init kprobes_target_init_work(int x)
{
	return x + 7;
}

/* Probe our own __init function and call it once; 0 or an errno. */
static int __init probe_init_code(void)
{
	int ret = register_kprobe(&init_kp);

	if (ret)
		return ret;
	if (kprobes_target_init_work(1) != 8) {
		unregister_kprobe(&init_kp);
		return -EIO;
	}
	return 0;
}

/* Text where a trap may not be survivable: no probe may go here. */
noinstr int kprobes_target_noinstr(int x);
noinstr int kprobes_target_noinstr(int x)
{
	return x ^ 0x5a;
}

/* Refused text of the other two kinds, for within_kprobe_blacklist(). */
noinline int kprobes_target_nokprobe(int x);
noinline int kprobes_target_nokprobe(int x)
{
	return x - 5;
}

NOKPROBE_SYMBOL(kprobes_target_nokprobe);

noinline int __kprobes kprobes_target_kprobes_text(int x);
noinline int __kprobes kprobes_target_kprobes_text(int x)
{
	return x + 5;
}

static int noinstr_ret = 1, live_init_ret = 1;
/*
 * Set by the init, read by live_notify(): the volatile read keeps
 * clang from folding the only value ever stored into live_notify(),
 * which would make it reference __init text (a modpost section mismatch).
 */
static unsigned long init_work_addr;
static u32 late_result;
static DECLARE_COMPLETION(live_seen);

/* Async work of the init: __init code that runs after the LIVE notifiers. */
static void __init late_init_call(void *data, async_cookie_t cookie)
{
	wait_for_completion(&live_seen);
	late_result = kprobes_target_init_work(2);
}

static int refusals_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "noinstr %d\nlive_init %d\n", noinstr_ret, live_init_ret);
	seq_printf(m, "blacklisted %d %d %d %d\n",
		   within_kprobe_blacklist((unsigned long)kprobes_target_noinstr),
		   within_kprobe_blacklist((unsigned long)kprobes_target_kprobes_text),
		   within_kprobe_blacklist((unsigned long)kprobes_target_nokprobe),
		   within_kprobe_blacklist((unsigned long)kprobes_target_func));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refusals);

/* Try a probe at @sym or @addr; on a (wrong) success take it away at once. */
static int try_probe(const char *sym, unsigned long addr)
{
	struct kprobe kp = { .symbol_name = sym, .addr = (void *)addr,
			     .pre_handler = init_pre };
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

static int live_notify(struct notifier_block *nb, unsigned long state,
		       void *data)
{
	if (data != THIS_MODULE || state != MODULE_STATE_LIVE)
		return NOTIFY_DONE;
	/* By address: no failed lookup can pass for the refusal. */
	if (refusals)
		live_init_ret = try_probe(NULL, READ_ONCE(init_work_addr));
	complete(&live_seen);
	return NOTIFY_DONE;
}

/* After the kernel's notifiers (Kprobes' has priority 0). */
static struct notifier_block live_nb = {
	.notifier_call	= live_notify,
	.priority	= -1,
};

static int sym_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static bool exit_call;
module_param(exit_call, bool, 0400);
MODULE_PARM_DESC(exit_call, "call kprobes_target_func() from async work while the module goes");

static DECLARE_COMPLETION(going_seen);

static int going_notify(struct notifier_block *nb, unsigned long state,
			void *data)
{
	if (data == THIS_MODULE && state == MODULE_STATE_GOING)
		complete(&going_seen);
	return NOTIFY_DONE;
}

/* After Kprobes' notifier, as live_nb. */
static struct notifier_block going_nb = {
	.notifier_call	= going_notify,
	.priority	= -1,
};

/*
 * For a probe that takes a jump: notrace, so that its entry is ours, not
 * ftrace's, and a first instruction (an increment of a counter, RIP
 * relative) that a detour can run.
 */
static int opt_calls;
noinline notrace int kprobes_target_opt(int x);
noinline notrace int kprobes_target_opt(int x)
{
	WRITE_ONCE(opt_calls, READ_ONCE(opt_calls) + 1);
	return x + 2;
}

/*
 * Runs after the GOING notifiers, before delete_module() frees the text
 * (it waits for async work first).  Not __exit: that text may be gone.
 * Should async_schedule() run it at once (no memory for the entry), the
 * wait gives up, rather than wait in the exit for what comes after it.
 */
static void exit_call_work(void *data, async_cookie_t cookie)
{
	int ret, opt;

	wait_for_completion_timeout(&going_seen, 10 * HZ);
	ret = kprobes_target_func(4);
	opt = kprobes_target_opt(4);
	pr_info("kprobes_target: exit work: kprobes_target_func(4) = %d, kprobes_target_opt(4) = %d\n",
		ret, opt);
	/* Out of the chain now: the GOING notifiers have all returned. */
	unregister_module_notifier(&going_nb);
}

/*
 * The first instruction of kprobes_target_func() after ftrace's call:
 * where a probe at its entry goes (past an ENDBR64), and past the call
 * when that is an ftrace location.
 */
static int body_offset_show(struct seq_file *m, void *unused)
{
	struct kprobe kp = { .symbol_name = "kprobes_target_func",
			     .pre_handler = sym_pre };
	unsigned long off;
	int ret = register_kprobe(&kp);

	if (ret)
		return ret;
	off = (unsigned long)kp.addr - (unsigned long)kprobes_target_func;
	if (kprobe_ftrace(&kp))
		off += FENTRY_CALL_SIZE;
	unregister_kprobe(&kp);
	seq_printf(m, "%lu\n", off);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(body_offset);

static struct kprobe sym_kp = { .pre_handler = sym_pre };

static struct dentry *dir;

/*
 * The probe_sym probe, on the symbol's first instruction of its own: on a
 * kernel with ftrace that is the one after the fentry call, which a probe
 * at the entry would reach through ftrace, never jump-optimized.
 */
static int register_sym_probe(void)
{
	kprobe_opcode_t *addr;
	int ret;

	sym_kp.symbol_name = probe_sym;
	if (sym_disabled)
		sym_kp.flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(&sym_kp);
	if (ret || !kprobe_ftrace(&sym_kp))
		return ret;
	addr = sym_kp.addr;
	unregister_kprobe(&sym_kp);
	memset(&sym_kp, 0, sizeof(sym_kp));
	sym_kp.pre_handler = sym_pre;
	/* Past the fentry call */
	sym_kp.addr = (kprobe_opcode_t *)((unsigned long)addr + FENTRY_CALL_SIZE);
	if (sym_disabled)
		sym_kp.flags = KPROBE_FLAG_DISABLED;
	return register_kprobe(&sym_kp);
}

static int __init kprobes_target_init(void)
{
	int ret;

	if (init_probe) {
		ret = probe_init_code();
		if (ret)
			return ret;
	}
	WRITE_ONCE(init_work_addr, (unsigned long)kprobes_target_init_work);
	if (refusals) {
		noinstr_ret = try_probe("kprobes_target_noinstr", 0);
		/* Keep the function: nothing else calls it. */
		if (kprobes_target_noinstr(0) != 0x5a)
			return -EIO;
	}
	if (refusals || init_probe) {
		ret = register_module_notifier(&live_nb);
		if (ret) {
			if (init_probe)
				unregister_kprobe(&init_kp);
			return ret;
		}
	}
	if (probe_sym) {
		ret = register_sym_probe();
		if (ret) {
			if (init_probe)
				unregister_kprobe(&init_kp);
			if (refusals || init_probe)
				unregister_module_notifier(&live_nb);
			return ret;
		}
	}
	dir = debugfs_create_dir("kprobes_target", NULL);
	debugfs_create_file("call", 0400, dir, NULL, &call_fops);
	debugfs_create_file("may_fail", 0400, dir, NULL, &may_fail_fops);
	debugfs_create_file("may_fail_notrace", 0400, dir, NULL,
			    &may_fail_notrace_fops);
	debugfs_create_u32("init_hits", 0400, dir, &init_hits);
	debugfs_create_file("refusals", 0400, dir, NULL, &refusals_fops);
	debugfs_create_u32("late_result", 0400, dir, &late_result);
	debugfs_create_file("body_offset", 0400, dir, NULL, &body_offset_fops);
	/* Last: nothing may fail after this, or the work would wait forever. */
	if (init_probe)
		async_schedule(late_init_call, NULL);
	return 0;
}

static void __exit kprobes_target_exit(void)
{
	debugfs_remove_recursive(dir);
	if (refusals || init_probe)
		unregister_module_notifier(&live_nb);
	if (init_probe)
		unregister_kprobe(&init_kp);
	if (probe_sym)
		unregister_kprobe(&sym_kp);
	/*
	 * The notifier goes on here, not in the init: a load that fails
	 * after the init would free the module with it still on the chain.
	 */
	if (exit_call && !register_module_notifier(&going_nb))
		async_schedule(exit_call_work, NULL);
}

module_init(kprobes_target_init);
module_exit(kprobes_target_exit);
MODULE_DESCRIPTION("Kprobes selftests: a function to probe in a module");
MODULE_LICENSE("GPL");
