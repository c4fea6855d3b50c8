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
 *
 * Under QEMU's TCG with a host thread per vCPU, a store to text can miss
 * a translation that another vCPU makes of that page at the same moment:
 * QEMU drops the translations of the bytes first (under the page's lock,
 * which a translation holds from its first read until it is linked) and
 * stores after, so a translation that read the old bytes in between is
 * kept, and that vCPU runs the old bytes for as long as nothing writes the
 * page again, serialising or not.  An int3 run so after it went away traps
 * again and again at the same place (with the IRQs of the code it is in:
 * when off, the next sync waits for that vCPU for ever), and a jmp to a
 * detour is taken after the detour went.  No real CPU does this: the
 * trap's return and the sync make it fetch again.  So on TCG (CPUID's
 * hypervisor leaf says "TCGTCGTCGTCG") each chunk is written three times
 * with the same bytes: at once again, which drops a translation that held
 * the page's lock across the first write; then, after a sync that every
 * vCPU answers between two translations, once more, which drops one made
 * of a page that had none before (QEMU then takes no lock).  Whatever is
 * translated after the first write reads the new bytes.  Elsewhere the
 * static key stays off and this costs a nop; "kprobes_repoke=0" turns it
 * off on TCG too (make bench: its icount run keeps the vCPUs on one
 * thread, where nothing races).
 */
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>
#include <asm/text-patching.h>
#include "decode.h"

/* Bounds how long text_poke_vec() keeps IRQs off. */
#define POKES_PER_VEC	64

DEFINE_STATIC_KEY_FALSE(kprobe_repoke);	/* the KUnit suite turns it off */
static bool repoke_allowed = true;

static int __init repoke_setup(char *arg)
{
	return kstrtobool(arg, &repoke_allowed) == 0;
}
__setup("kprobes_repoke=", repoke_setup);

/* QEMU's TCG names itself in the hypervisor leaf, as KVM and Xen do. */
static bool __init running_on_tcg(void)
{
	u32 eax, sig[3];

	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return false;
	cpuid(0x40000000, &eax, &sig[0], &sig[1], &sig[2]);
	return !memcmp(sig, "TCGTCGTCGTCG", sizeof(sig));
}

static int __init repoke_init(void)
{
	if (running_on_tcg() && repoke_allowed) {
		static_branch_enable(&kprobe_repoke);
		pr_info("kprobes: QEMU TCG: text is written again after each write\n");
	}
	return 0;
}
early_initcall(repoke_init);

/*
 * text_poke_vec() for Kprobes' own pokes; on TCG, thrice (see above).
 * Context: text_mutex held, may sleep (the sync waits for every CPU).
 */
void kprobe_poke_vec(const struct text_poke_vec *vec, unsigned int nr)
{
	text_poke_vec(vec, nr);
	if (!static_branch_unlikely(&kprobe_repoke) || !nr)
		return;
	text_poke_vec(vec, nr);
	text_poke_sync();
	text_poke_vec(vec, nr);
}

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
			kprobe_poke_vec(vec, n);
			n = 0;
		}
	}
	kprobe_poke_vec(vec, n);
	mutex_unlock(&text_mutex);
}

/* Make every poke so far visible to the instruction fetch of all CPUs. */
void arch_kprobe_text_sync(void)
{
	text_poke_sync();
}
