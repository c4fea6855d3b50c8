/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the assembly stubs of x86 Kprobes (the detour head, the kretprobe
 * trampoline): the registers of a struct pt_regs below orig_ax, pushed in
 * the order the structure lays them out, and popped back.
 *
 * On i386 that part of pt_regs also holds the segment registers (ds, es,
 * fs, gs above the general ones).  They are saved for the handlers to see,
 * and skipped on the way back: nothing of ours changes them, and reloading
 * a segment register costs far more than the words it would restore.
 */
#ifndef _X86_KERNEL_KPROBES_PT_REGS_ASM_H
#define _X86_KERNEL_KPROBES_PT_REGS_ASM_H

#ifdef __ASSEMBLY__

#ifdef CONFIG_X86_64
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
#else
.macro KPROBE_PUSH_GPRS
	pushl	%gs
	pushl	%fs
	pushl	%es
	pushl	%ds
	pushl	%eax
	pushl	%ebp
	pushl	%edi
	pushl	%esi
	pushl	%edx
	pushl	%ecx
	pushl	%ebx
.endm

/* The segment registers are skipped with lea, which leaves the flags be. */
.macro KPROBE_POP_GPRS
	popl	%ebx
	popl	%ecx
	popl	%edx
	popl	%esi
	popl	%edi
	popl	%ebp
	popl	%eax
	leal	16(%esp), %esp
.endm
#endif

#else /* !__ASSEMBLY__ */

#include <asm/frame.h>

/*
 * The same for asm() in C, below the hardware frame's flags, sp and ss:
 * cs, ip and orig_ax are not saved.  The rethook trampoline
 * (arch/x86/kernel/rethook.c) saves and restores a pt_regs with these.
 * With frame pointers, the save ends by pointing %rbp/%ebp at the
 * pt_regs, encoded as the frame unwinder expects (<asm/frame.h>): a
 * stack trace taken in a handler then reads the probed function's return
 * from the regs instead of skipping its caller.  The restore pops the
 * real %rbp/%ebp back.
 */
#ifdef CONFIG_X86_64
#define KPROBE_SAVE_PT_REGS_STRING					\
	"	subq $24, %rsp\n"	/* cs, ip, orig_ax: not saved */	\
	"	pushq %rdi\n	pushq %rsi\n	pushq %rdx\n"		\
	"	pushq %rcx\n	pushq %rax\n	pushq %r8\n"		\
	"	pushq %r9\n	pushq %r10\n	pushq %r11\n"		\
	"	pushq %rbx\n	pushq %rbp\n	pushq %r12\n"		\
	"	pushq %r13\n	pushq %r14\n	pushq %r15\n"		\
	ENCODE_FRAME_POINTER

#define KPROBE_RESTORE_PT_REGS_STRING					\
	"	popq %r15\n	popq %r14\n	popq %r13\n"		\
	"	popq %r12\n	popq %rbp\n	popq %rbx\n"		\
	"	popq %r11\n	popq %r10\n	popq %r9\n"		\
	"	popq %r8\n	popq %rax\n	popq %rcx\n"		\
	"	popq %rdx\n	popq %rsi\n	popq %rdi\n"		\
	"	addq $24, %rsp\n"
#else
#define KPROBE_SAVE_PT_REGS_STRING					\
	"	subl $12, %esp\n"	/* cs, ip, orig_ax: not saved */	\
	"	pushl %gs\n	pushl %fs\n	pushl %es\n"		\
	"	pushl %ds\n	pushl %eax\n	pushl %ebp\n"		\
	"	pushl %edi\n	pushl %esi\n	pushl %edx\n"		\
	"	pushl %ecx\n	pushl %ebx\n"				\
	ENCODE_FRAME_POINTER

/* Segments, orig_ax, ip and cs: 7 words skipped. */
#define KPROBE_RESTORE_PT_REGS_STRING					\
	"	popl %ebx\n	popl %ecx\n	popl %edx\n"		\
	"	popl %esi\n	popl %edi\n	popl %ebp\n"		\
	"	popl %eax\n	addl $28, %esp\n"
#endif

#endif /* __ASSEMBLY__ */
#endif /* _X86_KERNEL_KPROBES_PT_REGS_ASM_H */
