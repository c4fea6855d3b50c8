// SPDX-License-Identifier: GPL-2.0
/*
 * The breakpoint path: what happens when a CPU reaches a probe.
 *
 * do_int3() calls kprobe_int3_handler() in NMI-like context: interrupts
 * off, not preemptible, RCU watching.  For the first int3 (the probe
 * itself) we run the pre_handlers, then either emulate the instruction,
 * send the CPU to a copy that jumps back by itself (optimize.c), or send it to
 * the copy that ends in int3, with IF cleared.  The int3 behind the copy brings
 * us back here; we restore IF, put the CPU after the original instruction,
 * and run the post_handlers.
 *
 * A CPU can reach a probe while it is already inside this machinery: from a
 * handler, or from an NMI or exception that interrupts the copy.  Such a hit
 * runs no handler and is counted in nmissed, but its instruction must still
 * be carried out, so every CPU keeps a small stack of copies in flight
 * (struct kprobe_ctlblk.steps).  The nested copy ends before the outer one
 * resumes, so the int3 behind a copy always belongs to the top entry.
 *
 * Everything here is in .kprobes.text and therefore never probed.
 */
#include <linux/entry-common.h>
#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <asm/nops.h>
#include <asm/text-patching.h>
#include <asm/traps.h>

/*
 * pt_regs offsets, in words, of the general registers in ModRM/SIB
 * numbering; i386 has the first eight (and no REX bits to reach others).
 */
#define GPR(r)	(offsetof(struct pt_regs, r) / sizeof(long))
static const u8 gpr_offset[] = {
	GPR(ax), GPR(cx), GPR(dx), GPR(bx), GPR(sp), GPR(bp), GPR(si), GPR(di),
#ifdef CONFIG_X86_64
	GPR(r8), GPR(r9), GPR(r10), GPR(r11),
	GPR(r12), GPR(r13), GPR(r14), GPR(r15),
#endif
};

static unsigned long __kprobes gpr(struct pt_regs *regs, unsigned int n)
{
	return ((unsigned long *)regs)[gpr_offset[n]];
}

/* The effective address of the memory operand of ff /2 or ff /4. */
static unsigned long __kprobes
indirect_operand_addr(struct kprobe_site *site, struct pt_regs *regs)
{
	const struct arch_specific_insn *ai = &site->ainsn;
	unsigned int mod = X86_MODRM_MOD(ai->modrm);
	unsigned int rm = X86_MODRM_RM(ai->modrm);
	unsigned long ea = (long)ai->disp;
	unsigned int base, index;

	if (ai->disp_rip)
		return (unsigned long)site->addr + ai->len + ea;
	/* What is RIP-relative on x86-64 is an absolute disp32 on i386. */
	if (!IS_ENABLED(CONFIG_X86_64) && mod == 0 && rm == 5)
		return ea;
	if (rm != 4)
		return ea + gpr(regs, rm | (X86_REX_B(ai->rex) << 3));

	base = X86_SIB_BASE(ai->sib);
	index = X86_SIB_INDEX(ai->sib) | (X86_REX_X(ai->rex) << 2);
	if (index != 4)
		ea += gpr(regs, index) << X86_SIB_SCALE(ai->sib);
	if (!(base == 5 && mod == 0))
		ea += gpr(regs, base | (X86_REX_B(ai->rex) << 3));
	return ea;
}

/* Where an indirect call/jmp goes; false when its operand is unreadable. */
static bool __kprobes indirect_target(struct kprobe_site *site,
				      struct pt_regs *regs, unsigned long *to)
{
	const struct arch_specific_insn *ai = &site->ainsn;

	if (X86_MODRM_MOD(ai->modrm) == 3) {
		*to = gpr(regs, X86_MODRM_RM(ai->modrm) |
			  (X86_REX_B(ai->rex) << 3));
		return true;
	}
	return !copy_from_kernel_nofault(to,
			(void *)indirect_operand_addr(site, regs), sizeof(*to));
}

/* What popf may change at CPL 0: not RF, VM, VIF, VIP. */
#define POPF_FLAGS	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_TF | \
			 X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_OF | \
			 X86_EFLAGS_IOPL | X86_EFLAGS_NT | X86_EFLAGS_AC | \
			 X86_EFLAGS_ID)

/*
 * cli, sti or popf (@op) on the regs the trap returns to: the return
 * brings the new IF into effect.  The kernel stack under a popf is
 * readable: the probed code is about to read it itself.
 */
static void __kprobes emulate_if_change(u8 op, struct pt_regs *regs)
{
	unsigned long image;

	switch (op) {
	case 0xfa:
		regs->flags &= ~X86_EFLAGS_IF;
		break;
	case 0xfb:
		regs->flags |= X86_EFLAGS_IF;
		break;
	case 0x9d:
		image = *(unsigned long *)regs->sp;
		regs->sp += sizeof(long);
		regs->flags = (regs->flags & ~POPF_FLAGS) | (image & POPF_FLAGS);
		break;
	}
}

/* Carry out an emulated instruction on @regs; false if it cannot be done. */
static bool __kprobes emulate(struct kprobe_site *site, struct pt_regs *regs)
{
	const struct arch_specific_insn *ai = &site->ainsn;
	unsigned long next = (unsigned long)site->addr + ai->len;
	unsigned long to;
	bool taken;

	switch (ai->kind) {
	case KPROBE_INSN_CALL:
		int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, next + ai->rel);
		break;
	case KPROBE_INSN_JMP:
		int3_emulate_jmp(regs, next + ai->rel);
		break;
	case KPROBE_INSN_JCC:
		int3_emulate_jcc(regs, ai->cc, next, ai->rel);
		break;
	case KPROBE_INSN_LOOP:
		if (ai->cc == 3) {		/* jrcxz */
			taken = !regs->cx;
		} else {
			taken = --regs->cx != 0;
			if (ai->cc == 0)	/* loopne */
				taken = taken && !(regs->flags & X86_EFLAGS_ZF);
			else if (ai->cc == 1)	/* loope */
				taken = taken && (regs->flags & X86_EFLAGS_ZF);
		}
		int3_emulate_jmp(regs, taken ? next + ai->rel : next);
		break;
	case KPROBE_INSN_RET:
		int3_emulate_ret(regs);
		regs->sp += ai->imm;
		break;
	case KPROBE_INSN_CALL_IND:
		if (!indirect_target(site, regs, &to))
			return false;
		int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, to);
		break;
	case KPROBE_INSN_JMP_IND:
		if (!indirect_target(site, regs, &to))
			return false;
		int3_emulate_jmp(regs, to);
		break;
	case KPROBE_INSN_SKIP:
		int3_emulate_jmp(regs, next);
		break;
	case KPROBE_INSN_IF_CHANGE:
		emulate_if_change(ai->cc, regs);
		int3_emulate_jmp(regs, next);
		break;
	default:
		return false;
	}
	return true;
}

#ifdef CONFIG_KPROBES_KUNIT_TEST
/*
 * Breakpoints taken by this handler on each CPU: the KUnit suites count
 * the traps of a hit with it (one when boosted, two when stepped...).
 * Test kernels only, off the hot path of any other.
 */
DEFINE_PER_CPU(unsigned long, kprobe_traps_taken);
#define count_trap()	this_cpu_inc(kprobe_traps_taken)
#else
#define count_trap()	do { } while (0)
#endif

static bool __kprobes emulated(struct kprobe_site *site)
{
	return !site->ainsn.insn;
}

/*
 * Are the bytes behind the site's first byte anything but the original,
 * or may they become so while this CPU is on its way back to them?  That
 * is the case from the moment a site is queued for a jump (its jmp goes in
 * after an RCU Tasks grace period that starts later) until its jmp is
 * undone and the original bytes are back (->jumped cleared by
 * arch_kprobe_drop_jump() after the last text sync); ->in_flux says
 * either in one byte.  Meanwhile the only safe way out of the int3 path
 * is the detour's copy of the whole region, which returns behind the
 * region; every copy of the first instruction alone returns into what may
 * be a jmp's rel32.  Such a site always has a detour.
 *
 * The acquire pairs with the release of kprobe_site_update_flux() in
 * arch_kprobe_drop_jump(), which follows the last text sync of the
 * undoing: who sees the jmp gone may return into the original bytes.
 */
static bool __kprobes text_in_flux(struct kprobe_site *site)
{
	/* Pairs with the release of kprobe_site_update_flux(). */
	return smp_load_acquire(&site->in_flux);
}

/* Leave through the region copy; see text_in_flux(). */
static int __kprobes leave_by_region(struct kprobe_site *site,
				     struct pt_regs *regs)
{
	regs->ip = (unsigned long)kprobe_region_copy(&site->ainsn);
	return 1;
}

/*
 * Send the CPU to @copy with IF cleared, and remember the step: its end
 * (the int3 behind a step copy, the head of a post copy) puts IF back.
 * @handlers: the handler level lasts over the copy, post_handlers are due.
 */
static __always_inline void push_step(struct kprobe_ctlblk *kcb,
				      struct kprobe_site *site,
				      struct pt_regs *regs,
				      kprobe_opcode_t *copy, bool handlers)
{
	struct kprobe_step *step;

	if (WARN_ON_ONCE(kcb->depth == KPROBE_MAX_NEST)) {
		/* Unreachable in practice: NMI inside #MC inside #BP... */
		pr_emerg("kprobes: nesting too deep at %pS\n", site->addr);
		BUG();
	}
	/*
	 * The depth first: an NMI that hits a probe from here on takes the
	 * entry above this one (pop_step() reads in the other order).
	 */
	step = &kcb->steps[kcb->depth++];
	barrier();
	step->site = site;
	step->copy = copy;
	step->saved_if = regs->flags & X86_EFLAGS_IF;
	step->handlers = handlers;
	if (handlers)
		kcb->kprobe_status = KPROBE_HIT_SS;
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)copy;
}

/*
 * Carry out the probed instruction: emulate it now, or send the CPU to the
 * copy.  @handlers: this is the handler level, post_handlers are due.
 */
static int __kprobes carry_out(struct kprobe_ctlblk *kcb,
			       struct kprobe_site *site, struct pt_regs *regs,
			       bool handlers)
{
	if (text_in_flux(site)) {
		kprobe_window_entered(KPROBE_WINDOW_IN_FLUX);
		/* No post_handler can run: the region copy has no head. */
		if (handlers)
			reset_current_kprobe();
		return leave_by_region(site, regs);
	}
	if (emulated(site)) {
		if (!emulate(site, regs)) {
			/* Only an unreadable call/jmp operand gets here. */
			pr_emerg("kprobes: cannot emulate at %pS\n", site->addr);
			BUG();
		}
		if (handlers)
			kprobe_site_post_handlers(site, regs);
		return 1;
	}

	/* No interrupt may come between here and the int3 behind the copy. */
	push_step(kcb, site, regs, site->ainsn.insn, handlers);
	return 1;
}

/*
 * Take the top step off, as a copy read before the depth drops: from
 * then on an NMI that hits a probe reuses the entry (push_step() writes
 * in the other order).
 */
static __always_inline struct kprobe_step pop_step(struct kprobe_ctlblk *kcb)
{
	struct kprobe_step step = kcb->steps[kcb->depth - 1];

	barrier();
	kcb->depth--;
	return step;
}

/* The copy of @step has run: the caller's IF goes back into @regs. */
static void __kprobes give_back_if(const struct kprobe_step *step,
				   struct pt_regs *regs)
{
	regs->flags |= step->saved_if;
	/* pushf ran with IF cleared: the pushed image must show the real one. */
	if (step->site->ainsn.kind == KPROBE_INSN_STEP_PUSHF)
		*(unsigned long *)regs->sp |= step->saved_if;
}

/* The int3 behind the copy of the top step was reached. */
static int __kprobes finish_step(struct kprobe_ctlblk *kcb,
				 struct pt_regs *regs)
{
	struct kprobe_step step = pop_step(kcb);
	struct kprobe_site *site = step.site;

	regs->ip = (unsigned long)site->addr + site->ainsn.len;
	give_back_if(&step, regs);
	if (step.handlers)
		kprobe_site_post_handlers(site, regs);
	return 1;
}

static bool __kprobes at_end_of_top_step(struct kprobe_ctlblk *kcb,
					 kprobe_opcode_t *addr)
{
	struct kprobe_step *step;

	if (!kcb->depth)
		return false;
	step = &kcb->steps[kcb->depth - 1];
	/* Behind a post copy is its head, never an int3. */
	return addr == step->copy + step->site->ainsn.len;
}

/*
 * A copy followed by a jump back, if the site may skip the second trap:
 * the detour's copy of the region while a jmp may stand in the text
 * (text_in_flux()); with post_handlers, the post copy, which calls them on
 * the way back (where the site has one: NULL, the step path, where not;
 * *@post says it is the post copy, which the handler level spans);
 * else the region copy while no other site is inside it,
 * else the boost copy of the one instruction, which only a site without a
 * detour has (optimize.c).  The flags are
 * kprobe_mutex's to write; a stale read of ->stepped or ->posted only
 * picks another copy that is still there (slots outlive an RCU Tasks
 * grace period), and text_in_flux() is asked before any copy of the one
 * instruction, so those flags only take effect once the original bytes
 * are back.
 */
static kprobe_opcode_t *__kprobes fast_copy(struct kprobe_site *site,
					    bool *post)
{
	bool stepped, posted;

	/*
	 * Read after the walk of the site's probes: a probe whose
	 * pre_handler ran was published after these were set for it
	 * (register.c); x86 keeps loads in order, the barrier says so.
	 */
	smp_rmb();
	stepped = READ_ONCE(site->stepped);
	posted = READ_ONCE(site->posted);

	/* An emulated instruction has no copy (and ->ainsn no offsets). */
	if (!kprobe_insn_copied(&site->ainsn))
		return NULL;
	/* The usual case first; the region copy is right whatever the text. */
	if (!(stepped | posted) && READ_ONCE(site->region_clear) &&
	    site->ainsn.region_len)
		return kprobe_region_copy(&site->ainsn);
	if (text_in_flux(site))
		return kprobe_region_copy(&site->ainsn);
	if (stepped)
		return NULL;
	if (posted) {
		*post = true;
		return kprobe_post_copy(&site->ainsn);
	}
	return kprobe_boost_copy(&site->ainsn);
}

/* The length of the nop at @p, or 0 if it is none of the kernel's. */
static unsigned int __kprobes patched_nop_len(const u8 *p)
{
	unsigned int len, i;

	/*
	 * x86_nops[] are whole instructions: none is a prefix of another.
	 * A loop of our own, not memcmp(), which may carry a probe.
	 */
	for (len = 1; len <= ASM_NOP_MAX; len++) {
		for (i = 0; i < len && p[i] == x86_nops[len][i]; i++)
			;
		if (i == len)
			return len;
	}
	return 0;
}

/* static_call's "return 0" in place of a call: three cs prefixes, xor %eax. */
static bool __kprobes is_static_call_return0(const u8 *p)
{
	return p[0] == 0x2e && p[1] == 0x2e && p[2] == 0x2e &&
	       p[3] == 0x31 && p[4] == 0xc0;
}

#ifdef CONFIG_KPROBES_KUNIT_TEST
/* Where this CPU last trapped on an int3 that had gone; test kernels. */
static DEFINE_PER_CPU(kprobe_opcode_t *, last_int3_gone);

/*
 * Count a trap on a gone int3, and a second one in a row at the same
 * place: this CPU runs a copy of the text older than memory (see patch.c
 * on QEMU's TCG), or a probe came and went twice while it was on its way.
 */
static void __kprobes count_int3_gone(kprobe_opcode_t *addr)
{
	kprobe_window_entered(KPROBE_WINDOW_INT3_GONE);
	if (__this_cpu_read(last_int3_gone) == addr)
		kprobe_window_entered(KPROBE_WINDOW_STALE_TEXT);
	__this_cpu_write(last_int3_gone, addr);
}
#else
static inline void count_int3_gone(kprobe_opcode_t *addr)
{
}
#endif

/*
 * The int3 this CPU trapped on is no longer in the text: a probe went
 * away, or text_poke_bp() finished patching, after the CPU fetched it.
 * The bytes at @addr are now a whole instruction again (whoever patches
 * writes the rest only while the int3 stands), so carrying it out from
 * here is what executing it would do.
 *
 * On hardware, returning to @addr would do: the trap's return serializes
 * and refetches.  Under QEMU's TCG a CPU can keep running a translation
 * made while the int3 stood; re-executing then traps again, forever,
 * with the interrupts of the code it came from (off, in __schedule()),
 * and the next text_poke_sync() waits forever for that CPU's answer.
 * So the instructions that jump labels, static calls and ftrace write
 * through text_poke_bp() (the kernel's nops, jmp, jcc, call, ret, and
 * static_call's "return 0") are emulated from the bytes that stand now;
 * only other instructions (a probe's original one) are re-executed.
 */
static int __kprobes int3_gone(struct pt_regs *regs, kprobe_opcode_t *addr)
{
	unsigned long at = (unsigned long)addr;
	const u8 *p = addr;
	unsigned int len;

	switch (p[0]) {
	case JMP8_INSN_OPCODE:
		int3_emulate_jmp(regs, at + JMP8_INSN_SIZE + (s8)p[1]);
		return 1;
	case JMP32_INSN_OPCODE:
		int3_emulate_jmp(regs, at + JMP32_INSN_SIZE +
				 get_unaligned((s32 *)(p + 1)));
		return 1;
	case CALL_INSN_OPCODE:
		/* Pushes @addr + 5: regs->ip is still @addr + 1. */
		int3_emulate_call(regs, at + CALL_INSN_SIZE +
				  get_unaligned((s32 *)(p + 1)));
		return 1;
	case RET_INSN_OPCODE:
		int3_emulate_ret(regs);
		return 1;
	case 0x0f:				/* jcc rel32 */
		if ((p[1] & 0xf0) != 0x80)
			break;
		int3_emulate_jcc(regs, p[1] & 0x0f, at + 6,
				 get_unaligned((s32 *)(p + 2)));
		return 1;
	case 0x2e:
		if (is_static_call_return0(p)) {
			/* xor %eax,%eax: ZF and PF set, CF OF SF cleared */
			regs->ax = 0;
			regs->flags &= ~(X86_EFLAGS_CF | X86_EFLAGS_OF |
					 X86_EFLAGS_SF | X86_EFLAGS_AF);
			regs->flags |= X86_EFLAGS_ZF | X86_EFLAGS_PF;
			int3_emulate_jmp(regs, at + 5);
			return 1;
		}
		break;
	}
	len = patched_nop_len(p);
	int3_emulate_jmp(regs, at + len);	/* len 0: re-execute */
	return 1;
}

/*
 * A jprobe handler called jprobe_return(): carry out the probed
 * instruction as the hit would have.  jprobe_return() itself stops a
 * caller that is no handler before it touches the stack pointer; finding
 * no handler in flight here anyway (a jump straight to the trap) is said
 * plainly, and do_int3() reports the trap.
 */
static int __kprobes jprobe_returned(struct kprobe_ctlblk *kcb,
				     struct pt_regs *regs)
{
	struct kprobe_site *site = jprobe_longjmp(regs);

	if (!site) {
		pr_emerg("kprobes: jprobe_return() outside a jprobe handler\n");
		return 0;
	}
	return carry_out(kcb, site, regs, true);
}

/**
 * kprobe_int3_handler() - the breakpoint hook of do_int3()
 * @regs: registers at the trap; regs->ip is just past the int3
 *
 * Return: 1 when the trap was ours and is dealt with, 0 otherwise.
 */
int __kprobes kprobe_int3_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb;
	struct kprobe_site *site;
	kprobe_opcode_t *addr, *fast;
	bool post = false;

	if (user_mode(regs))
		return 0;
	count_trap();

	addr = (kprobe_opcode_t *)(regs->ip - INT3_INSN_SIZE);
	kcb = get_kprobe_ctlblk();
	if (at_end_of_top_step(kcb, addr))
		return finish_step(kcb, regs);
	if (jprobe_is_return_trap(addr))
		return jprobe_returned(kcb, regs);

	kprobe_window_stall(KPROBE_WINDOW_INT3_GONE);
	site = kprobe_site_find(addr);
	if (!site) {
		/* The int3 went away after this CPU fetched it?  Else not ours. */
		if (*addr != INT3_INSN_OPCODE) {
			count_int3_gone(addr);
			return int3_gone(regs, addr);
		}
		/*
		 * An int3 stands there now: maybe that of a site published
		 * since the lookup.  That can only follow a trap on an int3
		 * already removed, which a CPU under QEMU's TCG takes from a
		 * stale translation; meanwhile a new probe may have come.
		 * Its site went into the hash before its int3 into the text;
		 * the read barrier pairs with that order.
		 */
		smp_rmb();
		site = kprobe_site_find(addr);
		/*
		 * Or that of a text_poke_bp() batch begun since the trap
		 * (ftrace's, at an ftrace location): its handler found no
		 * batch when it ran before this one, and takes the int3 now
		 * if it is the batch's.  A site there would have taken it as
		 * a hit; a bare probe (ftrace.c) has none.
		 */
		if (!site)
			return poke_int3_handler(regs);
		kprobe_window_entered(KPROBE_WINDOW_LATE_SITE);
	}

	if (kcb->depth || kprobe_running()) {
		kprobe_site_missed(site);
		return carry_out(kcb, site, regs, false);
	}

	/*
	 * The jump comes or goes: the text after the probed instruction may
	 * be the jmp's, so the instruction is carried out only within its
	 * region's copy, where no post_handler can follow it.
	 */
	if (unlikely(text_in_flux(site)) && kprobe_insn_copied(&site->ainsn)) {
		kprobe_window_entered(KPROBE_WINDOW_IN_FLUX);
		if (kprobe_site_pre_handlers_passing(site, regs, true))
			return 1;	/* a handler sent the CPU elsewhere */
		return leave_by_region(site, regs);
	}
	if (kprobe_site_pre_handlers(site, regs, true))
		return 1;	/* a handler sent the CPU elsewhere */
	fast = fast_copy(site, &post);
	if (fast) {
		if (post) {
			/* The handler level lasts until the post copy's head. */
			push_step(kcb, site, regs, fast, true);
			return 1;
		}
		reset_current_kprobe();
		regs->ip = (unsigned long)fast;
		return 1;
	}
	return carry_out(kcb, site, regs, true);
}

/**
 * kprobe_post_callback() - the end of a post copy
 * @site: the site, as built into its post copy
 * @regs: the registers after the instruction, saved by the head
 *
 * The int3 path ran the pre_handlers and sent the CPU to the post copy
 * rather than the step copy: one trap instead of two.  It pushed a step
 * as for the step copy, with IF cleared and current_kprobe left set, so
 * the pre_handlers and post_handlers of one hit run on one CPU with
 * interrupts off, and a hit in between (an NMI's) only counts as missed.
 * That step is still the top one: a nested step ends before its NMI does.
 *
 * The head puts regs->flags back with popf, so the IF bit restored here
 * turns interrupts back on as the CPU leaves for the original code.
 *
 * The post_handlers run in the context the int3 path gives its handlers,
 * as upstream's, whose post_handlers run in the trap that ends the
 * single step: irqentry_nmi_enter() marks it (in_nmi(), the hardirq
 * count, RCU watching) and tells lockdep that interrupts are off, which
 * it did not know (the trap's exit gave it the caller's state while IF
 * is cleared); irqentry_nmi_exit() gives lockdep back that state.
 */
__visible void __kprobes kprobe_post_callback(struct kprobe_site *site,
					      struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	irqentry_state_t irq_state;
	struct kprobe_step step;

	if (!kcb->depth || kcb->steps[kcb->depth - 1].site != site) {
		/* Nothing sane to go back to: which IF, which handler level? */
		pr_emerg("kprobes: post copy of %pS left without its step\n",
			 site->addr);
		BUG();
	}
	/*
	 * A copy: a post_handler's own hits (missed, but stepped) and an
	 * NMI's reuse the entry.
	 */
	step = pop_step(kcb);
	regs->ss = __KERNEL_DS;		/* the head put the sp in that slot */
	give_back_if(&step, regs);
	irq_state = irqentry_nmi_enter(regs);
	kprobe_site_post_handlers(site, regs);
	irqentry_nmi_exit(regs, irq_state);
}

/* Undo the top step after its copy faulted; the fault goes on from @addr. */
static void __kprobes abandon_step(struct kprobe_ctlblk *kcb,
				   struct pt_regs *regs)
{
	struct kprobe_step step = pop_step(kcb);

	regs->flags |= step.saved_if;
	if (step.handlers)
		reset_current_kprobe();
}

/**
 * kprobe_fault_handler() - the fault hook of the #PF and #GP paths
 * @regs: registers at the fault
 * @trapnr: the trap number
 *
 * Called when kprobe_running() on this CPU.  A fault in a handler goes to
 * that probe's fault_handler.  A fault in a copy goes to the site's
 * fault_handlers; if none claims it, the CPU is put back on the original
 * instruction, so that the kernel's own fixups (exception tables) find it
 * there, and the normal fault handling proceeds.
 *
 * Return: 1 when a fault_handler claimed the fault.
 */
int __kprobes kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (kcb->depth) {
		struct kprobe_step *step = &kcb->steps[kcb->depth - 1];
		struct kprobe_site *site = step->site;
		unsigned long slot = (unsigned long)step->copy;

		if (regs->ip - slot < site->ainsn.len) {
			if (step->handlers &&
			    kprobe_site_fault_handlers(site, regs, trapnr)) {
				/*
				 * A handler that mended the cause and left ip
				 * in the copy (or on the int3 behind it) wants
				 * the step to go on: it is still ours.
				 */
				if (regs->ip - slot > site->ainsn.len)
					abandon_step(kcb, regs);
				return 1;
			}
			abandon_step(kcb, regs);
			regs->ip = (unsigned long)site->addr;
			return 0;
		}
	}

	if (cur && (kcb->kprobe_status & (KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE))) {
		if (cur->fault_handler && cur->fault_handler(cur, regs, trapnr))
			return 1;
	}
	return 0;
}
