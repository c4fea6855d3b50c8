// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 site interface, the hit path: what happens when a CPU reaches a
 * probe's BRK.
 *
 * brk_handler() (debug-monitors.c) calls kprobe_brk_handler() for the BRK
 * with the kprobes immediate, from the EL1 debug exception: DAIF masked,
 * treated as an NMI (arm64_enter_el1_dbg()).  The handler runs the
 * pre_handlers and then carries out the probed instruction: simulated on
 * the saved registers (site_simulate.c), or by sending the CPU to the
 * site's slot with all of DAIF masked; the BRK with the step immediate
 * behind the copy brings it to kprobe_ss_brk_handler(), which puts the CPU
 * after the probed instruction, unmasks what the caller had, and runs the
 * post_handlers.
 *
 * A CPU can hit a probe while it is already inside this machinery: from a
 * handler, or from a pseudo-NMI or SDEI event that interrupts the copy.
 * Such a hit runs no handler and is counted in nmissed, but its
 * instruction is still carried out, so each CPU keeps a small stack of
 * steps in flight (struct kprobe_ctlblk.steps); a nested step ends before
 * the one below it resumes, so the step BRK always belongs to the top one.
 *
 * Everything here is in .kprobes.text (or NOKPROBE) and never probed.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <asm/arch_gicv3.h>
#include <asm/cpufeature.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/ptrace.h>

#include "site.h"

#ifdef CONFIG_KPROBES_KUNIT_TEST
/*
 * The traps of this machinery on each CPU: the paths suite counts a hit's
 * (one when boosted or simulated, two when stepped).  Test kernels only.
 */
DEFINE_PER_CPU(unsigned long, kprobe_traps_taken);
#define count_trap()	this_cpu_inc(kprobe_traps_taken)
#else
#define count_trap()	do { } while (0)
#endif

/*
 * Mask @bits of DAIF in the state the trap returns to.  With pseudo-NMIs
 * (GIC priority masking) the kernel's notion of interrupts off is the
 * priority mask, not PSTATE.I: irqs_disabled() and preemptible() read it,
 * so it is raised as well, or code run with PSTATE.I set would still be
 * preemptible to the kernel's eyes.
 */
void __kprobes kprobe_a64_mask_for_copy(struct pt_regs *regs, unsigned long bits)
{
	regs->pstate |= bits;
	if (system_uses_irq_prio_masking())
		regs->pmr_save = GIC_PRIO_IRQON | GIC_PRIO_PSR_I_SET;
}

static bool simulated(const struct kprobe_site *site)
{
	return kprobe_a64_simulated(site->ainsn.class);
}

/*
 * Send the CPU to @copy, the site's step copy or post copy, with DAIF
 * masked, and remember the step.  @handlers: this is the handler level;
 * post_handlers are due at its end.
 */
static void __kprobes push_step(struct kprobe_ctlblk *kcb,
				struct kprobe_site *site, struct pt_regs *regs,
				kprobe_opcode_t *copy, bool handlers)
{
	struct kprobe_step *step;

	if (WARN_ON_ONCE(kcb->depth == KPROBE_MAX_NEST)) {
		pr_emerg("kprobes: steps nested too deep at %pS\n", site->addr);
		BUG();
	}
	/*
	 * The depth first: a nested hit from here on takes the entry above
	 * (pop_step() reads in the other order).
	 */
	step = &kcb->steps[kcb->depth++];
	barrier();
	step->site = site;
	step->copy = copy;
	step->saved_daif = regs->pstate & DAIF_MASK;
	step->saved_pmr = regs->pmr_save;
	step->handlers = handlers;
	if (handlers)
		kcb->kprobe_status = KPROBE_HIT_SS;
	kprobe_a64_mask_for_copy(regs, DAIF_MASK);
	instruction_pointer_set(regs, (unsigned long)copy);
}

/* Take the top step off, read before the depth drops (see push_step()). */
static struct kprobe_step __kprobes pop_step(struct kprobe_ctlblk *kcb)
{
	struct kprobe_step step = kcb->steps[kcb->depth - 1];

	barrier();
	kcb->depth--;
	return step;
}

/* Give back the caller's DAIF bits (and priority mask), masked for the step. */
static void __kprobes give_back_daif(const struct kprobe_step *step,
				     struct pt_regs *regs)
{
	regs->pstate = (regs->pstate & ~DAIF_MASK) | step->saved_daif;
	regs->pmr_save = step->saved_pmr;
}

/*
 * Carry out the probed instruction: simulate it now, or step its copy.
 * @handlers: this is the handler level; post_handlers are due.
 */
static void __kprobes carry_out(struct kprobe_ctlblk *kcb,
				struct kprobe_site *site, struct pt_regs *regs,
				bool handlers)
{
	if (simulated(site)) {
		kprobe_a64_simulate(site->ainsn.class, site->opcode,
				    (unsigned long)site->addr, regs);
		if (handlers)
			kprobe_site_post_handlers(site, regs);
		return;
	}
	push_step(kcb, site, regs, site->ainsn.insn, handlers);
}

/*
 * After the pre_handlers: where no probe of the site needs the step (a
 * fault_handler, a jprobe) and the slot has a boost copy, the hit ends
 * here and the CPU leaves through the copy and its B back, with the
 * caller's DAIF: one trap instead of two.  Where a probe has a
 * post_handler, through the post copy if the slot has one, whose head
 * runs the post_handlers.  The flags are
 * kprobe_mutex's to write; they are read after the walk of the probes,
 * which the read barrier orders (a probe whose pre_handler ran was
 * published after they were set for it, register.c); a stale read only
 * picks the step path, which is always there.
 */
static bool __kprobes leave_by_copy(struct kprobe_ctlblk *kcb,
				    struct kprobe_site *site,
				    struct pt_regs *regs)
{
	kprobe_opcode_t *boost = kprobe_boost_copy(&site->ainsn);
	kprobe_opcode_t *post = kprobe_post_copy(&site->ainsn);
	bool stepped, posted;

	smp_rmb();	/* pairs with register.c's publication of the probe */
	stepped = READ_ONCE(site->stepped);
	posted = READ_ONCE(site->posted);
	if (!boost || stepped)
		return false;
	if (posted) {
		if (!post)
			return false;
		/*
		 * The handler level lasts until the post copy's head calls
		 * kprobe_a64_post_callback(); lockdep is told interrupts
		 * stay off until then, as they do.
		 */
		push_step(kcb, site, regs, post, true);
		regs->lockdep_hardirqs = 0;
		return true;
	}
	reset_current_kprobe();
	instruction_pointer_set(regs, (unsigned long)boost);
	return true;
}

/*
 * The BRK this CPU trapped on is no longer in the text: the probe went
 * away after the CPU fetched it.  The original instruction is back (its
 * word was written whole), so returning to it carries it out.
 */
static int __kprobes brk_gone(struct pt_regs *regs)
{
	kprobe_window_entered(KPROBE_WINDOW_INT3_GONE);
	return DBG_HOOK_HANDLED;
}

/*
 * A jprobe handler called jprobe_return(): carry out the probed
 * instruction as the hit would have (site_jprobe.c).
 */
static int __kprobes jprobe_returned(struct kprobe_ctlblk *kcb,
				     struct pt_regs *regs)
{
	struct kprobe_site *site = jprobe_longjmp(regs);

	if (!site) {
		pr_emerg("kprobes: jprobe_return() outside a jprobe handler\n");
		return DBG_HOOK_ERROR;
	}
	carry_out(kcb, site, regs, true);
	return DBG_HOOK_HANDLED;
}

/**
 * kprobe_brk_handler() - the BRK of a probe was hit
 * @regs: registers at the trap; regs->pc is the BRK's address
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED when the trap was ours and is dealt with,
 * DBG_HOOK_ERROR otherwise.
 */
int __kprobes kprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)instruction_pointer(regs);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_site *site;

	if (user_mode(regs))
		return DBG_HOOK_ERROR;
	count_trap();
	if (jprobe_is_return_trap(addr))
		return jprobe_returned(kcb, regs);

	kprobe_window_stall(KPROBE_WINDOW_INT3_GONE);
	site = kprobe_site_find(addr);
	if (!site) {
		if (le32_to_cpu(*addr) != BREAKPOINT_INSTRUCTION)
			return brk_gone(regs);
		/*
		 * A BRK stands there now: maybe that of a site published
		 * since the lookup (its site went into the hash before its
		 * BRK into the text; the read barrier pairs with that).
		 */
		smp_rmb();
		site = kprobe_site_find(addr);
		if (!site)
			return DBG_HOOK_ERROR;
		kprobe_window_entered(KPROBE_WINDOW_LATE_SITE);
	}

	if (kcb->depth || kprobe_running()) {
		kprobe_site_missed(site);	/* counts KPROBE_WINDOW_MISSED */
		carry_out(kcb, site, regs, false);
		return DBG_HOOK_HANDLED;
	}
	if (kprobe_site_pre_handlers(site, regs, true)) {
		/*
		 * A handler sent the CPU elsewhere, as by a return: no branch
		 * type is due there (the hit's would be checked against
		 * whatever instruction is found, with BTI).
		 */
		regs->pstate &= ~PSR_BTYPE_MASK;
		return DBG_HOOK_HANDLED;
	}
	if (leave_by_copy(kcb, site, regs))
		return DBG_HOOK_HANDLED;
	carry_out(kcb, site, regs, true);
	return DBG_HOOK_HANDLED;
}

/**
 * kprobe_ss_brk_handler() - the BRK behind a copy was reached
 * @regs: registers at the trap
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED when it ends this CPU's top step.
 */
int __kprobes kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_step step;
	unsigned long pc = instruction_pointer(regs);

	/* Behind a post copy is its head, never this BRK. */
	if (user_mode(regs) || !kcb->depth ||
	    pc != (unsigned long)(kcb->steps[kcb->depth - 1].copy + 1))
		return DBG_HOOK_ERROR;

	count_trap();
	step = pop_step(kcb);
	instruction_pointer_set(regs, (unsigned long)(step.site->addr + 1));
	give_back_daif(&step, regs);
	if (step.handlers)
		kprobe_site_post_handlers(step.site, regs);
	return DBG_HOOK_HANDLED;
}

/* Is @pc the copy of @step, or the word behind it? */
static bool __kprobes in_step_copy(const struct kprobe_step *step,
				   unsigned long pc)
{
	return pc - (unsigned long)step->copy <= AARCH64_INSN_SIZE;
}

/**
 * kprobe_fault_handler() - a fault while a probe runs on this CPU
 * @regs: registers at the fault
 * @fsr: the fault's syndrome
 *
 * A fault in a handler goes to that probe's fault_handler.  A fault in a
 * copy goes to the site's fault_handlers; if none claims it, the CPU is
 * put back on the original instruction with the caller's DAIF, so that
 * the kernel's own fault handling sees the fault where it happened.
 *
 * Return: 1 when a fault_handler claimed the fault.
 */
int __kprobes kprobe_fault_handler(struct pt_regs *regs, unsigned int fsr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (kcb->depth) {
		struct kprobe_step *top = &kcb->steps[kcb->depth - 1];
		struct kprobe_site *site = top->site;

		if (instruction_pointer(regs) == (unsigned long)top->copy) {
			struct kprobe_step step;

			if (top->handlers &&
			    kprobe_site_fault_handlers(site, regs, fsr)) {
				/*
				 * A handler that mended the cause and left the
				 * PC on the copy (or the BRK behind it) wants
				 * the step to go on; one that sent the CPU
				 * elsewhere ends it here.
				 */
				if (!in_step_copy(top, instruction_pointer(regs))) {
					step = pop_step(kcb);
					give_back_daif(&step, regs);
					reset_current_kprobe();
				}
				return 1;
			}
			step = pop_step(kcb);
			give_back_daif(&step, regs);
			if (step.handlers)
				reset_current_kprobe();
			instruction_pointer_set(regs, (unsigned long)site->addr);
			return 0;
		}
	}
	if (cur && (kcb->kprobe_status & (KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE)) &&
	    cur->fault_handler && cur->fault_handler(cur, regs, fsr))
		return 1;
	return 0;
}

/**
 * kprobe_a64_detour_callback() - the handlers of an optimized site
 * @site: the site, as built into its detour
 * @regs: the registers the detour saved, regs->pc the probed address
 *
 * Called from the detour (site_optimize.c) in whatever context reached
 * the site, with preemption off around the handlers, as on x86.  No probe
 * of an optimized site has a post_handler, a fault_handler or a jprobe
 * (those keep it on the BRK), but for one that joined while the B is
 * still in, whose hits are counted missed until the B goes
 * (kprobe_site_pre_handlers_passing()); a hit inside a handler is caught
 * by current_kprobe and only counted.  A pre_handler cannot send the CPU
 * elsewhere from here (the optimizer keeps such places on the BRK).
 */
void __kprobes kprobe_a64_detour_callback(struct kprobe_site *site,
					  struct pt_regs *regs)
{
	struct kprobe *p;

	preempt_disable();
	/* The usual case, one probe (or two, through the pair's handler). */
	p = rcu_dereference_sched(site->single);
	if (likely(p && !kprobe_running())) {
		__this_cpu_write(current_kprobe, p);
		p->pre_handler(p, regs);
		__this_cpu_write(current_kprobe, NULL);
	} else {
		kprobe_site_pre_handlers_passing(site, regs, false);
	}
	preempt_enable();
}

/**
 * kprobe_a64_post_callback() - the head of a post copy
 * @site: the site, as built into its post copy
 * @regs: the registers after the instruction, saved by the head; the PC
 *	  behind the probed instruction
 *
 * The BRK path ran the pre_handlers and sent the CPU to the post copy
 * instead of the step copy: one trap instead of two.  It pushed a step as
 * for the step copy, with DAIF masked and current_kprobe left set, so
 * that the pre_handlers and post_handlers of one hit run on one CPU with
 * interrupts off, and a hit in between only counts as missed.  That step
 * is still the top one: a nested step ends before its interruption does.
 * The caller's DAIF goes back into @regs, which the head writes back on
 * its way out; the post_handlers run before that, with preemption off as
 * in the trap that ends upstream's step.
 */
void __kprobes kprobe_a64_post_callback(struct kprobe_site *site,
					struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_step step;

	if (!kcb->depth || kcb->steps[kcb->depth - 1].site != site) {
		/* Nothing sane to go back to: which DAIF, which handler level? */
		pr_emerg("kprobes: post copy of %pS left without its step\n",
			 site->addr);
		BUG();
	}
	step = pop_step(kcb);
	regs->pstate = (regs->pstate & ~DAIF_MASK) | step.saved_daif;
	preempt_disable();
	kprobe_site_post_handlers(site, regs);
	preempt_enable_no_resched();
	/* Interrupts come back on as the head writes DAIF: tell lockdep first. */
	if (system_uses_irq_prio_masking())
		gic_write_pmr(step.saved_pmr);
	if (!(step.saved_daif & PSR_I_BIT))
		trace_hardirqs_on();
}
