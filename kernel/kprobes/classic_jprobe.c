// SPDX-License-Identifier: GPL-2.0
/*
 * Jprobes on a classic architecture (arm64, arm, powerpc, riscv, s390).
 *
 * At a function's entry its arguments are where the caller put them: in
 * the argument registers and, beyond those, on the stack just above the
 * stack pointer; powerpc's and s390's callees may also write into the
 * caller's frame there (the parameter and register save areas).
 * jprobe_enter() keeps the registers and JPROBE_STACK_BYTES of the stack
 * above the stack pointer, and sends the CPU to the handler with nothing
 * else changed, so the handler, which has the function's prototype, finds
 * the same arguments.
 *
 * The handler ends with jprobe_return(), which traps on an instruction of
 * its own (kprobe_jprobe_trap) that carries a breakpoint of ours: a probe
 * that is in no site and no list, which get_kprobe() reports to the arch's
 * breakpoint handler like any other.  Its pre_handler, jprobe_longjmp(),
 * puts back the registers and the stack and sends the CPU to the probed
 * address, where it hits the site's breakpoint once more.  That hit is
 * this CPU's resume (struct jprobe_resume): the site's handlers do not
 * run again, and the arch carries out the instruction and runs the
 * post_handlers as after any hit.  At an ftrace location there is no
 * instruction to carry out: jprobe_longjmp() runs the post_handlers and
 * sends the CPU past the call to ftrace, as the arch's
 * kprobe_ftrace_handler() does after a hit (both powerpc's and s390's set
 * the ip MCOUNT_INSN_SIZE past the location).
 *
 * Per CPU, one handler in flight and one resume pending; a jprobe hit
 * meanwhile (from an interrupt) counts as missed.  Preemption is off from
 * the hit to the resume, since both states are this CPU's; that is also
 * what keeps the breakpoint there for the resume (kprobe_jprobes_quiesce()).
 * The function graph tracer is paused for the task meanwhile: the handler
 * never returns through a hook it would set, and one set on the probed
 * function after the registers were kept would be lost with them.
 * The handler runs as ordinary code, with the interrupts of the probed
 * context: probes it hits fire, and a fault in it is the kernel's, not the
 * jprobe's fault_handler's as on x86 (whose handler runs as the CPU's
 * current probe with interrupts off).
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/ftrace.h>
#include <linux/kasan.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/magic.h>
#ifdef CONFIG_PPC64_ELF_ABI_V1
#include <asm/sections.h>
#endif

#include "internal.h"

#ifdef KPROBE_CLASSIC_JPROBES
/*
 * Stack kept above the stack pointer of the hit: the arguments passed on
 * the stack and the caller's save areas a callee writes (s390's register
 * save area alone is 160 bytes).
 */
#define JPROBE_STACK_BYTES	256

/* The handler in flight on this CPU, between the hit and its trap. */
struct jprobe_flight {
	struct kprobe_site	*site;	/* NULL: none in flight */
	struct pt_regs		regs;	/* at the hit */
	unsigned long		sp;	/* the stack pointer at the hit */
	unsigned int		stack_len;
	u8			stack[JPROBE_STACK_BYTES];
};

/* The hit of the site's breakpoint that carries out its instruction. */
struct jprobe_resume {
	struct kprobe_site	*site;	/* NULL: none pending */
	unsigned long		sp;
};

static DEFINE_PER_CPU(struct jprobe_flight, jprobe_flight);
static DEFINE_PER_CPU(struct jprobe_resume, jprobe_resume);

/* Set, with a release, once the trap is armed (kprobe_jprobes_ready()). */
static bool jprobes_ready;

/*
 * Handlers in flight and resumes pending, on every CPU: while there are
 * any, a change of text under a breakpoint waits (kprobe_jprobes_quiesce()),
 * and hits look for their resume (kprobe_jprobe_may_resume()).
 */
atomic_t kprobe_jprobes_in_flight = ATOMIC_INIT(0);

static int jprobe_longjmp(struct kprobe *trap, struct pt_regs *regs);

/* jprobe_return()'s breakpoint; kprobe_mutex guards its preparation. */
static struct kprobe jprobe_trap = {
	.pre_handler = jprobe_longjmp,
};

/* Where the handler starts, with what its ABI wants in registers there. */
static void __kprobes set_handler_entry(struct pt_regs *regs, void *entry)
{
	unsigned long pc = (unsigned long)entry;

#if defined(CONFIG_PPC64_ELF_ABI_V1)
	/* A function pointer is a descriptor: the code and the TOC. */
	func_desc_t *desc = entry;

	pc = desc->addr;
	regs->gpr[2] = desc->toc;
#elif defined(CONFIG_PPC64_ELF_ABI_V2)
	/* The global entry computes the TOC from r12 (modules have theirs). */
	regs->gpr[12] = pc;
#elif defined(CONFIG_THUMB2_KERNEL)
	if (pc & 1) {
		regs->ARM_cpsr |= PSR_T_BIT;
		pc &= ~1UL;
	}
#endif
	instruction_pointer_set(regs, pc);
}

/*
 * The registers a function may rely on at its entry, back from @saved; the
 * state of the trap (interrupt mask, mode, ppc64's soft mask) is left as
 * it is, being this context's.  The condition flags come back too: the
 * arch may test them for the probed instruction (arm does before the
 * pre_handler).
 */
static void __kprobes restore_registers(struct pt_regs *regs,
					const struct pt_regs *saved)
{
#if defined(CONFIG_ARM64)
	const u64 nzcv = PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT;

	memcpy(regs->regs, saved->regs, sizeof(regs->regs));
	regs->sp = saved->sp;	/* moved already by jprobe_return() */
	regs->pstate = (regs->pstate & ~nzcv) | (saved->pstate & nzcv);
#elif defined(CONFIG_ARM)
	const unsigned long nzcvq = PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT |
				    PSR_V_BIT | PSR_Q_BIT;

	memcpy(regs->uregs, saved->uregs, 15 * sizeof(long)); /* r0-r12 sp lr */
	/* arm checks a conditional instruction's condition before the pre_handler. */
	regs->ARM_cpsr = (regs->ARM_cpsr & ~nzcvq) | (saved->ARM_cpsr & nzcvq);
#elif defined(CONFIG_PPC)
	memcpy(regs->gpr, saved->gpr, sizeof(regs->gpr));
	regs->link = saved->link;
	regs->ctr = saved->ctr;
	regs->xer = saved->xer;
	regs->ccr = saved->ccr;
#elif defined(CONFIG_RISCV)
	memcpy(&regs->ra, &saved->ra,
	       offsetofend(struct pt_regs, t6) - offsetof(struct pt_regs, ra));
#elif defined(CONFIG_S390)
	memcpy(regs->gprs, saved->gprs, sizeof(regs->gprs));
	regs->psw.mask = (regs->psw.mask & ~PSW_MASK_CC) |
			 (saved->psw.mask & PSW_MASK_CC);
#endif
}

/*
 * How much of the stack above @sp to keep: never past the top of the
 * task's stack, and on any other stack (an IRQ stack) never past the
 * page @sp is in; nothing when @sp is at a page's start, which may be the
 * empty top of a stack with a guard page beyond.
 */
static unsigned int __kprobes stack_room(unsigned long sp)
{
	unsigned long base = (unsigned long)task_stack_page(current);
	unsigned long off = offset_in_page(sp);

	if (sp - base < THREAD_SIZE)
		return min_t(unsigned long, JPROBE_STACK_BYTES,
			     base + THREAD_SIZE - sp);
	return off ? min_t(unsigned long, JPROBE_STACK_BYTES, PAGE_SIZE - off) : 0;
}

/**
 * jprobe_enter() - send the CPU to a jprobe's handler
 * @site: the site that was hit (its breakpoint, or its ftrace location)
 * @p: the jprobe's kprobe
 * @regs: registers at the hit, the ip at the probed address
 *
 * The site stays alive until the resume: it is freed only after an RCU
 * Tasks grace period, which this task, not preemptible meanwhile, holds.
 *
 * A site being disarmed lets no handler start: its breakpoint may be gone
 * by the resume.  The count of handlers in flight goes up before the
 * site's wish is read, and kprobe_jprobes_quiesce() reads the count after
 * the wish was cleared (a full barrier on each side): either the disarm
 * waits for this CPU, or this CPU sees the site disarmed.
 *
 * Return: 1 when the CPU goes to the handler; 0 when this CPU has a
 * handler in flight or a resume pending, or the site is being disarmed
 * (the hit is then missed).
 */
int __kprobes jprobe_enter(struct kprobe_site *site, struct kprobe *p,
			   struct pt_regs *regs)
{
	struct jprobe *jp = container_of(p, struct jprobe, kp);
	struct jprobe_flight *f = this_cpu_ptr(&jprobe_flight);

	if (unlikely(f->site || __this_cpu_read(jprobe_resume.site)))
		goto missed;
	atomic_inc(&kprobe_jprobes_in_flight);
	smp_mb__after_atomic();		/* pairs with kprobe_jprobes_quiesce() */
	if (unlikely(!data_race((bool)site->armed))) {
		atomic_dec(&kprobe_jprobes_in_flight);
		goto missed;
	}
	preempt_disable();	/* until the resume, or jprobe_longjmp() */
	pause_graph_tracing();
	f->regs = *regs;
	f->sp = kernel_stack_pointer(regs);
	f->stack_len = stack_room(f->sp);
	memcpy(f->stack, (void *)f->sp, f->stack_len);
	/* Published last: an interrupt's jprobe hit before this finds none. */
	barrier();
	f->site = site;
	set_handler_entry(regs, jp->entry);
	return 1;
missed:
	kprobes_inc_nmissed_count(p);
	return 0;
}

NOKPROBE_SYMBOL(jprobe_enter);

/* The core runs jprobes itself (kprobe_site_pre_handlers()). */
int __kprobes jprobe_setjmp(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_site *site = kprobe_site_lookup(p->addr);

	return site ? jprobe_enter(site, p, regs) : 0;
}

NOKPROBE_SYMBOL(jprobe_setjmp);

/*
 * arm64 returns from a kernel exception to the stack pointer it was taken
 * on, whatever pt_regs says: jprobe_return() moves to the stack pointer of
 * the hit before it traps (the handler's frames below are dead then).
 * The others return to pt_regs' stack pointer.
 */
#ifdef CONFIG_ARM64
#define JPROBE_TRAP_SP	"mov sp, %0\n\t"
#else
#define JPROBE_TRAP_SP	""
#endif

/*
 * The handler's frames are abandoned, not returned from: with KASAN their
 * redzones would stay poisoned under whatever runs there next, starting
 * with the trap's own frame on arm64, which is built at the hit's stack
 * pointer.  This file is not instrumented, so its frames poison nothing.
 */
static __always_inline void unpoison_handler_frames(struct jprobe_flight *f)
{
	unsigned long low = (unsigned long)__builtin_frame_address(0);

	if (low < f->sp)
		kasan_unpoison_range((void *)low, f->sp - low);
}

/**
 * jprobe_return() - end a jprobe handler
 *
 * The last thing a jprobe handler does; it does not return to the handler.
 * Called from anything else, it stops the kernel here, on the caller's own
 * stack.  The handler runs with preemption off, so this is the CPU of its
 * hit.
 */
noinline void notrace jprobe_return(void)
{
	struct jprobe_flight *f = raw_cpu_ptr(&jprobe_flight);

	if (unlikely(!f->site)) {
		pr_emerg("kprobes: %s() outside a jprobe handler\n", __func__);
		BUG();
	}
	unpoison_handler_frames(f);
	asm volatile(JPROBE_TRAP_SP
		     ".globl kprobe_jprobe_trap\n"
		     "kprobe_jprobe_trap:\n\t"
		     "nop\n"
		     : : "r" (f->sp) : "memory");
	BUG();		/* jprobe_longjmp() never comes back here */
}
EXPORT_SYMBOL_GPL(jprobe_return);
NOKPROBE_SYMBOL(jprobe_return);

extern kprobe_opcode_t kprobe_jprobe_trap[];

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * ppc64 with livepatch: ftrace's trampoline went to a handler whose ip
 * it saw changed through livepatch_handler, which pushed three words on
 * the task's livepatch stack for a return that never comes.
 */
static void __kprobes drop_livepatch_frame(void)
{
#ifdef CONFIG_LIVEPATCH_64
	unsigned long *sp = current_thread_info()->livepatch_sp;

	if (!WARN_ON_ONCE(sp[-1] != STACK_END_MAGIC))
		current_thread_info()->livepatch_sp = sp - 3;
#endif
}
#endif

/* The breakpoint is hit next, as the resume (kprobe_jprobe_resuming()). */
static void __kprobes resume_at_site(struct jprobe_flight *f,
				     struct kprobe_site *site,
				     struct pt_regs *regs)
{
	instruction_pointer_set(regs, (unsigned long)site->addr);
	__this_cpu_write(jprobe_resume.sp, f->sp);
	__this_cpu_write(jprobe_resume.site, site);
}

/* Nothing to carry out at an ftrace location: the posts, and past it. */
static void __kprobes resume_past_ftrace(struct kprobe_site *site,
					 struct pt_regs *regs)
{
	unsigned long flags;

#ifdef CONFIG_KPROBES_ON_FTRACE
	drop_livepatch_frame();
	instruction_pointer_set(regs, (unsigned long)site->addr +
				      MCOUNT_INSN_SIZE);
#endif
	/* s390 takes the trap with the handler's interrupts: as classic.c. */
	local_irq_save(flags);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_SSDONE;
	__this_cpu_write(current_kprobe, &site->aggr);
	kprobe_site_post_handlers(site, regs);
	local_irq_restore(flags);
	atomic_dec(&kprobe_jprobes_in_flight);
	preempt_enable_no_resched();
}

/**
 * jprobe_longjmp() - the breakpoint of jprobe_return()
 * @trap: jprobe_trap
 * @regs: registers at the trap
 *
 * Puts back the registers and the stack of the hit, and sends the CPU
 * back to the site (see the top of the file).  The site's breakpoint is
 * still there: the handler started while the site was armed, and a
 * disarm since waits for the resume (kprobe_jprobes_quiesce()).
 *
 * Return: 1, the CPU goes elsewhere; 0 (the nop is stepped, and
 * jprobe_return() stops the kernel) when no handler is in flight.
 */
static int __kprobes jprobe_longjmp(struct kprobe *trap, struct pt_regs *regs)
{
	struct jprobe_flight *f = this_cpu_ptr(&jprobe_flight);
	struct kprobe_site *site = f->site;

	if (!site)
		return 0;
	restore_registers(regs, &f->regs);
	memcpy((void *)f->sp, f->stack, f->stack_len);
	f->site = NULL;
	unpause_graph_tracing();
	if (site->ftrace)
		resume_past_ftrace(site, regs);
	else
		resume_at_site(f, site, regs);
	return 1;
}

NOKPROBE_SYMBOL(jprobe_longjmp);

/**
 * kprobe_jprobe_resuming() - is this hit of @site this CPU's resume?
 * @site: the site whose breakpoint was hit
 * @regs: the registers at the hit
 *
 * The resume is the next hit of the site at the stack pointer of the
 * jprobe's hit; an interrupt's hits between (another site, or a deeper
 * stack) are not it.
 *
 * Return: true, and the resume is over, when the caller must carry out
 * the instruction without running the handlers.
 */
bool __kprobes kprobe_jprobe_resuming(struct kprobe_site *site,
				      struct pt_regs *regs)
{
	struct jprobe_resume *r = this_cpu_ptr(&jprobe_resume);

	if (likely(r->site != site) || r->sp != kernel_stack_pointer(regs))
		return false;
	r->site = NULL;
	atomic_dec(&kprobe_jprobes_in_flight);
	preempt_enable_no_resched();
	return true;
}

NOKPROBE_SYMBOL(kprobe_jprobe_resuming);

/* get_kprobe()'s answer at jprobe_return()'s breakpoint, once it is there. */
struct kprobe *__kprobes kprobe_jprobe_trap_at(void *addr)
{
	/* Pairs with the release in kprobe_jprobes_ready(): prepared, armed. */
	if (addr != (void *)kprobe_jprobe_trap || !smp_load_acquire(&jprobes_ready))
		return NULL;
	return &jprobe_trap;
}

NOKPROBE_SYMBOL(kprobe_jprobe_trap_at);

/**
 * kprobe_jprobes_quiesce() - wait for the handlers and resumes in flight
 *
 * Called before the text of sites changes under their breakpoints (a
 * disarm, a branch of jump optimization), after site->armed was cleared
 * or the site taken by the optimizer, under kprobe_mutex.  A CPU runs
 * with preemption off from jprobe_enter() to its resume, and
 * synchronize_rcu() waits for it; one that starts later sees the site
 * disarmed (jprobe_enter()).  No wait when nothing is in flight, which is
 * always but while a jprobe's handler runs.
 */
void kprobe_jprobes_quiesce(void)
{
	/* The wish cleared, then the count: pairs with jprobe_enter()'s. */
	smp_mb();
	if (atomic_read(&kprobe_jprobes_in_flight))
		synchronize_rcu();
}

/**
 * kprobe_jprobes_ready() - make jprobes possible, before the first one
 *
 * Prepares and arms jprobe_return()'s breakpoint, once, with the locks
 * and in the order of a site's (kprobe_mutex, the hotplug lock,
 * text_mutex).  It is never disarmed: a handler in flight when every probe
 * is disarmed must still come back.
 *
 * Return: 0, or the arch's error for the breakpoint.
 */
int kprobe_jprobes_ready(void)
{
	int ret = 0;

	/* Pairs with the release below: a jprobe sees the breakpoint armed. */
	if (smp_load_acquire(&jprobes_ready))
		return 0;
	mutex_lock(&kprobe_mutex);
	if (!jprobes_ready) {
		jprobe_trap.addr = kprobe_jprobe_trap;
		cpus_read_lock();
		mutex_lock(&text_mutex);
		ret = arch_prepare_kprobe(&jprobe_trap);
		if (!ret)
			arch_arm_kprobe(&jprobe_trap);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
		if (ret)
			goto out;
		/* After the arming: kprobe_jprobe_trap_at() and above acquire. */
		smp_store_release(&jprobes_ready, true);
	}
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}
#else /* !KPROBE_CLASSIC_JPROBES */
/*
 * mips, sparc, sh, parisc, arc, csky, loongarch: none of them is booted
 * here, and this file relies on each arch returning from a kernel
 * exception to the registers in its pt_regs, which is checked for the five
 * above only; their jprobes are refused (jprobe.c), so nothing below is
 * reached but kprobe_jprobes_ready().
 */
int jprobe_enter(struct kprobe_site *site, struct kprobe *p,
		 struct pt_regs *regs)
{
	return 0;
}

int jprobe_setjmp(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

void jprobe_return(void)
{
	BUG();
}
EXPORT_SYMBOL_GPL(jprobe_return);

bool kprobe_jprobe_resuming(struct kprobe_site *site, struct pt_regs *regs)
{
	return false;
}

struct kprobe *kprobe_jprobe_trap_at(void *addr)
{
	return NULL;
}

void kprobe_jprobes_quiesce(void)
{
}

int kprobe_jprobes_ready(void)
{
	return -EOPNOTSUPP;
}
#endif /* KPROBE_CLASSIC_JPROBES */
