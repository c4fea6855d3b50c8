// SPDX-License-Identifier: GPL-2.0
/*
 * Jump optimization on a classic architecture (arm, powerpc), with the
 * arch's own detour code as it was written for upstream's core.
 *
 * The optimizer (optimizer.c) decides which sites are reached through a
 * branch, and when, as on x86; this file hands its decisions to the arch.
 * A site's aggregate probe is the ->kp of an optimized_kprobe (the union
 * in struct kprobe_site), so the arch's code finds what it always found:
 * the probe's copy and decoding in ->kp.ainsn, its detour in ->optinsn.
 *
 * The detour is built when the site is prepared, under the locks of the
 * copy, and lives as long as the site (freed with it, after an RCU Tasks
 * grace period: no task is preempted in it then).  A site the arch cannot
 * give one (an instruction it will not run from a detour, a detour out of
 * a branch's reach) has a region of length 0, so the optimizer never
 * queues it and its probes keep the breakpoint.
 *
 * Each site's change of text is one aligned instruction, which the arch
 * writes and makes visible to every CPU before it returns (arm through
 * stop_machine(), powerpc through patch_instruction()): the branch over the
 * breakpoint, or the breakpoint back over the branch.  So the optimizer's
 * order holds as on x86: a jump is undone (the breakpoint back) at the
 * start of a commit, before arming.c writes any original instruction.
 */
#include <linux/cpu.h>
#include <linux/execmem.h>
#include <linux/kprobes.h>
#include <linux/memory.h>

#include "internal.h"

static struct optimized_kprobe *site_op(struct kprobe_site *site)
{
	return &site->aggr_op;
}

/*
 * Build @site's detour; kprobe_mutex, cpus_read_lock() and text_mutex
 * held, as upstream held them (the arch may patch text, and read the jump
 * labels' text).  A site without one is simply never optimized.
 */
void classic_prepare_detour(struct kprobe_site *site)
{
	struct optimized_kprobe *op = site_op(site);

	INIT_LIST_HEAD(&op->list);
	op->optinsn.insn = NULL;
	if (arch_prepare_optimized_kprobe(op, &op->kp))
		return;
	if (arch_check_optimized_kprobe(op))
		classic_remove_detour(site);
}

/* Free @site's detour, if it has one; kprobe_mutex held, after RCU Tasks. */
void classic_remove_detour(struct kprobe_site *site)
{
	struct optimized_kprobe *op = site_op(site);

	if (arch_prepared_optinsn(&op->optinsn))
		arch_remove_optimized_kprobe(op);
}

/* One instruction when there is a detour to branch to; else none. */
unsigned int arch_kprobe_region_len(struct kprobe_site *site)
{
	if (site->ftrace || !arch_prepared_optinsn(&site_op(site)->optinsn))
		return 0;
	return 1;
}

/* ->jumped follows the text; ->in_flux follows it (optimizer.c). */
static void site_set_jumped(struct kprobe_site *site, bool jumped)
{
	site->jumped = jumped;
	kprobe_site_update_flux(site);
}

/*
 * Put in the branches of @sites (emptied), whose tasks the optimizer has
 * waited out.  Lock order as arch_kprobe_poke_sites() (classic.c).
 */
void arch_optimize_sites(struct list_head *sites)
{
	struct kprobe_site *site, *tmp;
	LIST_HEAD(oplist);

	list_for_each_entry_safe(site, tmp, sites, opt_list) {
		list_del_init(&site->opt_list);
		list_add_tail(&site_op(site)->list, &oplist);
		site_set_jumped(site, true);
	}
	/* A jprobe's resume on a site taken now still wants its breakpoint. */
	kprobe_jprobes_quiesce();
	cpus_read_lock();
	mutex_lock(&text_mutex);
	arch_optimize_kprobes(&oplist);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	/* The arch takes each op off the list once its branch is in. */
	WARN_ON_ONCE(!list_empty(&oplist));
}

/*
 * Put the breakpoints back in place of the branches of @sites (emptied).
 * A CPU already in a detour finishes there; the detour stays.
 */
void arch_unoptimize_sites(struct list_head *sites)
{
	struct kprobe_site *site, *tmp;
	LIST_HEAD(oplist);
	LIST_HEAD(done);

	list_for_each_entry_safe(site, tmp, sites, opt_list) {
		list_del_init(&site->opt_list);
		if (site->jumped)
			list_add_tail(&site_op(site)->list, &oplist);
	}
	if (list_empty(&oplist))
		return;
	cpus_read_lock();
	mutex_lock(&text_mutex);
	arch_unoptimize_kprobes(&oplist, &done);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	list_for_each_entry_safe(site, tmp, &done, aggr_op.list) {
		list_del_init(&site_op(site)->list);
		arch_kprobe_drop_jump(site);
	}
}

/* The branch is out of the text, or the text is gone with the site. */
void arch_kprobe_drop_jump(struct kprobe_site *site)
{
	if (site->jumped)
		site_set_jumped(site, false);
}

/**
 * opt_pre_handler() - the handlers of a hit through a detour
 * @p: the site's aggregate, which the arch's detour callback made current
 * @regs: the registers there, the pc at the probed instruction
 *
 * The site's probes run as through x86's jump: only those that need
 * nothing after their pre_handler (the optimizer takes no site with a
 * post_handler, a fault_handler or a jprobe, but one may have come since
 * the branch went in: it misses until the branch is out).  A pre_handler
 * cannot redirect: the detour goes on with the probed instruction, as
 * upstream's does.  Hit context; the arch makes no one current after.
 */
void __kprobes opt_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_site *site = container_of(p, struct kprobe_site, aggr);

	/* The arch marked the CPU busy with the aggregate: it is not a reentry. */
	__this_cpu_write(current_kprobe, NULL);
	kprobe_site_pre_handlers_passing(site, regs, false);
	__this_cpu_write(current_kprobe, p);
}
NOKPROBE_SYMBOL(opt_pre_handler);

/* Detour pages: the arch's slot pages by default; powerpc has its own. */
void * __weak alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

void __weak free_optinsn_page(void *page)
{
	execmem_free(page);
}

/* Registration context (kprobe_mutex): the arch's prepare and remove. */
kprobe_opcode_t *get_optinsn_slot(void)
{
	return kprobe_detour_slot_alloc();
}

void free_optinsn_slot(kprobe_opcode_t *slot, int dirty)
{
	kprobe_detour_slot_free(slot);
}
