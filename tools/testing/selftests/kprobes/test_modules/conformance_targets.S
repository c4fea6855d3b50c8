/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The places kprobes_conformance.c probes, in assembly so that each
 * kernel sees the same instructions: every function is
 * unsigned long fn(unsigned long x) and stores its stack pointer in
 * kpc_sp just before its place, which the handlers compare regs->sp with.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>

	.text

/* x + 1, straight-line code: a place both cores can jump-optimize */
SYM_FUNC_START(kpc_plain)
	mov	%rsp, kpc_sp(%rip)
SYM_INNER_LABEL(kpc_plain_place, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR	/* its address is taken, never jumped to */
	lea	1(%rdi), %rax
	add	$2, %rax
	sub	$2, %rax
	add	$3, %rax
	sub	$3, %rax
	RET
SYM_FUNC_END(kpc_plain)

/*
 * x + 1 for x <= 1: a jump lands just behind the place, so no core may
 * put a jump over it; its lea is a copy that either core may boost.
 */
SYM_FUNC_START(kpc_branchy)
	mov	%rsp, kpc_sp(%rip)
SYM_INNER_LABEL(kpc_branchy_place, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	lea	1(%rdi), %rax
1:	dec	%rdi
	jg	1b
	RET
SYM_FUNC_END(kpc_branchy)

/* x + 1: the place of the probe whose pre_handler hits another probe */
SYM_FUNC_START(kpc_inner)
	mov	%rsp, kpc_sp(%rip)
SYM_INNER_LABEL(kpc_inner_place, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	lea	1(%rdi), %rax
	add	$2, %rax
	sub	$2, %rax
	add	$3, %rax
	sub	$3, %rax
	RET
SYM_FUNC_END(kpc_inner)
