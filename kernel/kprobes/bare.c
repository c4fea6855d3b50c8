// SPDX-License-Identifier: GPL-2.0
/*
 * Bare probes: a probe alone at its address, registered without a site.
 *
 * Most probes are alone at their address and need nothing a site keeps:
 * no list to walk, no aggregate, no optimizer state.  Such a probe goes
 * without one where the mechanism that reaches it can take the probe
 * itself:
 *
 *  - at an ftrace location (ftrace.c), a probe with a pre_handler and
 *    nothing else (a kprobe event's, a BPF program's, a kretprobe's):
 *    its address goes into the plain ops' filter, and the ftrace handler
 *    runs it (ftrace_handler.c, or a classic arch's own);
 *  - anywhere, on a classic architecture with neither ftrace's probes nor
 *    jump optimization (classic_bare.c), any probe but a jprobe or one
 *    with a fault_handler: the arch prepares and arms the probe itself,
 *    and its breakpoint handler gets it from get_kprobe(), as upstream's
 *    got a probe alone at its address.
 *
 * It is hashed by its own ->hlist (kprobe_bare_hash, which the hits read
 * when no site is at the address), and its two states are bits of its
 * ->flags:
 *
 *   KPROBE_FLAG_BARE_ARMED  it wants to be reached (kprobes armed, the
 *                           probe enabled and not gone)
 *   KPROBE_FLAG_BARE_IN     it is reached: its address is in the filter,
 *                           or its breakpoint is in the text
 *
 * Its ->list is on kprobe_bare_queue while the two differ (until the next
 * commit, which every API call makes before it drops kprobe_mutex, and
 * which the mechanism carries out), and on bare_gone once its text has
 * gone; otherwise it is empty, or the mechanism's own (classic_bare.c
 * keeps removed probes until their copy may be freed).
 *
 * A bare probe gets a site when its address gets a second probe, of any
 * kind: kprobe_bare_hand_over() (register.c builds the site around it,
 * then publishes it).  The site starts as the probe stands, reached or
 * not.  A probe that got a site keeps it; it is never bare again.
 *
 * Everything here runs under kprobe_mutex; the hits and get_kprobe() read
 * the hash under RCU (interrupts or preemption off), and a removal waits
 * for them with the grace period of finish_removal() (register.c).
 */
#include <linux/hashtable.h>
#include <linux/kprobes.h>

#include "internal.h"

DEFINE_HASHTABLE(kprobe_bare_hash, KPROBE_SITE_HASH_BITS);
LIST_HEAD(kprobe_bare_queue);
static LIST_HEAD(bare_gone);

/* Must the next commit reach or leave a bare probe? kprobe_mutex. */
bool kprobe_bare_pending(void)
{
	return !list_empty(&kprobe_bare_queue);
}

/* The hashed bare probe at @addr, or NULL.  Context: kprobe_mutex held. */
struct kprobe *kprobe_bare_at(kprobe_opcode_t *addr)
{
	lockdep_assert_held(&kprobe_mutex);
	return kprobe_bare_find(addr);
}

/**
 * kprobe_bare_registered() - is @p a registered bare probe
 * @p: any probe
 *
 * The flags alone do not tell: a probe keeps them after its removal.
 * Context: kprobe_mutex held.
 */
bool kprobe_bare_registered(struct kprobe *p)
{
	struct kprobe *q;

	lockdep_assert_held(&kprobe_mutex);
	if (!(p->flags & KPROBE_FLAG_BARE) || !p->addr)
		return false;
	if (!kprobe_gone(p))
		return kprobe_bare_find(p->addr) == p;
	list_for_each_entry(q, &bare_gone, list)
		if (q == p)
			return true;
	return false;
}

/**
 * kprobe_bare_leaving() - was @p removed by this call, still to be left
 *	by the commit or released after it
 * @p: a probe that kprobe_bare_registered() denies
 *
 * Either needs its ->addr.
 * Context: kprobe_mutex held, between kprobe_bare_remove() and the end of
 * the removal.
 */
bool kprobe_bare_leaving(struct kprobe *p)
{
	struct kprobe *q;

	lockdep_assert_held(&kprobe_mutex);
	if (!(p->flags & KPROBE_FLAG_BARE))
		return false;
	list_for_each_entry(q, &kprobe_bare_queue, list)
		if (q == p)
			return true;
	return kprobe_bare_releasing(p);
}

/**
 * kprobe_bare_update_arming() - match @p's wish to its state and kprobes'
 * @p: a registered bare probe
 *
 * Queues @p when it must be reached or left; the caller commits.
 * Context: kprobe_mutex held.
 */
void kprobe_bare_update_arming(struct kprobe *p)
{
	bool armed = kprobes_armed() && !kprobe_disabled(p);

	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_gone(p))
		return;		/* on bare_gone, never reached again */
	if (armed)
		kprobe_flags_change(p, KPROBE_FLAG_BARE_ARMED, 0);
	else
		kprobe_flags_change(p, 0, KPROBE_FLAG_BARE_ARMED);
	if ((kprobe_bare_joins(p) || kprobe_bare_leaves(p)) &&
	    list_empty(&p->list))
		list_add_tail(&p->list, &kprobe_bare_queue);
}

/**
 * kprobe_bare_add() - register @p bare
 * @p: a probe for which kprobe_bare_fits(), its ->addr, ->flags and the
 *	rest filled in by the caller
 *
 * Published at once; reached from the caller's commit.
 * Context: kprobe_mutex held.
 * Return: 0, or the mechanism's error (the arch refused the instruction),
 * leaving nothing registered.
 */
int kprobe_bare_add(struct kprobe *p)
{
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	ret = kprobe_bare_prepare(p);
	if (ret)
		return ret;
	p->flags |= KPROBE_FLAG_BARE;
	INIT_LIST_HEAD(&p->list);
	/* The release of the hash's publication orders the fields above. */
	hash_add_rcu(kprobe_bare_hash, &p->hlist, (unsigned long)p->addr);
	kprobe_bare_update_arming(p);
	return 0;
}

/**
 * kprobe_bare_remove() - first half of a bare probe's removal
 * @p: a registered bare probe
 *
 * Out of the hash and left, as the mechanism orders the two
 * (kprobe_bare_withdraw()); the caller's grace period waits out the hits
 * that found it.
 * Context: kprobe_mutex held.
 */
void kprobe_bare_remove(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_gone(p)) {
		kprobe_bare_retire(p);	/* off bare_gone; unhashed already */
		return;
	}
	kprobe_flags_change(p, 0, KPROBE_FLAG_BARE_ARMED);
	kprobe_bare_withdraw(p);
}

/**
 * kprobe_bare_hand_over() - a site takes over bare probe @p
 * @p: a registered bare probe, still hashed
 * @site: a new site at its address, not yet published
 *
 * The site starts where @p stands, reached or not, with @p's wish, and
 * queued if the two differ.  @p is no longer bare; the caller links it to
 * @site, publishes @site, then unhashes @p with kprobe_bare_unhash().
 * Context: kprobe_mutex held.
 */
void kprobe_bare_hand_over(struct kprobe *p, struct kprobe_site *site)
{
	lockdep_assert_held(&kprobe_mutex);
	site->armed = !!(p->flags & KPROBE_FLAG_BARE_ARMED);
	kprobe_bare_site_starts(p, site);
	if (kprobe_bare_joins(p) || kprobe_bare_leaves(p))
		kprobe_site_queue(site);
	list_del_init(&p->list);
	kprobe_flags_change(p, 0, KPROBE_BARE_BITS);
}

/* Take @p out of the bare hash (kprobe_bare_hand_over()). */
void kprobe_bare_unhash(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	hash_del_rcu(&p->hlist);
}

/**
 * kprobe_bare_text_going() - bare probes whose text is about to go
 * @gone: tells whether an address is in the text that goes
 * @arg: for @gone
 *
 * Each stops being reached at the caller's commit, while it is still
 * hashed: code may run there until the text goes (modules.c), and a
 * breakpoint that no probe owns is an error to a classic arch's handler.
 * Context: kprobe_mutex held.
 * Return: whether any was queued.
 */
bool kprobe_bare_text_going(bool (*gone)(unsigned long addr, void *arg),
			    void *arg)
{
	struct kprobe *p;
	bool any = false;
	int bkt;

	lockdep_assert_held(&kprobe_mutex);
	hash_for_each(kprobe_bare_hash, bkt, p, hlist) {
		if (!gone((unsigned long)p->addr, arg))
			continue;
		kprobe_flags_change(p, 0, KPROBE_FLAG_BARE_ARMED);
		if (kprobe_bare_leaves(p) && list_empty(&p->list)) {
			list_add_tail(&p->list, &kprobe_bare_queue);
			any = true;
		}
	}
	return any;
}

/*
 * The text of bare probe @p goes away: the mechanism lets go of it now,
 * and it waits on bare_gone for its unregistration.
 */
static void bare_gone_now(struct kprobe *p)
{
	kprobe_bare_text_left(p);
	kprobe_flags_change(p, KPROBE_FLAG_GONE, KPROBE_BARE_STATE);
	hash_del_rcu(&p->hlist);
	list_move_tail(&p->list, &bare_gone);
}

/**
 * kprobe_bare_text_gone() - bare probes whose text goes away
 * @gone: tells whether an address is in the text that goes
 * @arg: for @gone
 *
 * Context: kprobe_mutex held.
 */
void kprobe_bare_text_gone(bool (*gone)(unsigned long addr, void *arg),
			   void *arg)
{
	struct hlist_node *tmp;
	struct kprobe *p;
	int bkt;

	lockdep_assert_held(&kprobe_mutex);
	hash_for_each_safe(kprobe_bare_hash, bkt, tmp, p, hlist)
		if (gone((unsigned long)p->addr, arg))
			bare_gone_now(p);
}

/**
 * kprobe_bare_for_each() - call @fn for every registered bare probe
 * @fn: the function; it may change the probe's arming, nothing else
 * @arg: for @fn
 *
 * Context: kprobe_mutex held.
 */
void kprobe_bare_for_each(void (*fn)(struct kprobe *p, void *arg), void *arg)
{
	struct kprobe *p;
	int bkt;

	lockdep_assert_held(&kprobe_mutex);
	hash_for_each(kprobe_bare_hash, bkt, p, hlist)
		fn(p, arg);
	list_for_each_entry(p, &bare_gone, list)
		fn(p, arg);
}
