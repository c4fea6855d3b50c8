// SPDX-License-Identifier: GPL-2.0
/*
 * Writing and removing breakpoints through the text-poking machinery.
 *
 * A breakpoint is one byte, the first of the probed instruction.  A CPU
 * fetching that instruction sees either the old byte or int3, never a mix:
 * replacing the first byte with int3 (and back) is the form of cross-
 * modifying code the architecture allows without stopping other CPUs.
 * text_poke_sync() then serialises every CPU, so that after it no CPU runs
 * a stale copy of the byte.
 *
 * The generic code hands over a whole queue of sites at once (arming.c);
 * text_poke_vec() writes them with one switch to the poking mm per chunk
 * rather than one per byte.
 */
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <asm/text-patching.h>

/* Bounds how long text_poke_vec() keeps IRQs off. */
#define POKES_PER_VEC	64

/*
 * Write each queued site's byte as its ->armed asks and empty @queue.
 * Context: the caller's kprobe_mutex serialises use of the static vector.
 */
void arch_kprobe_poke_sites(struct list_head *queue)
{
	static struct text_poke_vec vec[POKES_PER_VEC];
	static const u8 int3 = INT3_INSN_OPCODE;
	struct kprobe_site *site, *tmp;
	unsigned int n = 0;

	mutex_lock(&text_mutex);
	list_for_each_entry_safe(site, tmp, queue, poke) {
		vec[n].addr = site->addr;
		vec[n].opcode = site->armed ? &int3 : &site->opcode;
		vec[n].len = INT3_INSN_SIZE;
		list_del_init(&site->poke);
		if (++n == POKES_PER_VEC) {
			text_poke_vec(vec, n);
			n = 0;
		}
	}
	text_poke_vec(vec, n);
	mutex_unlock(&text_mutex);
}

/* Make every poke so far visible to the instruction fetch of all CPUs. */
void arch_kprobe_text_sync(void)
{
	text_poke_sync();
}
