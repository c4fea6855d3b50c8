// SPDX-License-Identifier: GPL-2.0
/*
 * The stub of each function that probes reach through the direct call
 * (x86-64).
 *
 * A function the Kprobes direct ops is alone on calls its own stub, a
 * slot (slots.c) that goes on to kprobe_ftrace_direct_tramp with the
 * stack as the call left it.  Being a jmp, it keeps the trampoline's
 * view of the frame: the fentry call's return on top.  The slot lies
 * within 2 GiB of kernel and module text, so both the call site's rel32
 * and the stub's reach.
 */
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <asm/text-patching.h>

/**
 * arch_kprobe_ftrace_stub_alloc() - a stub for the function at @ip
 * @ip: its ftrace location
 *
 * Context: kprobe_mutex held.
 * Return: the stub's address, or 0 without memory (the call site then
 * calls the trampoline itself).
 */
unsigned long arch_kprobe_ftrace_stub_alloc(unsigned long ip)
{
	kprobe_opcode_t *slot = kprobe_slot_alloc();

	if (!slot)
		return 0;
	text_poke_copy(slot, text_gen_insn(JMP32_INSN_OPCODE, slot,
					   kprobe_ftrace_direct_tramp),
		       JMP32_INSN_SIZE);
	kprobe_slot_trim(slot, JMP32_INSN_SIZE);
	return (unsigned long)slot;
}

/*
 * Context: kprobe_mutex held; no call site calls @stub, and an RCU Tasks
 * grace period has passed since the last did.
 */
void arch_kprobe_ftrace_stub_free(unsigned long stub)
{
	kprobe_slot_free((kprobe_opcode_t *)stub);
}
