/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The return trampoline of kretprobes.
 *
 * A probed function's return lands here instead of in its caller (the
 * entry replaced the return address).  We put our own address back into
 * the slot it came from, which the unwinder knows how to see through,
 * build a struct pt_regs below it, and call kretprobe_trampoline_handler(),
 * which writes the real return address into the slot (the core owns the
 * slot on x86: arch_kretprobe_slot()) and runs the handlers; the RET at
 * the end goes there.  Reached by RET only, so no ENDBR.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/frame.h>
#include <asm/nospec-branch.h>
#include <asm/segment.h>
#include <asm/unwind_hints.h>

#include "pt_regs_asm.h"

	.text
SYM_CODE_START(__kretprobe_trampoline)
	/* Reached by RET: no frame an unwinder could describe yet. */
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	/* The slot the RET popped: now a return address the unwinder resolves. */
	push	$__kretprobe_trampoline
	UNWIND_HINT_FUNC

#ifdef CONFIG_X86_64
	/* struct pt_regs, top down: ss, sp, flags, cs, ip, orig_ax, GPRs. */
	pushq	$__KERNEL_DS		/* ss */
	pushq	%rsp			/* sp: corrected below */
	pushfq
	pushq	$__KERNEL_CS		/* cs */
	pushq	$__kretprobe_trampoline	/* ip */
	pushq	$-1			/* orig_ax */
	KPROBE_PUSH_GPRS
	/*
	 * With frame pointers, %rbp names the regs (encoded): the frame
	 * unwinder then takes the return from them and goes on from the
	 * caller's %rbp, instead of leaving the caller out.
	 */
	ENCODE_FRAME_POINTER

	/* sp as the caller will have it: above the return-address slot. */
	leaq	22*8(%rsp), %rax
	movq	%rax, 19*8(%rsp)
	movq	%rsp, %rdi		/* regs */
	leaq	21*8(%rsp), %rsi	/* the slot, as the entry recorded it */
	/*
	 * It puts the real return address into the slot above pt_regs
	 * (restore_return_slot(), kernel/kprobes/kretprobe.c, which counts
	 * on arch_kretprobe_slot() in <asm/kprobes.h>); its return value is
	 * not needed.
	 */
	call	kretprobe_trampoline_handler

	KPROBE_POP_GPRS
	/*
	 * orig_ax, ip, cs: nothing to restore; flags: restore, since a few
	 * assembly helpers return a result in them (this_cpu_cmpxchg16b_emu
	 * in ZF), so nothing after the popfq may change them; sp, ss: drop.
	 */
	addq	$3*8, %rsp
	popfq
	leaq	2*8(%rsp), %rsp
#else
	/*
	 * The same on i386, where pt_regs is 17 words (the segment registers
	 * among them) and the arguments go in %eax and %edx.  Its unwinder
	 * follows frame pointers: a frame of our own, whose return address
	 * is the slot, lets it find the slot and ask Kprobes what the real
	 * return address is.  regs->bp gets the caller's %ebp, not ours.
	 */
	pushl	%ebp
	movl	%esp, %ebp
	pushl	%ss
	pushl	%esp			/* sp: corrected below */
	pushfl
	pushl	$__KERNEL_CS
	pushl	$__kretprobe_trampoline	/* ip */
	pushl	$-1			/* orig_ax */
	KPROBE_PUSH_GPRS

	movl	17*4(%esp), %eax	/* the caller's %ebp, saved above */
	movl	%eax, 5*4(%esp)		/* regs->bp */
	leal	19*4(%esp), %eax	/* sp above the slot */
	movl	%eax, 15*4(%esp)
	movl	%esp, %eax		/* regs */
	leal	18*4(%esp), %edx	/* the slot */
	call	kretprobe_trampoline_handler	/* writes the slot, as above */

	KPROBE_POP_GPRS			/* down to orig_ax; %ebp: regs->bp */
	leal	3*4(%esp), %esp		/* orig_ax, ip, cs */
	popfl
	leal	3*4(%esp), %esp		/* sp, ss, our frame's saved %ebp */
#endif
	/*
	 * Through the return thunk, as every return of the kernel.  With
	 * call depth tracking the thunk counts this return as one more: the
	 * processor's return stack buffer does pop one more entry here (the
	 * function's own return already popped its caller's), so the count
	 * keeps following the buffer, and an underflow is still caught.
	 */
	RET
SYM_CODE_END(__kretprobe_trampoline)
/* A probe here would trap on every probed function's way back. */
_ASM_NOKPROBE(__kretprobe_trampoline)
