// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 site interface, return probes: at a function's entry the return
 * address is in the link register, which the core's entry handler hands
 * to arch_prepare_kretprobe() to record and replace; the function then
 * returns to __kretprobe_trampoline, a BRK (site_trampolines.S).
 *
 * An instance is matched to its frame by the frame pointer the caller had
 * (x29 at the entry), which the probed function has restored by the time
 * it returns, and which the unwinder (stacktrace.c) passes to
 * kretprobe_find_ret_addr() for the same frame.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <asm/debug-monitors.h>

void __kprobes arch_prepare_kretprobe(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	ri->ret_addr = (kprobe_opcode_t *)procedure_link_pointer(regs);
	ri->fp = (void *)regs->regs[29];
	procedure_link_pointer_set(regs, (unsigned long)__kretprobe_trampoline);
}

/**
 * kretprobe_brk_handler() - a probed function returned to the trampoline
 * @regs: registers at the trampoline's BRK
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED, the CPU goes on at the real return address;
 * DBG_HOOK_ERROR for a BRK elsewhere with the same immediate.
 */
int __kprobes kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	void *frame = (void *)regs->regs[29];

	if (instruction_pointer(regs) != (unsigned long)__kretprobe_trampoline)
		return DBG_HOOK_ERROR;
	instruction_pointer_set(regs, kretprobe_trampoline_handler(regs, frame));
	return DBG_HOOK_HANDLED;
}
