// SPDX-License-Identifier: GPL-2.0
/*
 * The instructions a probe's hit carries out on the saved registers
 * instead of from a slot (site.h): each reads the PC, or writes it.
 * Register 31 reads as zero and takes no write (XZR), as for every
 * instruction here.  Hit context: nothing here sleeps, locks or allocates.
 */
#include <linux/bits.h>
#include <linux/bitfield.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include "site.h"

#define A64_INSN_SIZE	4

/* The signed value of the @width-bit field at bit @lsb, times @scale. */
static long field_signed(u32 insn, unsigned int lsb, unsigned int width,
			 unsigned int scale)
{
	return sign_extend64((insn >> lsb) & GENMASK(width - 1, 0),
			     width - 1) * (long)scale;
}

static unsigned int reg_field(u32 insn, unsigned int lsb)
{
	return (insn >> lsb) & 0x1f;
}

/* Bit 31 (sf) set: the instruction works on the whole X register. */
static bool on_x_reg(u32 insn)
{
	return insn & BIT(31);
}

/* Whether the flags in @pstate satisfy condition @cond (B.cond's field). */
static bool condition_holds(unsigned int cond, u64 pstate)
{
	bool n = pstate & PSR_N_BIT, z = pstate & PSR_Z_BIT;
	bool c = pstate & PSR_C_BIT, v = pstate & PSR_V_BIT;
	bool holds;

	switch (cond >> 1) {
	case 0:				/* EQ / NE */
		holds = z;
		break;
	case 1:				/* CS / CC */
		holds = c;
		break;
	case 2:				/* MI / PL */
		holds = n;
		break;
	case 3:				/* VS / VC */
		holds = v;
		break;
	case 4:				/* HI / LS */
		holds = c && !z;
		break;
	case 5:				/* GE / LT */
		holds = n == v;
		break;
	case 6:				/* GT / LE */
		holds = !z && n == v;
		break;
	default:			/* AL, and NV, which is AL too */
		return true;
	}
	return (cond & 1) ? !holds : holds;
}

/* B.cond and BC.cond: imm19 at 5, the condition in the low nibble. */
static unsigned long sim_bcond(u32 insn, unsigned long pc, struct pt_regs *regs)
{
	if (condition_holds(insn & 0xf, regs->pstate))
		return pc + field_signed(insn, 5, 19, A64_INSN_SIZE);
	return pc + A64_INSN_SIZE;
}

/* CBZ, CBNZ (bit 24): imm19 at 5, Rt at 0, W or X by sf. */
static unsigned long sim_cbz(u32 insn, unsigned long pc, struct pt_regs *regs)
{
	u64 val = pt_regs_read_reg(regs, reg_field(insn, 0));
	bool zero = on_x_reg(insn) ? val == 0 : (u32)val == 0;
	bool branch_if_nonzero = insn & BIT(24);

	if (zero != branch_if_nonzero)
		return pc + field_signed(insn, 5, 19, A64_INSN_SIZE);
	return pc + A64_INSN_SIZE;
}

/* TBZ, TBNZ (bit 24): the bit number b5:b40, imm14 at 5, Rt at 0. */
static unsigned long sim_tbz(u32 insn, unsigned long pc, struct pt_regs *regs)
{
	unsigned int bit = ((insn >> 31) << 5) | ((insn >> 19) & 0x1f);
	bool set = pt_regs_read_reg(regs, reg_field(insn, 0)) & BIT_ULL(bit);
	bool branch_if_set = insn & BIT(24);

	if (set == branch_if_set)
		return pc + field_signed(insn, 5, 14, A64_INSN_SIZE);
	return pc + A64_INSN_SIZE;
}

/* B, BL (bit 31: the link): imm26 at 0. */
static unsigned long sim_b(u32 insn, unsigned long pc, struct pt_regs *regs)
{
	if (insn & BIT(31))
		pt_regs_write_reg(regs, 30, pc + A64_INSN_SIZE);
	return pc + field_signed(insn, 0, 26, A64_INSN_SIZE);
}

/* BR, BLR (bit 21: the link; clear in RET), RET: the target in Rn at 5. */
static unsigned long sim_br(u32 insn, unsigned long pc, struct pt_regs *regs)
{
	/* Read before the link is written: BLR X30 goes where X30 was. */
	unsigned long target = pt_regs_read_reg(regs, reg_field(insn, 5));

	if (insn & BIT(21)) {
		pt_regs_write_reg(regs, 30, pc + A64_INSN_SIZE);
		regs->pstate |= PSR_BTYPE_C;
	} else if (!(insn & BIT(22))) {
		/*
		 * BR: the branch type the hardware would leave for the
		 * target's BTI (RET leaves none): through X16 or X17, or from
		 * a page that is not guarded, JC; else J.
		 */
		unsigned int n = reg_field(insn, 5);

		regs->pstate |= (n == 16 || n == 17 ||
				 !IS_ENABLED(CONFIG_ARM64_BTI_KERNEL)) ?
				PSR_BTYPE_JC : PSR_BTYPE_J;
	}
	return target;
}

/* ADR, ADRP (bit 31): immhi at 5, immlo at 29, Rd at 0. */
static unsigned long sim_adr(u32 insn, unsigned long pc, struct pt_regs *regs)
{
	long imm = field_signed(insn, 5, 19, 4) | ((insn >> 29) & 3);
	unsigned long val;

	if (insn & BIT(31))
		val = (pc & ~0xfffUL) + (imm << 12);
	else
		val = pc + imm;
	pt_regs_write_reg(regs, reg_field(insn, 0), val);
	return pc + A64_INSN_SIZE;
}

/* LDR (literal) of W or X (bit 30), LDRSW (literal): imm19 at 5, Rt at 0. */
static unsigned long sim_ldr_lit(enum kprobe_a64_class class, u32 insn,
				 unsigned long pc, struct pt_regs *regs)
{
	unsigned long addr = pc + field_signed(insn, 5, 19, A64_INSN_SIZE);
	u64 val;

	if (class == KPROBE_A64_LDRSW_LIT)
		val = (s64)READ_ONCE(*(s32 *)addr);
	else if (insn & BIT(30))
		val = READ_ONCE(*(u64 *)addr);
	else
		val = READ_ONCE(*(u32 *)addr);
	pt_regs_write_reg(regs, reg_field(insn, 0), val);
	return pc + A64_INSN_SIZE;
}

void kprobe_a64_simulate(enum kprobe_a64_class class, u32 insn,
			 unsigned long pc, struct pt_regs *regs)
{
	unsigned long next;

	/* As after any instruction but an indirect branch (sim_br()). */
	regs->pstate &= ~PSR_BTYPE_MASK;
	switch (class) {
	case KPROBE_A64_BCOND:
		next = sim_bcond(insn, pc, regs);
		break;
	case KPROBE_A64_CBZ:
		next = sim_cbz(insn, pc, regs);
		break;
	case KPROBE_A64_TBZ:
		next = sim_tbz(insn, pc, regs);
		break;
	case KPROBE_A64_B:
		next = sim_b(insn, pc, regs);
		break;
	case KPROBE_A64_BR:
		next = sim_br(insn, pc, regs);
		break;
	case KPROBE_A64_ADR:
		next = sim_adr(insn, pc, regs);
		break;
	case KPROBE_A64_LDR_LIT:
	case KPROBE_A64_LDRSW_LIT:
		next = sim_ldr_lit(class, insn, pc, regs);
		break;
	default:
		/* A class that is not simulated never reaches here. */
		WARN_ON_ONCE(1);
		next = pc + A64_INSN_SIZE;
		break;
	}
	instruction_pointer_set(regs, next);
}
