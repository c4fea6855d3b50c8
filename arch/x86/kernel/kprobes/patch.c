// SPDX-License-Identifier: GPL-2.0
/*
 * Writing and removing breakpoints through the text-poking machinery.
 *
 * A breakpoint is one byte, the first of the probed instruction.  A CPU
 * fetching that instruction sees either the old byte or int3, never a mix:
 * replacing the first byte with int3 (and back) is the form of cross-
 * modifying code the architecture allows without stopping other CPUs.
 * text_poke_sync() then serialises every CPU, so that after it no CPU runs
 * a stale copy of the byte.  Callers batch: several pokes, one sync.
 */
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <asm/text-patching.h>

/* Context: kprobe_mutex held; the site is in the hash already. */
void arch_arm_kprobe_site(struct kprobe_site *site)
{
	static const u8 int3 = INT3_INSN_OPCODE;

	mutex_lock(&text_mutex);
	text_poke(site->addr, &int3, INT3_INSN_SIZE);
	mutex_unlock(&text_mutex);
	site->armed = true;
}

/* Context: kprobe_mutex held; the site stays in the hash until synced. */
void arch_disarm_kprobe_site(struct kprobe_site *site)
{
	mutex_lock(&text_mutex);
	text_poke(site->addr, &site->opcode, INT3_INSN_SIZE);
	mutex_unlock(&text_mutex);
	site->armed = false;
}

/* Make every poke so far visible to the instruction fetch of all CPUs. */
void arch_kprobe_text_sync(void)
{
	text_poke_sync();
}
