/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 on the site interface (include/linux/kprobes_arch.h): what a probe
 * site's instruction is, and how a hit carries it out.
 *
 * Every arm64 instruction is one 32-bit word, so deciding where a probe may
 * sit is a question about that word (and, for the exclusive sequences, the
 * words before it).  Each word falls in one class:
 *
 * - KPROBE_A64_COPY: it runs unchanged from a slot, whatever its address;
 * - the simulated classes: it reads the PC (a branch, ADR/ADRP, a literal
 *   load), so a copy would compute from the slot's address; the hit
 *   carries it out on the saved registers instead (site_simulate.c);
 * - KPROBE_A64_REFUSED: neither is safe (see site_decode.c's table).
 *
 * The classes and the words in each are those arm64's own decoder
 * (decode-insn.c) gives kprobes, FP literal loads refused as there;
 * site_decode_kunit.c holds the two to the same answer over a sweep of
 * instruction words.
 */
#ifndef _ARM64_KPROBES_SITE_H
#define _ARM64_KPROBES_SITE_H

#include <linux/sizes.h>
#include <linux/types.h>

struct pt_regs;

enum kprobe_a64_class {
	KPROBE_A64_REFUSED,
	KPROBE_A64_COPY,
	KPROBE_A64_B,		/* B, BL */
	KPROBE_A64_BCOND,	/* B.cond, BC.cond */
	KPROBE_A64_CBZ,		/* CBZ, CBNZ */
	KPROBE_A64_TBZ,		/* TBZ, TBNZ */
	KPROBE_A64_BR,		/* BR, BLR, RET */
	KPROBE_A64_ADR,		/* ADR, ADRP */
	KPROBE_A64_LDR_LIT,	/* LDR (literal), W and X */
	KPROBE_A64_LDRSW_LIT,	/* LDRSW (literal) */
	KPROBE_A64_CLASSES
};

/* Whether a class is carried out on the saved registers, not from a slot. */
static inline bool kprobe_a64_simulated(enum kprobe_a64_class class)
{
	return class > KPROBE_A64_COPY;
}

/* The class of @insn alone, as a probe would see it.  Any context. */
enum kprobe_a64_class kprobe_a64_classify(u32 insn);

/*
 * The class of the instruction at @addr in kernel text, with what only its
 * place tells: an instruction between a load-exclusive and its
 * store-exclusive is refused, since the exception of a hit there would
 * clear the exclusive monitor and the sequence would retry forever.
 * Registration context.
 */
enum kprobe_a64_class kprobe_a64_decode(const u32 *addr);

/*
 * Carry out @insn, of simulated class @class, as if at @pc, on @regs:
 * its register results and the PC it goes to (regs->pc).  Hit context.
 */
void kprobe_a64_simulate(enum kprobe_a64_class class, u32 insn,
			 unsigned long pc, struct pt_regs *regs);

/* The detour's template and the words written per site (site_trampolines.S). */
extern const u32 kprobe_a64_detour_template[], kprobe_a64_detour_end[];
extern const u32 kprobe_a64_detour_call[], kprobe_a64_detour_insn[];
extern const u32 kprobe_a64_detour_site[];

struct kprobe_site;
unsigned int kprobe_a64_build_detour(struct kprobe_site *site, u32 *words,
				     u32 *detour);
unsigned int kprobe_a64_build_post(struct kprobe_site *site, u32 *words,
				   u32 *post);

/* Whether a B or BL at @from reaches @to (128 MiB either way). */
static inline bool kprobe_a64_branch_reaches(unsigned long from, unsigned long to)
{
	long off = (long)(to - from);

	return off >= -SZ_128M && off < SZ_128M;
}

/* Mask @bits of DAIF, and the priority mask, for code run from a trap. */
void kprobe_a64_mask_for_copy(struct pt_regs *regs, unsigned long bits);

/* Where jprobe_return() goes (site_trampolines.S). */
void kprobe_a64_jprobe_trap(void);

#ifdef CONFIG_KPROBES_KUNIT_TEST
bool kprobe_a64_row_pattern(unsigned int i, u32 *mask, u32 *value);
#endif

#endif /* _ARM64_KPROBES_SITE_H */
