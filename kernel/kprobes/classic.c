// SPDX-License-Identifier: GPL-2.0
/*
 * The classic architecture interface: Kprobes on an architecture that has
 * not implemented the site interface (CONFIG_HAVE_KPROBE_SITES), served by
 * its own upstream-style code in arch/<arch>/.
 *
 * Such code works with one struct kprobe per probed address: it decodes
 * and copies the instruction in arch_prepare_kprobe(), writes and removes
 * the breakpoint in arch_arm_kprobe() and arch_disarm_kprobe(), and its
 * breakpoint handler finds the probe with get_kprobe(), runs its
 * pre_handler, steps the copy from that probe's ->ainsn, and runs its
 * post_handler.  The core gives it each site's aggregate probe
 * (struct kprobe_site.aggr): the arch prepares and arms the aggregate, and
 * the aggregate's handlers run the handlers of every probe at the site.
 * So everything above the arch (several probes per address, batches,
 * enabling, the list, modules, the blacklist) is the core's, as on x86.
 * A hit at a site whose one probe is all it runs (->single) gets that
 * probe from get_kprobe() instead, with the site's copy lent to it, and
 * the arch works with it as upstream's with a probe alone at an address:
 * no handler of ours in between.
 *
 * Return probes work as upstream's did on such an architecture: through
 * its own trampoline (below), or through rethook where the arch has only
 * rethook's (kretprobe_rethook.c); and so do probes at ftrace locations
 * where the arch has its own kprobe_ftrace_handler()
 * (HAVE_KPROBES_ON_FTRACE); and so does jump optimization where the arch
 * has its own (arm, powerpc: classic_opt.c); and fault_handlers, for a
 * fault in a handler (kprobe_classic_fault()); and jprobes, on arm64, arm,
 * powerpc, riscv and s390 (classic_jprobe.c).  What it does not get: a
 * fault_handler's say over a fault in the copy (the arch's own fault hook
 * mends that, as upstream's has since 5.14).
 */
#include <linux/cpu.h>
#include <linux/execmem.h>
#include <linux/jump_label.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/mutex.h>
#include <linux/static_call.h>

#include "internal.h"

/*
 * A jprobe at an ftrace location sends the CPU elsewhere only while the
 * site holds the IPMODIFY claim, which keeps a livepatch from moving the
 * ip of the same function (ftrace.c).
 */
static bool jprobe_may_enter(struct kprobe_site *site)
{
#ifdef CONFIG_KPROBES_ON_FTRACE
	if (site->ftrace)
		return READ_ONCE(site->ftrace_in) & KPROBE_FTRACE_IN_IPMODIFY;
#endif
	return true;
}

/*
 * The probe whose pre_handler this CPU's hit ran from ->single, from then
 * to the hit's post_handler: its post_handler, and no other, follows, as
 * its pre_handler alone ran.  No other hit's handlers run on this CPU in
 * between: current_kprobe stays set from the pre_handler to the
 * post_handler (the probe, then the aggregate), and every architecture's
 * breakpoint and ftrace handlers run none for a hit that finds it set
 * (a reentry, or a miss).  A hit whose step faults never reaches its
 * post_handler; the next hit's pre_handler overwrites what it left.  The
 * hit is an RCU reader throughout (interrupts or preemption off), so the
 * probe outlives it.
 */
static DEFINE_PER_CPU(struct kprobe *, single_hit);

/*
 * The usual hit: the site's one probe with a pre_handler, and no
 * fault_handler or jprobe (->single), when get_kprobe() gave the arch the
 * aggregate all the same (a jprobe's resume was possible, or ->single
 * came meanwhile).  Its handler runs as the walk would
 * run it, less the walk: interrupts as the arch's handler left them (off
 * at a breakpoint, as the function had them at an ftrace location, as
 * upstream's handlers run it there), which no fault_handler minds, as on
 * x86's ftrace path.  Like upstream's probe alone at an address, a probe
 * disabled while a hit is under way may see that hit.  The arch has set
 * the status (KPROBE_HIT_ACTIVE) before the aggregate's pre_handler.
 */
static __always_inline int site_single_pre(struct kprobe *aggr,
					   struct kprobe *p,
					   struct pt_regs *regs)
{
	__this_cpu_write(current_kprobe, p);
	if (p->pre_handler(p, regs)) {
		/* It sent the CPU elsewhere: no step, no post_handler. */
		__this_cpu_write(single_hit, NULL);
		reset_current_kprobe();
		return 1;
	}
	__this_cpu_write(single_hit, p);
	__this_cpu_write(current_kprobe, aggr);
	return 0;
}

/*
 * The aggregate's pre_handler, from the arch's breakpoint handler with the
 * aggregate as the current probe.  The site's handlers name each probe as
 * current while it runs; afterwards the arch steps the copy, and finds it
 * in the current probe, so the aggregate is current again.
 */
static int __kprobes site_pre_handler(struct kprobe *aggr,
				      struct pt_regs *regs)
{
	struct kprobe_site *site = container_of(aggr, struct kprobe_site, aggr);
	unsigned long flags;
	struct kprobe *p;
	bool redirect;

	/*
	 * A resume must not run the handlers, so it is ruled out first; the
	 * caller's context (a breakpoint, or ftrace's handler with preemption
	 * off) is an RCU reader for ->single, as for ->probes.
	 */
	if (likely(!kprobe_jprobe_may_resume())) {
		p = rcu_dereference_sched(site->single);
		if (likely(p))
			return site_single_pre(aggr, p, regs);
	}
	__this_cpu_write(single_hit, NULL);

	/*
	 * The breakpoint paths come with interrupts off; the ftrace handlers
	 * of powerpc, s390 and the others with them on.  The walk runs the
	 * handlers with them off either way, so that no fault an interrupt
	 * takes meanwhile reaches the running probe's fault_handler
	 * (kprobe_classic_fault()), as on x86.
	 */
	local_irq_save(flags);
	if (unlikely(kprobe_jprobe_resuming(site, regs))) {
		/* Back from a jprobe's handler: the instruction, then the posts. */
		get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
		redirect = false;
	} else {
		redirect = kprobe_site_pre_handlers(site, regs,
						    jprobe_may_enter(site));
	}
	local_irq_restore(flags);
	if (redirect)
		return 1;	/* a handler sent the CPU elsewhere */
	__this_cpu_write(current_kprobe, aggr);
	return 0;
}

/*
 * The aggregate's post_handler, after the arch stepped, simulated or
 * emulated the instruction.  It stays the aggregate's for the
 * site's life: several architectures test the pointer, store the status,
 * then read it again for the call, so it must never become NULL under a
 * hit.  After a hit from ->single, that probe's post_handler runs, if it
 * has one, with interrupts as they are, as its pre_handler did; like the
 * fast path of x86's ftrace hits, a probe disabled between its two
 * handlers gets the post_handler whose pre_handler it had.  After the
 * walk, the walk again, unless no probe at the site has a post_handler
 * (->posted, set before such a probe is published).
 */
static void __kprobes site_post_handler(struct kprobe *aggr,
					struct pt_regs *regs,
					unsigned long flags)
{
	struct kprobe *p = __this_cpu_read(single_hit);
	struct kprobe_site *site;
	unsigned long irqs;

	if (p) {
		__this_cpu_write(single_hit, NULL);
		if (p->post_handler) {
			__this_cpu_write(current_kprobe, p);
			p->post_handler(p, regs, 0);
		}
		return;
	}
	site = container_of(aggr, struct kprobe_site, aggr);
	/* The pre_handlers' reads of the list, then ->posted: register.c. */
	smp_rmb();
	if (!READ_ONCE(site->posted))
		return;
	local_irq_save(irqs);	/* as in site_pre_handler() */
	kprobe_site_post_handlers(site, regs);
	local_irq_restore(irqs);
}

/* This CPU runs a fault_handler (kprobe_classic_fault()). */
static DEFINE_PER_CPU(bool, in_fault_handler);

/**
 * kprobe_classic_fault() - a page fault while a probe runs on this CPU
 * @regs: the registers of the fault
 * @trap: the arch's number for it, passed on to the handlers
 *
 * A fault in a probe's pre_handler or post_handler (the probe is current)
 * is offered to that probe's fault_handler, as upstream's core offered it
 * before 5.14 and as the site interface does.  A fault in the stepped copy
 * (the aggregate is current, or ->single, which has no fault_handler) is
 * the arch's alone: its
 * kprobe_fault_handler() puts the CPU back on the probed instruction, as
 * it always did.  So is any fault no fault_handler claims.
 *
 * Return: true when the fault is handled and the faulting code may go on.
 */
bool __kprobes kprobe_classic_fault(struct pt_regs *regs, unsigned int trap)
{
	struct kprobe *cur = kprobe_running();
	unsigned int status = get_kprobe_ctlblk()->kprobe_status;
	int claimed;

	/*
	 * A fault inside the fault_handler itself goes to the arch: offered
	 * to the same handler again, a fault it keeps taking would recurse
	 * until the stack ran out.
	 */
	if ((status & (KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE)) && cur &&
	    !kprobe_is_site_aggr(cur) && cur->fault_handler &&
	    !__this_cpu_read(in_fault_handler)) {
		__this_cpu_write(in_fault_handler, true);
		claimed = cur->fault_handler(cur, regs, trap);
		__this_cpu_write(in_fault_handler, false);
		if (claimed)
			return true;
	}
	return kprobe_fault_handler(regs, trap);
}
NOKPROBE_SYMBOL(kprobe_classic_fault);

/* Is @p a site's aggregate (so that its misses count on the site's probes)? */
bool __kprobes kprobe_is_site_aggr(struct kprobe *p)
{
	return p->pre_handler == site_pre_handler;
}

/* A probe at symbol+offset; an architecture with local entries overrides. */
kprobe_opcode_t * __weak arch_adjust_kprobe_addr(unsigned long addr,
						 unsigned long offset,
						 bool *on_func_entry)
{
	unsigned long where = addr + offset;

	*on_func_entry = offset == 0;
	return (kprobe_opcode_t *)where;
}

/* Is the instruction at @addr text that jump labels or static calls own? */
static bool text_owned_elsewhere(kprobe_opcode_t *addr)
{
	return kprobe_text_reserved(addr, sizeof(kprobe_opcode_t));
}

/* The aggregate stands for the site's probes in the arch's handlers. */
static void init_site_aggr(struct kprobe_site *site)
{
	struct kprobe *aggr = &site->aggr;

	INIT_LIST_HEAD(&aggr->list);
	aggr->addr = site->addr;
	aggr->pre_handler = site_pre_handler;
	aggr->post_handler = site_post_handler;
}

/* kprobe_mutex held (site_create()). */
int arch_prepare_kprobe_site(struct kprobe_site *site)
{
	struct kprobe *aggr = &site->aggr;
	int ret;

	/* Their next update would overwrite the breakpoint, or trip on it. */
	if (text_owned_elsewhere(site->addr))
		return -EINVAL;

	init_site_aggr(site);
	/*
	 * Some arches write the copy through text patching that wants
	 * text_mutex (riscv's patch_text_nosync() asserts it); the order is
	 * the one of arch_kprobe_poke_sites().
	 */
	cpus_read_lock();
	mutex_lock(&text_mutex);
	ret = arch_prepare_kprobe(aggr);
	if (!ret)
		classic_prepare_detour(site);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	if (ret)
		return ret;
	site->opcode = aggr->opcode;
	return 0;
}

#ifdef KPROBE_CLASSIC_BARE
/*
 * A bare probe's copy (classic_bare.c), made in its own ->ainsn as a
 * site's is in the aggregate's.  kprobe_mutex held.
 */
int kprobe_classic_prepare(struct kprobe *p)
{
	int ret;

	if (text_owned_elsewhere(p->addr))
		return -EINVAL;
	cpus_read_lock();
	mutex_lock(&text_mutex);
	ret = arch_prepare_kprobe(p);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	return ret;
}

/*
 * A site built around bare probe @bare (register.c) takes its copy over
 * instead of making one: hits may be stepping that copy right now, and
 * the breakpoint in the text may be @bare's.  The slot is the site's
 * from now on, freed with it.  kprobe_mutex held.
 */
int kprobe_site_adopt_bare(struct kprobe_site *site, struct kprobe *bare)
{
	struct kprobe *aggr = &site->aggr;	/* mips' macro takes a name */

	init_site_aggr(site);
	aggr->ainsn = bare->ainsn;
	aggr->opcode = bare->opcode;
	site->opcode = bare->opcode;
	flush_insn_slot(aggr);	/* sparc runs ->ainsn itself */
	return 0;
}
#endif

/* kprobe_mutex held, after an RCU Tasks grace period (register.c). */
void arch_remove_kprobe_site(struct kprobe_site *site)
{
	classic_remove_detour(site);
	arch_remove_kprobe(&site->aggr);
}

/* The arch's code keeps nothing learnt from text beyond its probes. */
void arch_kprobe_text_gone(void)
{
}

/*
 * Arm or disarm each queued site.  The arch writes one breakpoint at a
 * time and makes it visible to every CPU before it returns (arm64 and arm
 * through stop_machine(), which wants the hotplug lock held), so there is
 * nothing to batch and nothing left for arch_kprobe_text_sync().  Lock
 * order as upstream's: kprobe_mutex, cpu_hotplug_lock, text_mutex.
 */
void arch_kprobe_poke_sites(struct list_head *queue)
{
	struct kprobe_site *site, *tmp;

	/* A jprobe's resume still wants the breakpoint of a site disarmed. */
	list_for_each_entry(site, queue, poke) {
		if (!site->armed) {
			kprobe_jprobes_quiesce();
			break;
		}
	}
	cpus_read_lock();
	mutex_lock(&text_mutex);
	list_for_each_entry_safe(site, tmp, queue, poke) {
		list_del_init(&site->poke);
		if (site->armed)
			arch_arm_kprobe(&site->aggr);
		else
			arch_disarm_kprobe(&site->aggr);
	}
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
}

void arch_kprobe_text_sync(void)
{
}

#ifndef KPROBE_CLASSIC_DETOURS
/*
 * No jump optimization (the arch has none, or it is configured out): no
 * site has a region the optimizer could take.  Else classic_opt.c.
 */
unsigned int arch_kprobe_region_len(struct kprobe_site *site)
{
	return 0;
}

void arch_optimize_sites(struct list_head *sites)
{
	WARN_ON_ONCE(!list_empty(sites));
}

void arch_unoptimize_sites(struct list_head *sites)
{
	WARN_ON_ONCE(!list_empty(sites));
}

void arch_kprobe_drop_jump(struct kprobe_site *site)
{
}
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * A site at an ftrace location (kprobe_mutex held, site_alloc()): no copy
 * and no breakpoint.  ftrace.c's ops calls the arch's
 * kprobe_ftrace_handler(), which finds the aggregate with get_kprobe(),
 * runs its pre_handler, moves the ip past the call as if it were a nop,
 * and runs its post_handler, as it did for upstream's probes there.
 * Armed and disarmed through ftrace's filter (ftrace.c), never by the arch.
 */
int arch_prepare_kprobe_ftrace_site(struct kprobe_site *site)
{
	struct kprobe *aggr = &site->aggr;
	int ret;

	init_site_aggr(site);
	aggr->flags |= KPROBE_FLAG_FTRACE;
	ret = arch_prepare_kprobe_ftrace(aggr);
	if (ret)
		return ret;
	site->opcode = aggr->opcode;
	return 0;
}
#else
/* Never called: without KPROBES_ON_FTRACE ftrace's locations are refused. */
int arch_prepare_kprobe_ftrace_site(struct kprobe_site *site)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * The slots of the classic interface: one instruction each, in pages the
 * arch may allocate itself (arm64 takes them read-only and writes its
 * copies through its text patching).  kprobe_mutex held: the arch calls
 * these from arch_prepare_kprobe() and arch_remove_kprobe().
 */
void * __weak alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

kprobe_opcode_t *get_insn_slot(void)
{
	return kprobe_slot_alloc();
}

void free_insn_slot(kprobe_opcode_t *slot, int dirty)
{
	kprobe_slot_free(slot);
}

#if defined(CONFIG_KRETPROBES) && !defined(KRETPROBE_VIA_RETHOOK)
/*
 * Return probes (arm64, arm, mips, sh, sparc, parisc, arc, csky...): the
 * arch's arch_prepare_kretprobe() records the return
 * address and frame in the instance and hooks the return to its
 * __kretprobe_trampoline, which calls kretprobe_trampoline_handler(), as
 * the core's kretprobes expect (kretprobe.c).
 *
 * The older architectures' trampolines are a probe of their own, whose
 * handler calls this with the CPU inside Kprobes already; the core's
 * handler marks the CPU busy itself either way.
 */
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer)
{
	unsigned long ret = kretprobe_trampoline_handler(regs, frame_pointer);

	arch_kretprobe_fixup_return(regs, (kprobe_opcode_t *)ret);
	return ret;
}

NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);

/*
 * After the return handlers, the arch may put the real return address
 * where its own code expects it besides the ip (parisc: its return
 * pointer register).
 */
void __weak arch_kretprobe_fixup_return(struct pt_regs *regs,
					kprobe_opcode_t *correct_ret_addr)
{
}

NOKPROBE_SYMBOL(arch_kretprobe_fixup_return);
#endif

int __weak arch_trampoline_kprobe(struct kprobe *p)
{
	return 0;
}

/* Architectures that take their traps through the die chain override it. */
int __weak kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

NOKPROBE_SYMBOL(kprobe_exceptions_notify);

static struct notifier_block die_chain_nb = {
	.notifier_call = kprobe_exceptions_notify,
	.priority = 0x7fffffff,	/* before every other user of the chain */
};

static int __init init_classic_arch(void)
{
	int ret = arch_init_kprobes();

	if (ret)
		return ret;
	return register_die_notifier(&die_chain_nb);
}
early_initcall(init_classic_arch);
