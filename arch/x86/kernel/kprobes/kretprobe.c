// SPDX-License-Identifier: GPL-2.0
/*
 * x86 part of kretprobes (both widths): hijacking the return address at a
 * function's entry.  The trampoline it returns to is
 * kretprobe_trampoline.S; is_kretprobe_trampoline() is inline
 * (<linux/kprobes.h>).
 */
#include <linux/kprobes.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

/*
 * At the entry of the probed function the return address is on top of the
 * stack: keep it in @ri and put the trampoline there.
 */
void __kprobes arch_prepare_kretprobe(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	unsigned long *slot = (unsigned long *)regs->sp;

	ri->ret_addr = (kprobe_opcode_t *)*slot;
	ri->fp = slot;
	*slot = (unsigned long)__kretprobe_trampoline;
}
