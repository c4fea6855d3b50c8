// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_torture: Kprobes under concurrent, random registration work,
 * in the manner of rcutorture and locktorture.
 *
 * For @duration seconds:
 *  - @readers threads call the target functions (torture_targets.S,
 *    one per class of instruction) and compare every result with the one
 *    the same call gave at load time, before any probe existed;
 *  - @writers threads, each with its own slots, pick random work:
 *    register and unregister kprobes at random offsets of the targets
 *    (instruction boundaries or not), singly and in batches, kretprobes
 *    and jprobes at their entries, probes at places that must be refused,
 *    a probe on a function of the kprobes_target module (which the
 *    selftest loads and unloads meanwhile), and enable/disable;
 *  - an onoff thread takes CPU 1 offline and brings it back;
 *  - meanwhile the selftest flips debug.kprobes-optimization and the
 *    debugfs "enabled" switch, as a user would.
 * The handlers check what they are given (the ip a pre_handler sees, the
 * argument a jprobe sees, the value a kretprobe sees returned) and the
 * contract around them: the post_handlers of a hit run on the CPU of its
 * pre_handlers, interrupts off, with no other hit of the probe between; a
 * probe that was disabled (and whose hits in flight are over) stays
 * silent; a hit inside a handler is counted in the probe's nmissed, each
 * time (pre_handlers that call a function the torture probes itself).
 *
 * Everything is decided by a pseudo-random generator seeded from @seed
 * (0: a random seed), printed first so that a failure can be replayed.
 * The load returns when the run is over, after everything is unregistered
 * and CPU 1 is back online; the log's last line of the run is
 * "kprobes_torture: SUCCESS" or "kprobes_torture: FAILURE".  The load
 * returns 0 either way: busybox's insmod loads a module whose init failed
 * a second time, and a second hour of torture is not what anyone asked.
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/slab.h>

static int duration = 10;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds to run (default 10)");

static int readers = 2;
module_param(readers, int, 0444);
MODULE_PARM_DESC(readers, "threads calling the targets (default 2)");

static int writers = 2;
module_param(writers, int, 0444);
MODULE_PARM_DESC(writers, "threads registering probes (default 2)");

static ulong seed;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seed of the run (0: random; printed)");

static bool onoff = true;
module_param(onoff, bool, 0444);
MODULE_PARM_DESC(onoff, "take CPU 1 offline and online (default on)");

/*
 * torture.sh flips the two knobs from user space.  Around each flip it
 * makes this odd, then even again: a check that reads the text of a site
 * before and after a call can only judge it when no flip overlapped the
 * call (see torture_pre_nesting()).  Each write is a system call, which
 * orders it against the knob's own write.
 */
static ulong flip_gen;
module_param(flip_gen, ulong, 0644);
MODULE_PARM_DESC(flip_gen, "odd while torture.sh flips a knob");

typedef unsigned long (*target_fn)(unsigned long);

struct ktt_target {
	unsigned long start;
	unsigned long size;
};

/* From torture_targets.S. */
extern const struct ktt_target ktt_targets[], ktt_targets_end[];
extern const char ktt_fault_load[];
unsigned long ktt_nested0(unsigned long x);
unsigned long ktt_nested1(unsigned long x);
#define NR_TARGETS	14
#define TARGET_HELPER	3	/* ktt_helper: also called by two targets */

/*
 * What a pre_handler sees as the instruction pointer of a hit at a probe:
 * past the int3 on x86, on the probe itself on arm64 (a BRK does not
 * advance the PC); every path shows the same.
 */
#ifdef CONFIG_X86
#define HIT_IP_AFTER	1
#else
#define HIT_IP_AFTER	0
#endif

/* A target's argument, at a hit at its entry. */
static unsigned long first_arg(struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 0);
}

#define NR_INPUTS	16
#define BATCH_MAX	8	/* probes in a batch */
static unsigned long inputs[NR_INPUTS];
static unsigned long expected[NR_TARGETS][NR_INPUTS];

/* What went on, summed over all threads. */
static atomic_long_t n_calls, n_ops, n_registered, n_hits, n_post;
static atomic_long_t n_rp_hits, n_jp_hits, n_onoff, n_module, n_opt_hits;
static atomic_long_t n_paired, n_silenced, n_nested, n_nested_missed;
static atomic_long_t n_refused[MAX_ERRNO + 1];
/* Why the run failed, first reason only, and how often anything failed. */
static atomic_t n_bad;
static const char *first_bad;

/* Printed for the first few only: a flood on the console would bury the verdict. */
static void bad(const char *why)
{
	int n = atomic_inc_return(&n_bad);

	if (n == 1)
		first_bad = why;
	if (n <= 10)
		pr_err("kprobes_torture: wrong: %s (seed=%lu)\n", why, seed);
}

/* The same, saying at which probe. */
static void bad_at(const char *why, struct kprobe *p)
{
	if (atomic_read(&n_bad) < 10)
		pr_err("kprobes_torture: at %pS:\n", p->addr);
	bad(why);
}

/*
 * A break of the pairing of a pre_handler and its post_handler: counted
 * apart from the rest (unpaired= in the summary, its own check in
 * torture.sh), and the first few said with their place, so that a kernel
 * where it is known to happen still runs every other check.
 */
static atomic_long_t n_unpaired;

static void unpaired_at(const char *why, struct kprobe *p)
{
	if (atomic_long_inc_return(&n_unpaired) <= 10)
		pr_err("kprobes_torture: unpaired at %pS: %s (seed=%lu)\n",
		       p->addr, why, seed);
}

static target_fn target(int t)
{
	return (target_fn)ktt_targets[t].start;
}

/*
 * Call a target of torture_targets.S.  They are assembly, without the
 * type hash kCFI puts in front of C functions, so under CONFIG_CFI_CLANG
 * a checked indirect call to one fails: this call is left unchecked.
 * IBT still holds (each starts with its endbr).
 */
static noinline __nocfi unsigned long call_asm(target_fn fn, unsigned long x)
{
	return fn(x);
}

NOKPROBE_SYMBOL(call_asm);

static int input_index(unsigned long x)
{
	int i;

	for (i = 0; i < NR_INPUTS; i++)
		if (inputs[i] == x)
			return i;
	return -1;
}

/*
 * A kprobe of a writer's slot (every probe with the handlers below), with
 * what its writer tells the handlers.  @gen moves on when a change of the
 * probe's state (registered, enabled, disabled, unregistered) begins and
 * again when it is over; @steady_gen takes the second value, so a probe
 * is steady while the two are equal.  A hit that began before a change
 * was over may see half of it (a pre_handler before a disable and no
 * post_handler after it, or the reverse around an enable or a
 * registration, which do not wait for the hits under way, as upstream's
 * do not): only a hit that began while the probe was steady is held to
 * the pairing.  A pre_handler knows its hit began steady if the probe is
 * steady when it runs (a pre_handler after the change began sees the new
 * @gen); a post_handler knows it if, in addition, a grace period has
 * passed since the change was over (@steady_cookie): every hit runs with
 * interrupts off, an RCU read-side critical section.  @silent is set once
 * the probe is disabled and every hit that began before is over
 * (synchronize_rcu()), and cleared before it is enabled: no handler of
 * the probe may run while it is set.  A probe of a batch that fails is
 * never steady.
 */
struct tprobe {
	struct kprobe kp;
	unsigned long gen;
	unsigned long steady_gen;
	unsigned long steady_cookie;	/* get_state_synchronize_rcu() */
	bool silent;
};

static struct tprobe *tprobe_of(struct kprobe *p)
{
	return container_of(p, struct tprobe, kp);
}

/*
 * The probes of this CPU whose pre_handler ran and whose post_handler is
 * due, each with its @gen then.  Only handlers touch it, with interrupts
 * off (a probe with a post_handler is never reached through a jump).
 */
#define PENDING_MAX	(2 * BATCH_MAX)
struct pending {
	int n;
	struct {
		struct tprobe *tp;
		unsigned long gen;
		bool steady;		/* held to the pairing */
	} e[PENDING_MAX];
};

static DEFINE_PER_CPU(struct pending, pending);

/* An entry whose probe changed since its pre_handler proves nothing. */
static bool pending_stale(struct pending *pd, int i)
{
	return READ_ONCE(pd->e[i].tp->gen) != pd->e[i].gen;
}

static void pending_drop(struct pending *pd, int i)
{
	pd->e[i] = pd->e[--pd->n];
}

/*
 * A pre_handler of @tp, which has a post_handler too: the entries left
 * from earlier hits on this CPU are hits whose post_handler never ran.
 * The only place where that is right: the load in ktt_fault, whose fault
 * the extable fixes up past the instruction, as without a probe.
 */
static void pending_pre(struct tprobe *tp)
{
	struct pending *pd = this_cpu_ptr(&pending);
	unsigned long addr = (unsigned long)tp->kp.addr;
	unsigned long gen = READ_ONCE(tp->gen);
	int i;

	for (i = pd->n - 1; i >= 0; i--) {
		struct tprobe *o = pd->e[i].tp;

		if (pending_stale(pd, i) || !pd->e[i].steady ||
		    o->kp.addr == (kprobe_opcode_t *)ktt_fault_load) {
			pending_drop(pd, i);
		} else if (o == tp) {
			unpaired_at("another hit of a probe ran between its pre_handler and its post_handler",
				    &tp->kp);
			pending_drop(pd, i);
		} else if ((unsigned long)o->kp.addr != addr) {
			unpaired_at("a hit ran a pre_handler and never its post_handler", &o->kp);
			pending_drop(pd, i);
		}
		/* else the same hit: a pre_handler before this one */
	}
	if (pd->n == PENDING_MAX)
		pd->n = 0;
	pd->e[pd->n].tp = tp;
	pd->e[pd->n].gen = gen;
	pd->e[pd->n].steady = READ_ONCE(tp->steady_gen) == gen;
	pd->n++;
}

/* Did the hit running @tp's post_handler begin while @tp was steady? */
static bool hit_began_steady(struct tprobe *tp)
{
	unsigned long gen = READ_ONCE(tp->gen);

	if (READ_ONCE(tp->steady_gen) != gen)
		return false;
	smp_rmb();	/* pairs with the smp_wmb() of changed() */
	return poll_state_synchronize_rcu(READ_ONCE(tp->steady_cookie));
}

static void pending_post(struct tprobe *tp)
{
	struct pending *pd = this_cpu_ptr(&pending);
	int i;

	for (i = 0; i < pd->n; i++)
		if (pd->e[i].tp == tp) {
			pending_drop(pd, i);
			atomic_long_inc(&n_paired);
			return;
		}
	if (hit_began_steady(tp))
		unpaired_at("a post_handler ran without its pre_handler on this CPU", &tp->kp);
}

/* The handlers: each checks what it can know. */

static int torture_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct tprobe *tp = tprobe_of(p);

	/* Every path (breakpoint, optimized, ftrace) shows the same ip. */
	if (instruction_pointer(regs) != (unsigned long)p->addr + HIT_IP_AFTER)
		bad("a pre_handler saw the wrong ip");
	if (READ_ONCE(tp->silent))
		bad_at("a disabled probe's pre_handler ran", p);
	if (p->post_handler)
		pending_pre(tp);
	atomic_long_inc(&n_hits);
	/* Set while the jump is in: this hit came through a detour. */
	if (kprobe_optimized(p))
		atomic_long_inc(&n_opt_hits);
	return 0;
}

NOKPROBE_SYMBOL(torture_pre);

static void torture_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
	struct tprobe *tp = tprobe_of(p);

	if (!irqs_disabled())
		bad_at("a post_handler ran with interrupts on", p);
	if (READ_ONCE(tp->silent))
		bad_at("a disabled probe's post_handler ran", p);
	if (p->pre_handler)
		pending_post(tp);
	atomic_long_inc(&n_post);
}

NOKPROBE_SYMBOL(torture_post);

/*
 * Hits inside a handler: a pre_handler calls ktt_nested0 or 1 (one per
 * CPU, so that only this CPU moves its probe's nmissed, which is not
 * atomic), each under a probe of ours that never changes.  While the
 * probe's site is armed (its first byte is not the original one) before
 * and after the call, the call must add exactly one to its nmissed;
 * while it is not, none.  The knob flips arm and disarm it, and a CPU in
 * a handler (interrupts off) can still run the byte it fetched before a
 * flip that has written the other one: while a flip is under way, or one
 * started or ended during the call (flip_gen), nothing is checked.
 */
static unsigned long (*const nested_fn[2])(unsigned long) = { ktt_nested0, ktt_nested1 };
static struct kprobe nested_kp[2];
static u8 nested_orig[2];

static int torture_nested_hit(struct kprobe *p, struct pt_regs *regs)
{
	bad("a hit inside a handler ran a handler");
	return 0;
}

NOKPROBE_SYMBOL(torture_nested_hit);

static bool nested_armed(int c)
{
	return READ_ONCE(*(u8 *)nested_kp[c].addr) != nested_orig[c];
}

static int torture_pre_nesting(struct kprobe *p, struct pt_regs *regs)
{
	int c = smp_processor_id() & 1;
	unsigned long before = READ_ONCE(nested_kp[c].nmissed), delta;
	unsigned long gen = READ_ONCE(flip_gen);
	bool armed, judge;

	/* Pairs with the ordering of torture.sh's writes (system calls). */
	smp_rmb();
	armed = nested_armed(c);
	if (call_asm(nested_fn[c], first_arg(regs)) != first_arg(regs) + 1 + c)
		bad("a function called inside a handler returned the wrong value");
	delta = READ_ONCE(nested_kp[c].nmissed) - before;
	atomic_long_inc(&n_nested);
	atomic_long_add(delta, &n_nested_missed);
	judge = num_possible_cpus() <= 2 && armed == nested_armed(c);
	smp_rmb();
	judge = judge && !(gen & 1) && gen == READ_ONCE(flip_gen);
	if (judge && delta != armed)
		bad(armed ? "a hit inside a handler was not counted in nmissed (once)" :
			    "nmissed moved for a probe whose site was not armed");
	return torture_pre(p, regs);
}

NOKPROBE_SYMBOL(torture_pre_nesting);

static int nested_probes_register(void)
{
	int c, ret;

	for (c = 0; c < 2; c++) {
		u8 text[8];
		unsigned long at;

		/* The core may move it past an endbr: keep the bytes first. */
		memcpy(text, nested_fn[c], sizeof(text));
		nested_kp[c].addr = (kprobe_opcode_t *)nested_fn[c];
		nested_kp[c].pre_handler = torture_nested_hit;
		ret = register_kprobe(&nested_kp[c]);
		at = (unsigned long)nested_kp[c].addr - (unsigned long)nested_fn[c];
		if (!ret && at >= sizeof(text)) {
			unregister_kprobe(&nested_kp[c]);
			ret = -EINVAL;
		}
		if (ret) {
			while (c--)
				unregister_kprobe(&nested_kp[c]);
			return ret;
		}
		nested_orig[c] = text[at];
	}
	return 0;
}

struct rp_data {
	unsigned long x;
	int target;
};

/* The target an address lies in, or -1. */
static int target_of(unsigned long addr)
{
	int t;

	for (t = 0; t < NR_TARGETS; t++)
		if (addr - ktt_targets[t].start < ktt_targets[t].size)
			return t;
	return -1;
}

static int torture_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rp_data *d = (struct rp_data *)ri->data;
	struct kretprobe *rp = get_kretprobe(ri);

	d->x = first_arg(regs);
	d->target = rp ? target_of((unsigned long)rp->kp.addr) : -1;
	return 0;
}

NOKPROBE_SYMBOL(torture_rp_entry);

static int torture_rp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rp_data *d = (struct rp_data *)ri->data;
	int i = input_index(d->x);

	/*
	 * The targets are pure functions: whenever the argument is one of
	 * inputs[] (readers pass only those, ktt_call passes others to
	 * ktt_helper), the value is known.
	 */
	if (i >= 0 && d->target >= 0 && d->target < NR_TARGETS &&
	    regs_return_value(regs) != expected[d->target][i])
		bad("a kretprobe saw the wrong return value");
	atomic_long_inc(&n_rp_hits);
	return 0;
}

NOKPROBE_SYMBOL(torture_rp_ret);

/* Never on ktt_helper, the one target called with other arguments. */
static unsigned long torture_jp_entry(unsigned long x)
{
	if (input_index(x) < 0)
		bad("a jprobe saw an argument no reader passed");
	atomic_long_inc(&n_jp_hits);
	jprobe_return();
	return 0;
}

NOKPROBE_SYMBOL(torture_jp_entry);

/* Readers. */

static int reader_fn(void *arg)
{
	struct rnd_state rnd;

	prandom_seed_state(&rnd, seed + 1000 + (long)arg);
	while (!kthread_should_stop()) {
		int t = prandom_u32_state(&rnd) % NR_TARGETS;
		int i = prandom_u32_state(&rnd) % NR_INPUTS;

		if (call_asm(target(t), inputs[i]) != expected[t][i])
			bad("a target returned the wrong value");
		if (irqs_disabled())
			bad("a target left interrupts off");
		atomic_long_inc(&n_calls);
		/*
		 * A task that never sleeps holds up RCU Tasks, and with it the
		 * optimizer: report a quiescent state as a sleep would.
		 */
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/* Writers: each owns its slots, so no lock is needed between them. */

/*
 * SLOT_BROKEN: the core said something about the slot's probes that
 * cannot be (see bad()); they are never reused, only unregistered again
 * at the end.
 */
enum slot_kind { SLOT_FREE, SLOT_KPROBE, SLOT_BATCH, SLOT_KRETPROBE, SLOT_JPROBE,
		 SLOT_BROKEN };

#define SLOTS		12

struct slot {
	enum slot_kind kind;
	bool module;			/* on kprobes_target: may turn GONE */
	int n;				/* probes in a batch */
	struct tprobe kps[BATCH_MAX];
	struct kprobe *kpp[BATCH_MAX];
	struct kretprobe rp;
	struct jprobe jp;
};

struct writer {
	struct rnd_state rnd;
	struct slot slots[SLOTS];
};

static u32 rnd(struct writer *w, u32 n)
{
	return prandom_u32_state(&w->rnd) % n;
}

static void count_result(int ret)
{
	if (!ret)
		atomic_long_inc(&n_registered);
	else if (ret < 0 && ret >= -MAX_ERRNO)
		atomic_long_inc(&n_refused[-ret]);
}

/*
 * Addresses a registration accepted: batches draw on them, so that some
 * batches are made only of good places and succeed.  Racy slots of a
 * word each; any value one holds was accepted once.
 */
#define GOOD_MAX	64
static unsigned long good[GOOD_MAX];
static atomic_t nr_good;

static void remember_good(unsigned long addr)
{
	WRITE_ONCE(good[(atomic_inc_return(&nr_good) - 1) % GOOD_MAX], addr);
}

static unsigned long random_place(struct writer *w, bool from_good)
{
	int t = rnd(w, NR_TARGETS);
	unsigned long addr;

	if (from_good && atomic_read(&nr_good)) {
		addr = READ_ONCE(good[rnd(w, min(atomic_read(&nr_good), GOOD_MAX))]);
		if (addr)
			return addr;
	}
	return ktt_targets[t].start + rnd(w, ktt_targets[t].size);
}

/* A change of @tp's state begins: a hit that straddles it proves nothing. */
static void changing(struct tprobe *tp)
{
	WRITE_ONCE(tp->gen, tp->gen + 1);
}

/* The change is over: @tp is steady from here (see struct tprobe). */
static void changed(struct tprobe *tp)
{
	unsigned long gen = tp->gen + 1;

	WRITE_ONCE(tp->gen, gen);
	WRITE_ONCE(tp->steady_cookie, get_state_synchronize_rcu());
	smp_wmb();	/* pairs with the smp_rmb() of hit_began_steady() */
	WRITE_ONCE(tp->steady_gen, gen);
}

/*
 * A fresh kprobe in @tp, before it is registered: a new state (@gen),
 * silent if it is registered disabled.
 */
static struct kprobe *fresh_kprobe(struct tprobe *tp, bool disabled)
{
	struct kprobe *kp = &tp->kp;

	memset(kp, 0, sizeof(*kp));
	changing(tp);
	WRITE_ONCE(tp->silent, disabled);
	if (disabled)
		kp->flags = KPROBE_FLAG_DISABLED;
	return kp;
}

/* A kprobe at a random offset of a random target, with random handlers. */
static void random_kprobe(struct writer *w, struct tprobe *tp, bool from_good,
			  bool may_be_disabled)
{
	struct kprobe *kp = fresh_kprobe(tp, may_be_disabled && !rnd(w, 8));

	kp->addr = (kprobe_opcode_t *)random_place(w, from_good);
	switch (rnd(w, 8)) {
	case 0: case 1:
		kp->post_handler = torture_post;
		break;
	case 2: case 3:
		kp->pre_handler = torture_pre;
		kp->post_handler = torture_post;
		break;
	case 4:			/* hits inside its handler: counted as missed */
		kp->pre_handler = torture_pre_nesting;
		break;
	default:		/* pre_handler only: may be boosted or optimized */
		kp->pre_handler = torture_pre;
		break;
	}
}

/* A registered probe is known to the core: enable_kprobe() finds it. */
static bool is_registered(struct kprobe *kp)
{
	return enable_kprobe(kp) != -EINVAL;
}

static void op_kprobe(struct writer *w, struct slot *s)
{
	int ret;

	random_kprobe(w, &s->kps[0], false, true);
	ret = register_kprobe(&s->kps[0].kp);
	count_result(ret);
	if (!ret) {
		changed(&s->kps[0]);
		remember_good((unsigned long)s->kps[0].kp.addr);
		s->kind = SLOT_KPROBE;
	}
}

static void op_batch(struct writer *w, struct slot *s)
{
	bool from_good = rnd(w, 4);
	int i, ret;

	s->n = 2 + rnd(w, BATCH_MAX - 1);
	for (i = 0; i < s->n; i++) {
		random_kprobe(w, &s->kps[i], from_good, false);
		s->kpp[i] = &s->kps[i].kp;
	}
	ret = register_kprobes(s->kpp, s->n);
	count_result(ret);
	if (!ret) {
		for (i = 0; i < s->n; i++)
			changed(&s->kps[i]);
		s->kind = SLOT_BATCH;
		return;
	}
	/* A failed batch leaves none of its probes registered. */
	for (i = 0; i < s->n; i++)
		if (is_registered(&s->kps[i].kp)) {
			bad("a failed batch left a probe registered");
			s->kind = SLOT_BROKEN;
		}
}

static void op_kretprobe(struct writer *w, struct slot *s)
{
	int t = rnd(w, NR_TARGETS), ret;

	memset(&s->rp, 0, sizeof(s->rp));
	s->rp.kp.addr = (kprobe_opcode_t *)ktt_targets[t].start;
	s->rp.entry_handler = torture_rp_entry;
	s->rp.handler = torture_rp_ret;
	s->rp.data_size = sizeof(struct rp_data);
	s->rp.maxactive = 1 + rnd(w, 4);	/* small: misses happen */
	ret = register_kretprobe(&s->rp);
	count_result(ret);
	if (!ret)
		s->kind = SLOT_KRETPROBE;
}

static void op_jprobe(struct writer *w, struct slot *s)
{
	int t = rnd(w, NR_TARGETS), ret;

	if (t == TARGET_HELPER)
		t = 0;
	memset(&s->jp, 0, sizeof(s->jp));
	s->jp.kp.addr = (kprobe_opcode_t *)ktt_targets[t].start;
	s->jp.entry = torture_jp_entry;
	ret = register_jprobe(&s->jp);
	count_result(ret);
	if (!ret)
		s->kind = SLOT_JPROBE;
}

/* Places the core must refuse; one that is accepted is a failure. */
static void op_refused(struct writer *w, struct slot *s)
{
	static const char * const forbidden[] = {
#ifdef CONFIG_X86
		"exc_int3", "do_int3", "kprobe_int3_handler",
#else
		"do_debug_exception", "brk_handler", "kprobe_brk_handler",
#endif
		"no_such_function_kpt", "ktt_table",
	};
	struct kprobe *kp = fresh_kprobe(&s->kps[0], false);
	int ret;

	kp->pre_handler = torture_pre;
	switch (rnd(w, 3)) {
	case 0:		/* a refused symbol, or one that does not exist */
		kp->symbol_name = forbidden[rnd(w, ARRAY_SIZE(forbidden))];
		break;
	case 1:		/* inside the first instruction */
		kp->addr = (kprobe_opcode_t *)(ktt_targets[0].start + 1);
		break;
	default:	/* data */
		kp->addr = (kprobe_opcode_t *)&expected[rnd(w, NR_TARGETS)][0];
		break;
	}
	ret = register_kprobe(kp);
	if (!ret) {
		bad("a probe at a forbidden place was accepted");
		unregister_kprobe(kp);
		return;
	}
	count_result(ret);
}

/* A probe on the module the selftest loads and unloads meanwhile. */
static void op_module(struct writer *w, struct slot *s)
{
	struct kprobe *kp = fresh_kprobe(&s->kps[0], false);
	int ret;

	kp->symbol_name = "kprobes_target_func";
	kp->pre_handler = torture_pre;
	ret = register_kprobe(kp);
	count_result(ret);
	if (!ret) {
		changed(&s->kps[0]);
		atomic_long_inc(&n_module);
		s->kind = SLOT_KPROBE;
		s->module = true;
	}
}

static void release(struct slot *s)
{
	int i;

	switch (s->kind) {
	case SLOT_KPROBE:
		changing(&s->kps[0]);
		unregister_kprobe(&s->kps[0].kp);
		if (is_registered(&s->kps[0].kp)) {
			bad("an unregistered kprobe is still known");
			s->kind = SLOT_BROKEN;
			s->n = 1;
			s->kpp[0] = &s->kps[0].kp;
			return;
		}
		break;
	case SLOT_BATCH:
	case SLOT_BROKEN:
		for (i = 0; i < s->n; i++)
			changing(&s->kps[i]);
		unregister_kprobes(s->kpp, s->n);
		break;
	case SLOT_KRETPROBE:
		unregister_kretprobe(&s->rp);
		break;
	case SLOT_JPROBE:
		unregister_jprobe(&s->jp);
		break;
	default:
		break;
	}
	s->kind = SLOT_FREE;
	s->module = false;
}

/*
 * Disable or enable one probe of the slot.  A kprobe of ours is silent
 * from the end of the grace period after its disable_kprobe() (every hit
 * that began before is over by then) until just before enable_kprobe().
 */
static void toggle(struct writer *w, struct slot *s)
{
	struct tprobe *tp = NULL;
	struct kprobe *kp;
	bool disable = rnd(w, 2);
	int ret;

	switch (s->kind) {
	case SLOT_KPROBE:
	case SLOT_BATCH:
		tp = &s->kps[rnd(w, s->kind == SLOT_BATCH ? s->n : 1)];
		kp = &tp->kp;
		break;
	case SLOT_KRETPROBE:
		kp = &s->rp.kp;
		break;
	case SLOT_JPROBE:
		kp = &s->jp.kp;
		break;
	default:
		return;
	}
	if (tp) {
		changing(tp);
		if (!disable)
			WRITE_ONCE(tp->silent, false);
	}
	ret = disable ? disable_kprobe(kp) : enable_kprobe(kp);
	/* Only a probe on the module may be gone, and refuse (-EINVAL). */
	if (ret && !s->module)
		bad("enable/disable of a registered probe failed");
	if (tp && disable && !ret) {
		synchronize_rcu();
		WRITE_ONCE(tp->silent, true);
		atomic_long_inc(&n_silenced);
	}
	if (tp)
		changed(tp);
}

static int writer_fn(void *arg)
{
	struct writer *w = arg;

	while (!kthread_should_stop()) {
		struct slot *s = &w->slots[rnd(w, SLOTS)];

		atomic_long_inc(&n_ops);
		if (s->kind == SLOT_BROKEN) {
			/* left alone until the end */
		} else if (s->kind != SLOT_FREE) {
			if (rnd(w, 3))
				release(s);
			else
				toggle(w, s);
		} else {
			switch (rnd(w, 8)) {
			case 0: case 1: case 2:
				op_kprobe(w, s);
				break;
			case 3:
				op_batch(w, s);
				break;
			case 4:
				op_kretprobe(w, s);
				break;
			case 5:
				op_jprobe(w, s);
				break;
			case 6:
				op_refused(w, s);
				break;
			default:
				op_module(w, s);
				break;
			}
		}
		/* Let the probes be hit (and optimized) for a while. */
		msleep(rnd(w, 20));
	}
	return 0;
}

static int onoff_fn(void *arg)
{
	while (!kthread_should_stop()) {
		msleep(300);
		if (remove_cpu(1))
			continue;	/* busy: try again later */
		msleep(100);
		if (add_cpu(1))
			bad("CPU 1 did not come back online");
		atomic_long_inc(&n_onoff);
	}
	return 0;
}

static struct task_struct **tasks;
static int nr_tasks;

static void start(int (*fn)(void *), void *arg, const char *name, int i)
{
	struct task_struct *t = kthread_run(fn, arg, "kpt_%s/%d", name, i);

	if (IS_ERR(t))
		bad("a thread could not start");
	else
		tasks[nr_tasks++] = t;
}

/*
 * The rare paths of a hit that the run exists to reach (enum
 * kprobe_window), counted on test kernels: what the run added.
 */
#ifdef CONFIG_KPROBES_KUNIT_TEST
static unsigned long window_start[KPROBE_WINDOWS];

static void windows_start(void)
{
	int i;

	for (i = 0; i < KPROBE_WINDOWS; i++)
		window_start[i] = kprobe_window_total(i);
}

static unsigned long window(enum kprobe_window w)
{
	return kprobe_window_total(w) - window_start[w];
}

static void windows_report(void)
{
	pr_info("kprobes_torture: windows: int3_gone=%lu late_site=%lu in_flux=%lu missed=%lu bare_to_site=%lu stale_text=%lu\n",
		window(KPROBE_WINDOW_INT3_GONE), window(KPROBE_WINDOW_LATE_SITE),
		window(KPROBE_WINDOW_IN_FLUX), window(KPROBE_WINDOW_MISSED),
		window(KPROBE_WINDOW_BARE_TO_SITE),
		window(KPROBE_WINDOW_STALE_TEXT));
}

/*
 * The windows every run must have reached, or it did not test what it is
 * for: traps while jumps come and go (the optimizer and the knob flips
 * against the readers; x86), and hits inside handlers (the nested probes).
 * A thread per vCPU enters each about a hundred thousand times a second;
 * ten a second is the floor.  A trap on a gone int3 (a few a minute, not
 * every run) and a second one at the same place (never, once QEMU's
 * stale translations are dealt with, patch.c) are reported only.
 */
static void windows_check(void)
{
	unsigned long floor = 10UL * duration;

	/*
	 * x86's window: a trap while the bytes behind the int3 may be a
	 * jump's.  arm64's jump covers the one word, which is either the BRK
	 * or the B, so its traps have no such window.
	 */
	if (IS_ENABLED(CONFIG_X86) && window(KPROBE_WINDOW_IN_FLUX) < floor)
		bad("too few traps while a jump came or went (windows: in_flux)");
	if (window(KPROBE_WINDOW_MISSED) < floor)
		bad("too few hits inside a handler (windows: missed)");
}
#else
static void windows_start(void)
{
}

static void windows_report(void)
{
}

static void windows_check(void)
{
}
#endif

static void report(void)
{
	char refused[160] = "";
	int e, len = 0;

	for (e = 1; e <= MAX_ERRNO; e++) {
		long n = atomic_long_read(&n_refused[e]);

		if (n && len < sizeof(refused) - 20)
			len += scnprintf(refused + len, sizeof(refused) - len,
					 " %d:%ld", -e, n);
	}
	pr_info("kprobes_torture: seed=%lu duration=%d ops=%ld registered=%ld refused(errno:count)=%s\n",
		seed, duration, atomic_long_read(&n_ops),
		atomic_long_read(&n_registered), len ? refused : " none");
	pr_info("kprobes_torture: calls=%ld wrong=%d hits=%ld optimized_hits=%ld post=%ld paired=%ld unpaired=%ld silenced=%ld nested=%ld nested_missed=%ld kretprobe=%ld jprobe=%ld module_probes=%ld onoff=%ld\n",
		atomic_long_read(&n_calls), atomic_read(&n_bad),
		atomic_long_read(&n_hits), atomic_long_read(&n_opt_hits),
		atomic_long_read(&n_post), atomic_long_read(&n_paired),
		atomic_long_read(&n_unpaired),
		atomic_long_read(&n_silenced), atomic_long_read(&n_nested),
		atomic_long_read(&n_nested_missed),
		atomic_long_read(&n_rp_hits), atomic_long_read(&n_jp_hits),
		atomic_long_read(&n_module), atomic_long_read(&n_onoff));
	windows_report();
}

static int __init kprobes_torture_init(void)
{
	struct writer *w;
	int i, t, s;

	if (ktt_targets_end - ktt_targets != NR_TARGETS)
		return -EINVAL;		/* the .S file and NR_TARGETS disagree */
	if (!seed)
		seed = get_random_u32() | 1;
	pr_info("kprobes_torture: start: seed=%lu duration=%d readers=%d writers=%d onoff=%d\n",
		seed, duration, readers, writers, onoff);

	for (i = 0; i < NR_INPUTS; i++)
		inputs[i] = i < 4 ? i : (seed * 2654435761UL * i) ^ (i << 20);
	for (t = 0; t < NR_TARGETS; t++)
		for (i = 0; i < NR_INPUTS; i++)
			expected[t][i] = call_asm(target(t), inputs[i]);

	w = kcalloc(writers, sizeof(*w), GFP_KERNEL);
	tasks = kcalloc(readers + writers + 1, sizeof(*tasks), GFP_KERNEL);
	if (!w || !tasks) {
		kfree(w);
		kfree(tasks);
		return -ENOMEM;
	}
	if (nested_probes_register()) {
		pr_err("kprobes_torture: the probes on ktt_nested0/1 were refused\n");
		kfree(w);
		kfree(tasks);
		return -EINVAL;
	}
	for (i = 0; i < writers; i++)
		prandom_seed_state(&w[i].rnd, seed + i);

	windows_start();
	for (i = 0; i < readers; i++)
		start(reader_fn, (void *)(long)i, "reader", i);
	for (i = 0; i < writers; i++)
		start(writer_fn, &w[i], "writer", i);
	onoff = onoff && cpu_present(1) && get_cpu_device(1);
	if (onoff)
		start(onoff_fn, NULL, "onoff", 0);

	for (i = 0; i < duration; i++)
		msleep(1000);

	while (nr_tasks)
		kthread_stop(tasks[--nr_tasks]);
	for (i = 0; i < writers; i++)
		for (s = 0; s < SLOTS; s++)
			release(&w[i].slots[s]);
	if (onoff && !cpu_online(1) && add_cpu(1))
		bad("CPU 1 did not come back online");
	unregister_kprobe(&nested_kp[0]);
	unregister_kprobe(&nested_kp[1]);
	kfree(w);
	kfree(tasks);

	report();
	if (!atomic_long_read(&n_calls) || !atomic_long_read(&n_hits))
		bad("the run made no calls or no probe was hit");
	windows_check();
	if (atomic_read(&n_bad)) {
		pr_err("kprobes_torture: first wrong: %s\n", first_bad);
		pr_err("kprobes_torture: FAILURE (seed=%lu)\n", seed);
		return 0;
	}
	pr_info("kprobes_torture: SUCCESS (seed=%lu)\n", seed);
	return 0;
}

static void __exit kprobes_torture_exit(void)
{
}

module_init(kprobes_torture_init);
module_exit(kprobes_torture_exit);
MODULE_DESCRIPTION("Kprobes torture test");
MODULE_LICENSE("GPL");
