/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 part of Kprobes: the breakpoint is int3, the probed instruction
 * runs from an executable copy followed by a second int3, or is emulated
 * when it transfers control.  Where it can, the int3 path instead leaves
 * for a copy followed by a jump back (boosting), and an optimized site is
 * reached through a jump to its detour instead of an int3.
 */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/percpu.h>
#include <asm/text-patching.h>
#include <asm/insn.h>

struct pt_regs;
struct kprobe;
struct kprobe_site;

typedef u8 kprobe_opcode_t;

#define BREAKPOINT_INSTRUCTION	0xcc

/* Bytes of stack above the stack pointer a jprobe handler may change. */
#define MAX_STACK_SIZE		64

/*
 * One executable slot per site, in up to three parts:
 *   0    the step copy: the instruction, then int3
 *   16   the detour, if the site can be optimized: a head that calls the
 *        pre_handlers, the copied region, a jump back;
 *        else the boost copy, if it fits: the instruction, a jump back
 *        (a breakpoint hit leaves a detour site through the region copy,
 *        so it needs no boost copy but while another site is inside its
 *        region, when it steps instead)
 *   then the post copy (if the site's first probe has a post_handler):
 *        the instruction, then a head that saves a pt_regs and calls the
 *        post_handlers, then a jump back
 * The slot is taken at KPROBE_SLOT_SIZE and trimmed to what is built, in
 * grains of KPROBE_SLOT_GRAIN (slots.c): most sites have no post copy,
 * and the step copy alone is all an unboostable instruction needs.
 */
#define KPROBE_SLOT_SIZE	320
#define KPROBE_SLOT_GRAIN	16
#define KPROBE_BOOST_OFFSET	16
#define KPROBE_BOOST_SIZE	16
#define KPROBE_DETOUR_OFFSET	16

/* The longest region a detour copies: a jump's 5 bytes, plus one insn. */
#define KPROBE_MAX_REGION	(JMP32_INSN_SIZE - 1 + MAX_INSN_SIZE)

/* How a probed instruction is carried out, decided at registration. */
enum kprobe_insn_kind {
	KPROBE_INSN_STEP,	/* run the copy, trap on the int3 behind it */
	KPROBE_INSN_STEP_PUSHF,	/* as STEP, then mend IF in the pushed flags */
	KPROBE_INSN_CALL,	/* call rel32: emulated */
	KPROBE_INSN_JMP,	/* jmp rel8/rel32: emulated */
	KPROBE_INSN_JCC,	/* jcc rel8/rel32: emulated */
	KPROBE_INSN_LOOP,	/* loop/loope/loopne/jrcxz: emulated */
	KPROBE_INSN_RET,	/* ret, ret imm16: emulated */
	KPROBE_INSN_CALL_IND,	/* call *r/m: emulated */
	KPROBE_INSN_JMP_IND,	/* jmp *r/m: emulated */
	KPROBE_INSN_SKIP,	/* ftrace's call site: skipped, ftrace ran */
	KPROBE_INSN_IF_CHANGE,	/* popf, cli, sti (opcode in ->cc): emulated */
};

/*
 * The arch's view of a probed instruction (struct kprobe_site.ainsn).  Every
 * site carries it, so it is kept to 24 bytes on x86-64, which with the rest
 * of struct kprobe_site makes a 128-byte slab object.  An emulated
 * instruction has no copy and a copied one needs no emulation, so the
 * emulation's operands and the copies' offsets share their bytes: which of
 * them is meant follows from ->kind.  Whoever reads the copies' part of a
 * published site asks kprobe_insn_copied() first (the accessors below do;
 * kprobe_region_copy() is only reached once a detour is known to exist).
 */
struct arch_specific_insn {
	kprobe_opcode_t	*insn;		/* the slot (step copy first), or NULL */
	union {
		struct {		/* CALL, JMP, JCC, LOOP */
			s32	rel;	/* displacement of the transfer */
			u8	cc;	/* condition code of a jcc / loop opcode */
		};
		struct {		/* CALL_IND, JMP_IND */
			s32	disp;	/* displacement of the operand */
			u8	modrm, sib, rex;
			u8	disp_rip; /* the operand is RIP-relative */
		};
		u16	imm;		/* RET: ret imm16 */
		/* STEP, STEP_PUSHF: the copies (optimize.c), fixed at preparation. */
		struct {
			u8	fast;	   /* KPROBE_HAS_BOOST */
			u8	region_len; /* bytes the detour's copy stands
					     * for; 0: no detour */
			u8	region_off; /* the region copy in the slot */
			u8	post_off;  /* the post copy in the slot; 0: none */
			/* The text a jump replaces behind its first byte
			 * (struct kprobe_site.opcode). */
			u8	saved[JMP32_INSN_SIZE - INT3_INSN_SIZE];
		};
	};
	u8		len;		/* length of the original instruction */
	u8		kind;		/* enum kprobe_insn_kind */
};

#define KPROBE_HAS_BOOST	0x01	/* copy + jmp back at KPROBE_BOOST_OFFSET */

/* Is the instruction run from copies (so ->fast... ->saved are theirs)? */
static inline bool kprobe_insn_copied(const struct arch_specific_insn *ai)
{
	return ai->insn;
}

/* The boost copy, or NULL. */
static inline kprobe_opcode_t *kprobe_boost_copy(const struct arch_specific_insn *ai)
{
	return kprobe_insn_copied(ai) && (ai->fast & KPROBE_HAS_BOOST) ?
	       ai->insn + KPROBE_BOOST_OFFSET : NULL;
}

/* The post copy, or NULL. */
static inline kprobe_opcode_t *kprobe_post_copy(const struct arch_specific_insn *ai)
{
	return kprobe_insn_copied(ai) && ai->post_off ?
	       ai->insn + ai->post_off : NULL;
}

/* Bytes the detour stands for; 0 when the site cannot be optimized. */
static inline unsigned int kprobe_region_len(const struct arch_specific_insn *ai)
{
	return kprobe_insn_copied(ai) ? ai->region_len : 0;
}

/* The detour, or NULL when the site cannot be optimized. */
static inline kprobe_opcode_t *kprobe_detour(const struct arch_specific_insn *ai)
{
	return kprobe_region_len(ai) ? ai->insn + KPROBE_DETOUR_OFFSET : NULL;
}

/* The detour's copy of the region; only when there is a detour. */
static inline kprobe_opcode_t *kprobe_region_copy(const struct arch_specific_insn *ai)
{
	return ai->insn + ai->region_off;
}

/* Nesting depth of out-of-line executions on one CPU (NMI inside #BP...). */
#define KPROBE_MAX_NEST		4

/* One out-of-line execution in flight on this CPU. */
struct kprobe_step {
	struct kprobe_site	*site;
	kprobe_opcode_t		*copy;		/* the step copy or the post copy */
	unsigned long		saved_if;	/* the caller's IF bit */
	bool			handlers;	/* run post_handlers at the end */
};

/* Per-CPU state of the breakpoint machinery. */
struct kprobe_ctlblk {
	unsigned long		kprobe_status;	/* KPROBE_HIT_* of the handler level */
	unsigned int		depth;		/* entries used in steps[] */
	struct kprobe_step	steps[KPROBE_MAX_NEST];
};

int kprobe_int3_handler(struct pt_regs *regs);
bool jprobe_is_return_trap(kprobe_opcode_t *addr);
struct kprobe_site *jprobe_longjmp(struct pt_regs *regs);
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);
__visible void kprobe_detour_callback(struct kprobe_site *site,
				      struct pt_regs *regs);
__visible void kprobe_post_callback(struct kprobe_site *site,
				    struct pt_regs *regs);

/*
 * Return probes: at a function's entry (both widths) the return address
 * is on top of the stack.  The core records and replaces it there itself,
 * inline, in place of an out-of-line arch_prepare_kretprobe(): this runs
 * at every call of a function with a return probe.
 */
static __always_inline unsigned long *arch_kretprobe_slot(struct pt_regs *regs)
{
	return (unsigned long *)regs->sp;
}
#define arch_kretprobe_slot arch_kretprobe_slot

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
