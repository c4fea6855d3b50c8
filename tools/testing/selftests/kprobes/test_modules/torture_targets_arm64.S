/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions kprobes_torture.c calls and probes, for arm64: each is
 * unsigned long fn(unsigned long x), a pure function of x, built around
 * one class of instruction that the arm64 site code treats on its own
 * (copied, boosted or optimized; the PC-relative loads, the branches and
 * the calls it simulates; flags kept across a probe; a load whose fault
 * its exception table skips, which no probe may take).  The same table
 * and the same order as torture_targets.S, ktt_helper fourth.
 */
#include <linux/linkage.h>
#include <asm/asm-extable.h>
#include <asm/assembler.h>

/* END(fn): the end of a target, marked for ktt_targets[] */
#define END(fn)	.L##fn##_end: SYM_FUNC_END(fn)

	.text

/* x * 5 + 3, mixed with shifts and xor */
SYM_FUNC_START(ktt_arith)
	add	x1, x0, x0, lsl #2
	add	x1, x1, #3
	eor	x1, x1, x1, lsl #7
	mov	x2, #13
	mul	x1, x1, x2
	sub	x1, x1, x0
	neg	x1, x1
	mvn	x0, x1
	ret
END(ktt_arith)

/* x + 0x55, through a frame and saved and restored x19 and x20 */
SYM_FUNC_START(ktt_stack)
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	stp	x19, x20, [sp, #16]
	mov	x19, x0
	add	x20, x19, #0x55
	mov	x0, x20
	ldp	x19, x20, [sp, #16]
	ldp	x29, x30, [sp], #32
	ret
END(ktt_stack)

/*
 * ktt_table[x & 7] + x + 2 + 2 + 3, read relative to the PC: ADRP, an
 * X literal, ADR, an LDRSW literal.  The literals lie past the end of the
 * target, where the torture puts no probe: a BRK in data would be read.
 */
SYM_FUNC_START(ktt_rip)
	adrp	x2, ktt_table
	add	x2, x2, :lo12:ktt_table
	and	x3, x0, #7
	ldr	x1, [x2, x3, lsl #3]
	add	x0, x0, x1
	ldr	x1, .Lrip_two
	add	x0, x0, x1
	adr	x2, .Lrip_two
	ldr	x1, [x2]
	add	x0, x0, x1
	ldrsw	x1, .Lrip_three
	add	x0, x0, x1
	ret
END(ktt_rip)
	.balign	8
.Lrip_two:
	.quad	2
.Lrip_three:
	.long	3
	.long	0

SYM_FUNC_START(ktt_helper)
	add	x0, x0, #0x1000
	ret
END(ktt_helper)

/* ktt_helper(x ^ 3) * 2, through a BL */
SYM_FUNC_START(ktt_call)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	eor	x0, x0, #3
	bl	ktt_helper
	add	x0, x0, x0
	ldp	x29, x30, [sp], #16
	ret
END(ktt_call)

/* (x & 1 ? 11 : 22) + (x & 2 ? 100 : 200), with B.cond and B */
SYM_FUNC_START(ktt_jcc8)
	mov	x1, x0
	mov	x0, #0
	tst	x1, #1
	b.eq	1f
	add	x0, x0, #11
	b	2f
1:	add	x0, x0, #22
2:	tst	x1, #2
	b.ne	3f
	add	x0, x0, #200
	ret
3:	add	x0, x0, #100
	ret
END(ktt_jcc8)

/*
 * (x > 1000 ? x - 1000 : x + 1000), plus 7 when x's low word is 0, plus 9
 * when bit 40 is set: CBZ on a W register, TBNZ on a high bit, CBNZ
 */
SYM_FUNC_START(ktt_jcc32)
	mov	x1, x0
	cmp	x1, #1000
	b.hi	1f
	add	x0, x1, #1000
	b	2f
1:	sub	x0, x1, #1000
2:	cbz	w1, 4f
3:	tbnz	x1, #40, 5f
	cbnz	x0, 6f
	ret
4:	add	x0, x0, #7
	b	3b
5:	add	x0, x0, #9
6:	ret
END(ktt_jcc32)

/* (x & 7) + 1 counted by a loop, plus 50 when x & 8 == 0 */
SYM_FUNC_START(ktt_loop)
	and	x1, x0, #7
	add	x1, x1, #1
	mov	x2, #0
1:	add	x2, x2, #1
	subs	x1, x1, #1
	b.ne	1b
	tbnz	x0, #3, 2f
	add	x2, x2, #50
2:	mov	x0, x2
	ret
END(ktt_loop)

/* x | 0x100, returned through a RET to x30 after a BR */
SYM_FUNC_START(ktt_ret)
	orr	x0, x0, #0x100
	adr	x16, 1f
	br	x16
	brk	#0x800
1:	ret
END(ktt_ret)

/*
 * The flags across instructions: x == 0 ? 0 : (the carry of x + x) + 2 *
 * (x >= 2^62) + 0x200, through ADDS, MRS and MSR of NZCV, CSET and CSEL.
 * A probe between the ADDS and the CSET must keep the carry.
 */
SYM_FUNC_START(ktt_flags)
	adds	x1, x0, x0
	mrs	x2, nzcv
	cset	x3, cs
	msr	nzcv, x2
	cset	x4, cs
	cmp	x3, x4
	b.ne	1f
	lsr	x5, x0, #62
	cmp	x5, #0
	cset	x5, ne
	add	x3, x3, x5, lsl #1
	add	x3, x3, #0x200
	cmp	x0, #0
	csel	x0, xzr, x3, eq
	ret
1:	mov	x0, #-1
	ret
END(ktt_flags)

/* x with its bytes reversed, copied a byte at a time through the stack */
SYM_FUNC_START(ktt_string)
	sub	sp, sp, #16
	rev	x1, x0
	str	x1, [sp]
	mov	x2, #0
1:	ldrb	w3, [sp, x2]
	add	x4, x2, #8
	strb	w3, [sp, x4]
	add	x2, x2, #1
	cmp	x2, #8
	b.lo	1b
	ldr	x0, [sp, #8]
	add	sp, sp, #16
	ret
END(ktt_string)

/* ktt_helper(x) - 1, through a BLR */
SYM_FUNC_START(ktt_indirect)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	adr	x1, ktt_helper
	blr	x1
	sub	x0, x0, #1
	ldp	x29, x30, [sp], #16
	ret
END(ktt_indirect)

/* 0x77 + x: its load of an unmapped address faults, the extable skips it */
SYM_FUNC_START(ktt_fault)
	mov	x2, #0xdead000000000000
	mov	x1, #0x77
/* Where no probe may go: the exception table names it (kprobes_torture.c) */
SYM_INNER_LABEL(ktt_fault_load, SYM_L_GLOBAL)
1:	ldr	x1, [x2]
2:	add	x0, x0, x1
	ret
	_ASM_EXTABLE_UACCESS(1b, 2b)
END(ktt_fault)

/* The count of set bits of x & 0xff, plus the sign-extended low byte */
SYM_FUNC_START(ktt_bits)
	and	x1, x0, #0xff
	mov	x2, #0
	mov	x3, #0
1:	tbz	x1, #0, 2f
	add	x2, x2, #1
2:	lsr	x1, x1, #1
	add	x3, x3, #1
	cmp	x3, #8
	b.lo	1b
	sxtb	x1, w0
	add	x0, x2, x1
	ret
END(ktt_bits)

/*
 * x + 1, and x + 2: called only from a pre_handler, one per CPU, each
 * with a probe of the torture's own at its entry that must count every
 * such call as a missed hit.  Not targets: nothing else probes them.
 */
SYM_FUNC_START(ktt_nested0)
	add	x0, x0, #1
	ret
SYM_FUNC_END(ktt_nested0)

SYM_FUNC_START(ktt_nested1)
	add	x0, x0, #2
	ret
SYM_FUNC_END(ktt_nested1)

#define TARGET(fn)	.quad fn, .L##fn##_end - fn

	.pushsection .rodata
	.balign	8
SYM_DATA_START(ktt_targets)
	TARGET(ktt_arith)
	TARGET(ktt_stack)
	TARGET(ktt_rip)
	TARGET(ktt_helper)
	TARGET(ktt_call)
	TARGET(ktt_jcc8)
	TARGET(ktt_jcc32)
	TARGET(ktt_loop)
	TARGET(ktt_ret)
	TARGET(ktt_flags)
	TARGET(ktt_string)
	TARGET(ktt_indirect)
	TARGET(ktt_fault)
	TARGET(ktt_bits)
SYM_INNER_LABEL(ktt_targets_end, SYM_L_GLOBAL)
SYM_DATA_END(ktt_targets)

SYM_DATA_START(ktt_table)
	.quad	3, 1, 4, 1, 5, 9, 2, 6
SYM_DATA_END(ktt_table)
	.popsection
