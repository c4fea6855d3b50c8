// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobes benchmark: the cost of a probe hit, and of registering and
 * unregistering many probes.  Uses only API that upstream 6.12 has too, so
 * the same source builds against both kernels; `make bench` compares them.
 *
 * Time is read with ktime_get_ns().  Under QEMU's -icount shift=0 the guest
 * clock advances one nanosecond per guest instruction, so a "ns" here is an
 * instruction count and the figures are deterministic.  What icount does
 * not count is the processor's own cost of taking a trap; the number of
 * traps per hit is printed beside each per-hit figure for that reason.
 *
 * Output, one line per case, to the kernel log:
 *   kpbench: <case> <value> <unit> [traps=<n>] [note]
 *   kpbench: <case> n/a <why>
 *
 * Parameters:
 *   cases   comma-separated list of cases to run (see run_case())
 *   hits    calls per per-hit measurement
 *   syms    file with one function name per line, for the registration
 *           cases and for "accept" (which prints the names it can probe)
 *   nsyms   how many names of it to use
 *   tag     the name the "hold" case prints its lines under
 *
 * Two cases keep something until the module is removed, so that bench.sh
 * can look at the kernel meanwhile (memory, a workload under the probes):
 * "alloc" reads @syms and allocates the probes, registering nothing (the
 * baseline of a memory measurement); "hold" also registers them as one
 * batch, waits for the optimizer, and unregisters them as one batch when
 * the module goes.  The parameter "now" reads the guest clock, "hits_held"
 * the pre_handler calls of "hold" so far.
 */
#include <linux/kernel_read_file.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/text-patching.h>
/* The first instruction of a function past its fentry call. */
#define PAST_FTRACE_CALL	CALL_INSN_SIZE
#else
#define PAST_FTRACE_CALL	MCOUNT_INSN_SIZE
#endif

static char *cases = "optwait,opt,post,two,kretprobe,jprobe,register,batch";
module_param(cases, charp, 0444);
static unsigned long hits = 100000;
module_param(hits, ulong, 0444);
static char *syms = "/tmp/kpbench-syms";
module_param(syms, charp, 0444);
static unsigned int nsyms = 1000;
module_param(nsyms, uint, 0444);
static char *tag = "held";
module_param(tag, charp, 0444);
/* bench.sh says so when it has turned the optimization sysctl off. */
static bool optimizing = true;
module_param(optimizing, bool, 0444);
/*
 * The smoke test's run, which wants a figure for each case, not a good
 * one: one run of each time-to-optimized case, and no wait for a probe
 * that neither kernel will optimize.  The benchmark keeps both: its
 * figures are taken on a quiet machine, after the same pauses on either
 * kernel.
 */
static bool quick;
module_param(quick, bool, 0444);

/* Reading it gives the guest clock in ns (instructions under icount). */
static int now_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", ktime_get_ns());
}

static const struct kernel_param_ops now_ops = { .get = now_get };
module_param_cb(now, &now_ops, NULL, 0444);

/* The probed function: exported, small, deterministic, rarely called. */
#define TARGET		"int_sqrt"
/* Another small function, for a probe right after one on TARGET went. */
#define TARGET2		"gcd"
static unsigned long sink;

static int nop_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static void nop_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
}

/* Guest ns (instructions under icount) for @n calls, interrupts off. */
static u64 time_calls(unsigned long n)
{
	unsigned long flags, i;
	u64 t0, t1;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		sink += int_sqrt(i & 0xff);
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	return t1 - t0;
}

/* Extra guest ns per call over the unprobed function, in tenths. */
static long extra_per_hit(u64 base)
{
	u64 t = time_calls(hits);

	return (long)div64_s64((s64)(t - base) * 10, hits);
}

/*
 * Is the probe at @p's address reached through a jump?  On x86 read the
 * text: a jmp rel32 in place of the probed instruction (both kernels may
 * flag a probe as optimized while the jump is only queued).  Elsewhere
 * (arm64, which neither kernel optimizes), the flag.
 */
static bool site_optimized(struct kprobe *p)
{
#ifdef CONFIG_X86
	u8 op;

	return !copy_from_kernel_nofault(&op, p->addr, 1) && op == 0xe9;
#else
	return kprobe_optimized(p);
#endif
}

/*
 * Wait for the optimizer to settle on @p: its flag, or 2 s.  In a quick
 * run, not at all for a probe reached through ftrace, or with the sysctl
 * off: neither kernel optimizes those.
 */
static bool wait_optimized(struct kprobe *p, u64 *ns)
{
	u64 t0 = ktime_get_ns();
	int i;

	if (quick && (!optimizing || kprobe_ftrace(p)))
		return false;
	for (i = 0; i < 2000; i++) {
		if (site_optimized(p)) {
			if (ns)
				*ns = ktime_get_ns() - t0;
			return true;
		}
		usleep_range(1000, 1000);
	}
	return false;
}

/*
 * Traps taken per hit, from what each implementation documents: none when
 * optimized or reached through ftrace; otherwise one when the instruction
 * is emulated (or boosted), two when it runs out of line and traps back.
 */
static int traps_per_hit(struct kprobe *p)
{
	if (site_optimized(p) || kprobe_ftrace(p))
		return 0;	/* a jump, or ftrace's call */
#if defined(KPROBE_SLOT_SIZE) && defined(CONFIG_X86)	/* ours: the copy lives in the site */
	{
		struct kprobe_site *site = kprobe_site_lookup(p->addr);

		if (!site)
			return 2;
		if (!site->ainsn.insn)
			return 1;	/* emulated */
		if (site->stepped)
			return 2;
		if (site->posted)
			return kprobe_post_copy(&site->ainsn) ? 1 : 2;
		if (kprobe_boost_copy(&site->ainsn) ||
		    (site->region_clear && kprobe_detour(&site->ainsn)))
			return 1;	/* boosted */
		return 2;
	}
#elif defined(CONFIG_X86)	/* upstream: no boost on preemptible kernels */
	return p->ainsn.emulate_op ? 1 : 2;
#elif defined(CONFIG_ARM64_KPROBE_SITES)	/* ours, arm64's site code */
	{
		struct kprobe_site *site = kprobe_site_lookup(p->addr);

		if (!site)
			return 2;
		if (!site->ainsn.insn)
			return 1;	/* simulated */
		if (site->stepped)
			return 2;
		if (site->posted)
			return kprobe_post_copy(&site->ainsn) ? 1 : 2;
		return kprobe_boost_copy(&site->ainsn) ? 1 : 2;
	}
#elif defined(CONFIG_ARM64)	/* simulated: the BRK alone; else a step too */
	{
#ifdef KPROBE_SLOT_SIZE		/* ours: the arch's probe is the site's */
		struct kprobe_site *site = kprobe_site_lookup(p->addr);

		if (site)
			p = &site->aggr;
#endif
		return p->ainsn.api.handler ? 1 : 2;
	}
#else
	return 2;
#endif
}

static void report_hit(const char *name, long tenths, int traps,
		       const char *note)
{
	/* The sign on its own: -0.5 has no integer part to carry it. */
	pr_info("kpbench: %s %s%ld.%ld ns traps=%d %s\n", name,
		tenths < 0 ? "-" : "", abs(tenths) / 10, abs(tenths) % 10,
		traps, note);
}

static u64 baseline(void)
{
	time_calls(hits / 10 + 1);	/* warm up */
	return time_calls(hits);
}

static void bench_kprobe(const char *name, bool post, bool two)
{
	struct kprobe a = { .symbol_name = TARGET, .pre_handler = nop_pre };
	struct kprobe b = { .symbol_name = TARGET, .pre_handler = nop_pre };
	u64 base = baseline(), opt_ns = 0;
	bool opt;
	int ret;

	if (post)
		a.post_handler = nop_post;
	ret = register_kprobe(&a);
	if (!ret && two)
		ret = register_kprobe(&b);
	if (ret) {
		pr_info("kpbench: %s n/a register failed (%d)\n", name, ret);
		if (two)
			unregister_kprobe(&a);
		return;
	}
	opt = !post && wait_optimized(&a, &opt_ns);
	report_hit(name, extra_per_hit(base), traps_per_hit(&a),
		   opt ? "optimized" : "");
	if (two)
		unregister_kprobe(&b);
	unregister_kprobe(&a);
}

/*
 * On a kernel with ftrace a probe at the entry goes through ftrace: put
 * @p (registered, with only a pre_handler) on the next instruction, the
 * function's first own one, which an int3 or a jump can take.
 */
static int move_past_ftrace(struct kprobe *p)
{
	kprobe_opcode_t *next = (void *)p->addr + PAST_FTRACE_CALL;
	kprobe_pre_handler_t pre = p->pre_handler;

	if (!kprobe_ftrace(p))
		return 0;
	unregister_kprobe(p);
	memset(p, 0, sizeof(*p));
	p->addr = next;
	p->pre_handler = pre;
	return register_kprobe(p);
}

/* Register a probe on @sym (past its fentry call): 0 or an errno. */
static int register_nop_on(struct kprobe *p, const char *sym)
{
	memset(p, 0, sizeof(*p));
	p->symbol_name = sym;
	p->pre_handler = nop_pre;
	return register_kprobe(p) ?: move_past_ftrace(p);
}

static void bench_kprobe_mid(void)
{
	u64 base = baseline(), opt_ns = 0;
	struct kprobe a;
	bool opt;
	int ret = register_nop_on(&a, TARGET);

	if (ret) {
		pr_info("kpbench: kprobe_mid n/a register failed (%d)\n", ret);
		return;
	}
	opt = wait_optimized(&a, &opt_ns);
	report_hit("kprobe_mid", extra_per_hit(base), traps_per_hit(&a),
		   opt ? "optimized" : "");
	unregister_kprobe(&a);
}

/*
 * Each run waits for the optimizer's next pass, which both kernels start
 * from a timer and end after an RCU Tasks grace period: where in a tick
 * the registration falls moves one run by milliseconds, so a figure is
 * the median of a few runs.  Each run starts after a pause longer than
 * the RCU Tasks kthread's rest between two grace periods (HZ/10), so that
 * it finds no grace period under way or just ended, as a user's first
 * probe does:
 *   time_to_optimized                a probe on TARGET
 *   time_to_optimized_after_removal  one on TARGET2, registered right
 *       after an optimized one on TARGET was unregistered: a removal that
 *       starts a grace period of its own makes the next optimization
 *       wait that one out, and the rest after it
 *   time_to_optimized_reregistered   the same on TARGET itself, as a tool
 *       that replaces its probe does: upstream undoes a removed probe's
 *       jump later, and takes it up again for a new probe at its address
 */
#define OPTWAIT_RUNS 5
#define OPTWAIT_PAUSE_MS 300

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* An optimized probe on @sym, there and gone. */
static bool optimize_and_remove(const char *sym)
{
	struct kprobe a;
	bool opt;

	if (register_nop_on(&a, sym))
		return false;
	opt = wait_optimized(&a, NULL);
	msleep(OPTWAIT_PAUSE_MS);
	unregister_kprobe(&a);
	return opt;
}

/* The median time to optimized of a probe on @sym, after @removed's. */
static void optwait_runs(const char *name, const char *sym,
			 const char *removed)
{
	int runs = quick ? 1 : OPTWAIT_RUNS;
	u64 ns[OPTWAIT_RUNS];
	struct kprobe a;
	int i;

	for (i = 0; i < runs; i++) {
		msleep(OPTWAIT_PAUSE_MS);
		if (removed && !optimize_and_remove(removed)) {
			pr_info("kpbench: %s n/a %s not optimized\n", name, removed);
			return;
		}
		if (register_nop_on(&a, sym)) {
			pr_info("kpbench: %s n/a register failed\n", name);
			return;
		}
		if (!wait_optimized(&a, &ns[i])) {
			pr_info("kpbench: %s n/a never optimized\n", name);
			unregister_kprobe(&a);
			return;
		}
		unregister_kprobe(&a);
	}
	sort(ns, runs, sizeof(ns[0]), cmp_u64, NULL);
	pr_info("kpbench: %s %llu ns\n", name, ns[runs / 2]);
}

static void bench_time_to_optimized(void)
{
	optwait_runs("time_to_optimized", TARGET, NULL);
	optwait_runs("time_to_optimized_after_removal", TARGET2, TARGET);
	optwait_runs("time_to_optimized_reregistered", TARGET, TARGET);
}

#ifdef CONFIG_KRETPROBES
static int nop_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static void bench_kretprobe(const char *name)
{
	struct kretprobe rp = {
		.kp.symbol_name = TARGET,
		.handler = nop_ret,
		.maxactive = 4,
	};
	u64 base = baseline();
	bool opt;
	int ret = register_kretprobe(&rp);

	if (ret) {
		pr_info("kpbench: %s n/a register failed (%d)\n", name, ret);
		return;
	}
	opt = wait_optimized(&rp.kp, NULL);
	report_hit(name, extra_per_hit(base), traps_per_hit(&rp.kp),
		   opt ? "optimized" : "");
	unregister_kretprobe(&rp);
}
#else
static void bench_kretprobe(const char *name)
{
	pr_info("kpbench: %s n/a no kretprobes in this kernel\n", name);
}
#endif

#ifdef KPROBE_FLAG_JPROBE	/* jprobes are ours only */
static unsigned long j_int_sqrt(unsigned long x)
{
	jprobe_return();
	return 0;
}

static void bench_jprobe(void)
{
	struct jprobe jp = { .kp.symbol_name = TARGET, .entry = j_int_sqrt };
	u64 base = baseline();
	int ret = register_jprobe(&jp);

	if (ret) {
		pr_info("kpbench: jprobe n/a register failed (%d)\n", ret);
		return;
	}
	/* The int3 of the hit, the one of jprobe_return(), then the copy's. */
	report_hit("jprobe", extra_per_hit(base), traps_per_hit(&jp.kp) + 1, "");
	unregister_jprobe(&jp);
}
#else
static void bench_jprobe(void)
{
	pr_info("kpbench: jprobe n/a no jprobes in this kernel\n");
}
#endif

/* The names in @syms, at most @nsyms of them, as probes. */
static struct kprobe *load_symbols(int *num, char **bufp)
{
	struct kprobe *kps;
	void *buf = NULL;
	ssize_t len;
	char *s, *line;
	int n = 0;

	len = kernel_read_file_from_path(syms, 0, &buf, INT_MAX, NULL,
					 READING_UNKNOWN);
	if (len < 0)
		return ERR_PTR(len);
	kps = vcalloc(nsyms, sizeof(*kps));
	if (!kps) {
		vfree(buf);
		return ERR_PTR(-ENOMEM);
	}
	s = buf;
	s[len - 1] = '\0';
	while (n < nsyms && (line = strsep(&s, "\n")) != NULL) {
		if (!*line)
			continue;
		kps[n].symbol_name = line;
		kps[n].pre_handler = nop_pre;
		n++;
	}
	*num = n;
	*bufp = buf;
	return kps;
}

static void reset_probes(struct kprobe *kps, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kps[i].addr = NULL;
		kps[i].flags = 0;
	}
}

/* Names tried per batch by "accept"; a refused batch is tried one by one. */
#define ACCEPT_CHUNK	64

/*
 * Print the names that register (and unregister) cleanly.  In batches,
 * which both kernels have: unregistering thousands of probes one at a
 * time waits for a grace period each on upstream.
 */
static void bench_accept(void)
{
	struct kprobe **ptrs;
	struct kprobe *kps;
	char *buf;
	int i, j, n, len;

	kps = load_symbols(&n, &buf);
	if (IS_ERR(kps)) {
		pr_info("kpbench: accept n/a cannot read %s\n", syms);
		return;
	}
	ptrs = vcalloc(n, sizeof(*ptrs));
	for (i = 0; ptrs && i < n; i++)
		ptrs[i] = &kps[i];
	for (i = 0; ptrs && i < n; i += ACCEPT_CHUNK) {
		len = min(n - i, ACCEPT_CHUNK);
		reset_probes(&kps[i], len);
		if (!register_kprobes(&ptrs[i], len)) {
			unregister_kprobes(&ptrs[i], len);
			for (j = i; j < i + len; j++)
				pr_info("kpbench: accept %s\n", kps[j].symbol_name);
			continue;
		}
		for (j = i; j < i + len; j++) {
			reset_probes(&kps[j], 1);
			if (register_kprobe(&kps[j]))
				continue;
			unregister_kprobe(&kps[j]);
			pr_info("kpbench: accept %s\n", kps[j].symbol_name);
		}
	}
	vfree(ptrs);
	vfree(kps);
	vfree(buf);
}

static void bench_register(bool batch)
{
	struct kprobe **ptrs;
	struct kprobe *kps;
	u64 t0, t_reg, t_unreg;
	int i, n, ret = 0;
	char *buf;

	kps = load_symbols(&n, &buf);
	if (IS_ERR(kps)) {
		pr_info("kpbench: register n/a cannot read %s\n", syms);
		return;
	}
	ptrs = vcalloc(n, sizeof(*ptrs));
	for (i = 0; ptrs && i < n; i++)
		ptrs[i] = &kps[i];
	reset_probes(kps, n);

	t0 = ktime_get_ns();
	if (!ptrs) {
		ret = -ENOMEM;
	} else if (batch) {
		ret = register_kprobes(ptrs, n);
	} else {
		for (i = 0; i < n && !ret; i++)
			ret = register_kprobe(&kps[i]);
		if (ret) {
			pr_info("kpbench: register: %s failed (%d)\n",
				kps[i - 1].symbol_name, ret);
			unregister_kprobes(ptrs, i - 1);
		}
	}
	t_reg = ktime_get_ns() - t0;
	if (ret) {
		pr_info("kpbench: %s n/a registration failed (%d)\n",
			batch ? "batch" : "register", ret);
		goto out;
	}

	t0 = ktime_get_ns();
	if (batch) {
		unregister_kprobes(ptrs, n);
	} else {
		for (i = 0; i < n; i++)
			unregister_kprobe(&kps[i]);
	}
	t_unreg = ktime_get_ns() - t0;

	pr_info("kpbench: %s_register_%d %llu ns\n",
		batch ? "batch" : "single", n, t_reg);
	pr_info("kpbench: %s_unregister_%d %llu ns\n",
		batch ? "batch" : "single", n, t_unreg);
out:
	vfree(ptrs);
	vfree(kps);
	vfree(buf);
}

#ifdef CONFIG_DYNAMIC_FTRACE
/*
 * "ftrace_floor": what ftrace itself costs a probe registered or removed
 * singly at an ftrace location, whichever Kprobes runs on top: one filter
 * update of an ftrace_ops (which patches the call site) per probe, on the
 * addresses the registration list's probes resolve to.  Both kernels'
 * single registrations there pay at least this.
 */
static void kpb_ftrace_nop(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops kpb_floor_ops = {
	.func = kpb_ftrace_nop,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

static void bench_ftrace_floor(void)
{
	unsigned long *ips;
	struct kprobe **ptrs;
	struct kprobe *kps;
	u64 t0, t_reg, t_unreg;
	int i, n, nr = 0, left, ret = 0;
	char *buf;

	kps = load_symbols(&n, &buf);
	if (IS_ERR(kps)) {
		pr_info("kpbench: ftrace_floor n/a cannot read %s\n", syms);
		return;
	}
	ptrs = vcalloc(n, sizeof(*ptrs));
	ips = vcalloc(n, sizeof(*ips));
	for (i = 0; ptrs && i < n; i++)
		ptrs[i] = &kps[i];
	reset_probes(kps, n);
	/* The addresses the probes resolve to, untimed. */
	if (!ptrs || !ips || register_kprobes(ptrs, n)) {
		pr_info("kpbench: ftrace_floor n/a registration failed\n");
		goto out;
	}
	for (i = 0; i < n; i++)
		ips[i] = (unsigned long)kps[i].addr;
	unregister_kprobes(ptrs, n);

	t0 = ktime_get_ns();
	for (i = 0; i < n && !ret; i++) {
		/* Not an ftrace location: a probe there does not use ftrace. */
		if (ftrace_set_filter_ip(&kpb_floor_ops, ips[i], 0, 0)) {
			ips[i] = 0;
			continue;
		}
		if (!nr++)
			ret = register_ftrace_function(&kpb_floor_ops);
	}
	t_reg = ktime_get_ns() - t0;
	if (ret) {
		pr_info("kpbench: ftrace_floor n/a ftrace refused (%d)\n", ret);
		goto out;
	}
	/*
	 * The last one leaves after the ops: an ops with an empty filter
	 * would trace every function of the kernel.
	 */
	t0 = ktime_get_ns();
	for (i = 0, left = nr; i < n; i++) {
		if (!ips[i])
			continue;
		if (!--left)
			unregister_ftrace_function(&kpb_floor_ops);
		ftrace_set_filter_ip(&kpb_floor_ops, ips[i], 1, 0);
	}
	t_unreg = ktime_get_ns() - t0;
	pr_info("kpbench: ftrace_floor_sites %d sites\n", nr);
	pr_info("kpbench: ftrace_floor_register %llu ns\n", t_reg);
	pr_info("kpbench: ftrace_floor_unregister %llu ns\n", t_unreg);
out:
	vfree(ips);
	vfree(ptrs);
	vfree(kps);
	vfree(buf);
}
#else
static void bench_ftrace_floor(void)
{
	pr_info("kpbench: ftrace_floor n/a no dynamic ftrace\n");
}
#endif

/* What "alloc" and "hold" keep until the module goes. */
static struct kprobe *held_kps;
static struct kprobe **held_ptrs;
static char *held_buf;
static int held_n;
static bool held_registered;
static DEFINE_PER_CPU(unsigned long, held_hits);

static int count_pre(struct kprobe *p, struct pt_regs *regs)
{
	this_cpu_inc(held_hits);
	return 0;
}

/* Reading it gives the pre_handler calls of "hold" so far. */
static int hits_get(char *buf, const struct kernel_param *kp)
{
	unsigned long hits = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		hits += per_cpu(held_hits, cpu);
	return sysfs_emit(buf, "%lu\n", hits);
}

static const struct kernel_param_ops hits_ops = { .get = hits_get };
module_param_cb(hits_held, &hits_ops, NULL, 0444);

static unsigned int nr_jumped(struct kprobe *kps, int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		k += site_optimized(&kps[i]);
	return k;
}

/*
 * After a batch: the time from the start of its registration until the
 * optimizer settled, the last jump it put in, on either kernel (both may
 * take several rounds, and upstream's optimizer works while a batch is
 * still registering).  It is taken to have settled when no jump went in
 * for a second; at most 60 s.
 */
static void wait_settled(struct kprobe *kps, int n, u64 t_start)
{
	unsigned int last = nr_jumped(kps, n), k;
	u64 t_last = ktime_get_ns(), t;

	for (;;) {
		msleep(10);
		k = nr_jumped(kps, n);
		t = ktime_get_ns();
		if (k != last) {
			last = k;
			t_last = t;
		} else if (t - t_last > NSEC_PER_SEC ||
			   t - t_start > 60ULL * NSEC_PER_SEC) {
			break;
		}
	}
	pr_info("kpbench: %s_optimized_%d %llu ns optimized=%u\n", tag, n,
		t_last - t_start, last);
}

static int hold_probes(bool reg)
{
	u64 t0, t;
	int i, ret;

	held_kps = load_symbols(&held_n, &held_buf);
	if (IS_ERR(held_kps)) {
		pr_info("kpbench: %s n/a cannot read %s\n", tag, syms);
		held_kps = NULL;
		return -ENOENT;
	}
	held_ptrs = vcalloc(held_n, sizeof(*held_ptrs));
	if (!held_ptrs)
		return -ENOMEM;
	for (i = 0; i < held_n; i++) {
		held_ptrs[i] = &held_kps[i];
		held_kps[i].pre_handler = count_pre;
	}
	reset_probes(held_kps, held_n);
	if (!reg)
		return 0;

	t0 = ktime_get_ns();
	ret = register_kprobes(held_ptrs, held_n);
	t = ktime_get_ns();
	if (ret) {
		pr_info("kpbench: %s n/a registration failed (%d)\n", tag, ret);
		return ret;
	}
	held_registered = true;
	pr_info("kpbench: %s_count %d probes\n", tag, held_n);
	pr_info("kpbench: %s_register_%d %llu ns\n", tag, held_n, t - t0);
	wait_settled(held_kps, held_n, t0);
	return 0;
}

static void release_held(void)
{
	u64 t0;

	if (held_registered) {
		t0 = ktime_get_ns();
		unregister_kprobes(held_ptrs, held_n);
		pr_info("kpbench: %s_unregister_%d %llu ns\n", tag, held_n,
			ktime_get_ns() - t0);
	}
	vfree(held_ptrs);
	vfree(held_kps);
	vfree(held_buf);
}

/*
 * The unprobed calls alone, in guest ns: bench.sh times a kprobe event
 * (set up through tracefs, which a module cannot write) as the difference
 * of two runs of this case, the event off and on.
 */
/*
 * Floors of a probe at a function's entry, per hit, whichever Kprobes runs
 * on top: both kernels reach such a probe through ftrace, so these two
 * figures are the same on both and say how far below upstream an entry
 * probe can go on each path.
 *
 * "ftrace_ops_floor": a SAVE_REGS ftrace_ops with an empty handler on
 * TARGET, the path both kernels' entry probes take today (ftrace's regs
 * trampoline around the call of the ops' handler).
 *
 * "direct_call_floor": a direct call (register_ftrace_direct()) into a
 * trampoline that builds a whole struct pt_regs as a probe's handlers see
 * it, calls one pre_handler with preemption off, and returns to regs->ip:
 * what a per-site direct call would cost before any bookkeeping of a
 * probe's own (current_kprobe, status, recursion).
 */
#ifdef CONFIG_DYNAMIC_FTRACE
static void kpb_ftrace_hit_nop(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops kpb_ops_floor = {
	.func = kpb_ftrace_hit_nop,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

static void bench_ftrace_ops_floor(void)
{
	u64 base = baseline();
	int ret;

	ret = ftrace_set_filter(&kpb_ops_floor, TARGET, strlen(TARGET), 0);
	if (!ret)
		ret = register_ftrace_function(&kpb_ops_floor);
	if (ret) {
		pr_info("kpbench: ftrace_ops_floor n/a ftrace refused (%d)\n",
			ret);
		ftrace_free_filter(&kpb_ops_floor);
		return;
	}
	report_hit("ftrace_ops_floor", extra_per_hit(base), 0, "");
	unregister_ftrace_function(&kpb_ops_floor);
	ftrace_free_filter(&kpb_ops_floor);
}
#else
static void bench_ftrace_ops_floor(void)
{
	pr_info("kpbench: ftrace_ops_floor n/a no dynamic ftrace\n");
}
#endif

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) && defined(CONFIG_X86_64)
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/segment.h>

/* Read by the trampoline below only. */
static struct kprobe kpb_direct_probe __used = { .pre_handler = nop_pre };

/* Called by the trampoline below with the regs it built. */
void kpb_direct_hit(struct kprobe *p, struct pt_regs *regs);
void notrace kpb_direct_hit(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long ip = regs->ip;

	preempt_disable_notrace();
	/* As at an int3 on the call: just past its first byte. */
	regs->ip = ip - PAST_FTRACE_CALL + 1;
	if (!p->pre_handler(p, regs))
		regs->ip = ip;
	preempt_enable_notrace();
}

/*
 * The least a per-site direct call must add for a probe of its own, with
 * the probe known without a lookup: the global off switch, the probe's
 * disabled flag, the reentry test (current probe and step depth), the
 * current probe and its status set and reset.  Per-CPU variables of this
 * module stand in for the core's, with the same accesses, so that the
 * figure is the same whichever Kprobes the kernel runs.
 */
static DEFINE_PER_CPU(struct kprobe *, kpb_current);
static DEFINE_PER_CPU(unsigned long, kpb_depth);
static DEFINE_PER_CPU(unsigned long, kpb_status);
static bool kpb_all_off;

void kpb_direct_kprobe_hit(struct kprobe *p, struct pt_regs *regs);
void notrace kpb_direct_kprobe_hit(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long ip = regs->ip;

	preempt_disable_notrace();
	if (unlikely(READ_ONCE(kpb_all_off) || kprobe_disabled(p)))
		goto out;
	if (unlikely(__this_cpu_read(kpb_current) ||
		     __this_cpu_read(kpb_depth))) {
		/* Racy as the core's count of a miss: never taken here. */
		data_race(p->nmissed++);
		goto out;
	}
	regs->ip = ip - PAST_FTRACE_CALL + 1;
	__this_cpu_write(kpb_current, p);
	__this_cpu_write(kpb_status, KPROBE_HIT_ACTIVE);
	if (!p->pre_handler(p, regs))
		regs->ip = ip;
	__this_cpu_write(kpb_current, NULL);
out:
	preempt_enable_notrace();
}

/*
 * The gas macro kpb_direct_tramp_body name, hit: a trampoline entered by
 * the function's fentry call, which calls hit(&kpb_direct_probe, regs):
 * the function's own return address is above ours.  struct pt_regs is
 * pushed from its last field down (ss, sp, flags, cs, ip, orig_ax, then
 * the registers in its order); ->sp is the stack pointer before the
 * fentry call, ->ip where that call returns.  On the way back the
 * registers come from regs, and the return goes to regs->ip.  Flags are
 * not restored: no handler of ours sets them.
 */
void kpb_direct_tramp(void);
void kpb_direct_kprobe_tramp(void);
asm ("	.macro	kpb_direct_tramp_body name, hit\n"
"	.pushsection	.text, \"ax\", @progbits\n"
"	.type		\\name, @function\n"
"	.globl		\\name\n"
"\\name:\n"
	ASM_ENDBR
"	pushq	$" __stringify(__KERNEL_DS) "\n"
"	pushq	%rsp\n"
"	addq	$16, (%rsp)\n"
"	pushfq\n"
"	pushq	$" __stringify(__KERNEL_CS) "\n"
"	pushq	32(%rsp)\n"
"	pushq	$-1\n"
"	pushq	%rdi\n"
"	pushq	%rsi\n"
"	pushq	%rdx\n"
"	pushq	%rcx\n"
"	pushq	%rax\n"
"	pushq	%r8\n"
"	pushq	%r9\n"
"	pushq	%r10\n"
"	pushq	%r11\n"
"	pushq	%rbx\n"
"	pushq	%rbp\n"
"	pushq	%r12\n"
"	pushq	%r13\n"
"	pushq	%r14\n"
"	pushq	%r15\n"
	CALL_DEPTH_ACCOUNT
"	leaq	kpb_direct_probe(%rip), %rdi\n"
"	movq	%rsp, %rsi\n"
"	call	\\hit\n"
"	movq	16*8(%rsp), %rax\n"
"	movq	%rax, 21*8(%rsp)\n"
"	popq	%r15\n"
"	popq	%r14\n"
"	popq	%r13\n"
"	popq	%r12\n"
"	popq	%rbp\n"
"	popq	%rbx\n"
"	popq	%r11\n"
"	popq	%r10\n"
"	popq	%r9\n"
"	popq	%r8\n"
"	popq	%rax\n"
"	popq	%rcx\n"
"	popq	%rdx\n"
"	popq	%rsi\n"
"	popq	%rdi\n"
"	addq	$6*8, %rsp\n"
	ASM_RET
"	.size		\\name, .-\\name\n"
"	.popsection\n"
"	.endm\n"
"	kpb_direct_tramp_body kpb_direct_tramp, kpb_direct_hit\n"
"	kpb_direct_tramp_body kpb_direct_kprobe_tramp, kpb_direct_kprobe_hit\n"
);

/*
 * An ops each: ftrace_free_filter() leaves an ops' filter pointing at the
 * hash it freed, so an ops is not used again after it.
 */
static struct ftrace_ops kpb_direct_ops, kpb_direct_kprobe_ops;

/*
 * @name: the case's name; @ops: its own; @tramp_fn: the trampoline the
 * direct call goes to.
 */
static void bench_direct(const char *name, struct ftrace_ops *ops,
			 void (*tramp_fn)(void))
{
	unsigned long tramp = (unsigned long)tramp_fn;
	u64 base;
	int ret;

	/* Set by ftrace_set_filter() below: the ops was used. */
	if (ops->flags & FTRACE_OPS_FL_INITIALIZED) {
		pr_info("kpbench: %s n/a once per load of the module\n", name);
		return;
	}
	base = baseline();
	ret = ftrace_set_filter(ops, TARGET, strlen(TARGET), 0);
	if (!ret)
		ret = register_ftrace_direct(ops, tramp);
	if (ret) {
		pr_info("kpbench: %s n/a ftrace refused (%d)\n", name, ret);
		ftrace_free_filter(ops);
		return;
	}
	report_hit(name, extra_per_hit(base), 0, "");
	unregister_ftrace_direct(ops, tramp, true);
}

static void bench_direct_floor(void)
{
	bench_direct("direct_call_floor", &kpb_direct_ops, kpb_direct_tramp);
}

static void bench_direct_kprobe_floor(void)
{
	bench_direct("direct_call_kprobe_floor", &kpb_direct_kprobe_ops,
		     kpb_direct_kprobe_tramp);
}
#else
static void bench_direct_floor(void)
{
	pr_info("kpbench: direct_call_floor n/a no direct calls\n");
}

static void bench_direct_kprobe_floor(void)
{
	pr_info("kpbench: direct_call_kprobe_floor n/a no direct calls\n");
}
#endif

static void bench_calls(void)
{
	pr_info("kpbench: calls %llu ns\n", baseline());
}

static void run_case(const char *c)
{
	/*
	 * Let deferred work of the previous case finish first (upstream
	 * unoptimizes and frees in the background): each case starts from
	 * the same state, so that runs repeat.
	 */
	msleep(200);

	if (!strcmp(c, "opt"))
		bench_kprobe("kprobe", false, false);
	else if (!strcmp(c, "int3"))
		bench_kprobe("kprobe_int3", false, false);
	else if (!strcmp(c, "post"))
		bench_kprobe("kprobe_post", true, false);
	else if (!strcmp(c, "two"))
		bench_kprobe("two_kprobes", false, true);
	else if (!strcmp(c, "kretprobe"))
		bench_kretprobe("kretprobe");
	else if (!strcmp(c, "kretprobe_int3"))
		bench_kretprobe("kretprobe_int3");
	else if (!strcmp(c, "jprobe"))
		bench_jprobe();
	else if (!strcmp(c, "calls"))
		bench_calls();
	else if (!strcmp(c, "mid"))
		bench_kprobe_mid();
	else if (!strcmp(c, "optwait"))
		bench_time_to_optimized();
	else if (!strcmp(c, "register"))
		bench_register(false);
	else if (!strcmp(c, "batch"))
		bench_register(true);
	else if (!strcmp(c, "ftrace_floor"))
		bench_ftrace_floor();
	else if (!strcmp(c, "ftrace_ops_floor"))
		bench_ftrace_ops_floor();
	else if (!strcmp(c, "direct_floor"))
		bench_direct_floor();
	else if (!strcmp(c, "direct_kprobe_floor"))
		bench_direct_kprobe_floor();
	else if (!strcmp(c, "accept"))
		bench_accept();
	else if (!strcmp(c, "alloc"))
		hold_probes(false);
	else if (!strcmp(c, "hold"))
		hold_probes(true);
	else
		pr_info("kpbench: %s n/a unknown case\n", c);
}

static int __init kprobes_bench_init(void)
{
	char *list = kstrdup(cases, GFP_KERNEL), *s = list, *c;

	if (!list)
		return -ENOMEM;
	while ((c = strsep(&s, ",")) != NULL)
		if (*c)
			run_case(c);
	kfree(list);
	pr_info("kpbench: done\n");
	return 0;
}

static void __exit kprobes_bench_exit(void)
{
	release_held();
}

module_init(kprobes_bench_init);
module_exit(kprobes_bench_exit);
MODULE_DESCRIPTION("Kprobes benchmark: probe hits and registration");
MODULE_LICENSE("GPL");
