// SPDX-License-Identifier: GPL-2.0
/*
 * The jump optimizer: which sites are reached through a jump, and when.
 *
 * A site is worth a jump when it is armed, optimization is on (the
 * debug.kprobes-optimization sysctl), the architecture built it a detour,
 * no probe there needs the step path (post_handler, fault_handler, jprobe),
 * no other site sits inside its region and it is not the entry of a
 * function open to error injection.  Whenever any of that changes,
 * kprobe_site_update_opt() runs under kprobe_mutex:
 *
 *   NONE -> QUEUED      the site became worth a jump; the delayed work
 *                       below will take it with every other queued site
 *   QUEUED -> WAITING   the work took it and waits for an RCU Tasks grace
 *                       period: a task preempted inside the region's later
 *                       instructions before the int3 went in would return
 *                       into the middle of the jmp.  After the int3 nobody
 *                       enters the region except through the int3, which
 *                       sends the CPU to the detour's copy instead
 *   WAITING -> DONE     the jmps of the whole batch go in together
 *   any -> NONE         the site stopped being worth it: dequeued, or its
 *                       jmp is replaced by int3 and the original bytes at
 *                       the next commit, before any other text change of
 *                       the same call (kprobe_commit_text())
 *
 * KPROBE_FLAG_OPTIMIZED is set on a site's probes exactly while it is
 * DONE: kprobe_optimized() says the jmp is in.  The debugfs list shows
 * [OPTIMIZED] from QUEUED on, as upstream's does (debugfs.c).
 */
#include <linux/error-injection.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/workqueue.h>

#include "internal.h"

/* debug.kprobes-optimization (sysctl.c); written under kprobe_mutex. */
int sysctl_kprobes_optimization = 1;

/* Jiffies between the first queued site and the optimizer's run. */
#define OPTIMIZE_DELAY	1

/* Sites by state (struct kprobe_site.opt_list); kprobe_mutex. */
static LIST_HEAD(opt_queued);
static LIST_HEAD(opt_waiting);
static LIST_HEAD(unopt_pending);	/* NONE, jmp still in the text */

static void kprobe_optimizer(struct work_struct *work);
static DECLARE_DELAYED_WORK(optimizer_work, kprobe_optimizer);

/*
 * Error injection (fail_function, bpf_override_return()) makes a probe's
 * pre_handler send the CPU out of a function at its entry, by changing
 * regs->ip.  The int3 and ftrace paths go where the handler says; the
 * detour cannot (it always goes on with the copied region).  So the entry
 * of a function open to error injection keeps its int3.
 */
static bool site_may_be_redirected(struct kprobe_site *site)
{
	unsigned long addr = (unsigned long)site->addr, size, offset;
	bool entry;

	if (!IS_ENABLED(CONFIG_FUNCTION_ERROR_INJECTION) ||
	    !within_error_injection_list(addr) ||
	    !kallsyms_lookup_size_offset(addr, &size, &offset))
		return false;
	/* The entry as a probe at symbol+0 has it (past an endbr). */
	return arch_adjust_kprobe_addr(addr - offset, 0, &entry) == site->addr;
}

static bool site_worth_jump(struct kprobe_site *site)
{
	/* A parked site (register.c) keeps a jump it has, gets none anew. */
	return READ_ONCE(sysctl_kprobes_optimization) && site->armed &&
	       !list_empty(&site->probes) &&
	       !site->gone && !site->stepped && !site->posted &&
	       site->region_clear &&
	       arch_kprobe_region_len(site) &&
	       !site_may_be_redirected(site);
}

/* KPROBE_FLAG_OPTIMIZED follows the state. */
static void site_set_opt(struct kprobe_site *site, u8 state)
{
	struct kprobe *p;

	site->opt = state;
	kprobe_site_update_flux(site);
	list_for_each_entry(p, &site->probes, list) {
		if (state == KPROBE_OPT_DONE)
			kprobe_flags_change(p, KPROBE_FLAG_OPTIMIZED, 0);
		else
			kprobe_flags_change(p, 0, KPROBE_FLAG_OPTIMIZED);
	}
}

/**
 * kprobe_site_update_opt() - queue or undo the jump of a site
 * @site: a site whose probes, arming or neighbours changed
 *
 * Context: kprobe_mutex held.  An undone jump is written at the next
 * kprobe_commit_text().
 */
void kprobe_site_update_opt(struct kprobe_site *site)
{
	lockdep_assert_held(&kprobe_mutex);
	if (site_worth_jump(site)) {
		if (site->opt != KPROBE_OPT_NONE) {
			site_set_opt(site, site->opt);	/* new probes' flags */
			return;
		}
		if (site->jumped) {
			/* Its undoing is still pending: keep the jmp. */
			list_del_init(&site->opt_list);
			site_set_opt(site, KPROBE_OPT_DONE);
			return;
		}
		list_add_tail(&site->opt_list, &opt_queued);
		site_set_opt(site, KPROBE_OPT_QUEUED);
		schedule_delayed_work(&optimizer_work, OPTIMIZE_DELAY);
		return;
	}
	switch (site->opt) {
	case KPROBE_OPT_QUEUED:
	case KPROBE_OPT_WAITING:
		list_del_init(&site->opt_list);
		break;
	case KPROBE_OPT_DONE:
		list_add_tail(&site->opt_list, &unopt_pending);
		break;
	}
	site_set_opt(site, KPROBE_OPT_NONE);
}

/* Are jumps waiting for kprobe_commit_unoptimize()?  kprobe_mutex. */
bool kprobe_unoptimize_pending(void)
{
	lockdep_assert_held(&kprobe_mutex);
	return !list_empty(&unopt_pending);
}

/* Write back the original text of every jump undone since the last commit. */
void kprobe_commit_unoptimize(void)
{
	lockdep_assert_held(&kprobe_mutex);
	if (!list_empty(&unopt_pending))
		arch_unoptimize_sites(&unopt_pending);
}

/* The text of @site is gone: forget its jump, never write there again. */
void kprobe_site_opt_gone(struct kprobe_site *site)
{
	lockdep_assert_held(&kprobe_mutex);
	list_del_init(&site->opt_list);
	arch_kprobe_drop_jump(site);
	site_set_opt(site, KPROBE_OPT_NONE);
}

/*
 * Is no other site inside @site's region?  One that is gets ->in_region,
 * so that its removal knows to recheck its neighbours.
 */
static bool region_clear(struct kprobe_site *site)
{
	unsigned int k, len = arch_kprobe_region_len(site);
	struct kprobe_site *inner;
	bool clear = true;

	for (k = 1; k < len; k++) {
		inner = kprobe_site_lookup(site->addr + k);
		if (inner) {
			inner->in_region = true;
			clear = false;
		}
	}
	return clear;
}

/*
 * A site appeared at or vanished from @addr: recheck @addr's own region
 * and those of the sites whose region may cover @addr.
 */
void kprobe_opt_neighbours_changed(kprobe_opcode_t *addr)
{
	struct kprobe_site *site;
	unsigned int k;

	lockdep_assert_held(&kprobe_mutex);
	for (k = 0; k < KPROBE_MAX_REGION; k++) {
		site = kprobe_site_lookup(addr - k);
		if (!site || (k && k >= arch_kprobe_region_len(site)))
			continue;
		site->region_clear = region_clear(site);
		kprobe_site_update_opt(site);
	}
}

/*
 * The sysctl changed: every site follows.  Takes kprobe_mutex.  Jumps are
 * undone before this returns; new ones wait for the optimizer.
 */
void kprobe_optimization_changed(void)
{
	struct kprobe_site *site;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(site, &kprobe_sites, all)
		kprobe_site_update_opt(site);
	kprobe_sync_text();
	mutex_unlock(&kprobe_mutex);
}

/**
 * kprobes_set_optimization() - what writing the sysctl does, for tests
 * @on: allow jumps
 */
void kprobes_set_optimization(bool on)
{
	WRITE_ONCE(sysctl_kprobes_optimization, on);
	kprobe_optimization_changed();
}
EXPORT_SYMBOL_GPL(kprobes_set_optimization);

static void kprobe_optimizer(struct work_struct *work)
{
	struct kprobe_site *site;
	bool none;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(site, &opt_queued, opt_list)
		site_set_opt(site, KPROBE_OPT_WAITING);
	list_splice_tail_init(&opt_queued, &opt_waiting);
	none = list_empty(&opt_waiting);
	mutex_unlock(&kprobe_mutex);
	if (none)
		return;

	/*
	 * Without kprobe_mutex: sites may leave opt_waiting meanwhile (they
	 * are dequeued under the mutex), never be freed while on it.
	 */
	synchronize_rcu_tasks();

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(site, &opt_waiting, opt_list)
		site_set_opt(site, KPROBE_OPT_DONE);
	if (!list_empty(&opt_waiting))
		arch_optimize_sites(&opt_waiting);
	mutex_unlock(&kprobe_mutex);
}

/**
 * kprobe_optimizer_flush() - wait until the optimizer has nothing queued
 *
 * For tests and for callers that want the jumps in before going on.
 * Sites parked by a removal (register.c) are removed first.
 */
void kprobe_optimizer_flush(void)
{
	kprobe_reap_parked_sites();
	flush_delayed_work(&optimizer_work);
	/* A run may have found more queued behind it. */
	flush_delayed_work(&optimizer_work);
}
EXPORT_SYMBOL_GPL(kprobe_optimizer_flush);
