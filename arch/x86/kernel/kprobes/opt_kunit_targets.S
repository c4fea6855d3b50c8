/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions for the jump-optimization KUnit suite (opt_kunit.c), in
 * assembly so that each region holds exactly the instructions a case is
 * about.  Every probe sits at a function's entry, behind its ENDBR.  The
 * first group can be optimized; each of the second breaks one rule.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>

	.text

/* long kpo_plain(long x): x + 5; the region is mov, add */
SYM_FUNC_START(kpo_plain)
	mov	%rdi, %rax
	add	$5, %rax
	RET
SYM_FUNC_END(kpo_plain)

/*
 * long kpo_inject(long x): x + 5, as kpo_plain, but open to error
 * injection (opt_kunit.c): its entry must stay on int3.
 */
SYM_FUNC_START(kpo_inject)
	mov	%rdi, %rax
	add	$5, %rax
	RET
SYM_FUNC_END(kpo_inject)

/* long kpo_rip(void): kpo_data + 1; the region is a RIP-relative load */
SYM_FUNC_START(kpo_rip)
	mov	kpo_data(%rip), %rax
	inc	%rax
	RET
SYM_FUNC_END(kpo_rip)

/* unsigned long kpo_sp(void): the stack pointer at its entry */
SYM_FUNC_START(kpo_sp)
	mov	%rsp, %rax
	add	$0, %rax
	RET
SYM_FUNC_END(kpo_sp)

/* long kpo_jcc(long x): x ? 10 : 20; the region ends in a short jz */
SYM_FUNC_START(kpo_jcc)
	test	%rdi, %rdi
	jz	1f
	mov	$10, %eax
	RET
1:	mov	$20, %eax
	RET
SYM_FUNC_END(kpo_jcc)

/* long kpo_stack(long x): x + 1; the region is push, mov, lea */
SYM_FUNC_START(kpo_stack)
	push	%rbx
	mov	%rdi, %rbx
	lea	1(%rbx), %rax
	pop	%rbx
	RET
SYM_FUNC_END(kpo_stack)

SYM_FUNC_START(kpo_helper)
	mov	$41, %eax
	RET
SYM_FUNC_END(kpo_helper)

/* long kpo_call(void): 42; the region starts with a call */
SYM_FUNC_START(kpo_call)
	call	kpo_helper
	add	$1, %rax
	RET
SYM_FUNC_END(kpo_call)

/*
 * long kpo_ret_last(long x): x; a raw ret as the region's last byte, on
 * every kernel (RET may be a return thunk's jmp, or followed by an int3
 * that no region may hold)
 */
SYM_FUNC_START(kpo_ret_last)
	mov	%rdi, %rax
	nop
	ANNOTATE_UNRET_SAFE	/* the raw form is the class under test */
	ret
	int3
SYM_FUNC_END(kpo_ret_last)

/* long kpo_jump_in(long x): max(x + 1, 10); a jump back into the region */
SYM_FUNC_START(kpo_jump_in)
	mov	%rdi, %rax
1:	add	$1, %rax
	cmp	$10, %rax
	jl	1b
	RET
SYM_FUNC_END(kpo_jump_in)

/* long kpo_indirect(long x, long y, void *z): x + 2; has a jmp *%rdx */
SYM_FUNC_START(kpo_indirect)
	mov	%rdi, %rax
	add	$2, %rax
	test	%rdx, %rdx
	jz	1f
	ANNOTATE_RETPOLINE_SAFE
	jmp	*%rdx
1:	RET
SYM_FUNC_END(kpo_indirect)

/* long kpo_extable(long x, long *p): x + 3; reads *p under an extable entry */
SYM_FUNC_START(kpo_extable)
	mov	%rdi, %rax
	add	$3, %rax
	test	%rsi, %rsi
	jz	2f
1:	mov	(%rsi), %rcx
2:	RET
	_ASM_EXTABLE(1b, 2b)
SYM_FUNC_END(kpo_extable)

/*
 * long kpo_short(long x): x + 2.  kallsyms sees kpo_short end after its
 * first instruction, at kpo_short_end: a region would leave the function.
 */
SYM_FUNC_START(kpo_short)
	lea	1(%rdi), %rax
SYM_INNER_LABEL(kpo_short_end, SYM_L_GLOBAL)
	add	$1, %rax
	RET
SYM_FUNC_END(kpo_short)
