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

#else /* !__ASSEMBLY__ */

/*
 * The same for asm() in C, below the five words of the hardware frame
 * plus orig_ax: the x86-64 rethook trampoline (arch/x86/kernel/rethook.c)
 * saves and restores a pt_regs with these.
 */
#define KPROBE_SAVE_PT_REGS_STRING					\
	"	subq $24, %rsp\n"	/* cs, ip, orig_ax: not saved */	\
	"	pushq %rdi\n	pushq %rsi\n	pushq %rdx\n"		\
	"	pushq %rcx\n	pushq %rax\n	pushq %r8\n"		\
	"	pushq %r9\n	pushq %r10\n	pushq %r11\n"		\
	"	pushq %rbx\n	pushq %rbp\n	pushq %r12\n"		\
	"	pushq %r13\n	pushq %r14\n	pushq %r15\n"

#define KPROBE_RESTORE_PT_REGS_STRING					\
	"	popq %r15\n	popq %r14\n	popq %r13\n"		\
	"	popq %r12\n	popq %rbp\n	popq %rbx\n"		\
	"	popq %r11\n	popq %r10\n	popq %r9\n"		\
	"	popq %r8\n	popq %rax\n	popq %rcx\n"		\
	"	popq %rdx\n	popq %rsi\n	popq %rdi\n"		\
	"	addq $24, %rsp\n"

#endif /* __ASSEMBLY__ */
#endif /* _X86_KERNEL_KPROBES_PT_REGS_ASM_H */
