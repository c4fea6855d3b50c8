// SPDX-License-Identifier: GPL-2.0
/*
 * x86 part of jprobes: entering the handler with the probed function's
 * arguments, and coming back.
 *
 * At the hit (the function's entry) the arguments are in the argument
 * registers (six on x86-64, three on i386, whose kernel is built with
 * regparm(3)) and, beyond those, on the stack just above the return address.
 * jprobe_enter() saves the registers and MAX_STACK_SIZE bytes of stack,
 * and sends the CPU to the handler with everything else unchanged, so the
 * handler, having the function's prototype, finds the same arguments.  It
 * runs with interrupts off and as the CPU's current probe, so probes it
 * hits are counted missed.  jprobe_return() traps back; jprobe_longjmp()
 * puts back the saved registers and stack, and the probed instruction is
 * carried out as for any kprobe.
 */
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <asm/processor.h>
#include <asm/stacktrace.h>

/* One jprobe handler in flight per CPU: nested hits are missed. */
struct jprobe_state {
	struct pt_regs		regs;
	struct kprobe_site	*site;
	unsigned int		stack_len;
	u8			stack[MAX_STACK_SIZE];
};

static DEFINE_PER_CPU(struct jprobe_state, jprobe_state);
/*
 * The stack pointer at the hit, read by jprobe_return_to_hit(); 0 while
 * no handler is in flight on this CPU.
 */
DEFINE_PER_CPU(unsigned long, jprobe_entry_sp);

extern const u8 jprobe_return_trap[];
void jprobe_return_to_hit(void);	/* jprobe_return.S */

/**
 * jprobe_return() - end a jprobe handler
 *
 * The last thing a jprobe handler does; it does not return to the handler.
 * Called from anything else, it stops the kernel here, on the caller's own
 * stack: switching to a stack pointer no handler left would lose it.
 * A handler runs with interrupts off, so nothing else on this CPU can see
 * its jprobe_entry_sp but an NMI.
 */
void notrace jprobe_return(void)
{
	if (unlikely(!raw_cpu_read(jprobe_entry_sp))) {
		pr_emerg("kprobes: %s() outside a jprobe handler\n", __func__);
		BUG();
	}
	jprobe_return_to_hit();
}
EXPORT_SYMBOL_GPL(jprobe_return);
NOKPROBE_SYMBOL(jprobe_return);

/*
 * How much of the stack above @sp to keep: MAX_STACK_SIZE bytes, but never
 * past the top of the stack @sp is on.  That is not always the task's
 * stack: functions called through call_on_irqstack() (__do_softirq(), the
 * __sysvec_*() handlers) start a few words below the top of the IRQ stack,
 * and a guard page follows it.
 */
static noinline unsigned int __kprobes stack_room_elsewhere(unsigned long sp)
{
	struct stack_info info;
#ifdef CONFIG_X86_64
	if (!get_stack_info_noinstr((unsigned long *)sp, current, &info))
		return 0;
#else
	unsigned long visit = 0;	/* i386 has only the full lookup */

	if (get_stack_info((unsigned long *)sp, current, &info, &visit))
		return 0;
#endif
	return min_t(unsigned long, MAX_STACK_SIZE,
		     (unsigned long)info.end - sp);
}

/* The usual case, the task's stack, without the full lookup (or its frame). */
static __always_inline unsigned int stack_room(unsigned long sp)
{
	unsigned long top = current_top_of_stack();

	if (top - sp < THREAD_SIZE)
		return min_t(unsigned long, MAX_STACK_SIZE, top - sp);
	return stack_room_elsewhere(sp);
}

/**
 * jprobe_enter() - send the CPU to a jprobe's handler
 * @site: the site that was hit
 * @p: the jprobe's kprobe
 * @regs: registers at the hit
 *
 * The site comes from the caller, not from a lookup: an unregistration on
 * another CPU may already have taken it out of the table while this CPU
 * runs its handlers, and jprobe_longjmp() must find it again to carry out
 * the probed instruction.  It stays alive until then: the handler and the
 * copy run with interrupts off, and the site is freed only after a text
 * sync IPI that every CPU must answer (register.c, finish_removal()).
 *
 * Return: 1, the CPU goes to the handler instead of the instruction.
 */
int __kprobes jprobe_enter(struct kprobe_site *site, struct kprobe *p,
			   struct pt_regs *regs)
{
	struct jprobe *jp = container_of(p, struct jprobe, kp);
	struct jprobe_state *js = this_cpu_ptr(&jprobe_state);

	/*
	 * This CPU's current probe first: an NMI that hits a jprobe while
	 * js is being filled then counts a miss instead of overwriting it.
	 * The handler runs as that probe, with interrupts off.
	 */
	__this_cpu_write(current_kprobe, p);
	barrier();
	js->regs = *regs;
	js->site = site;
	js->stack_len = stack_room(regs->sp);
	memcpy(js->stack, (void *)regs->sp, js->stack_len);
	__this_cpu_write(jprobe_entry_sp, regs->sp);

	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)jp->entry;
	return 1;
}

/**
 * jprobe_setjmp() - the pre_handler of every jprobe, and its mark
 * @p: the jprobe's kprobe
 * @regs: registers at the hit
 *
 * The core knows a jprobe by this pre_handler and calls jprobe_enter()
 * with the site it is running; a caller that has only the probe looks the
 * site up, and lets the instruction run when it is gone.
 *
 * Return: 1 when the CPU goes to the handler, 0 otherwise.
 */
int __kprobes jprobe_setjmp(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_site *site = kprobe_site_lookup(p->addr);

	return site ? jprobe_enter(site, p, regs) : 0;
}

/* Is this int3 the one in jprobe_return()? */
bool __kprobes jprobe_is_return_trap(kprobe_opcode_t *addr)
{
	return addr == jprobe_return_trap;
}

/**
 * jprobe_longjmp() - the handler called jprobe_return()
 * @regs: registers at that int3
 *
 * Restore the state of the hit and return the site, whose instruction the
 * caller then carries out; the saved registers still have regs->ip just
 * past the probe's int3, as at any hit.
 *
 * Return: the site, or NULL when no jprobe handler is in flight on this
 * CPU; @regs is then left as it is.
 */
struct kprobe_site *__kprobes jprobe_longjmp(struct pt_regs *regs)
{
	struct jprobe_state *js = this_cpu_ptr(&jprobe_state);
	struct kprobe_site *site = js->site;

	/* jprobe_return() called by something that is no jprobe handler. */
	if (!site)
		return NULL;
	/* One handler in flight per CPU (see jprobe_enter()): it ends here. */
	js->site = NULL;
	__this_cpu_write(jprobe_entry_sp, 0);
	*regs = js->regs;
	/*
	 * Not the return address on top: the handler never returned through
	 * it, and whoever else hooked the return on the way in (ftrace's
	 * function_graph or an fprobe after our ftrace handler) changed it
	 * after the copy was taken.  The arguments above it are put back.
	 */
	if (js->stack_len > sizeof(long))
		memcpy((void *)regs->sp + sizeof(long), js->stack + sizeof(long),
		       js->stack_len - sizeof(long));
	return site;
}
