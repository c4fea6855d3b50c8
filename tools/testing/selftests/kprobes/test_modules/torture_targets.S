/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions kprobes_torture.c calls and probes: each is
 * unsigned long fn(unsigned long x), a pure function of x, and each is
 * built around one class of instruction that the x86 decoder treats on
 * its own (stack, RIP-relative, relative call and jump, short and near
 * jcc, loop and jrcxz, raw ret, flags, string, indirect call, a load
 * that faults into an extable fixup).  Written in assembly so that the
 * compiler cannot take the class away.
 *
 * ktt_targets[] lists { start, size } of each, in kprobes_torture.c's
 * order: the torture probes random offsets in between, instruction
 * boundaries or not, and the core must refuse the ones that are not.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>

/* END(fn): the end of a target, marked for ktt_targets[] */
#define END(fn)	.L##fn##_end: SYM_FUNC_END(fn)

	.text

/* x * 5 + 3, then mixed with shifts and xor */
SYM_FUNC_START(ktt_arith)
	lea	(%rdi, %rdi, 4), %rax
	add	$3, %rax
	mov	%rax, %rdx
	shl	$7, %rdx
	xor	%rdx, %rax
	imul	$13, %rax, %rax
	sub	%rdi, %rax
	neg	%rax
	not	%rax
	RET
END(ktt_arith)

/* x + 0x55, through saved and restored %rbx, %rbp and %r12 */
SYM_FUNC_START(ktt_stack)
	push	%rbp
	mov	%rsp, %rbp
	push	%rbx
	push	%r12
	mov	%rdi, %rbx
	lea	0x55(%rbx), %r12
	mov	%r12, %rax
	pop	%r12
	pop	%rbx
	pop	%rbp
	RET
END(ktt_stack)

/* ktt_table[x & 7] + x, read RIP-relative */
SYM_FUNC_START(ktt_rip)
	lea	ktt_table(%rip), %rdx
	mov	%rdi, %rcx
	and	$7, %ecx
	mov	(%rdx, %rcx, 8), %rax
	add	%rdi, %rax
	add	ktt_table+8(%rip), %rax
	RET
END(ktt_rip)

SYM_FUNC_START(ktt_helper)
	lea	0x1000(%rdi), %rax
	RET
END(ktt_helper)

/* ktt_helper(x ^ 3) * 2, through a relative call */
SYM_FUNC_START(ktt_call)
	push	%rbp
	mov	%rsp, %rbp
	xor	$3, %rdi
	call	ktt_helper
	add	%rax, %rax
	pop	%rbp
	RET
END(ktt_call)

/* (x & 1 ? 11 : 22) + (x & 2 ? 100 : 200), with short jcc and jmp */
SYM_FUNC_START(ktt_jcc8)
	xor	%eax, %eax
	test	$1, %dil
	jz	1f
	add	$11, %rax
	jmp	2f
1:	add	$22, %rax
2:	test	$2, %dil
	jnz	3f
	add	$200, %rax
	RET
3:	add	$100, %rax
	RET
END(ktt_jcc8)

/* (x > 1000 ? x - 1000 : x + 1000), with rel32 jcc and jmp */
SYM_FUNC_START(ktt_jcc32)
	mov	%rdi, %rax
	cmp	$1000, %rdi
	.byte	0x0f, 0x87		/* ja rel32 */
	.long	1f - (. + 4)
	add	$1000, %rax
	.byte	0xe9			/* jmp rel32 */
	.long	2f - (. + 4)
1:	sub	$1000, %rax
2:	RET
END(ktt_jcc32)

/* (x & 7) + 1 counted by loop, plus 50 when x & 8 == 0 (jrcxz) */
SYM_FUNC_START(ktt_loop)
	mov	%rdi, %rcx
	and	$7, %ecx
	inc	%ecx
	xor	%eax, %eax
1:	add	$1, %rax
	loop	1b
	mov	%rdi, %rcx
	and	$8, %ecx
	jrcxz	2f
	RET
2:	add	$50, %rax
	RET
END(ktt_loop)

/* x | 0x100, returned by a raw ret */
SYM_FUNC_START(ktt_ret)
	mov	%rdi, %rax
	or	$0x100, %rax
	ANNOTATE_UNRET_SAFE	/* the raw form is the class under test */
	ret
	int3
END(ktt_ret)

/*
 * x == 0 ? 0 : (the top bit of x) + (IF | TF in the flags pushf stored),
 * through pushf/popf, setcc and cmov.  Readers call it with interrupts on
 * and no trap flag: whatever a probe did on the way, that part is 0x200.
 */
SYM_FUNC_START(ktt_flags)
	mov	%rdi, %rdx
	add	%rdx, %rdx		/* CF: the top bit of x */
	pushf
	setc	%al
	movzbl	%al, %eax
	mov	(%rsp), %rsi		/* the image pushf stored */
	popf				/* CF must come back with it */
	setnc	%cl
	movzbl	%cl, %ecx
	xor	$1, %ecx
	cmp	%eax, %ecx
	jne	1f
	and	$0x300, %esi		/* IF | TF */
	add	%rsi, %rax
	test	%rdi, %rdi
	sete	%cl
	movzbl	%cl, %ecx
	lea	(%rax, %rcx, 2), %rax
	cmovz	%rdi, %rax
	RET
1:	mov	$-1, %rax
	RET
END(ktt_flags)

/* x with its bytes reversed, copied through the stack by rep movsb */
SYM_FUNC_START(ktt_string)
	push	%rbp
	mov	%rsp, %rbp
	sub	$16, %rsp
	bswap	%rdi
	mov	%rdi, (%rsp)
	lea	(%rsp), %rsi
	lea	8(%rsp), %rdi
	mov	$8, %ecx
	rep	movsb
	mov	8(%rsp), %rax
	xchg	%rax, %rdx
	mov	%rdx, %rax
	leave
	RET
END(ktt_string)

/* ktt_helper(x) - 1, through an indirect call */
SYM_FUNC_START(ktt_indirect)
	push	%rbp
	mov	%rsp, %rbp
	lea	ktt_helper(%rip), %rax
	ANNOTATE_RETPOLINE_SAFE	/* the raw form is the class under test */
	call	*%rax
	dec	%rax
	pop	%rbp
	RET
END(ktt_indirect)

/* 0x77 + x: its load of a non-canonical address takes a #GP that the
 * extable skips */
SYM_FUNC_START(ktt_fault)
	movabs	$0xdead000000000000, %rdx
	mov	$0x77, %eax
/* Where a probe's post_handler never runs (kprobes_torture.c) */
SYM_INNER_LABEL(ktt_fault_load, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR	/* its address is taken, never jumped to */
1:	mov	(%rdx), %rax
2:	add	%rdi, %rax
	RET
	_ASM_EXTABLE(1b, 2b)
END(ktt_fault)

/* popcount-free bit count of x & 0xff, with bt and movzx */
SYM_FUNC_START(ktt_bits)
	movzbl	%dil, %edx
	xor	%eax, %eax
	xor	%ecx, %ecx
1:	bt	%ecx, %edx
	adc	$0, %eax
	inc	%ecx
	cmp	$8, %ecx
	jb	1b
	movsbq	%dil, %rdx
	add	%rdx, %rax
	RET
END(ktt_bits)

/*
 * x + 1, and x + 2: called only from a pre_handler, one per CPU, each
 * with a probe of the torture's own at its entry that must count every
 * such call as a missed hit.  Not targets: nothing else probes them.
 */
SYM_FUNC_START(ktt_nested0)
	lea	1(%rdi), %rax
	RET
SYM_FUNC_END(ktt_nested0)

SYM_FUNC_START(ktt_nested1)
	lea	2(%rdi), %rax
	RET
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
