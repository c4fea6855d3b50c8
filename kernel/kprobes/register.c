// SPDX-License-Identifier: GPL-2.0
/*
 * Registering, removing, enabling and disabling probes.
 *
 * All of it runs under kprobe_mutex.  A registration resolves the address,
 * refuses unsafe places, and either joins the site already at that address
 * or prepares a new one (the arch decodes and copies the instruction).  The
 * site is published in the hash before its int3 is written, so a CPU that
 * reaches the int3 always finds it.
 *
 * Removal runs the other way round: restore the original byte, sync all
 * CPUs' instruction fetch, take the site out of the hash, then wait for an
 * RCU grace period.  The breakpoint path runs with interrupts off, which
 * is an RCU read-side critical section, and the copy of an instruction
 * runs with IF cleared up to the int3 behind it; after the grace period no
 * CPU can be in a handler of the probe or in its copy, and both can go.
 * (A site whose jump is in parks instead, for a little while, and is
 * removed the same way later; see "Parked sites" below.)
 * Batches do the sync and the grace period once for all their probes.
 */
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <asm/sections.h>

#include "internal.h"

/**
 * kprobe_lookup_name() - the address of a symbol, for probing
 * @name: a symbol, or "module:symbol"
 * @offset: what the caller will add (it is not added here)
 *
 * An architecture whose symbols are not their code's address overrides
 * it: powerpc (ELFv1 function descriptors; ELFv2's global entry, which it
 * skips for sym+0 only).
 *
 * Return: the symbol's address, or NULL when there is none.
 */
kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

/*
 * The address @p asks for: exactly one of ->addr and ->symbol_name, plus
 * ->offset, adjusted by the arch at a function's entry.
 */
int kprobe_resolve_addr(struct kprobe *p, kprobe_opcode_t **addrp,
			bool *on_func_entry)
{
	unsigned long addr, offset;

	if (!p->addr == !p->symbol_name)
		return -EINVAL;
	if (p->symbol_name) {
		/*
		 * The offset goes along: an arch that moves a function's
		 * start to its real entry (powerpc: past the global entry,
		 * or to its ftrace location) does so only for sym+0.  The
		 * lookup does not add it.
		 */
		addr = (unsigned long)kprobe_lookup_name(p->symbol_name,
							 p->offset);
		if (!addr)
			return -ENOENT;
	} else {
		addr = (unsigned long)p->addr;
	}
	/*
	 * ->offset may reach past the symbol: perf probe counts every kernel
	 * probe from _text, and kprobe events accept a symbol plus the
	 * distance to the next.  Where it lands is checked as any address.
	 */
	addr += p->offset;

	/*
	 * Re-split into function start and offset for the arch.  No symbol
	 * there: -ENOENT, what upstream answers for such an address.
	 */
	if (!kallsyms_lookup_size_offset(addr, NULL, &offset))
		return -ENOENT;
	*addrp = arch_adjust_kprobe_addr(addr - offset, offset, on_func_entry);
	return 0;
}

/*
 * May a probe go at @addr at all?  For module text, *@modp holds a
 * reference on the module until the caller puts it.
 */
static int check_place(kprobe_opcode_t *addr, struct module **modp)
{
	unsigned long a = (unsigned long)addr;

	*modp = NULL;
	if (!core_kernel_text(a))
		return kprobe_check_module_place(a, modp);
	if (kprobe_refuses_core_text(a))
		return -EINVAL;
	return 0;
}

/* A site for @p, the first probe at @addr; not yet in the hash. */
static struct kprobe_site *site_alloc(kprobe_opcode_t *addr, struct kprobe *p,
				      bool from_bare)
{
	struct kprobe_site *site;
	int ftrace, ret;

	/* ftrace's text is never ours to patch: its sites go through it. */
	ftrace = kprobe_ftrace_place(addr);
	if (ftrace < 0)
		return ERR_PTR(ftrace);
	site = kzalloc(sizeof(*site), GFP_KERNEL);
	if (!site)
		return ERR_PTR(-ENOMEM);
	site->addr = addr;
	site->ftrace = ftrace;
	/*
	 * ->posted, before any probe is linked, tells the arch whether the
	 * first has a post_handler (the post copy is built only then);
	 * site_update_arming() sets it from the probes right after.
	 */
	site->posted = !!p->post_handler;
	INIT_LIST_HEAD(&site->probes);
	INIT_LIST_HEAD(&site->poke);
	INIT_LIST_HEAD(&site->opt_list);
	/* (Without KPROBES_ON_FTRACE, kprobe_ftrace_place() refuses them.) */
	if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) && ftrace)
		ret = arch_prepare_kprobe_ftrace_site(site);
	else if (from_bare)
		ret = kprobe_site_adopt_bare(site, p);
	else
		ret = arch_prepare_kprobe_site(site);
	if (ret) {
		kfree(site);
		return ERR_PTR(ret);
	}
	return site;
}

/* A site for @p, the first probe at @addr, published. */
static struct kprobe_site *site_create(kprobe_opcode_t *addr,
				       struct kprobe *p)
{
	struct kprobe_site *site = site_alloc(addr, p, false);

	if (!IS_ERR(site))
		kprobe_site_insert(site);
	return site;
}

static bool site_has_jprobe(struct kprobe_site *site)
{
	struct kprobe *q;

	list_for_each_entry(q, &site->probes, list)
		if (q->pre_handler == jprobe_setjmp)
			return true;
	return false;
}

/* debugfs' enabled: false while every probe is disarmed; kprobe_mutex. */
static bool kprobes_all_armed = true;

/*
 * Does any probe at @site need the instruction stepped (int3.c): a fault
 * in it must reach the fault_handler, a jprobe comes back with a trap.
 */
static bool site_needs_step(struct kprobe_site *site)
{
	struct kprobe *p;

	list_for_each_entry(p, &site->probes, list)
		if (p->fault_handler || p->pre_handler == jprobe_setjmp)
			return true;
	return false;
}

static bool site_has_post(struct kprobe_site *site)
{
	struct kprobe *p;

	list_for_each_entry(p, &site->probes, list)
		if (p->post_handler)
			return true;
	return false;
}

/*
 * Is ->single the site's only probe, with a post_handler?  Then a hit that
 * ran its pre_handler, and finds that probe still in ->single, may call
 * its post_handler without walking the list (ftrace_end_hit(),
 * ftrace_handler.c).  A pair is in no list: false.
 */
static bool site_post_single(struct kprobe_site *site)
{
	struct kprobe *p = rcu_dereference_protected(site->single,
					lockdep_is_held(&kprobe_mutex));

	return p && site->probes.next == &p->list &&
	       list_is_singular(&site->probes) && p->post_handler;
}

/*
 * Arm or disarm @site to match its probes, and let the optimizer know;
 * the caller commits.
 */
static void site_update_arming(struct kprobe_site *site)
{
	if (site->gone)
		return;
	/*
	 * ->post_single goes off before ->single changes and is set again
	 * after: a hit that read ->single when this change had published it
	 * then reads no ->post_single left from before it.  The release of
	 * rcu_assign_pointer() orders the clear before the publication; the
	 * smp_wmb() orders the publication before the new value.  They pair
	 * with the hit's smp_rmb()s (ftrace_end_hit()).
	 */
	WRITE_ONCE(site->post_single, false);
	kprobe_site_update_single(site);
	WRITE_ONCE(site->stepped, site_needs_step(site));
	WRITE_ONCE(site->posted, site_has_post(site));
	/* Pairs with the smp_rmb()s of ftrace_end_hit() (above). */
	smp_wmb();
	WRITE_ONCE(site->post_single, site_post_single(site));
	if (site->ftrace)
		kprobe_ftrace_site_update(site, site_has_jprobe(site));
	kprobe_site_set_armed(site, kprobes_all_armed &&
			      kprobe_site_has_enabled(site));
	kprobe_site_update_opt(site);
}

/*
 * Another probe comes to the address of bare probe @bare (bare.c): it
 * becomes the first probe of a new site, built in full, ->single and
 * all, before the hash shows it.  From then on the hits, which look for
 * a site first (the ftrace handler, a classic arch's get_kprobe()), find
 * the site; until then they find @bare.  Each hit runs @bare's handler
 * once either way.  The address stays in the filter, or the breakpoint
 * in the text.  No neighbour's region can hold a bare probe's address
 * (optimize.c refuses ftrace's text, and a classic arch with bare probes
 * at breakpoints has no jump optimization), so unlike site_create()'s
 * callers this one has no kprobe_opt_neighbours_changed() to call.  A
 * batch that fails later leaves @bare on its site, which behaves the
 * same.
 */
static struct kprobe_site *site_from_bare(struct kprobe *bare)
{
	struct kprobe_site *site = site_alloc(bare->addr, bare, true);

	if (IS_ERR(site))
		return site;
	kprobe_bare_hand_over(bare, site);
	/* No kprobe_site_lend_copy(): the site's copy is @bare's own. */
	list_add_tail_rcu(&bare->list, &site->probes);
	site_update_arming(site);
	/* Publishes with a release: the site is whole when a hit finds it. */
	kprobe_site_insert(site);
	/*
	 * A hit that looked for the site before it was there, and for @bare
	 * after it left, looks for the site again and finds it; this orders
	 * the two for that second look (kprobe_bare_gone_to_site()).
	 */
	smp_wmb();
	kprobe_bare_unhash(bare);
	return site;
}

/* Is @p registered, with a site or bare? */
static bool registered(struct kprobe *p)
{
	return kprobe_site_of(p) || kprobe_bare_registered(p);
}

static void site_unpark(struct kprobe_site *site, struct list_head *dead);
static int finish_removal(struct kprobe **kps, int num, struct list_head *dead);

/* What registration sets in @p wherever it goes. */
static void probe_init(struct kprobe *p, kprobe_opcode_t *addr,
		       bool on_func_entry)
{
	p->addr = addr;
	p->flags &= KPROBE_FLAG_DISABLED;
	if (on_func_entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	if (p->pre_handler == jprobe_setjmp)
		p->flags |= KPROBE_FLAG_JPROBE;	/* for the detour's one test */
	p->nmissed = 0;
}

static int __register_kprobe(struct kprobe *p)
{
	struct kprobe *bare;
	struct kprobe_site *site;
	kprobe_opcode_t *addr;
	bool on_func_entry;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	/*
	 * Already registered: asked before resolving, because a registered
	 * probe's ->addr already holds its place, and resolving it again
	 * would add ->offset a second time and find some other site (or a
	 * GONE probe's reloaded module) and link ->list twice.
	 */
	if (registered(p))
		return -EINVAL;
	ret = kprobe_resolve_addr(p, &addr, &on_func_entry);
	if (ret)
		return ret;

	site = kprobe_site_lookup(addr);
	if (site && list_empty(&site->probes) && p->post_handler) {
		/*
		 * A parked site was built for probes without a post_handler
		 * (site_create() tells the arch): a new one is built for this.
		 */
		LIST_HEAD(dead);

		site_unpark(site, &dead);
		/*
		 * The removal commits what the batch's earlier entries
		 * queued: ftrace refusing their sites now fails the batch,
		 * as it would at the batch's end.
		 */
		ret = finish_removal(NULL, 0, &dead);
		if (ret)
			return ret;
		site = NULL;
	}
	if (site && p->pre_handler == jprobe_setjmp && site_has_jprobe(site))
		return -EBUSY;		/* one jprobe per function */
	bare = site ? NULL : kprobe_bare_at(addr);
	if (bare) {
		site = site_from_bare(bare);
		if (IS_ERR(site))
			return PTR_ERR(site);
	}
	if (!site) {
		struct module *mod;

		ret = check_place(addr, &mod);
		if (ret)
			return ret;
		if (kprobe_bare_fits(p, addr)) {
			/* Its address is in the filter while the module stays. */
			module_put(mod);
			probe_init(p, addr, on_func_entry);
			return kprobe_bare_add(p);
		}
		/* The module cannot go while its reference is held. */
		site = site_create(addr, p);
		module_put(mod);
		if (IS_ERR(site))
			return PTR_ERR(site);
		/* A site inside another's region stops that one's jump. */
		kprobe_opt_neighbours_changed(addr);
	}

	probe_init(p, addr, on_func_entry);
	if (site->ftrace)
		p->flags |= KPROBE_FLAG_FTRACE;
	p->opcode = site->opcode;
	kprobe_site_lend_copy(site, p);
	/*
	 * A hit that runs this probe's pre_handler must also find the site
	 * set up for what the probe needs after it (the arch reads ->posted
	 * and ->stepped after the walk of the list): set before the probe
	 * is published, which list_add_tail_rcu()'s release orders;
	 * site_update_arming() recomputes both from the probes.
	 */
	if (p->post_handler)
		WRITE_ONCE(site->posted, true);
	if (p->fault_handler || p->pre_handler == jprobe_setjmp)
		WRITE_ONCE(site->stepped, true);
	/*
	 * And a jump merely queued is given up first, which ends the site's
	 * flux (with a release) unless a jmp stands: a hit that runs this
	 * probe's pre_handler on the int3 then reads no flux either, and
	 * takes the step path, not the region copy.  With a jmp in, the
	 * flux lasts until it is undone; the hits meanwhile leave this
	 * probe out (kprobe_site_pre_handlers_passing()).
	 */
	if (site->posted || site->stepped)
		kprobe_site_update_opt(site);
	list_add_tail_rcu(&p->list, &site->probes);
	site_update_arming(site);
	return 0;
}

/*
 * Freeing a site.  A task may be preempted inside its boost copy or its
 * detour (whose head holds the site's address) long after the text sync
 * and the grace period above, so the slot and the site go only after an
 * RCU Tasks grace period, which waits for every task to pass a voluntary
 * context switch.  The callback cannot take kprobe_mutex (slots.c needs
 * it), so it hands the site to a work item.
 */
static LLIST_HEAD(sites_to_free);

static void free_sites_work(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&sites_to_free);
	struct kprobe_site *site, *tmp;

	mutex_lock(&kprobe_mutex);
	llist_for_each_entry_safe(site, tmp, list, reap) {
		arch_remove_kprobe_site(site);
		kfree(site);
	}
	mutex_unlock(&kprobe_mutex);
}

static DECLARE_WORK(sites_free_work, free_sites_work);

static void site_tasks_rcu_done(struct rcu_head *head)
{
	struct kprobe_site *site = container_of(head, struct kprobe_site, rcu);

	/* ->reap shares ->rcu's bytes: RCU is done with them once here. */
	if (llist_add(&site->reap, &sites_to_free))
		schedule_work(&sites_free_work);
}

/*
 * ->rcu shares its bytes with ->opt_list.  The site is off the optimizer's
 * queues by now: the removal's commit unoptimized it, or
 * kprobe_site_opt_gone() dropped it when its text went; and nothing under
 * kprobe_mutex can find it again.  Should a queue (or the arming queue)
 * still hold it, it is taken off and left allocated: a leak, not a
 * use-after-free.  Context: kprobe_mutex held.
 */
static void site_free_after_tasks(struct kprobe_site *site)
{
	if (WARN_ON_ONCE(!list_empty(&site->opt_list) ||
			 !list_empty(&site->poke))) {
		list_del_init(&site->opt_list);
		list_del_init(&site->poke);
		return;
	}
	call_rcu_tasks(&site->rcu, site_tasks_rcu_done);
}

/*
 * Parked sites.  When the last probe of a site whose jump is in goes, the
 * site stays a little while, jump and detour and all, running no handler
 * (the detour finds no probe).  A tool that replaces its probe, removing
 * it and registering another at the same place, then gets a probe that is
 * optimized at once instead of waiting out the optimizer's grace period
 * again, and the removal itself writes no text.  A parked site is one on
 * kprobe_sites without probes; a registration there takes it up again,
 * and the work below removes those still parked, as their last
 * unregistration would have.  A parked site whose text goes (its module
 * leaves) turns gone like any other, and is freed the same way.
 */
#define PARK_DELAY	(HZ / 10)

/* Remove @site now, as its last unregistration would have. */
static void site_unpark(struct kprobe_site *site, struct list_head *dead)
{
	site_update_arming(site);
	list_move_tail(&site->all, dead);
}

static void reap_parked_sites(struct work_struct *work)
{
	struct kprobe_site *site, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&kprobe_mutex);
	list_for_each_entry_safe(site, tmp, &kprobe_sites, all)
		if (list_empty(&site->probes))
			site_unpark(site, &dead);
	if (!list_empty(&dead))
		finish_removal(NULL, 0, &dead);
	mutex_unlock(&kprobe_mutex);
}

static DECLARE_DELAYED_WORK(parked_work, reap_parked_sites);

/* Remove parked sites now (kprobe_optimizer_flush(), for tests). */
void kprobe_reap_parked_sites(void)
{
	flush_delayed_work(&parked_work);
}

/*
 * Park @site, which just lost its last probe, if its jump is in; the
 * caller's grace period (finish_removal()) still waits out the handlers
 * of that probe.  Context: kprobe_mutex held.
 */
static bool site_park(struct kprobe_site *site)
{
	if (site->opt != KPROBE_OPT_DONE || site->gone)
		return false;
	WRITE_ONCE(site->post_single, false);	/* as site_update_arming() */
	kprobe_site_update_single(site);	/* no handler to call */
	schedule_delayed_work(&parked_work, PARK_DELAY);
	return true;
}

/*
 * @p, the last probe of @site, leaves, and the site with it.  As
 * upstream's probe stayed in its hash until its breakpoint was out, @p
 * stays on the site's list, and the site keeps what its hits run
 * (->single, ->posted, ->stepped, ->post_single), until the site is
 * disarmed, out of the hash, and a grace period has passed
 * (finish_removal()).  A hit meanwhile runs @p whole, and one that ran
 * its pre_handler just before still finds its post_handler
 * (ftrace_end_hit()'s ->single, int3.c's post copy and walk): a probe
 * alone at its address gets every post_handler whose pre_handler it
 * had.  Only the hits see the site in between: the removal holds
 * kprobe_mutex throughout, and kprobe_site_of() skips a leaving probe.
 *
 * A site that parks (its jump stays; no probe of it has a post_handler)
 * and a gone one are emptied as before.  Return: false for those.
 */
static bool site_start_dying(struct kprobe_site *site, struct kprobe *p,
			     struct list_head *dead)
{
	if (site->gone || site->opt == KPROBE_OPT_DONE)
		return false;
	kprobe_flags_change(p, KPROBE_FLAG_LEAVING, 0);
	/* The original text; the IPMODIFY claim and a queued jump go. */
	if (site->ftrace)
		kprobe_ftrace_site_update(site, false);
	kprobe_site_set_armed(site, false);
	kprobe_site_update_opt(site);
	list_move_tail(&site->all, dead);
	return true;
}

/*
 * After the grace period: nothing reads a dying site's list or ->single.
 * The probe's own ->list may have been reinitialised already
 * (finish_removal()); the site's head still points at it.
 */
static void site_end_dying(struct kprobe_site *site)
{
	struct kprobe *p = list_first_entry_or_null(&site->probes,
						    struct kprobe, list);

	if (!p || !(p->flags & KPROBE_FLAG_LEAVING))
		return;
	kprobe_flags_change(p, 0, KPROBE_FLAG_LEAVING);
	kprobe_site_drop_single(site);
	INIT_LIST_HEAD(&site->probes);
}

/*
 * First half of a removal: unlink @p and ask for its site to be disarmed if
 * nothing enabled is left there, unless the site parks.  An emptied site
 * moves to @dead; it stays in the hash until its original byte is back
 * (finish_removal()), so that a CPU meeting its int3 meanwhile still
 * finds it.
 * Return: false when @p is not registered.
 */
static bool __unregister_kprobe_top(struct kprobe *p, struct list_head *dead)
{
	struct kprobe_site *site = kprobe_site_of(p);

	if (!site && kprobe_bare_registered(p)) {
		kprobe_bare_remove(p);
		return true;
	}
	if (!site)
		return false;
	if (list_is_singular(&site->probes) && site_start_dying(site, p, dead))
		return true;
	list_del_rcu(&p->list);
	if (list_empty(&site->probes) && site_park(site))
		return true;
	site_update_arming(site);
	if (list_empty(&site->probes))
		list_move_tail(&site->all, dead);
	return true;
}

/*
 * Second half: write the original bytes back, unhash the emptied sites, then
 * one text sync and one grace period for the whole batch, and free them.
 *
 * The sync is an IPI every CPU must take, and a CPU takes no interrupt
 * between reaching an int3 and leaving the copy, so the sync alone already
 * drains the breakpoint path.  The grace period is for the other readers
 * of the hash and the probe lists: get_kprobe() callers under RCU.  It is
 * expedited: a normal grace period costs several ticks of waiting, most
 * of an unregistration's time, while the sync has just interrupted every
 * CPU anyway, so the IPIs of an expedited one add little disturbance.
 *
 * Return: 0, or ftrace's error from kprobe_commit_text().  The removed
 * probes are gone either way; the error tells that other queued sites
 * were left unarmed, which only a removal in the middle of a
 * registration has queued.
 */
static int finish_removal(struct kprobe **kps, int num, struct list_head *dead)
{
	struct kprobe_site *site, *tmp;
	int i, ret;

	ret = kprobe_commit_text();
	list_for_each_entry(site, dead, all)
		kprobe_site_unhash(site);
	/*
	 * Sites whose regions held the dead ones may jump again; only a site
	 * that was ever inside a region can have held one back.
	 */
	list_for_each_entry(site, dead, all)
		if (!site->gone && site->in_region)
			kprobe_opt_neighbours_changed(site->addr);
	kprobe_serialise_cpus();
	synchronize_rcu_expedited();
	kprobe_bare_release();	/* the copies of removed bare probes */
	/* No CPU can see these lists any more. */
	for (i = 0; i < num; i++)
		if (kps[i] && kps[i]->addr)
			INIT_LIST_HEAD(&kps[i]->list);
	list_for_each_entry_safe(site, tmp, dead, all) {
		site_end_dying(site);
		site_free_after_tasks(site);
	}
	return ret;
}

/**
 * kprobe_batch_invalid() - is this no array of probes?
 * @objs: the array (of struct kprobe *, struct kretprobe *...)
 * @num: its length
 *
 * Return: true for a NULL array, @num <= 0, or a NULL entry.
 */
bool kprobe_batch_invalid(void **objs, int num)
{
	int i;

	if (!objs || num <= 0)
		return true;
	for (i = 0; i < num; i++)
		if (!objs[i])
			return true;
	return false;
}

/**
 * register_kprobes() - register an array of kprobes
 * @kps: the probes
 * @num: how many
 *
 * Either all are registered, or none: when one fails, those before it are
 * removed again before the error returns.
 *
 * Return: 0; -EINVAL for a NULL array, @num <= 0, a NULL entry, a probe
 * registered already (or twice in @kps), both or neither of addr and
 * symbol_name, or a place that cannot be probed; -ENOENT for an
 * unknown symbol or an address with no symbol; -EILSEQ for an address
 * inside an instruction (ftrace's call included); -ENOMEM;
 * at an ftrace location (the fentry call), ftrace's own error when it
 * cannot take the probe (-ENODEV once ftrace has shut itself down).
 */
int register_kprobes(struct kprobe **kps, int num)
{
	bool published;

	return kprobe_register_batch(kps, num, &published);
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * kprobe_register_batch() - register_kprobes(), telling what a failure left
 * @kps: the probes
 * @num: how many
 * @published: set when the call fails after publishing a probe of the batch
 *	(a later entry refused, or the ftrace step at the end): a CPU may
 *	have run its handler (and a kretprobe's entry taken an instance
 *	that returns later).  Clear on success and when the first entry
 *	was refused, which publishes nothing.
 *
 * Return: as register_kprobes().
 */
int kprobe_register_batch(struct kprobe **kps, int num, bool *published)
{
	struct { kprobe_opcode_t *addr; u32 flags; } *old;
	LIST_HEAD(dead);
	int i, j, ret = 0;

	*published = false;
	if (kprobe_batch_invalid((void **)kps, num))
		return -EINVAL;
	/*
	 * Registration fills in ->addr and ->flags: a failed batch puts them
	 * all back.
	 */
	old = kmalloc_array(num, sizeof(*old), GFP_KERNEL);
	if (!old)
		return -ENOMEM;

	mutex_lock(&kprobe_mutex);
	/*
	 * Under the mutex: an entry registered already has flags that the
	 * optimizer, the module notifier or disable_kprobe() may be changing
	 * under it, and putting back an older copy would undo that.
	 */
	for (i = 0; i < num; i++) {
		old[i].addr = kps[i]->addr;
		old[i].flags = kps[i]->flags;
	}
	for (i = 0; i < num; i++) {
		ret = __register_kprobe(kps[i]);
		if (ret)
			break;
	}
	/* Only arming an ftrace site can fail here: then all of them go. */
	if (!ret)
		ret = kprobe_sync_text();
	if (ret) {
		for (j = 0; j < i; j++)
			__unregister_kprobe_top(kps[j], &dead);
		/*
		 * A batch refused at its first probe changed nothing: no
		 * text sync and no grace period (kprobe events add probes
		 * one by one, and most candidates of a sweep are refused).
		 */
		if (i)
			finish_removal(kps, i, &dead);
		*published = i;
		/*
		 * The bare bits stay as the batch left them: the entry that
		 * failed may be a bare probe registered before the batch,
		 * which an earlier entry gave a site (ftrace.c).
		 */
		for (j = 0; j <= i && j < num; j++) {
			kps[j]->addr = old[j].addr;
			WRITE_ONCE(kps[j]->flags,
				   (old[j].flags & ~KPROBE_BARE_BITS) |
				   (kps[j]->flags & KPROBE_BARE_BITS));
		}
	}
	mutex_unlock(&kprobe_mutex);
	kfree(old);
	return ret;
}

/**
 * register_kprobe() - put a probe on a kernel instruction
 * @p: the probe; ->addr, or ->symbol_name and ->offset, name the place
 *
 * On return the probe is armed on every CPU (unless registered with
 * KPROBE_FLAG_DISABLED).  Errors as for register_kprobes().
 *
 * Return: 0 or a negative errno.
 */
int register_kprobe(struct kprobe *p)
{
	return register_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/* Is @p registered?  Takes kprobe_mutex. */
bool kprobe_is_registered(struct kprobe *p)
{
	bool ret;

	mutex_lock(&kprobe_mutex);
	ret = registered(p);
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * kprobe_array_of() - the kprobes embedded in an array of probes
 * @objs: the probes (struct kretprobe **, struct jprobe **...)
 * @num: how many
 * @offset: where the struct kprobe sits in each
 * @gfp: allocation flags
 *
 * Return: a kmalloc'ed array of @num kprobe pointers (NULL where @objs
 * has NULL), or NULL.
 */
struct kprobe **kprobe_array_of(void **objs, int num, size_t offset, gfp_t gfp)
{
	struct kprobe **kps = kcalloc(num, sizeof(*kps), gfp);
	int i;

	for (i = 0; kps && i < num; i++)
		kps[i] = objs[i] ? objs[i] + offset : NULL;
	return kps;
}

/**
 * unregister_kprobes() - remove an array of kprobes
 * @kps: the probes
 * @num: how many
 *
 * An entry that is not registered gets its ->addr cleared; all others are
 * removed.  On return no CPU runs a handler of any of them.  A NULL array
 * or @num <= 0 does nothing; a NULL entry is a caller's bug, warned
 * about once, and the other entries are still removed (their handlers
 * and structs may be freed next).
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	LIST_HEAD(dead);
	int i;

	if (!kps || num <= 0)
		return;
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		if (WARN_ON_ONCE(!kps[i]))
			continue;
		/*
		 * A bare probe removed by an earlier entry of @kps still
		 * needs its ->addr for the commit (ftrace.c), and a leaving
		 * one for the hits that still run it (a classic arch
		 * resumes from ->addr).
		 */
		if (!__unregister_kprobe_top(kps[i], &dead) &&
		    !kprobe_bare_leaving(kps[i]) &&
		    !(kps[i]->flags & KPROBE_FLAG_LEAVING))
			kps[i]->addr = NULL;
	}
	finish_removal(kps, num, &dead);
	mutex_unlock(&kprobe_mutex);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * unregister_kprobe() - remove a kprobe
 * @p: the probe
 *
 * On return no CPU runs a handler of @p, and @p may be freed.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/* Arm or disarm @p's site, or @p if it is bare, to match its probes. */
static void probe_update_arming(struct kprobe *p, struct kprobe_site *site)
{
	if (site)
		site_update_arming(site);
	else
		kprobe_bare_update_arming(p);
}

static int set_kprobe_disabled(struct kprobe *kp, bool disable)
{
	struct kprobe_site *site;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	site = kprobe_site_of(kp);
	if ((!site && !kprobe_bare_registered(kp)) || kprobe_gone(kp)) {
		ret = -EINVAL;
		goto out;
	}
	if (disable)
		kprobe_flags_change(kp, KPROBE_FLAG_DISABLED, 0);
	else
		kprobe_flags_change(kp, 0, KPROBE_FLAG_DISABLED);
	probe_update_arming(kp, site);
	ret = kprobe_sync_text();
	if (ret && !disable) {
		/* ftrace refused the site: the probe stays disabled. */
		kprobe_flags_change(kp, KPROBE_FLAG_DISABLED, 0);
		probe_update_arming(kp, site);
		kprobe_sync_text();
	}
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * disable_kprobe() - keep a probe registered but stop its handlers
 * @kp: a registered probe
 *
 * Return: 0, or -EINVAL when @kp is not registered or its code is gone.
 */
int disable_kprobe(struct kprobe *kp)
{
	return set_kprobe_disabled(kp, true);
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * enable_kprobe() - let a disabled probe's handlers run again
 * @kp: a registered probe
 *
 * Return: 0, or -EINVAL when @kp is not registered or its code is gone;
 * at an ftrace location, ftrace's error when it cannot take the probe
 * (the probe then stays disabled).
 */
int enable_kprobe(struct kprobe *kp)
{
	return set_kprobe_disabled(kp, false);
}
EXPORT_SYMBOL_GPL(enable_kprobe);

bool kprobes_armed(void)
{
	return READ_ONCE(kprobes_all_armed);
}

static void bare_update_arming(struct kprobe *p, void *unused)
{
	kprobe_bare_update_arming(p);
}

/*
 * Arm or disarm every site at once; each probe's own disabled state is
 * kept, and probes registered while disarmed stay unarmed until re-armed.
 * Return: 0, or ftrace's error when it refused some ftrace sites.
 */
int kprobes_set_armed(bool on)
{
	struct kprobe_site *site;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	/* 1 again retries the ftrace sites that ftrace refused before. */
	if (kprobes_all_armed != on || on) {
		WRITE_ONCE(kprobes_all_armed, on);
		list_for_each_entry(site, &kprobe_sites, all)
			site_update_arming(site);
		kprobe_bare_for_each(bare_update_arming, NULL);
		/* Sites ftrace refused stay unarmed; the next 1 tries again. */
		ret = kprobe_sync_text();
	}
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * kprobe_on_func_entry() - would a probe at this place be at a function entry
 * @addr: an address, or NULL
 * @sym: a symbol name, or NULL
 * @offset: offset from @addr or @sym
 *
 * Return: 0 when it would, -EINVAL when not, -ENOENT for an unknown symbol.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	struct kprobe p = { .addr = addr, .symbol_name = sym, .offset = offset };
	kprobe_opcode_t *where;
	bool on_entry;
	int ret = kprobe_resolve_addr(&p, &where, &on_entry);

	if (ret)
		return ret;
	return on_entry ? 0 : -EINVAL;
}

/**
 * dump_kprobe() - print a probe's description to the kernel log
 * @kp: the probe
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("kprobe at %pS (%s+%u), flags %#x, missed %lu\n", kp->addr,
	       kp->symbol_name ?: "-", kp->offset, kp->flags, kp->nmissed);
}

NOKPROBE_SYMBOL(dump_kprobe);

/*
 * Init text is about to be freed: probes there are gone.  Their int3s go
 * with the text, so nothing is written back; the sites stay until their
 * probes are unregistered.
 */
static bool in_init_text(unsigned long addr, void *unused)
{
	return is_kernel_inittext(addr);
}

void kprobe_free_init_mem(void)
{
	struct kprobe_site *site;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(site, &kprobe_sites, all)
		if (!site->gone && is_kernel_inittext((unsigned long)site->addr))
			kprobe_site_gone(site);
	kprobe_bare_text_gone(in_init_text, NULL);
	arch_kprobe_text_gone();
	mutex_unlock(&kprobe_mutex);
}

static int __init init_kprobes(void)
{
	return kprobe_blacklist_init();
}
early_initcall(init_kprobes);
