// SPDX-License-Identifier: GPL-2.0
/*
 * Probe sites and the handler calls made from the breakpoint path.
 *
 * Everything in this file that runs on a probe hit is in .kprobes.text, so
 * that it can never be probed itself: a breakpoint in the code that handles
 * breakpoints would recurse without end.
 */
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "internal.h"

/* See internal.h for what these protect. */
DEFINE_MUTEX(kprobe_mutex);
LIST_HEAD(kprobe_sites);

#ifdef CONFIG_HAVE_KPROBE_SITES
/*
 * The probe whose handler runs on this CPU, or NULL; see kprobe_running().
 * A classic architecture defines both itself, as upstream's do.
 */
DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);
#endif

/* Open to the hit paths' kprobe_site_find() (kprobes_arch.h). */
DEFINE_HASHTABLE(kprobe_site_hash, KPROBE_SITE_HASH_BITS);

void kprobe_site_insert(struct kprobe_site *site)
{
	lockdep_assert_held(&kprobe_mutex);
	list_add_tail(&site->all, &kprobe_sites);
	hash_add_rcu(kprobe_site_hash, &site->node, (unsigned long)site->addr);
}

/*
 * Take @site out of the hash (a gone site is out already); the caller has
 * its own use for ->all and waits for a grace period before freeing @site.
 */
void kprobe_site_unhash(struct kprobe_site *site)
{
	lockdep_assert_held(&kprobe_mutex);
	if (!site->gone)
		hash_del_rcu(&site->node);
}

/*
 * The text of @site goes away: never write to it again, and let the
 * address be probed afresh should it come back with other code.
 */
void kprobe_site_gone(struct kprobe_site *site)
{
	struct kprobe *p;

	lockdep_assert_held(&kprobe_mutex);
	site->gone = true;
	site->armed = false;
	kprobe_site_drop_single(site);
	kprobe_site_drop_pending(site);
	kprobe_site_opt_gone(site);
	if (site->ftrace)
		kprobe_ftrace_site_gone(site);
	hash_del_rcu(&site->node);
	list_for_each_entry(p, &site->probes, list)
		kprobe_flags_change(p, KPROBE_FLAG_GONE, 0);
}

/**
 * kprobe_site_lookup() - find the probe site at an address
 * @addr: the probed address
 *
 * Called with kprobe_mutex held or as an RCU reader (interrupts or
 * preemption off will do); the hit paths use kprobe_site_find() inline.
 * Return: the site, or NULL.
 */
struct kprobe_site *__kprobes kprobe_site_lookup(kprobe_opcode_t *addr)
{
	return kprobe_site_find(addr);
}
EXPORT_SYMBOL_GPL(kprobe_site_lookup);

/* The site @p is registered at, or NULL when @p is not registered. */
struct kprobe_site *kprobe_site_of(struct kprobe *p)
{
	struct kprobe_site *site;
	struct kprobe *q;

	lockdep_assert_held(&kprobe_mutex);
	site = p->addr ? kprobe_site_lookup(p->addr) : NULL;
	/* The last probe of a dying site is being unregistered (register.c). */
	if (site && !(p->flags & KPROBE_FLAG_LEAVING)) {
		list_for_each_entry(q, &site->probes, list)
			if (q == p)
				return site;
	}
	/* Gone sites are out of the hash; only flagged probes can be there. */
	if (!kprobe_gone(p))
		return NULL;
	list_for_each_entry(site, &kprobe_sites, all) {
		if (!site->gone || site->addr != p->addr)
			continue;
		list_for_each_entry(q, &site->probes, list)
			if (q == p)
				return site;
	}
	return NULL;
}

bool kprobe_site_has_enabled(struct kprobe_site *site)
{
	struct kprobe *p;

	list_for_each_entry(p, &site->probes, list)
		if (!kprobe_disabled(p))
			return true;
	return false;
}

/*
 * ->single: what an optimized or ftrace hit, or any hit on a classic
 * architecture (classic.c), runs without the list walk.
 * Up to two enabled probes with pre_handlers, no jprobe and no probe with
 * a fault_handler: the one, or a struct kprobe_pair of the two; otherwise
 * NULL, and the hit walks the list.  The ftrace hit runs ->single with
 * interrupts on (ftrace_handler.c), where an interrupt's own fault must
 * not reach a fault_handler.  Away from ftrace on a site architecture, a
 * probe with a post_handler also needs the walk: the only hits that read
 * ->single there come through a jump still being undone for that probe,
 * and the walk leaves it out (its post_handler would not follow).  @pre
 * gets them in list order.  Return: how many (0, 1 or 2), or -1 when the
 * walk is needed.
 */
static int site_fast_pres(struct kprobe_site *site, struct kprobe *pre[2])
{
	struct kprobe *p;
	int n = 0;

	list_for_each_entry(p, &site->probes, list) {
		if (kprobe_disabled(p))
			continue;
		if (p->fault_handler || p->pre_handler == jprobe_setjmp)
			return -1;
		/*
		 * No hit of a classic architecture's comes through a jump
		 * being undone (its optimized hits walk the list,
		 * classic_opt.c): there ->single may have a post_handler,
		 * which classic.c's post_handler runs.
		 */
		if (p->post_handler && !site->ftrace &&
		    !IS_ENABLED(CONFIG_KPROBES_CLASSIC_ARCH))
			return -1;
		if (!p->pre_handler) {
			/*
			 * A classic hit from ->single runs only that probe's
			 * post_handler after its pre_handler (classic.c): a
			 * post_handler on a probe of its own needs the walk.
			 */
			if (p->post_handler &&
			    IS_ENABLED(CONFIG_KPROBES_CLASSIC_ARCH))
				return -1;
			continue;
		}
		if (n == 2)
			return -1;
		pre[n++] = p;
	}
	return n;
}

static __always_inline struct kprobe_pair *kprobe_pair_of(struct kprobe *p)
{
	if (!p || (p->pre_handler != kprobe_pair_pre &&
		   p->pre_handler != kprobe_pair_pre_all))
		return NULL;
	return container_of(p, struct kprobe_pair, kp);
}

static struct kprobe *site_new_pair(struct kprobe_site *site,
				    struct kprobe *pre[2])
{
	struct kprobe_pair *pair = kzalloc(sizeof(*pair), GFP_KERNEL);

	/* Without it the hits walk the list: slower, not wrong. */
	if (!pair)
		return NULL;
	pair->kp.addr = site->addr;
	/*
	 * A classic architecture's breakpoint handler, given the pair by
	 * get_kprobe(), steps the copy unless the pre_handler redirected, as
	 * ftrace's goes on unless it did: there the second must not run
	 * after a redirect.  It steps the copy the pair is lent, and the
	 * second probe's, current after the pair's pre_handler.
	 */
	pair->kp.pre_handler = site->ftrace ||
			       IS_ENABLED(CONFIG_KPROBES_CLASSIC_ARCH) ?
			       kprobe_pair_pre : kprobe_pair_pre_all;
	pair->kp.opcode = site->opcode;
	kprobe_site_lend_copy(site, &pair->kp);
	pair->probes[0] = pre[0];
	pair->probes[1] = pre[1];
	return &pair->kp;
}

static void site_publish_single(struct kprobe_site *site, struct kprobe *new)
{
	struct kprobe *old = rcu_dereference_protected(site->single,
					lockdep_is_held(&kprobe_mutex));
	struct kprobe_pair *pair = kprobe_pair_of(old);

	if (new == old)
		return;
	/*
	 * A hit may still read the old ->single: a probe just unlinked
	 * stays valid until the grace period of its removal, and one just
	 * disabled may run once more, as it may from the list.  So may a
	 * pair, freed after the grace period: the hits read ->single with
	 * preemption off.  The pair's fields are written before this
	 * rcu_assign_pointer(), which orders them for the hit's
	 * rcu_dereference_sched().
	 */
	rcu_assign_pointer(site->single, new);
	if (pair)
		kfree_rcu(pair, rcu);
}

/**
 * kprobe_site_update_single() - recompute ->single after a change
 * @site: a site whose probes were added, removed, enabled or disabled
 *
 * Context: kprobe_mutex held.
 */
void kprobe_site_update_single(struct kprobe_site *site)
{
	struct kprobe *old = rcu_dereference_protected(site->single,
					lockdep_is_held(&kprobe_mutex));
	struct kprobe_pair *pair = kprobe_pair_of(old);
	struct kprobe *pre[2], *new = NULL;
	int n = site_fast_pres(site, pre);

	lockdep_assert_held(&kprobe_mutex);
	if (n == 1) {
		new = pre[0];
	} else if (n == 2 && (IS_ENABLED(CONFIG_HAVE_KPROBE_SITES) ||
			      (!pre[0]->post_handler && !pre[1]->post_handler))) {
		/*
		 * A classic arch runs the post_handler of the probe current
		 * after the pre_handler, the pair's second: a pair there has
		 * none.
		 */
		/* A pair is immutable: the same two keep theirs. */
		if (pair && pair->probes[0] == pre[0] &&
		    pair->probes[1] == pre[1])
			return;
		new = site_new_pair(site, pre);
	}
	site_publish_single(site, new);
}

/* The site is gone or going: nothing for the hits, and no pair left. */
void kprobe_site_drop_single(struct kprobe_site *site)
{
	lockdep_assert_held(&kprobe_mutex);
	WRITE_ONCE(site->post_single, false);
	site_publish_single(site, NULL);
}

/*
 * What kprobe_pair_pre() needs after the first probe's handler: kept per
 * CPU rather than across the call in saved registers (a stack frame, and
 * no tail call for the second).  Nothing else can use them meanwhile:
 * current_kprobe is set on this CPU from before kprobe_pair_pre() is
 * called until after it returns, and a hit that finds it set, from an
 * interrupt, an NMI or a handler, runs no handler (and no pair).
 */
struct kprobe_pair_rest {
	struct kprobe	*second;
	struct pt_regs	*regs;
};
static DEFINE_PER_CPU(struct kprobe_pair_rest, kprobe_pair_rest);

/* The first probe's handler, with the second's waiting per CPU. */
static __always_inline int pair_first(struct kprobe *kp, struct pt_regs *regs)
{
	struct kprobe_pair *pair = container_of(kp, struct kprobe_pair, kp);
	struct kprobe *p = pair->probes[0];

	__this_cpu_write(current_kprobe, p);
	__this_cpu_write(kprobe_pair_rest.second, pair->probes[1]);
	__this_cpu_write(kprobe_pair_rest.regs, regs);
	return p->pre_handler(p, regs);
}

static __always_inline int pair_second(void)
{
	struct kprobe *p = __this_cpu_read(kprobe_pair_rest.second);

	__this_cpu_write(current_kprobe, p);
	return p->pre_handler(p, __this_cpu_read(kprobe_pair_rest.regs));
}

/**
 * kprobe_pair_pre() - the pre_handler of a struct kprobe_pair
 * @kp: the pair's own probe, as ->single named it
 * @regs: the registers at the hit
 *
 * Runs the two probes' pre_handlers in list order, each as
 * kprobe_running(), and stops at one that returns non-zero, as the list
 * walk of the int3 and ftrace paths does.  The caller made @kp
 * current_kprobe; the second probe is current on return
 * (ftrace_handler.c reads it back, and calls its post_handler without
 * the walk only if it has become the site's ->single, alone, meanwhile).
 *
 * Return: what the last pre_handler called returned.
 */
int __kprobes kprobe_pair_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (pair_first(kp, regs))
		return 1;
	return pair_second();
}

/**
 * kprobe_pair_pre_all() - kprobe_pair_pre() for a site an ftrace hit
 * never reaches
 * @kp: the pair's own probe
 * @regs: the registers at the hit
 *
 * The same, but both always run: ->single of a site that is not at an
 * ftrace location is read only by the detour of its jump, where a
 * pre_handler cannot redirect and the list walk runs every probe
 * whatever they return (optimize.c).  Two instructions a hit fewer.
 *
 * Return: what the second returned, which the detour ignores (returning
 * it lets the second be a tail call).
 */
int __kprobes kprobe_pair_pre_all(struct kprobe *kp, struct pt_regs *regs)
{
	pair_first(kp, regs);
	return pair_second();
}

#ifdef CONFIG_KPROBES_CLASSIC_ARCH
/*
 * What a classic architecture's hit at @site works with: the site's one
 * probe (->single) when that is all the hit runs, as upstream's code got
 * a probe alone at its address, so that the arch calls its handlers and
 * steps the copy, lent to it at registration (register.c), itself; else
 * the aggregate, whose handlers walk the list.  The arch keeps the probe
 * it got current from its pre_handler to its post_handler, as upstream's
 * did, and a fault in the copy meanwhile is still the arch's
 * (kprobe_classic_fault() offers only faults in handlers, and ->single
 * has no fault_handler).  A jprobe's resume may come back to any site
 * and must find the aggregate (classic.c).  Hit context, or kprobe_mutex.
 */
static __always_inline struct kprobe *site_hit_probe(struct kprobe_site *site)
{
	/*
	 * Unchecked, as the hash walk before it: lockdep's RCU checks are
	 * functions a probe may sit on, and this runs before the arch's
	 * handler has marked the CPU busy.
	 */
	struct kprobe *p = rcu_dereference_raw(site->single);

	if (likely(p) && likely(!kprobe_jprobe_may_resume()))
		return p;
	return &site->aggr;
}
#endif

/**
 * get_kprobe() - the probe registered at an address
 * @addr: the address
 *
 * Return: a registered probe at @addr, or NULL.  On a classic
 * architecture, a probe alone at @addr (with nothing its breakpoint
 * handler cannot run itself), else the site's aggregate probe, which
 * that handler then works with; elsewhere the first probe registered.
 * The caller holds the RCU read lock or otherwise keeps the probe from
 * being unregistered.
 */
struct kprobe *__kprobes get_kprobe(void *addr)
{
	/* Inline: on a classic architecture every hit comes here. */
	struct kprobe_site *site;
#ifdef KPROBE_CLASSIC_BARE
	struct hlist_node *node;

	/*
	 * Most probes are bare here: their hash first.  A site that has just
	 * taken over the bare probe went into its hash before the probe left
	 * its own, with an smp_wmb() between (site_from_bare(), register.c):
	 * this smp_rmb() pairs with it, so a hit that no longer finds the
	 * probe finds the site.
	 */
	node = kprobe_bare_node_find(addr);
	if (node)
		return hlist_entry(node, struct kprobe, hlist);
	smp_rmb();
	site = kprobe_site_find(addr);
#else
	struct kprobe *bare;

	site = kprobe_site_find(addr);
	if (!site) {
		bare = kprobe_bare_find(addr);	/* bare.c */
		if (bare)
			return bare;
		site = kprobe_bare_gone_to_site(addr);
	}
#endif
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	if (!site)
		return kprobe_jprobe_trap_at(addr);	/* classic_jprobe.c */
	return site_hit_probe(site);
#else
	if (!site)
		return NULL;
	return list_first_or_null_rcu(&site->probes, struct kprobe, list);
#endif
}
EXPORT_SYMBOL_GPL(get_kprobe);

/* A hit of @p's handlers was missed; for an aggregate, all of the site's. */
void __kprobes kprobes_inc_nmissed_count(struct kprobe *p)
{
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	struct kprobe_pair *pair = kprobe_pair_of(p);

	if (kprobe_is_site_aggr(p)) {
		kprobe_site_missed(container_of(p, struct kprobe_site, aggr));
		return;
	}
	/* A pair get_kprobe() gave the arch: both of its probes missed. */
	if (pair) {
		data_race(pair->probes[0]->nmissed++);
		data_race(pair->probes[1]->nmissed++);
		return;
	}
#endif
	/*
	 * A statistic, plain as upstream's: two CPUs missing at once may
	 * count one (KCSAN is told).  Our own tests that add it up keep
	 * each probe's misses on one CPU.
	 */
	data_race(p->nmissed++);
}

#ifdef CONFIG_KPROBES_KUNIT_TEST
DEFINE_PER_CPU(unsigned long, kprobe_window_count[KPROBE_WINDOWS]);

unsigned long kprobe_window_total(enum kprobe_window w)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(kprobe_window_count[w], cpu);
	return sum;
}
EXPORT_SYMBOL_GPL(kprobe_window_total);	/* for the torture module */

unsigned int kprobe_window_stall_us[KPROBE_WINDOWS];

/* A plain busy wait: the caller is in a trap or ftrace's handler. */
void __kprobes kprobe_window_stall_wait(enum kprobe_window w)
{
	udelay(READ_ONCE(kprobe_window_stall_us[w]));
}
#endif

/* A hit that cannot run handlers: every probe at the site misses it. */
void __kprobes kprobe_site_missed(struct kprobe_site *site)
{
	struct kprobe *p;

	kprobe_window_entered(KPROBE_WINDOW_MISSED);

	list_for_each_entry_rcu(p, &site->probes, list)
		if (!kprobe_disabled(p))
			kprobes_inc_nmissed_count(p);
}

/* Does @p need the step path: something after its pre_handler? */
static __always_inline bool probe_needs_step_path(struct kprobe *p)
{
	return p->post_handler || p->fault_handler ||
	       (READ_ONCE(p->flags) & KPROBE_FLAG_JPROBE);
}

/**
 * kprobe_site_pre_handlers_passing() - a hit that only passes the site
 * @site: the site that was hit
 * @regs: the registers at the hit, regs->ip just past the probed address
 * @may_redirect: a pre_handler may send the CPU elsewhere (the int3
 *	path); else its return is ignored, as through the jump
 *
 * A hit that will not carry out the instruction on the step path: one
 * through an optimized site's jump, or on its int3 while the jump comes
 * or goes.  Only the probes that need nothing after their pre_handler
 * run; one with a post_handler, a fault_handler or a jprobe counts the
 * hit as missed, for a pre_handler whose post_handler never follows (or
 * whose fault would reach no fault_handler) would break its contract.  A
 * hit inside a handler is only counted.  current_kprobe is NULL after.
 *
 * Return: true when, with @may_redirect, a pre_handler changed regs->ip
 * and wants execution to go there (the others do not run then).
 */
bool __kprobes kprobe_site_pre_handlers_passing(struct kprobe_site *site,
						struct pt_regs *regs,
						bool may_redirect)
{
	struct kprobe *p;
	bool redirect = false;

	if (unlikely(kprobe_running())) {
		kprobe_site_missed(site);
		return false;
	}
	list_for_each_entry_rcu(p, &site->probes, list) {
		if (kprobe_disabled(p))
			continue;
		if (unlikely(probe_needs_step_path(p))) {
			kprobes_inc_nmissed_count(p);
			continue;
		}
		if (!p->pre_handler)
			continue;
		__this_cpu_write(current_kprobe, p);
		if (p->pre_handler(p, regs) && may_redirect) {
			redirect = true;
			break;
		}
	}
	__this_cpu_write(current_kprobe, NULL);
	return redirect;
}

/**
 * kprobe_site_pre_handlers() - run the pre_handlers of a site
 * @site: the site that was hit
 * @regs: the registers at the hit, regs->ip just past the breakpoint
 * @jprobe_ok: a jprobe's handler may take over from here; when not (an
 *	ftrace site whose IPMODIFY claim is not held, ftrace.c), a jprobe
 *	counts the hit as missed
 *
 * current_kprobe names the probe whose handler runs, so that a hit from
 * inside a handler is seen as a reentry and a fault is routed to the right
 * fault_handler.
 *
 * Return: true when a handler changed regs->ip and wants execution to go
 * there: the probed instruction is then not executed.
 */
bool __kprobes kprobe_site_pre_handlers(struct kprobe_site *site,
					struct pt_regs *regs, bool jprobe_ok)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p, *jprobe = NULL;
	struct list_head *first;
	struct kprobe *running;

	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	list_for_each_entry_rcu(p, &site->probes, list) {
		if (kprobe_disabled(p) || !p->pre_handler)
			continue;
		/* A jprobe leaves for its handler: the others go first. */
		if (p->pre_handler == jprobe_setjmp) {
			jprobe = p;
			continue;
		}
		__this_cpu_write(current_kprobe, p);
		if (p->pre_handler(p, regs)) {
			reset_current_kprobe();
			return true;
		}
	}
	if (jprobe) {
		/* Not entered (a classic arch's handler in flight): missed. */
		if (unlikely(!jprobe_ok))
			kprobes_inc_nmissed_count(jprobe);
		else if (jprobe_enter(site, jprobe, regs))
			return true;
	}
	/*
	 * The handler level lasts until the post_handlers, over the copy:
	 * current_kprobe must not be NULL there even when the site's last
	 * probe has just left, or a fault in the copy would not be routed
	 * back to the original instruction (the fault hooks look only when
	 * kprobe_running()).
	 */
	first = READ_ONCE(site->probes.next);
	running = first != &site->probes ?
		  list_entry(first, struct kprobe, list) : &kprobe_busy;
	__this_cpu_write(current_kprobe, running);
	return false;
}

/**
 * kprobe_site_post_handlers() - run the post_handlers of a site
 * @site: the site whose instruction was just carried out
 * @regs: the registers after the instruction
 *
 * Ends the handler level of this CPU: current_kprobe is NULL afterwards.
 */
void __kprobes kprobe_site_post_handlers(struct kprobe_site *site,
					 struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p;

	kcb->kprobe_status = KPROBE_HIT_SSDONE;
	list_for_each_entry_rcu(p, &site->probes, list) {
		if (kprobe_disabled(p) || !p->post_handler)
			continue;
		__this_cpu_write(current_kprobe, p);
		p->post_handler(p, regs, 0);
	}
	reset_current_kprobe();
}

/**
 * kprobe_site_fault_handlers() - offer a fault to the probes of a site
 * @site: the site whose instruction faulted while executed out of line
 * @regs: the registers of the fault
 * @trapnr: the trap number
 *
 * Return: non-zero when one fault_handler claimed the fault.
 */
int __kprobes kprobe_site_fault_handlers(struct kprobe_site *site,
					 struct pt_regs *regs, int trapnr)
{
	struct kprobe *p;

	list_for_each_entry_rcu(p, &site->probes, list) {
		if (kprobe_disabled(p) || !p->fault_handler)
			continue;
		if (p->fault_handler(p, regs, trapnr))
			return 1;
	}
	return 0;
}

/* A dummy probe that makes every hit a miss while this CPU is busy. */
struct kprobe kprobe_busy;

/**
 * kprobe_busy_begin() - make probes hit on this CPU count as missed
 *
 * For code that must not be interrupted by probe handlers; pairs with
 * kprobe_busy_end().  Disables preemption in between.  Never from inside
 * a handler: kprobe_busy_end() clears current_kprobe, and the handler
 * level below would lose it (kprobe_pair_pre()'s per-CPU state, among
 * others, counts on nothing clearing it while a handler runs).
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	__this_cpu_write(current_kprobe, &kprobe_busy);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
}

/**
 * kprobe_busy_end() - end the section begun by kprobe_busy_begin()
 */
void kprobe_busy_end(void)
{
	reset_current_kprobe();
	preempt_enable();
}
