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
 * instead: one ftrace_ops of ours, with the addresses of every armed
 * ftrace site in its filter, reaches the arch's kprobe_ftrace_handler(),
 * which runs the site's handlers with a full struct pt_regs.
 *
 * Arming and disarming go through the same queue as int3 sites
 * (arming.c); kprobe_ftrace_commit() takes the ftrace sites out of it and
 * changes the filter once per batch.  The ops is registered while its
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
 * SAVE_REGS: the handlers get a whole pt_regs, and a pre_handler that
 * changes regs->ip sends the CPU there.  Not IPMODIFY: that would make
 * every probe at a function's entry exclusive with a livepatch of it, and
 * a pre_handler that redirects is the exception.
 */
static struct ftrace_ops kprobe_ftrace_ops = {
	.func	= kprobe_ftrace_handler,
	.flags	= FTRACE_OPS_FL_SAVE_REGS,
};

/* Addresses in kprobe_ftrace_ops' filter; kprobe_mutex. */
static unsigned int ftrace_sites_armed;

/* Change the filter for @n addresses; the ops is registered around it. */
static int ftrace_filter_change(unsigned long *ips, unsigned int n,
				bool remove)
{
	int ret;

	if (!n)
		return 0;
	if (remove) {
		/* Never leave the ops registered with an empty filter. */
		if (ftrace_sites_armed == n)
			WARN_ON_ONCE(unregister_ftrace_function(&kprobe_ftrace_ops));
		ret = ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 1, 0);
		ftrace_sites_armed -= n;
		return ret;
	}
	ret = ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 0, 0);
	if (ret)
		return ret;
	if (!ftrace_sites_armed) {
		ret = register_ftrace_function(&kprobe_ftrace_ops);
		if (ret) {
			ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 1, 0);
			return ret;
		}
	}
	ftrace_sites_armed += n;
	return 0;
}

/*
 * Move the sites of @pending whose wish (->armed) differs from the filter
 * (->ftrace_armed) in or out of it: additions first, so that the ops is
 * not unregistered and registered again within one commit.
 */
static int ftrace_apply(struct list_head *sites, unsigned int n)
{
	struct kprobe_site *site;
	unsigned long *ips;
	unsigned int k;
	int ret, err = 0;
	bool add;

	ips = kmalloc_array(n, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	for (add = true; ; add = false) {
		k = 0;
		list_for_each_entry(site, sites, poke)
			if (site->armed == add && site->ftrace_armed != add)
				ips[k++] = (unsigned long)site->addr;
		ret = ftrace_filter_change(ips, k, !add);
		/* A failed addition arms none of them; a removal always counts. */
		if (!ret || !add)
			list_for_each_entry(site, sites, poke)
				if (site->armed == add)
					site->ftrace_armed = add;
		if (ret && !err)
			err = ret;
		if (!add)
			break;
	}
	kfree(ips);
	return err;
}

/**
 * kprobe_ftrace_commit() - bring the filter up to date with queued sites
 * @pending: the queue of arming.c; its ftrace sites are taken off it
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of ftrace when sites could not be armed; those
 * stay unarmed, and the caller undoes what asked for them.
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

	lockdep_assert_held(&kprobe_mutex);
	if (!site->ftrace_armed)
		return;
	ftrace_filter_change(&ip, 1, true);
	site->ftrace_armed = false;
}
#endif /* CONFIG_KPROBES_ON_FTRACE */
