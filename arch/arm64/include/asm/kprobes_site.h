/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 on the Kprobes core's site interface (ARM64_KPROBE_SITES), the
 * arch's half of include/linux/kprobes_arch.h: included by <asm/kprobes.h>
 * in place of the classic interface's definitions.
 *
 * A probe is a BRK with the kprobes immediate.  Its hit runs the
 * pre_handlers, then carries out the probed instruction: on the saved
 * registers when it reads or writes the PC (arch/arm64/kernel/probes/
 * site.h), else from a slot that holds a copy of it followed by a BRK
 * with the step immediate, whose trap ends the step and runs the
 * post_handlers.  All of DAIF stays masked from the first trap to the
 * second, so nothing else runs on the CPU between them but an SError or a
 * debug exception that the mask defers.
 */
#ifndef _ASM_ARM64_KPROBES_SITE_H
#define _ASM_ARM64_KPROBES_SITE_H

#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/percpu.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>

struct kprobe_site;

typedef u32 kprobe_opcode_t;

#define BREAKPOINT_INSTRUCTION	BRK64_OPCODE_KPROBES
#define MAX_INSN_SIZE		1

/* Bytes of stack above the stack pointer a jprobe handler may change. */
#define MAX_STACK_SIZE		128

/*
 * A slot, in two grains:
 *   0  the step copy: the instruction, then the BRK that ends its step;
 *   8  the boost copy, where the site has one: the instruction, then a B
 *      to the instruction after the probed one (a hit that needs no
 *      post_handler leaves through it, one trap instead of two);
 *   16 where its branches reach too (site_optimize.c): the detour, or,
 *      when the site's first probe has a post_handler (such a site is
 *      never optimized), the post copy: the instruction, then a head
 *      that calls the post_handlers and branches back, so that such a
 *      hit takes one trap, not two.
 * A B reaches 128 MiB either way, so slot pages are taken near the text
 * (kprobe_slot_page_alloc()); a slot is trimmed to what it holds.
 */
#define KPROBE_SLOT_SIZE	320
#define KPROBE_SLOT_GRAIN	(2 * AARCH64_INSN_SIZE)
#define KPROBE_BOOST_OFFSET	2	/* in words */
#define KPROBE_DETOUR_OFFSET	4	/* in words */
/* A jump covers the one instruction (in kprobe_opcode_t units). */
#define KPROBE_MAX_REGION	1

/* A page for slots, near the kernel's and modules' text (site_text.c). */
void *kprobe_slot_page_alloc(void);
#define kprobe_slot_page_alloc kprobe_slot_page_alloc

/* The arch's view of a probed instruction (struct kprobe_site.ainsn). */
struct arch_specific_insn {
	kprobe_opcode_t	*insn;		/* the slot, NULL when simulated */
	u8		class;		/* enum kprobe_a64_class */
	bool		boost;		/* the slot has a boost copy */
	bool		detour;		/* and a detour */
	bool		post;		/* or a post copy */
};

/* The boost copy, or NULL. */
static inline kprobe_opcode_t *kprobe_boost_copy(const struct arch_specific_insn *ai)
{
	return ai->boost ? ai->insn + KPROBE_BOOST_OFFSET : NULL;
}

/* The detour, or NULL when the site cannot be optimized. */
static inline kprobe_opcode_t *kprobe_detour(const struct arch_specific_insn *ai)
{
	return ai->detour ? ai->insn + KPROBE_DETOUR_OFFSET : NULL;
}

/* The post copy, or NULL. */
static inline kprobe_opcode_t *kprobe_post_copy(const struct arch_specific_insn *ai)
{
	return ai->post ? ai->insn + KPROBE_DETOUR_OFFSET : NULL;
}

/* Nesting depth of out-of-line steps on one CPU (an SDEI event in a step). */
#define KPROBE_MAX_NEST		4

/* One step in flight on this CPU. */
struct kprobe_step {
	struct kprobe_site	*site;
	kprobe_opcode_t		*copy;		/* the step copy or the post copy */
	unsigned long		saved_daif;	/* the caller's DAIF bits */
	unsigned long		saved_pmr;	/* and its priority mask */
	bool			handlers;	/* post_handlers at the end */
};

/* Per-CPU state of the breakpoint machinery. */
struct kprobe_ctlblk {
	unsigned long		kprobe_status;	/* KPROBE_HIT_* of the handler level */
	unsigned int		depth;		/* entries used in steps[] */
	struct kprobe_step	steps[KPROBE_MAX_NEST];
};

#ifdef CONFIG_KPROBES_KUNIT_TEST
/* BRK traps taken by kprobe_brk_handler() and kprobe_ss_brk_handler(). */
DECLARE_PER_CPU(unsigned long, kprobe_traps_taken);
#endif

int kprobe_fault_handler(struct pt_regs *regs, unsigned int fsr);
void kprobe_a64_detour_callback(struct kprobe_site *site, struct pt_regs *regs);
void kprobe_a64_post_callback(struct kprobe_site *site, struct pt_regs *regs);
bool jprobe_is_return_trap(kprobe_opcode_t *addr);
struct kprobe_site *jprobe_longjmp(struct pt_regs *regs);
void __kretprobe_trampoline(void);

#endif /* _ASM_ARM64_KPROBES_SITE_H */
