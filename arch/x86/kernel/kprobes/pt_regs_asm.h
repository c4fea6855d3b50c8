/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the assembly stubs of x86 Kprobes (the detour head, the kretprobe
 * trampoline): the general registers of a struct pt_regs, pushed below
 * orig_ax in the order the structure lays them out, and popped back.
 */
#ifndef _X86_KERNEL_KPROBES_PT_REGS_ASM_H
#define _X86_KERNEL_KPROBES_PT_REGS_ASM_H

#ifdef __ASSEMBLY__

.macro KPROBE_PUSH_GPRS
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
.endm

.macro KPROBE_POP_GPRS
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
.endm

#endif /* __ASSEMBLY__ */
#endif /* _X86_KERNEL_KPROBES_PT_REGS_ASM_H */
