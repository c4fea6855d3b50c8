/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BRKs the site code sends the CPU to.  __kretprobe_trampoline:
 * where a function with a return probe returns to (site_kretprobe.c): a
 * BRK whose handler has the whole register file, runs the return
 * handlers and sends the CPU on to the real return address.  Nothing
 * after the BRK is ever reached.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/brk-imm.h>

	.text

SYM_CODE_START(__kretprobe_trampoline)
	brk	#KRETPROBES_BRK_IMM
	brk	#BUG_BRK_IMM
SYM_CODE_END(__kretprobe_trampoline)

/*
 * Where jprobe_return() goes, on the stack pointer of the hit
 * (site_jprobe.c).
 */
SYM_CODE_START(kprobe_a64_jprobe_trap)
	brk	#KPROBES_BRK_IMM
	brk	#BUG_BRK_IMM
SYM_CODE_END(kprobe_a64_jprobe_trap)
