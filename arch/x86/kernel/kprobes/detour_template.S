/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The head of every detour, copied into the site's slot by optimize.c.
 *
 * An optimized site jumps here instead of trapping, with the stack exactly
 * as at the probed instruction.  The head lays out a struct pt_regs below
 * it (ss and sp both hold the probed code's sp; cs is the kernel's; ip is
 * just past the probed address, as after an int3), calls
 * kprobe_detour_callback(site, regs),
 * and puts every register back, flags last.  The copied region and the
 * jump back follow the head in the slot.
 *
 * The handlers must not run with the probed code's AC set (a user access
 * section would let them touch user memory unchecked): with SMAP the nop
 * behind pushfq becomes clac; popfq puts AC back.
 *
 * The bytes live in .rodata: they are never run here, only copied.  Some
 * places are filled per copy: the site pointer (the immediate of the
 * movabs, or of the movl on i386), the ip (on x86-64 kernel and module
 * text both lie in the top 2 GiB, so a sign-extended 32-bit immediate
 * holds it) and the call's displacement.
 */
#include <linux/linkage.h>
#include <asm/segment.h>

#include "pt_regs_asm.h"

	.pushsection .rodata, "a"
SYM_DATA_START(kprobe_detour_template)
#ifdef CONFIG_X86_64
	pushq	%rsp			/* ->ss slot: push stores the old sp */
	pushq	(%rsp)			/* ->sp: the probed code's sp */
	pushfq				/* ->flags, before anything changes them */
SYM_INNER_LABEL(kprobe_detour_template_clac, SYM_L_GLOBAL)
	.byte	0x0f, 0x1f, 0x00	/* nopl (%rax), or clac with SMAP */
	pushq	$__KERNEL_CS		/* ->cs */
	.byte	0x68			/* pushq $ip: ->ip, sign-extended */
SYM_INNER_LABEL(kprobe_detour_template_ip, SYM_L_GLOBAL)
	.long	0
	pushq	$-1			/* ->orig_ax */
	KPROBE_PUSH_GPRS
	movq	%rsp, %rsi
	.byte	0x48, 0xbf		/* movabs $site, %rdi */
SYM_INNER_LABEL(kprobe_detour_template_site, SYM_L_GLOBAL)
	.quad	0
	.byte	0xe8			/* call kprobe_detour_callback */
SYM_INNER_LABEL(kprobe_detour_template_call, SYM_L_GLOBAL)
	.long	0
	KPROBE_POP_GPRS
	leaq	24(%rsp), %rsp		/* orig_ax, ip, cs; lea keeps flags */
	popfq
	leaq	16(%rsp), %rsp		/* sp, ss */
#else
	/* The same with 32-bit words; arguments in %eax and %edx (regparm). */
	pushl	%esp			/* ->ss slot: push stores the old sp */
	pushl	(%esp)			/* ->sp: the probed code's sp */
	pushfl				/* ->flags */
SYM_INNER_LABEL(kprobe_detour_template_clac, SYM_L_GLOBAL)
	/* Not nopl, which some 32-bit CPUs do not have (as asm/nops.h). */
	.byte	0x8d, 0x76, 0x00	/* lea 0(%esi), %esi, or clac with SMAP */
	pushl	$__KERNEL_CS		/* ->cs */
	.byte	0x68			/* pushl $ip: ->ip */
SYM_INNER_LABEL(kprobe_detour_template_ip, SYM_L_GLOBAL)
	.long	0
	pushl	$-1			/* ->orig_ax */
	KPROBE_PUSH_GPRS
	movl	%esp, %edx
	.byte	0xb8			/* movl $site, %eax */
SYM_INNER_LABEL(kprobe_detour_template_site, SYM_L_GLOBAL)
	.long	0
	.byte	0xe8			/* call kprobe_detour_callback */
SYM_INNER_LABEL(kprobe_detour_template_call, SYM_L_GLOBAL)
	.long	0
	KPROBE_POP_GPRS
	leal	12(%esp), %esp		/* orig_ax, ip, cs; lea keeps flags */
	popfl
	leal	8(%esp), %esp		/* sp, ss */
#endif
SYM_INNER_LABEL(kprobe_detour_template_end, SYM_L_GLOBAL)
SYM_DATA_END(kprobe_detour_template)
	.popsection
