// SPDX-License-Identifier: GPL-2.0
/*
 * Probe sites and the handler calls made from the breakpoint path.
 *
 * Everything in this file that runs on a probe hit is in .kprobes.text, so
 * that it can never be probed itself: a breakpoint in the code that handles
 * breakpoints would recurse without end.
 */
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/rculist.h>

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
	RCU_INIT_POINTER(site->single, NULL);
	kprobe_site_drop_pending(site);
	kprobe_site_opt_gone(site);
	if (site->ftrace)
		kprobe_ftrace_site_gone(site);
	hash_del_rcu(&site->node);
	list_for_each_entry(p, &site->probes, list)
		p->flags |= KPROBE_FLAG_GONE;
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
	if (site) {
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

/**
 * get_kprobe() - the first probe registered at an address
 * @addr: the address
 *
 * Return: a registered probe at @addr, or NULL; on a classic architecture
 * the site's aggregate probe, which its breakpoint handler works with.
 * The caller holds the RCU read lock or otherwise keeps the probe from
 * being unregistered.
 */
struct kprobe *__kprobes get_kprobe(void *addr)
{
	struct kprobe_site *site = kprobe_site_lookup(addr);

	if (!site)
		return NULL;
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	return &site->aggr;
#else
	return list_first_or_null_rcu(&site->probes, struct kprobe, list);
#endif
}
EXPORT_SYMBOL_GPL(get_kprobe);

/* A hit of @p's handlers was missed; for an aggregate, all of the site's. */
void __kprobes kprobes_inc_nmissed_count(struct kprobe *p)
{
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	if (kprobe_is_site_aggr(p)) {
		kprobe_site_missed(container_of(p, struct kprobe_site, aggr));
		return;
	}
#endif
	p->nmissed++;
}

/* A hit that cannot run handlers: every probe at the site misses it. */
void __kprobes kprobe_site_missed(struct kprobe_site *site)
{
	struct kprobe *p;

	list_for_each_entry_rcu(p, &site->probes, list)
		if (!kprobe_disabled(p))
			kprobes_inc_nmissed_count(p);
}

/**
 * kprobe_site_pre_handlers() - run the pre_handlers of a site
 * @site: the site that was hit
 * @regs: the registers at the hit, regs->ip just past the breakpoint
 * @jprobe_ok: a jprobe's handler may take over from here; when not (the
 *	plain ftrace_ops, ftrace.c), a jprobe counts the hit as missed
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
		if (likely(jprobe_ok))
			return jprobe_enter(site, jprobe, regs);
		kprobes_inc_nmissed_count(jprobe);
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
 * kprobe_busy_end().  Disables preemption in between.
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
