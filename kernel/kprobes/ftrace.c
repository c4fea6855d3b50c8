// SPDX-License-Identifier: GPL-2.0
/*
 * Probes at ftrace locations.
 *
 * With CONFIG_DYNAMIC_FTRACE the call to __fentry__ at a function's entry
 * belongs to ftrace: it turns the five bytes into a nop or a call to one
 * of its trampolines, and verifies them before every change.  An int3 of
 * ours there would make that verification fail and ftrace shut itself
 * down; a jmp of ours over it would be overwritten.  So a probe at such
 * an address never touches the text.  Its site asks ftrace for the call
 * instead: an ftrace_ops of ours (one of two, below), with the addresses
 * of every armed ftrace site in its filter, reaches the arch's
 * kprobe_ftrace_handler() (or kprobe_ftrace_ipmodify_handler(), one for
 * each ops), which runs the site's handlers with a full
 * struct pt_regs.
 *
 * Arming and disarming go through the same queue as int3 sites
 * (arming.c); kprobe_ftrace_commit() takes the ftrace sites out of it and
 * changes the filters once per batch.  An ops is registered while its
 * filter holds at least one address, and unregistered before the last
 * one leaves it: an ftrace_ops with an empty filter would trace every
 * function of the kernel.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/slab.h>

#include "internal.h"

/**
 * kprobe_ftrace_place() - is an address ftrace's to patch
 * @addr: where a new site would go
 *
 * Return: 1 when @addr is an ftrace location (the site goes through
 * ftrace), 0 when it is not, -EINVAL when ftrace owns bytes at @addr that
 * a site cannot use (the inside of its call, or KPROBES_ON_FTRACE off).
 */
int kprobe_ftrace_place(kprobe_opcode_t *addr)
{
	unsigned long a = (unsigned long)addr;
	unsigned long loc = ftrace_location(a);

	if (!loc)
		return 0;
	if (loc != a || !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return -EINVAL;
	return 1;
}

#ifdef CONFIG_KPROBES_ON_FTRACE
/* Set when ftrace shuts down after an error: the handler then does nothing. */
bool kprobe_ftrace_disabled;

/**
 * kprobe_ftrace_kill() - ftrace is shutting down, stop reaching probes
 *
 * Called by ftrace_kill() in any context.
 */
void kprobe_ftrace_kill(void)
{
	WRITE_ONCE(kprobe_ftrace_disabled, true);
}

/*
 * Two ops, both SAVE_REGS: the handlers get a whole pt_regs, and a
 * pre_handler that changes regs->ip sends the CPU there.  A site is in one
 * (struct kprobe_site.ftrace_in, KPROBE_FTRACE_IN_*):
 *
 *   plain     every site without a jprobe.  Not IPMODIFY, so that a
 *             livepatch (which is) can share the function with probes.
 *   ipmodify  sites with a jprobe.  A jprobe's handler runs in place of
 *             the function and comes back much later: no other ops may
 *             send the CPU elsewhere meanwhile.  ftrace lets one IPMODIFY
 *             ops per function, so a livepatch and a jprobe on the same
 *             function refuse each other with -EBUSY.
 */
static struct ftrace_user {
	struct ftrace_ops	ops;
	unsigned int		armed;	/* addresses in its filter; kprobe_mutex */
	u8			in;	/* its KPROBE_FTRACE_IN_* bit */
} ftrace_users[2] = {
	{
		.ops.func	= kprobe_ftrace_handler,
		.ops.flags	= FTRACE_OPS_FL_SAVE_REGS,
		.in		= KPROBE_FTRACE_IN_PLAIN,
	}, {
		.ops.func	= kprobe_ftrace_ipmodify_handler,
		.ops.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
		.in		= KPROBE_FTRACE_IN_IPMODIFY,
	},
};

/* Which ops a site wants: the one of its jprobe, if it has one. */
static struct ftrace_user *wanted(struct kprobe_site *site)
{
	return &ftrace_users[site->ftrace_ipmodify];
}

/* Add @n addresses to @kf's filter; the ops is registered around it. */
static int filter_add(struct ftrace_user *kf, unsigned long *ips,
		      unsigned int n)
{
	int ret;

	ret = ftrace_set_filter_ips(&kf->ops, ips, n, 0, 0);
	if (ret)
		return ret;
	if (!kf->armed) {
		ret = register_ftrace_function(&kf->ops);
		if (ret) {
			ftrace_set_filter_ips(&kf->ops, ips, n, 1, 0);
			return ret;
		}
	}
	kf->armed += n;
	return 0;
}

/* Take @n addresses out of @kf's filter; they count as gone whatever ftrace says. */
static void filter_remove(struct ftrace_user *kf, unsigned long *ips,
			  unsigned int n)
{
	int ret;

	/* Never leave the ops registered with an empty filter. */
	if (kf->armed == n) {
		ret = unregister_ftrace_function(&kf->ops);
		/* ftrace_kill() makes every ftrace call fail: nothing to warn. */
		WARN_ON_ONCE(ret && !READ_ONCE(kprobe_ftrace_disabled));
	}
	ftrace_set_filter_ips(&kf->ops, ips, n, 1, 0);
	kf->armed -= n;
}

/* Should @site be in @kf now, and is it? */
static bool site_wants(struct kprobe_site *site, struct ftrace_user *kf)
{
	return site->armed && wanted(site) == kf;
}

static bool site_in(struct kprobe_site *site, struct ftrace_user *kf)
{
	return site->ftrace_in & kf->in;
}

/* Note the outcome of adding @site to @kf. */
static void added(struct kprobe_site *site, struct ftrace_user *kf, int ret,
		  bool *moving)
{
	if (!ret) {
		/* In both now: neither acts until the old bit goes. */
		if (site->ftrace_in)
			*moving = true;
		WRITE_ONCE(site->ftrace_in, site->ftrace_in | kf->in);
	} else if (!site->ftrace_in) {
		site->armed = false;	/* armed nowhere: arming again retries */
	}
}

/*
 * Add the sites of @sites that should be in @kf and are not, @cap
 * addresses per ftrace call; when a call with several fails, each of them
 * is tried alone, so that one refused address (a livepatched function for
 * a jprobe) does not keep the others out.  The site's bit goes on after
 * ftrace took the address: until then the ops does not act for it.
 */
static int apply_adds(struct list_head *sites, struct ftrace_user *kf,
		      unsigned long *ips, unsigned int cap, bool *moving)
{
	struct kprobe_site *site, *from;
	unsigned int k;
	int ret, err = 0;

	from = list_first_entry(sites, struct kprobe_site, poke);
	while (&from->poke != sites) {
		/* A chunk: up to @cap addresses, from @from up to @site. */
		k = 0;
		for (site = from; &site->poke != sites && k < cap;
		     site = list_next_entry(site, poke))
			if (site_wants(site, kf) && !site_in(site, kf))
				ips[k++] = (unsigned long)site->addr;
		ret = k ? filter_add(kf, ips, k) : 0;
		for (; from != site; from = list_next_entry(from, poke)) {
			unsigned long ip = (unsigned long)from->addr;
			int one = ret;

			if (!site_wants(from, kf) || site_in(from, kf))
				continue;
			if (ret && k > 1)
				one = filter_add(kf, &ip, 1);
			added(from, kf, one, moving);
			if (one && !err)
				err = one;
		}
	}
	return err;
}

/*
 * Take out of @kf the sites that should not be in it, make before break:
 * a site that wants the other ops but could not join it stays where it
 * is.  The bit goes off before ftrace lets the address go.
 */
static void apply_removes(struct list_head *sites, struct ftrace_user *kf,
			  unsigned long *ips, unsigned int cap)
{
	struct kprobe_site *site;
	unsigned int k = 0;

	list_for_each_entry(site, sites, poke) {
		if (!site_in(site, kf) || site_wants(site, kf))
			continue;
		if (site->armed && !site_in(site, wanted(site)))
			continue;
		WRITE_ONCE(site->ftrace_in, site->ftrace_in & ~kf->in);
		ips[k++] = (unsigned long)site->addr;
		if (k == cap) {
			filter_remove(kf, ips, k);
			k = 0;
		}
	}
	if (k)
		filter_remove(kf, ips, k);
}

/*
 * Bring the two filters up to date with the wishes of @sites (->armed,
 * ->ftrace_ipmodify): additions first, so that an ops is not unregistered
 * and registered again within one commit.  A site moving from one ops to
 * the other is in both for a while, where neither acts; the grace period
 * before the old bit goes makes sure that no call of the function that
 * ran its handlers through the old ops is still on its way to the new
 * one (both handlers run with preemption off), so no call runs them
 * twice.  Without memory for a vector, one address per call.
 */
static int ftrace_apply(struct list_head *sites, unsigned int n)
{
	unsigned long one, *ips;
	unsigned int cap = n;
	bool moving = false;
	int i, ret, err = 0;

	ips = kmalloc_array(n, sizeof(*ips), GFP_KERNEL);
	if (!ips) {
		ips = &one;
		cap = 1;
	}
	for (i = 0; i < ARRAY_SIZE(ftrace_users); i++) {
		ret = apply_adds(sites, &ftrace_users[i], ips, cap, &moving);
		if (ret && !err)
			err = ret;
	}
	if (moving)
		synchronize_rcu();
	for (i = 0; i < ARRAY_SIZE(ftrace_users); i++)
		apply_removes(sites, &ftrace_users[i], ips, cap);
	if (ips != &one)
		kfree(ips);
	return err;
}

/**
 * kprobe_ftrace_commit() - bring the filters up to date with queued sites
 * @pending: the queue of arming.c; its ftrace sites are taken off it
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of ftrace when sites could not be armed: a site
 * that is in no filter then drops its wish (->armed), so that arming it
 * again queues it again; the caller undoes what asked for it.
 */
int kprobe_ftrace_commit(struct list_head *pending)
{
	struct kprobe_site *site, *tmp;
	LIST_HEAD(sites);
	unsigned int n = 0;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry_safe(site, tmp, pending, poke) {
		if (site->ftrace) {
			list_move_tail(&site->poke, &sites);
			n++;
		}
	}
	if (!n)
		return 0;
	ret = ftrace_apply(&sites, n);
	list_for_each_entry_safe(site, tmp, &sites, poke)
		list_del_init(&site->poke);
	return ret;
}

/**
 * kprobe_ftrace_site_update() - a site's probes changed
 * @site: an ftrace site
 * @jprobe: whether a jprobe is among them now
 *
 * Queues the site when it must move to the other ops; the caller commits.
 * Context: kprobe_mutex held.
 */
void kprobe_ftrace_site_update(struct kprobe_site *site, bool jprobe)
{
	lockdep_assert_held(&kprobe_mutex);
	if (site->ftrace_ipmodify == jprobe)
		return;
	site->ftrace_ipmodify = jprobe;
	kprobe_site_queue(site);
}

/**
 * kprobe_ftrace_site_gone() - the text of an ftrace site goes away
 * @site: the site, already unarmed in its wish
 *
 * Its address leaves the filter now: ftrace forgets the location with
 * the text, and a new function there must not inherit our ops.
 * Context: kprobe_mutex held.
 */
void kprobe_ftrace_site_gone(struct kprobe_site *site)
{
	unsigned long ip = (unsigned long)site->addr;

	int i;

	lockdep_assert_held(&kprobe_mutex);
	for (i = 0; i < ARRAY_SIZE(ftrace_users); i++) {
		if (!site_in(site, &ftrace_users[i]))
			continue;
		WRITE_ONCE(site->ftrace_in, site->ftrace_in & ~ftrace_users[i].in);
		filter_remove(&ftrace_users[i], &ip, 1);
	}
}
#endif /* CONFIG_KPROBES_ON_FTRACE */
