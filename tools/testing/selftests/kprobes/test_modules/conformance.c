// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_conformance: what a module can observe of a Kprobes core,
 * written out as lines that make conformance (tools/testing/kprobes/
 * conformance.sh) compares between pristine upstream and our core, both
 * built from one base with one set of fragments.  Only API that upstream
 * 6.12 has is used, so that it builds against both.
 *
 * Parameters:
 *   cases   comma-separated sections to run:
 *     accept   for each line "name off off ..." of @places, a disabled
 *              probe at name+off for each off; the errno (or 0) of each
 *     errno    the errno of each bad input of a fixed list
 *     hold     leave a few probes registered until rmmod, for reading
 *              the debugfs files
 *     context  what the handlers of each kind of probe see
 *     pair     pre/post pairing with both CPUs and their timers calling
 *     missed   nmissed of a probe hit from a handler, and of a kretprobe
 *              whose pool runs dry
 *   places  the file "accept" reads
 *
 * The lines are in debugfs, kprobes_conformance/out, until rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kernel_read_file.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static char *cases = "";
module_param(cases, charp, 0444);
static char *places = "/tmp/kpconf-places";
module_param(places, charp, 0444);

unsigned long kpc_entry(unsigned long x);
unsigned long kpc_recurse(unsigned long n);
unsigned long kpc_plain(unsigned long x);
unsigned long kpc_branchy(unsigned long x);
unsigned long kpc_inner(unsigned long x);
extern const char kpc_plain_place[], kpc_branchy_place[], kpc_inner_place[];
unsigned long kpc_sp;

/* The output: a text buffer that debugfs shows as it is. */
#define OUT_SIZE	(8 << 20)
static char *out;
static size_t out_len;
static struct debugfs_blob_wrapper out_blob;
static struct dentry *out_dir;

static __printf(1, 2) void emit(const char *fmt, ...)
{
	va_list args;
	int n;

	if (out_len >= OUT_SIZE - 1)
		return;
	va_start(args, fmt);
	n = vscnprintf(out + out_len, OUT_SIZE - out_len, fmt, args);
	va_end(args);
	out_len += n;
}

static bool has_case(const char *name)
{
	size_t n = strlen(name);
	const char *s = cases;

	while ((s = strstr(s, name))) {
		if ((s == cases || s[-1] == ',') && (!s[n] || s[n] == ','))
			return true;
		s += n;
	}
	return false;
}

static int nop_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/* ---- accept ---- */

/* One line "name off off ...": the result of a disabled probe at each. */
static void accept_function(char *line)
{
	char *name = strsep(&line, " ");
	struct kprobe *kps, **done;
	unsigned int off;
	char *tok;
	int n = 0, ok = 0, ret;

	kps = kcalloc(4096, sizeof(*kps), GFP_KERNEL);
	done = kcalloc(4096, sizeof(*done), GFP_KERNEL);
	if (!kps || !done)
		goto out;
	emit("accept %s", name);
	while (line && (tok = strsep(&line, " ")) && n < 4096) {
		if (!*tok || kstrtouint(tok, 0, &off))
			continue;
		kps[n].symbol_name = name;
		kps[n].offset = off;
		kps[n].pre_handler = nop_pre;
		kps[n].flags = KPROBE_FLAG_DISABLED;
		ret = register_kprobe(&kps[n]);
		if (ret)
			emit(" %u:%d", off, ret);
		else
			done[ok++] = &kps[n];
		n++;
		cond_resched();
	}
	emit(" accepted=%d\n", ok);
	if (ok)
		unregister_kprobes(done, ok);
out:
	kfree(done);
	kfree(kps);
}

static void run_accept(void)
{
	void *buf = NULL;
	ssize_t len;
	char *s, *line;

	len = kernel_read_file_from_path(places, 0, &buf, INT_MAX, NULL,
					 READING_UNKNOWN);
	if (len <= 0) {
		emit("accept n/a cannot read %s (%zd)\n", places, len);
		return;
	}
	s = buf;
	s[len - 1] = '\0';
	while ((line = strsep(&s, "\n")))
		if (*line)
			accept_function(line);
	vfree(buf);
}

/* ---- errno ---- */

/*
 * The C functions probed at their entry.  Called through pointers so that
 * the compiler makes no specialized copy of them that the calls would go
 * to instead.
 */
noinline unsigned long kpc_entry(unsigned long x)
{
	barrier();
	return x + 1;
}

static unsigned long (*volatile kpc_entry_fn)(unsigned long);

static unsigned long (*volatile kpc_recurse_fn)(unsigned long);

noinline unsigned long kpc_recurse(unsigned long n)
{
	unsigned long r = n ? kpc_recurse_fn(n - 1) + 1 : 0;

	barrier();
	return r;
}

static int nop_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static void errno_kprobe(const char *what, struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	emit("errno %s %d\n", what, ret);
	if (!ret)
		unregister_kprobe(kp);
}

static void errno_kretprobe(const char *what, struct kretprobe *rp)
{
	int ret = register_kretprobe(rp);

	emit("errno %s %d", what, ret);
	if (!ret) {
		emit(" maxactive=%d", rp->maxactive);
		unregister_kretprobe(rp);
	}
	emit("\n");
}

static void run_errno(void)
{
	static const char * const refused[] = {
		"notify_die", "exc_int3", "asm_exc_int3", "exc_page_fault",
		"do_int3", "__die", "oops_begin", "default_idle",
		"native_sched_clock", "preempt_schedule_irq", "memcpy",
		"rcu_nmi_enter", "ct_nmi_enter", "do_nmi",
	};
	struct kprobe kp, kp2, *two[2];
	struct kretprobe rp;
	void *heap = kmalloc(64, GFP_KERNEL);
	int i, ret;

#define KP(...)	({ kp = (struct kprobe){ .pre_handler = nop_pre, __VA_ARGS__ }; &kp; })
#define RP(...)	({ rp = (struct kretprobe){ .handler = nop_ret, __VA_ARGS__ }; &rp; })
	errno_kprobe("no_place", KP());
	errno_kprobe("no_such_symbol", KP(.symbol_name = "kpconf_no_such_symbol"));
	errno_kprobe("symbol_and_addr", KP(.symbol_name = "kpc_plain",
					   .addr = (void *)kpc_plain));
	errno_kprobe("heap_address", KP(.addr = heap));
	errno_kprobe("data_address", KP(.addr = (void *)&kpc_sp));
	errno_kprobe("offset_past_function", KP(.symbol_name = "kpc_plain",
						.offset = 0x10000));
	errno_kprobe("offset_mid_instruction", KP(.symbol_name = "kpc_plain",
						  .offset = 2));
	errno_kprobe("module_symbol", KP(.symbol_name = "kprobes_conformance:kpc_plain"));
	errno_kprobe("entry_plus_1", KP(.symbol_name = "kpc_entry", .offset = 1));
	errno_kprobe("entry_plus_2", KP(.symbol_name = "kpc_entry", .offset = 2));
	errno_kprobe("entry_plus_4", KP(.symbol_name = "kpc_entry", .offset = 4));
	errno_kprobe("entry_plus_5", KP(.symbol_name = "kpc_entry", .offset = 5));
	errno_kprobe("entry_plus_9", KP(.symbol_name = "kpc_entry", .offset = 9));
	errno_kprobe("kernel_entry_plus_1", KP(.symbol_name = "vfs_read", .offset = 1));
	errno_kprobe("kernel_entry_plus_4", KP(.symbol_name = "vfs_read", .offset = 4));
	errno_kprobe("kernel_entry_plus_5", KP(.symbol_name = "vfs_read", .offset = 5));
	errno_kprobe("kernel_entry_plus_9", KP(.symbol_name = "vfs_read", .offset = 9));
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		char what[64];

		snprintf(what, sizeof(what), "refused:%s", refused[i]);
		errno_kprobe(what, KP(.symbol_name = refused[i]));
	}

	/* The same kprobe twice; two at one place. */
	ret = register_kprobe(KP(.symbol_name = "kpc_plain"));
	emit("errno twice_first %d\n", ret);
	if (!ret) {
		emit("errno twice_again %d\n", register_kprobe(&kp));
		kp2 = (struct kprobe){ .pre_handler = nop_pre, .symbol_name = "kpc_plain" };
		ret = register_kprobe(&kp2);
		emit("errno second_at_same_place %d\n", ret);
		if (!ret)
			unregister_kprobe(&kp2);
		unregister_kprobe(&kp);
	}

	/* A batch with a bad second entry leaves nothing registered. */
	kp = (struct kprobe){ .pre_handler = nop_pre, .symbol_name = "kpc_plain" };
	kp2 = (struct kprobe){ .pre_handler = nop_pre, .symbol_name = "kpconf_no_such_symbol" };
	two[0] = &kp;
	two[1] = &kp2;
	emit("errno batch_with_bad_entry %d\n", register_kprobes(two, 2));
	kp = (struct kprobe){ .pre_handler = nop_pre, .symbol_name = "kpc_plain" };
	errno_kprobe("batch_first_entry_again", &kp);
	emit("errno batch_of_none %d\n", register_kprobes(two, 0));

	/* enable/disable of what is not registered */
	kp = (struct kprobe){ .pre_handler = nop_pre, .symbol_name = "kpc_plain" };
	emit("errno enable_unregistered %d\n", enable_kprobe(&kp));
	emit("errno disable_unregistered %d\n", disable_kprobe(&kp));
	if (!register_kprobe(&kp)) {
		emit("errno enable_enabled %d\n", enable_kprobe(&kp));
		emit("errno disable %d\n", disable_kprobe(&kp));
		emit("errno disable_disabled %d\n", disable_kprobe(&kp));
		emit("errno enable %d\n", enable_kprobe(&kp));
		unregister_kprobe(&kp);
	}
	kp = (struct kprobe){ .pre_handler = nop_pre, .symbol_name = "kpc_plain",
			      .flags = KPROBE_FLAG_DISABLED };
	ret = register_kprobe(&kp);
	emit("errno registered_disabled %d flags=%#x\n", ret, kp.flags);
	if (!ret)
		unregister_kprobe(&kp);

	/* kretprobes */
	errno_kretprobe("kretprobe_default", RP(.kp.symbol_name = "kpc_entry"));
	errno_kretprobe("kretprobe_maxactive_-1", RP(.kp.symbol_name = "kpc_entry",
						     .maxactive = -1));
	errno_kretprobe("kretprobe_maxactive_1", RP(.kp.symbol_name = "kpc_entry",
						    .maxactive = 1));
	errno_kretprobe("kretprobe_maxactive_100000", RP(.kp.symbol_name = "kpc_entry",
							 .maxactive = 100000));
	errno_kretprobe("kretprobe_maxactive_2^24+1", RP(.kp.symbol_name = "kpc_entry",
							 .maxactive = (1 << 24) + 1));
	errno_kretprobe("kretprobe_data_size_4096", RP(.kp.symbol_name = "kpc_entry",
						       .data_size = 4096));
	errno_kretprobe("kretprobe_data_size_4097", RP(.kp.symbol_name = "kpc_entry",
						       .data_size = 4097));
	errno_kretprobe("kretprobe_mid_function", RP(.kp.symbol_name = "kpc_plain",
						     .kp.offset = 7));
	errno_kretprobe("kretprobe_no_handler", ({ rp = (struct kretprobe){
		.kp.symbol_name = "kpc_entry" }; &rp; }));
	errno_kretprobe("kretprobe_no_such_symbol", RP(.kp.symbol_name = "kpconf_no_such_symbol"));
	errno_kretprobe("kretprobe_refused", RP(.kp.symbol_name = "notify_die"));
#undef KP
#undef RP
	kfree(heap);
}

/* ---- hold ---- */

static struct kprobe hold_kps[5];
static struct kretprobe hold_rp;
static bool holding;

static void run_hold(void)
{
	int i, ret;

	hold_kps[0] = (struct kprobe){ .symbol_name = "kpc_entry", .pre_handler = nop_pre };
	hold_kps[1] = (struct kprobe){ .addr = (void *)kpc_plain_place, .pre_handler = nop_pre };
	hold_kps[2] = (struct kprobe){ .addr = (void *)kpc_branchy_place, .pre_handler = nop_pre,
				       .flags = KPROBE_FLAG_DISABLED };
	hold_kps[3] = (struct kprobe){ .addr = (void *)kpc_inner_place, .pre_handler = nop_pre };
	hold_kps[4] = (struct kprobe){ .addr = (void *)kpc_inner_place, .pre_handler = nop_pre };
	hold_rp = (struct kretprobe){ .kp.symbol_name = "kpc_recurse", .handler = nop_ret };
	for (i = 0; i < ARRAY_SIZE(hold_kps); i++) {
		ret = register_kprobe(&hold_kps[i]);
		emit("hold kprobe%d %d\n", i, ret);
	}
	emit("hold kretprobe %d\n", register_kretprobe(&hold_rp));
	holding = true;
}

static void stop_hold(void)
{
	int i;

	if (!holding)
		return;
	for (i = 0; i < ARRAY_SIZE(hold_kps); i++)
		if (hold_kps[i].addr)
			unregister_kprobe(&hold_kps[i]);
	unregister_kretprobe(&hold_rp);
}

/* ---- context ---- */

/* What a handler sees, masked to what must not depend on the layout. */
struct seen {
	int cpu;
	bool irqs_off;
	unsigned int preempt;
	bool nmi, hardirq, softirq;
	bool own_task;
	long ip_off;		/* regs->ip - the place */
	unsigned long flags;	/* IF, TF, AC, DF of regs->flags */
	long sp_off;		/* regs->sp - kpc_sp */
	const void *stack_top;	/* at a function's entry: the return address */
	unsigned long cs, ss, orig_ax;
};

static struct ctx_case {
	struct kprobe kp;
	struct seen pre, post;
	int pre_hits, post_hits, differing;
	struct task_struct *task;
	bool entry;		/* the place is a function's entry */
} cc;

static void look(struct seen *s, struct pt_regs *regs, unsigned long place)
{
	s->cpu = raw_smp_processor_id();
	s->irqs_off = irqs_disabled();
	s->preempt = preempt_count();
	s->nmi = in_nmi();
	s->hardirq = in_hardirq();
	s->softirq = in_serving_softirq();
	s->own_task = current == cc.task;
	s->ip_off = regs->ip - place;
	s->flags = regs->flags & (X86_EFLAGS_IF | X86_EFLAGS_TF | X86_EFLAGS_AC | X86_EFLAGS_DF);
	s->sp_off = regs->sp - READ_ONCE(kpc_sp);
	s->stack_top = cc.entry ? *(void **)regs->sp : NULL;
	s->cs = regs->cs;
	s->ss = regs->ss;
	s->orig_ax = regs->orig_ax;
}

static void record(struct seen *first, int *hits, struct pt_regs *regs, unsigned long place)
{
	struct seen s;

	look(&s, regs, place);
	if (!(*hits)++)
		*first = s;
	else if (memcmp(&s, first, sizeof(s)))
		cc.differing++;
}

static int ctx_pre(struct kprobe *p, struct pt_regs *regs)
{
	record(&cc.pre, &cc.pre_hits, regs, (unsigned long)p->addr);
	return 0;
}

static void ctx_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	record(&cc.post, &cc.post_hits, regs, (unsigned long)p->addr);
	if (cc.post.cpu != cc.pre.cpu)
		cc.differing++;
}

static void emit_seen(const char *name, const char *half, struct seen *s, int hits)
{
	if (!hits) {
		emit("context %s %s hits=0\n", name, half);
		return;
	}
	emit("context %s %s irqs_off=%d preempt=%#x nmi=%d hardirq=%d softirq=%d own_task=%d ip=place%+ld flags=%#lx",
	     name, half, s->irqs_off, s->preempt, s->nmi, s->hardirq, s->softirq,
	     s->own_task, s->ip_off, s->flags);
	if (s->stack_top)
		emit(" stack_top=%ps", s->stack_top);
	else
		emit(" sp=kpc_sp%+ld", s->sp_off);
	emit(" cs=%#lx ss=%#lx orig_ax=%#lx\n", s->cs, s->ss, s->orig_ax);
}

/*
 * The first byte at @place: 0xe9 while a probe's jmp stands there.  Each
 * core's optimizer works at its own pace (upstream's waits for an RCU
 * Tasks grace period): wait, 10 s at most, until it is (@jmp) or is not.
 */
static void wait_for_jmp(const void *place, bool jmp)
{
	int i;

	for (i = 0; i < 1000 && (READ_ONCE(*(const u8 *)place) == 0xe9) != jmp; i++)
		msleep(10);
}

/*
 * One case: a probe at @place (or @symbol), called 20 times from this task
 * with interrupts and preemption on.  First the optimizers settle: a
 * probe with a post_handler is never optimized (the jmp of the case
 * before must go first); one without, at a breakpoint that @optimizable
 * says a jmp may replace, is (that jmp must come first).
 */
static void context_case(const char *name, void *place, const char *symbol,
			 unsigned long (*fn)(unsigned long), bool post, bool optimizable)
{
	unsigned long sum = 0;
	int i, ret;

	memset(&cc, 0, sizeof(cc));
	cc.task = current;
	cc.entry = !!symbol;
	cc.kp.addr = place;
	cc.kp.symbol_name = symbol;
	cc.kp.pre_handler = ctx_pre;
	if (post)
		cc.kp.post_handler = ctx_post;
	ret = register_kprobe(&cc.kp);
	if (ret) {
		emit("context %s register %d\n", name, ret);
		return;
	}
	if (post)
		wait_for_jmp(cc.kp.addr, false);
	else if (optimizable && *(u8 *)cc.kp.addr == 0xcc)
		wait_for_jmp(cc.kp.addr, true);
	for (i = 0; i < 20; i++)
		sum += fn(1);
	unregister_kprobe(&cc.kp);
	emit("context %s calls=20 right=%d pre_hits=%d post_hits=%d differing=%d\n", name,
	     sum == 20 * 2, cc.pre_hits, cc.post_hits, cc.differing);
	emit_seen(name, "pre", &cc.pre, cc.pre_hits);
	if (post)
		emit_seen(name, "post", &cc.post, cc.post_hits);
}

/* Which kretprobe handler ran where. */
static struct {
	struct seen entry, ret;
	int entry_hits, ret_hits;
	unsigned long retval;
	const void *ret_ip;
} kr;

static int kr_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	record(&kr.entry, &kr.entry_hits, regs, regs->ip);
	*(unsigned long *)ri->data = 0x5a5a;
	return 0;
}

static int kr_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	record(&kr.ret, &kr.ret_hits, regs, regs->ip);
	kr.retval = regs_return_value(regs);
	kr.ret_ip = (void *)regs->ip;
	if (*(unsigned long *)ri->data != 0x5a5a)
		cc.differing++;
	return 0;
}

static noinline unsigned long kpc_call_entry(unsigned long x)
{
	unsigned long r = kpc_entry_fn(x);

	barrier();
	return r;
}

static void context_kretprobe(void)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpc_entry",
		.entry_handler = kr_entry,
		.handler = kr_ret,
		.data_size = sizeof(unsigned long),
	};
	int i, ret;

	memset(&cc, 0, sizeof(cc));
	memset(&kr, 0, sizeof(kr));
	cc.task = current;
	ret = register_kretprobe(&rp);
	if (ret) {
		emit("context kretprobe register %d\n", ret);
		return;
	}
	for (i = 0; i < 20; i++)
		kpc_call_entry(41);
	unregister_kretprobe(&rp);
	emit("context kretprobe entry_hits=%d ret_hits=%d differing=%d retval=%lu ret_ip=%ps nmissed=%d\n",
	     kr.entry_hits, kr.ret_hits, cc.differing, kr.retval, kr.ret_ip, rp.nmissed);
	/* ip and sp are the caller's: sp_off and ip_off say nothing here */
	kr.entry.ip_off = kr.ret.ip_off = 0;
	kr.entry.sp_off = kr.ret.sp_off = 0;
	kr.entry.stack_top = kr.ret.stack_top = NULL;
	emit_seen("kretprobe", "entry", &kr.entry, kr.entry_hits);
	emit_seen("kretprobe", "return", &kr.ret, kr.ret_hits);
}

static void run_context(void)
{
	context_case("entry", NULL, "kpc_entry", kpc_entry_fn, false, true);
	context_case("entry_post", NULL, "kpc_entry", kpc_entry_fn, true, true);
	context_case("branchy", (void *)kpc_branchy_place, NULL, kpc_branchy, false, false);
	context_case("branchy_post", (void *)kpc_branchy_place, NULL, kpc_branchy, true, false);
	context_case("plain_optimizable", (void *)kpc_plain_place, NULL, kpc_plain, false, true);
	context_case("plain_post", (void *)kpc_plain_place, NULL, kpc_plain, true, true);
	context_kretprobe();
}

/* ---- pair ---- */

struct pair_cpu {
	bool open;
	int cpu;
	unsigned long pre, post, nested, unopened, moved, irqs_on;
	struct hrtimer timer;
	unsigned long timer_calls;
};
static DEFINE_PER_CPU(struct pair_cpu, pair_cpu);
static bool pair_stop;

static int pair_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct pair_cpu *pc = this_cpu_ptr(&pair_cpu);

	pc->pre++;
	if (pc->open)
		pc->nested++;
	pc->open = true;
	pc->cpu = raw_smp_processor_id();
	return 0;
}

static void pair_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	struct pair_cpu *pc = this_cpu_ptr(&pair_cpu);

	pc->post++;
	if (!pc->open)
		pc->unopened++;
	if (pc->cpu != raw_smp_processor_id())
		pc->moved++;
	if (!irqs_disabled())
		pc->irqs_on++;
	pc->open = false;
}

static enum hrtimer_restart pair_tick(struct hrtimer *t)
{
	struct pair_cpu *pc = container_of(t, struct pair_cpu, timer);

	kpc_branchy(1);
	pc->timer_calls++;
	if (READ_ONCE(pair_stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int pair_thread(void *arg)
{
	struct pair_cpu *pc = this_cpu_ptr(&pair_cpu);
	unsigned long end = jiffies + HZ;

	hrtimer_init(&pc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	pc->timer.function = pair_tick;
	hrtimer_start(&pc->timer, ns_to_ktime(50 * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED);
	while (time_before(jiffies, end)) {
		kpc_branchy(1);
		cond_resched();
	}
	WRITE_ONCE(pair_stop, true);
	hrtimer_cancel(&pc->timer);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void run_pair(void)
{
	struct kprobe kp = {
		.addr = (void *)kpc_branchy_place,
		.pre_handler = pair_pre,
		.post_handler = pair_post,
	};
	struct task_struct *t[2] = { };
	unsigned long pre = 0, post = 0, bad = 0, timers = 0;
	int cpu, n = 0, ret;

	ret = register_kprobe(&kp);
	if (ret) {
		emit("pair register %d\n", ret);
		return;
	}
	for_each_online_cpu(cpu) {
		if (n == 2)
			break;
		t[n] = kthread_create_on_cpu(pair_thread, NULL, cpu, "kpconf_pair/%u");
		if (IS_ERR(t[n])) {
			t[n] = NULL;
			break;
		}
		wake_up_process(t[n++]);
	}
	msleep(1500);
	for (cpu = 0; cpu < n; cpu++)
		kthread_stop(t[cpu]);
	unregister_kprobe(&kp);
	for_each_online_cpu(cpu) {
		struct pair_cpu *pc = per_cpu_ptr(&pair_cpu, cpu);

		pre += pc->pre;
		post += pc->post;
		timers += pc->timer_calls;
		bad += pc->nested + pc->unopened + pc->moved + pc->irqs_on;
		if (pc->nested + pc->unopened + pc->moved + pc->irqs_on)
			emit("pair cpu%d nested=%lu unopened=%lu moved=%lu irqs_on=%lu\n", cpu,
			     pc->nested, pc->unopened, pc->moved, pc->irqs_on);
	}
	pr_info("pair: %lu pre, %lu post, %lu timer calls\n", pre, post, timers);
	emit("pair threads=%d pre_eq_post=%d enough_hits=%d timer_calls=%d broken=%lu\n",
	     n, pre == post, pre > 1000, timers > 10, bad);
}

/* ---- missed ---- */

static struct kprobe inner_kp;
static int outer_hits, inner_hits;

static int outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	outer_hits++;
	kpc_inner(1);
	return 0;
}

static int inner_pre(struct kprobe *p, struct pt_regs *regs)
{
	inner_hits++;
	return 0;
}

static int recurse_hits;

static int recurse_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	recurse_hits++;
	return 0;
}

static void run_missed(void)
{
	struct kprobe outer = { .addr = (void *)kpc_plain_place, .pre_handler = outer_pre };
	struct kretprobe rp = { .kp.symbol_name = "kpc_recurse", .handler = recurse_ret,
				.maxactive = 1 };
	int i, ret;

	inner_kp = (struct kprobe){ .addr = (void *)kpc_inner_place, .pre_handler = inner_pre };
	ret = register_kprobe(&inner_kp);
	if (!ret) {
		ret = register_kprobe(&outer);
		if (!ret) {
			for (i = 0; i < 10; i++)
				kpc_plain(1);
			unregister_kprobe(&outer);
		}
		for (i = 0; i < 3; i++)
			kpc_inner(1);
		unregister_kprobe(&inner_kp);
	}
	emit("missed kprobe_in_handler ret=%d outer_hits=%d outer_nmissed=%lu inner_hits=%d inner_nmissed=%lu\n",
	     ret, outer_hits, outer.nmissed, inner_hits, inner_kp.nmissed);

	ret = register_kretprobe(&rp);
	if (!ret) {
		for (i = 0; i < 10; i++)
			kpc_recurse_fn(3);
		unregister_kretprobe(&rp);
	}
	emit("missed kretprobe_pool_of_1 ret=%d hits=%d nmissed=%d\n", ret, recurse_hits,
	     rp.nmissed);
}

static int __init kpconf_init(void)
{
	kpc_entry_fn = kpc_entry;
	kpc_recurse_fn = kpc_recurse;
	out = vzalloc(OUT_SIZE);
	if (!out)
		return -ENOMEM;
	if (has_case("errno"))
		run_errno();
	if (has_case("context"))
		run_context();
	if (has_case("missed"))
		run_missed();
	if (has_case("pair"))
		run_pair();
	if (has_case("accept"))
		run_accept();
	if (has_case("hold"))
		run_hold();
	emit("end\n");
	out_blob.data = out;
	out_blob.size = out_len;
	out_dir = debugfs_create_dir("kprobes_conformance", NULL);
	debugfs_create_blob("out", 0444, out_dir, &out_blob);
	return 0;
}

static void __exit kpconf_exit(void)
{
	debugfs_remove_recursive(out_dir);
	stop_hold();
	vfree(out);
}

module_init(kpconf_init);
module_exit(kpconf_exit);
MODULE_DESCRIPTION("What a module observes of Kprobes, for make conformance");
MODULE_LICENSE("GPL");
