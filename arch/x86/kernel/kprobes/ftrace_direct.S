/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The direct call of probes at function entries (x86-64).
 *
 * While the Kprobes ftrace_ops is alone on a function, ftrace patches the
 * function's fentry call to call this trampoline instead of one of its
 * own (kernel/kprobes/ftrace.c, ftrace_direct_yielding_add()).  It builds
 * the struct pt_regs that ftrace's regs trampoline would build, calls
 * kprobe_ftrace_direct_hit(), which runs the handlers as the ops' handler
 * would, and goes back past the fentry call, or to regs->ip when a
 * pre_handler moved it, with the registers and flags of regs.
 *
 * It is what ftrace's own path costs less the ftrace trampoline's work
 * that a probe does not need: no ftrace_ops to load, no ftrace_regs to
 * convert, no list, no recursion lock (Kprobes has its own guard).
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/frame.h>
#include <asm/nospec-branch.h>
#include <asm/segment.h>

#include "pt_regs_asm.h"

	.pushsection .kprobes.text, "ax"
SYM_FUNC_START(kprobe_ftrace_direct_tramp)
	/* The fentry call's return is on top: regs->ip. */
	/* struct pt_regs, top down: ss, sp, flags, cs, ip, orig_ax, GPRs. */
	pushq	$__KERNEL_DS		/* ss */
	pushq	%rsp			/* sp: corrected below */
	pushfq
	CALL_DEPTH_ACCOUNT		/* changes the flags: after pushfq */
	pushq	$__KERNEL_CS		/* cs */
	pushq	4*8(%rsp)		/* ip: the fentry call's return */
	pushq	$0			/* orig_ax, as ftrace's regs have it */
	KPROBE_PUSH_GPRS
	ENCODE_FRAME_POINTER

	/* sp: the function's, with its return address on top. */
	leaq	22*8(%rsp), %rax
	movq	%rax, 19*8(%rsp)
	movq	%rsp, %rdi		/* regs */
	call	kprobe_ftrace_direct_hit

	/*
	 * True: a pre_handler moved ip, and regs->ip replaces the fentry
	 * call's return.  False: regs->ip is not where to go (the C side
	 * leaves it as the handlers saw it), the return still is.
	 */
	testb	%al, %al
	jz	.Lkprobe_ftrace_direct_resume
	movq	16*8(%rsp), %rax
	movq	%rax, 21*8(%rsp)
.Lkprobe_ftrace_direct_resume:
	KPROBE_POP_GPRS
	/* orig_ax, ip, cs: done; flags: restore, as ftrace does; sp, ss: drop. */
	addq	$3*8, %rsp
	popfq
	leaq	2*8(%rsp), %rsp
	RET
SYM_FUNC_END(kprobe_ftrace_direct_tramp)
	.popsection
