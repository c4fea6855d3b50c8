// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 site interface, jprobes: entering the handler with the probed
 * function's arguments, and coming back.
 *
 * At a function's entry the arguments are in x0-x7 and, beyond those, on
 * the stack at the stack pointer.  jprobe_enter() keeps the registers and
 * up to MAX_STACK_SIZE bytes of stack, and sends the CPU to the handler
 * with nothing else changed, so the handler, which has the function's
 * prototype, finds the same arguments.  It runs with IRQs and FIQs masked
 * and as the CPU's current probe, so probes it hits count as missed.
 *
 * jprobe_return() traps on a BRK of its own (kprobe_a64_jprobe_trap).  An
 * exception taken at EL1 returns to the stack pointer it was taken on,
 * whatever pt_regs says, so jprobe_return() first moves to the stack
 * pointer of the hit: the trap's frame is then built where the handler's
 * dead frames were, and the return from the trap finds the hit's stack
 * pointer.  jprobe_longjmp() puts back the registers and the stack, and
 * the probed instruction is carried out as for any probe.
 */
#include <linux/kasan.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <asm/daifflags.h>
#include <asm/stacktrace.h>

#include "site.h"

/* One jprobe handler in flight per CPU: nested hits are missed. */
struct jprobe_state {
	struct pt_regs		regs;
	struct kprobe_site	*site;
	unsigned int		stack_len;
	u8			stack[MAX_STACK_SIZE];
};

static DEFINE_PER_CPU(struct jprobe_state, jprobe_state);
/* The stack pointer of the hit; 0 while no handler is in flight here. */
static DEFINE_PER_CPU(unsigned long, jprobe_entry_sp);

/* How much of the stack above @sp to keep: never past its stack's end. */
static unsigned int __kprobes stack_room(unsigned long sp)
{
	struct stack_info info = stackinfo_get_task(current);

	if (!stackinfo_on_stack(&info, sp, 1)) {
		info = stackinfo_get_irq();
		if (!stackinfo_on_stack(&info, sp, 1))
			return 0;
	}
	return min_t(unsigned long, MAX_STACK_SIZE, info.high - sp);
}

int __kprobes jprobe_enter(struct kprobe_site *site, struct kprobe *p,
			   struct pt_regs *regs)
{
	struct jprobe *jp = container_of(p, struct jprobe, kp);
	struct jprobe_state *js = this_cpu_ptr(&jprobe_state);

	/*
	 * This CPU's current probe first: a nested hit while js is being
	 * filled then counts a miss instead of overwriting it.
	 */
	__this_cpu_write(current_kprobe, p);
	barrier();
	js->regs = *regs;
	js->site = site;
	js->stack_len = stack_room(regs->sp);
	memcpy(js->stack, (void *)regs->sp, js->stack_len);
	__this_cpu_write(jprobe_entry_sp, regs->sp);

	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	kprobe_a64_mask_for_copy(regs, PSR_I_BIT | PSR_F_BIT);
	/* The trap's exit must leave lockdep with interrupts off, as they are. */
	regs->lockdep_hardirqs = 0;
	instruction_pointer_set(regs, (unsigned long)jp->entry);
	return 1;
}

int __kprobes jprobe_setjmp(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_site *site = kprobe_site_lookup(p->addr);

	return site ? jprobe_enter(site, p, regs) : 0;
}

/**
 * jprobe_return() - end a jprobe handler
 *
 * The last thing a jprobe handler does; it does not return to the handler.
 * Called from anything else it stops the kernel here, on the caller's own
 * stack.
 */
void __kprobes jprobe_return(void)
{
	unsigned long sp = raw_cpu_read(jprobe_entry_sp);
	unsigned long low = current_stack_pointer;

	if (unlikely(!sp)) {
		pr_emerg("kprobes: %s() outside a jprobe handler\n", __func__);
		BUG();
	}
	/*
	 * The handler's frames are abandoned, not returned from: their
	 * KASAN redzones would stay poisoned under the trap's frame.
	 */
	if (low < sp)
		kasan_unpoison_range((void *)low, sp - low);
	asm volatile("mov	sp, %0\n\t"
		     "b	kprobe_a64_jprobe_trap"
		     : : "r" (sp) : "memory");
	unreachable();
}
EXPORT_SYMBOL_GPL(jprobe_return);

/* Is this BRK the one jprobe_return() goes to? */
bool __kprobes jprobe_is_return_trap(kprobe_opcode_t *addr)
{
	return addr == (kprobe_opcode_t *)kprobe_a64_jprobe_trap;
}

/**
 * jprobe_longjmp() - the handler called jprobe_return()
 * @regs: registers at its BRK
 *
 * Restore the state of the hit and return the site, whose instruction the
 * caller then carries out.
 *
 * Return: the site, or NULL when no jprobe handler is in flight on this
 * CPU; @regs is then left as it is.
 */
struct kprobe_site *__kprobes jprobe_longjmp(struct pt_regs *regs)
{
	struct jprobe_state *js = this_cpu_ptr(&jprobe_state);
	struct kprobe_site *site = js->site;

	if (!site)
		return NULL;
	js->site = NULL;
	__this_cpu_write(jprobe_entry_sp, 0);
	/*
	 * The registers and flags of the hit, its priority mask, and what the
	 * hit's exit was to tell lockdep; the rest of pt_regs is this trap's own entry state.
	 */
	memcpy(regs->regs, js->regs.regs, sizeof(regs->regs));
	regs->sp = js->regs.sp;
	regs->pc = js->regs.pc;
	regs->pstate = js->regs.pstate;
	regs->lockdep_hardirqs = js->regs.lockdep_hardirqs;
	regs->pmr_save = js->regs.pmr_save;
	memcpy((void *)regs->sp, js->stack, js->stack_len);
	return site;
}
