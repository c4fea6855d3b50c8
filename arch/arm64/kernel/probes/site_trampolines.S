/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BRKs the site code sends the CPU to.  __kretprobe_trampoline:
 * where a function with a return probe returns to (site_kretprobe.c): a
 * BRK whose handler has the whole register file, runs the return
 * handlers and sends the CPU on to the real return address.  Nothing
 * after the BRK is ever reached.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/asm-offsets.h>
#include <asm/brk-imm.h>
#include <asm/ptrace.h>

	.text

SYM_CODE_START(__kretprobe_trampoline)
	brk	#KRETPROBES_BRK_IMM
	brk	#BUG_BRK_IMM
SYM_CODE_END(__kretprobe_trampoline)

/*
 * Where jprobe_return() goes, on the stack pointer of the hit
 * (site_jprobe.c).
 */
SYM_CODE_START(kprobe_a64_jprobe_trap)
	brk	#KPROBES_BRK_IMM
	brk	#BUG_BRK_IMM
SYM_CODE_END(kprobe_a64_jprobe_trap)

/*
 * The head of a detour or of a post copy (site_optimize.c).  A detour
 * is what the probed word's B goes to on an optimized site; a post copy is
 * the copied instruction followed by this, where a hit with post_handlers
 * leaves through instead of a second trap.  It builds a pt_regs below the
 * stack pointer (the registers, the stack pointer, the PC the handlers
 * are to see, NZCV and DAIF as PSTATE), calls the callback with the site
 * and the pt_regs, puts back the registers, flags and interrupt masks
 * the callback may have changed, runs the instruction in its middle (the
 * detour's copy; a NOP in a post copy) and branches back behind the
 * probed instruction.  Every reference inside is relative to the PC, so
 * a copy works wherever it lies; the BL, the middle instruction, the B
 * back and the two literals (the site, the PC) are written per site at
 * the offsets the labels give.  Data here, never run in place.
 */
	.pushsection .rodata
	.balign	8
SYM_DATA_START(kprobe_a64_detour_template)
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X0 + 8 * 4]
	stp	x6, x7, [sp, #S_X0 + 8 * 6]
	stp	x8, x9, [sp, #S_X0 + 8 * 8]
	stp	x10, x11, [sp, #S_X0 + 8 * 10]
	stp	x12, x13, [sp, #S_X0 + 8 * 12]
	stp	x14, x15, [sp, #S_X0 + 8 * 14]
	stp	x16, x17, [sp, #S_X0 + 8 * 16]
	stp	x18, x19, [sp, #S_X0 + 8 * 18]
	stp	x20, x21, [sp, #S_X0 + 8 * 20]
	stp	x22, x23, [sp, #S_X0 + 8 * 22]
	stp	x24, x25, [sp, #S_X0 + 8 * 24]
	stp	x26, x27, [sp, #S_X0 + 8 * 26]
	stp	x28, x29, [sp, #S_X28]
	add	x0, sp, #PT_REGS_SIZE
	stp	x30, x0, [sp, #S_LR]
	mrs	x1, nzcv
	mrs	x2, daif
	orr	x1, x1, x2
	mov	x2, #PSR_MODE_EL1h
	orr	x1, x1, x2
	ldr	x0, .Ldetour_pc
	stp	x0, x1, [sp, #S_PC]
	ldr	x0, .Ldetour_site
	mov	x1, sp
SYM_INNER_LABEL(kprobe_a64_detour_call, SYM_L_GLOBAL)
	brk	#BUG_BRK_IMM			/* BL to the callback */
	ldr	x0, [sp, #S_PSTATE]
	and	x1, x0, #(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)
	msr	nzcv, x1
	and	x0, x0, #(PSR_D_BIT | PSR_A_BIT | PSR_I_BIT | PSR_F_BIT)
	msr	daif, x0
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X0 + 8 * 4]
	ldp	x6, x7, [sp, #S_X0 + 8 * 6]
	ldp	x8, x9, [sp, #S_X0 + 8 * 8]
	ldp	x10, x11, [sp, #S_X0 + 8 * 10]
	ldp	x12, x13, [sp, #S_X0 + 8 * 12]
	ldp	x14, x15, [sp, #S_X0 + 8 * 14]
	ldp	x16, x17, [sp, #S_X0 + 8 * 16]
	ldp	x18, x19, [sp, #S_X0 + 8 * 18]
	ldp	x20, x21, [sp, #S_X0 + 8 * 20]
	ldp	x22, x23, [sp, #S_X0 + 8 * 22]
	ldp	x24, x25, [sp, #S_X0 + 8 * 24]
	ldp	x26, x27, [sp, #S_X0 + 8 * 26]
	ldp	x28, x29, [sp, #S_X28]
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #PT_REGS_SIZE
SYM_INNER_LABEL(kprobe_a64_detour_insn, SYM_L_GLOBAL)
	brk	#BUG_BRK_IMM			/* the copy, or a NOP */
	brk	#BUG_BRK_IMM			/* B to the next one */
	.balign	8
.Ldetour_site:
SYM_INNER_LABEL(kprobe_a64_detour_site, SYM_L_GLOBAL)
	.quad	0
.Ldetour_pc:
	.quad	0
SYM_DATA_END_LABEL(kprobe_a64_detour_template, SYM_L_GLOBAL, kprobe_a64_detour_end)
	.popsection
