/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets of the arm64 paths suite (paths_kunit.c): one function per class
 * of instruction a probe can sit on, each with the address of that
 * instruction in a u64 of the same name plus "_at".  The addresses are
 * data, not symbols: a symbol at the probed instruction would be the
 * function kallsyms finds for it, and whether an instruction sits inside
 * an exclusive sequence is judged from its function's start.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>

/* kap_at name: the address of the next instruction, in the u64 name. */
	.macro	kap_at name
	.pushsection .rodata
	.balign	8
SYM_DATA(\name, .quad 9999f)
	.popsection
9999:
	.endm

	.text

/* long kap_add(long x): x + 5, the probe on the add (stepped). */
SYM_FUNC_START(kap_add)
	kap_at	kap_add_at
	add	x0, x0, #5
	ret
SYM_FUNC_END(kap_add)

/* u64 kap_adr(void): the address of kap_adr_target. */
SYM_FUNC_START(kap_adr)
	kap_at	kap_adr_at
	adr	x0, kap_adr_target
	ret
SYM_FUNC_END(kap_adr)

/* u64 kap_adrp(void): the 4 KiB page of kap_adr_target. */
SYM_FUNC_START(kap_adrp)
	kap_at	kap_adrp_at
	adrp	x0, kap_adr_target
	ret
SYM_FUNC_END(kap_adrp)

/* A word of text that nothing runs, whose address the two above take. */
	.balign	4
SYM_DATA(kap_adr_target, .word 0)

/* u64 kap_ldr_x(void), kap_ldr_w(void), kap_ldrsw(void): literals. */
SYM_FUNC_START(kap_ldr_x)
	kap_at	kap_ldr_x_at
	ldr	x0, 1f
	ret
	.balign	8
1:	.quad	0x1122334455667788
SYM_FUNC_END(kap_ldr_x)

SYM_FUNC_START(kap_ldr_w)
	/* x0 all ones first: the load must clear the upper half. */
	mov	x0, #-1
	kap_at	kap_ldr_w_at
	ldr	w0, 1f
	ret
	.balign	4
1:	.word	0x89abcdef
SYM_FUNC_END(kap_ldr_w)

SYM_FUNC_START(kap_ldrsw)
	kap_at	kap_ldrsw_at
	ldrsw	x0, 1f
	ret
	.balign	4
1:	.word	0x80000001
SYM_FUNC_END(kap_ldrsw)

/* long kap_bcond(long x): 2 when x == 0, else 1 (the probe on b.eq). */
SYM_FUNC_START(kap_bcond)
	cmp	x0, #0
	kap_at	kap_bcond_at
	b.eq	1f
	mov	x0, #1
	ret
1:	mov	x0, #2
	ret
SYM_FUNC_END(kap_bcond)

/* long kap_cbz(long x): 2 when x == 0, else 1 (the probe on cbz). */
SYM_FUNC_START(kap_cbz)
	kap_at	kap_cbz_at
	cbz	x0, 1f
	mov	x0, #1
	ret
1:	mov	x0, #2
	ret
SYM_FUNC_END(kap_cbz)

/* long kap_cbnz_w(long x): 2 when the low half of x is not 0, else 1. */
SYM_FUNC_START(kap_cbnz_w)
	kap_at	kap_cbnz_w_at
	cbnz	w0, 1f
	mov	x0, #1
	ret
1:	mov	x0, #2
	ret
SYM_FUNC_END(kap_cbnz_w)

/* long kap_tbnz(long x): 2 when bit 33 of x is set, else 1. */
SYM_FUNC_START(kap_tbnz)
	kap_at	kap_tbnz_at
	tbnz	x0, #33, 1f
	mov	x0, #1
	ret
1:	mov	x0, #2
	ret
SYM_FUNC_END(kap_tbnz)

/* long kap_tbz(long x): 2 when bit 3 of x is clear, else 1. */
SYM_FUNC_START(kap_tbz)
	kap_at	kap_tbz_at
	tbz	w0, #3, 1f
	mov	x0, #1
	ret
1:	mov	x0, #2
	ret
SYM_FUNC_END(kap_tbz)

/* u64 kap_b(void): 2 (the probe on the b that skips the mov). */
SYM_FUNC_START(kap_b)
	kap_at	kap_b_at
	b	1f
	mov	x0, #1
	ret
1:	mov	x0, #2
	ret
SYM_FUNC_END(kap_b)

/* u64 kap_leaf(void): 40, with its ret probed. */
SYM_FUNC_START(kap_leaf)
	mov	x0, #40
	kap_at	kap_leaf_ret_at
	ret
SYM_FUNC_END(kap_leaf)

/* u64 kap_bl(void): kap_leaf() + 1 (the probe on the bl). */
SYM_FUNC_START(kap_bl)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	kap_at	kap_bl_at
	bl	kap_leaf
	add	x0, x0, #1
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(kap_bl)

/* long kap_blr(u64 (*fn)(void)): fn() + 1 (the probe on the blr). */
SYM_FUNC_START(kap_blr)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	mov	x1, x0
	kap_at	kap_blr_at
	blr	x1
	add	x0, x0, #1
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(kap_blr)

/* u64 kap_br(void): 2 (the probe on the br that skips the mov). */
SYM_FUNC_START(kap_br)
	adr	x16, 1f
	kap_at	kap_br_at
	br	x16
	mov	x0, #1
	ret
1:	hint	#36		/* bti j: the landing of an indirect jump */
	mov	x0, #2
	ret
SYM_FUNC_END(kap_br)

/* long kap_ldp(long *p): p[0] + p[1] (the probe on the ldp). */
SYM_FUNC_START(kap_ldp)
	kap_at	kap_ldp_at
	ldp	x1, x2, [x0]
	add	x0, x1, x2
	ret
SYM_FUNC_END(kap_ldp)

/* long *kap_ldr_post(long *p, long *out): *out = p[0]; p + 1. */
SYM_FUNC_START(kap_ldr_post)
	kap_at	kap_ldr_post_at
	ldr	x2, [x0], #8
	str	x2, [x1]
	ret
SYM_FUNC_END(kap_ldr_post)

/* void kap_str(long *p, long v): p[1] = v (the probe on the str). */
SYM_FUNC_START(kap_str)
	kap_at	kap_str_at
	str	x1, [x0, #8]
	ret
SYM_FUNC_END(kap_str)

/*
 * void kap_excl(long *p): ++*p through an exclusive pair, with an
 * instruction between them, and one after.  Never called: the suite
 * only tries to probe it.
 */
SYM_FUNC_START(kap_excl)
1:	kap_at	kap_excl_ldxr_at
	ldxr	x1, [x0]
	kap_at	kap_excl_mid_at
	add	x1, x1, #1
	kap_at	kap_excl_stxr_at
	stxr	w2, x1, [x0]
	kap_at	kap_excl_after_at
	cbnz	w2, 1b
	ret
SYM_FUNC_END(kap_excl)

/*
 * Instructions no probe may sit on, never run: the suite only tries to
 * probe them.
 */
SYM_FUNC_START(kap_refused)
	kap_at	kap_msr_daifset_at
	msr	daifset, #2
	kap_at	kap_mrs_daif_at
	mrs	x0, daif
	kap_at	kap_svc_at
	svc	#0
	kap_at	kap_brk_at
	brk	#0x123
	kap_at	kap_eret_at
	eret
	kap_at	kap_ldr_lit_fp_at
	ldr	d0, 1f
	ret
	.balign	8
1:	.quad	0
SYM_FUNC_END(kap_refused)
