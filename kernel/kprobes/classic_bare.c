// SPDX-License-Identifier: GPL-2.0
/*
 * Bare probes at a classic architecture's breakpoints.
 *
 * On a classic architecture with neither ftrace's probes nor jump
 * optimization (arm64, riscv, mips, sparc, sh, arc), a probe alone at its
 * address needs no site: the arch's own code prepares its copy in the
 * probe's ->ainsn, writes and removes its breakpoint, and its breakpoint
 * handler, which gets the probe from get_kprobe(), runs its handlers and
 * steps the copy, exactly as upstream's did for such a probe.  So it is
 * registered bare (bare.c keeps the books), and costs its slot and
 * nothing else.  Any probe may go so but a jprobe, whose resume needs a
 * site (classic_jprobe.c), and one with a fault_handler, which must not
 * be offered a fault of the stepped copy (kprobe_classic_fault()).
 *
 * A second probe at the address builds a site around it that takes its
 * copy over (kprobe_site_adopt_bare(), classic.c): hits may be stepping
 * that copy right then, and the breakpoint stays as it is.
 *
 * A removed bare probe leaves the hash only once its breakpoint is out
 * (kprobe_bare_withdraw()), and its copy is freed after the grace period
 * of the removal (kprobe_bare_release()), as upstream frees a probe's: the
 * arch steps the copy with interrupts off, which that grace period waits
 * out.  Everything here runs under kprobe_mutex.
 */
#include <linux/cpu.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/memory.h>

#include "internal.h"

/* Removed bare probes whose copies wait for the grace period. */
static LIST_HEAD(bare_dead);

/**
 * kprobe_bare_fits() - may a probe go bare at an address
 * @p: a probe being registered
 * @addr: its resolved address, where there is neither site nor bare probe
 *
 * Return: true unless @p is a jprobe or has a fault_handler, or @addr is
 * ftrace's (refused by the site code, as before).
 */
bool kprobe_bare_fits(struct kprobe *p, kprobe_opcode_t *addr)
{
	return kprobe_ftrace_place(addr) == 0 &&
	       p->pre_handler != jprobe_setjmp && !p->fault_handler;
}

/* kprobe_bare_add(): the arch copies the instruction into @p's ->ainsn. */
int kprobe_bare_prepare(struct kprobe *p)
{
	return kprobe_classic_prepare(p);
}

/*
 * Its breakpoint is out already where code may still run there (a
 * module's text: kprobe_bare_text_going()), or went with freed init text,
 * which is not patched any more; the copy goes at unregistration.
 */
void kprobe_bare_text_left(struct kprobe *p)
{
}

/* The site's own state says all: where its breakpoint stands. */
void kprobe_bare_site_starts(struct kprobe *p, struct kprobe_site *site)
{
}

/* @p leaves the books: its copy waits for the grace period. */
void kprobe_bare_retire(struct kprobe *p)
{
	list_move_tail(&p->list, &bare_dead);
}

/* Is @p's copy still to be freed (arc's arch_remove_kprobe() uses ->addr)? */
bool kprobe_bare_releasing(struct kprobe *p)
{
	struct kprobe *q;

	list_for_each_entry(q, &bare_dead, list)
		if (q == p)
			return true;
	return false;
}

/*
 * Write (@in) or remove the breakpoint of bare probe @p.  As for sites
 * (classic.c), the arch makes the change visible to every CPU before it
 * returns (arm64 and arm through stop_machine()).  Lock order as
 * arch_kprobe_poke_sites().
 */
static void bare_write(struct kprobe *p, bool in)
{
	cpus_read_lock();
	mutex_lock(&text_mutex);
	if (in) {
		arch_arm_kprobe(p);
		kprobe_flags_change(p, KPROBE_FLAG_BARE_IN, 0);
	} else {
		arch_disarm_kprobe(p);
		kprobe_flags_change(p, 0, KPROBE_FLAG_BARE_IN);
	}
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
}

/*
 * A removal: the breakpoint goes now, while the probe is still hashed,
 * then the probe leaves the hash.  Until the arch has removed the
 * breakpoint any CPU may meet it, the one removing it too (arm64's
 * stop_machine() schedules), and its handler must find the probe there:
 * an arch's breakpoint of its own kind that no probe owns is an error.
 * The arch writes one breakpoint at a time anyway, so nothing is lost by
 * not waiting for the commit.
 */
void kprobe_bare_withdraw(struct kprobe *p)
{
	if (p->flags & KPROBE_FLAG_BARE_IN)
		bare_write(p, false);
	hash_del_rcu(&p->hlist);
	kprobe_bare_retire(p);	/* off the queue, if it was on it */
}

/* Write or remove the breakpoint of every queued bare probe. */
void kprobe_bare_poke(void)
{
	struct kprobe *p, *tmp;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry_safe(p, tmp, &kprobe_bare_queue, list) {
		if (kprobe_bare_joins(p))
			bare_write(p, true);
		else if (kprobe_bare_leaves(p))
			bare_write(p, false);
		list_del_init(&p->list);
	}
}

/*
 * After the grace period of a removal (finish_removal(), register.c): no
 * hit can be in the copies of the probes it removed, so they go.
 */
void kprobe_bare_release(void)
{
	struct kprobe *p, *tmp;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry_safe(p, tmp, &bare_dead, list) {
		list_del_init(&p->list);
		arch_remove_kprobe(p);
	}
}
