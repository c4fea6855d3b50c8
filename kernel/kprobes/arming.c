// SPDX-License-Identifier: GPL-2.0
/*
 * Arming and disarming sites, in bulk.
 *
 * Changing a site's wish (int3 or the original byte) only queues it; the
 * text is written when the caller commits, all queued sites in one go
 * through the architecture.  That is what makes a batch of a thousand
 * probes cheap: the cost of reaching the text is paid per batch, not per
 * byte.  Every API call commits before it drops kprobe_mutex, so outside
 * that mutex the queue is empty, and a site whose text is about to vanish
 * (a module unloading) cannot be sitting in it.
 */
#include "internal.h"

/* Sites whose text byte is not yet what ->armed asks for; kprobe_mutex. */
static LIST_HEAD(pending_sites);

/*
 * A commit changed the text (or ftrace's sites) and no kprobe_sync_text()
 * has run since; kprobe_mutex.  A call that changed nothing (a disabled
 * probe registered, a site armed already) then costs no IPI to every CPU.
 */
static bool text_unsynced;

/* How many times every CPU was serialised, for the KUnit suite; kprobe_mutex. */
unsigned long kprobe_text_syncs;

/* Queue @site for the next commit (once). */
void kprobe_site_queue(struct kprobe_site *site)
{
	lockdep_assert_held(&kprobe_mutex);
	if (list_empty(&site->poke))
		list_add_tail(&site->poke, &pending_sites);
}

/* Ask for int3 (@armed) or the original byte at @site. */
void kprobe_site_set_armed(struct kprobe_site *site, bool armed)
{
	lockdep_assert_held(&kprobe_mutex);
	if (site->armed == armed)
		return;
	site->armed = armed;
	kprobe_site_queue(site);
}

/* The text of @site is gone: whatever it wanted is never written. */
void kprobe_site_drop_pending(struct kprobe_site *site)
{
	lockdep_assert_held(&kprobe_mutex);
	list_del_init(&site->poke);
}

/*
 * Write every queued byte, and hand the queued ftrace sites to ftrace.
 * Other CPUs may go on running stale copies of the old bytes until
 * kprobe_sync_text().  Return: 0, or ftrace's error when ftrace sites
 * could not be armed (they stay unarmed; see kprobe_ftrace_commit()).
 */
int kprobe_commit_text(void)
{
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (!list_empty(&pending_sites) || kprobe_bare_pending() ||
	    kprobe_unoptimize_pending())
		text_unsynced = true;
	/* Jumps first: a byte queued below may lie under one. */
	kprobe_commit_unoptimize();
	ret = kprobe_ftrace_commit(&pending_sites);
	if (!list_empty(&pending_sites))
		arch_kprobe_poke_sites(&pending_sites);
	kprobe_bare_poke();	/* a classic arch's bare probes */
	return ret;
}

/*
 * Write every queued byte and serialise every CPU against the new text;
 * with nothing written since the last sync, there is nothing to serialise.
 */
int kprobe_sync_text(void)
{
	int ret = kprobe_commit_text();

	if (text_unsynced)
		kprobe_serialise_cpus();
	return ret;
}

/* Serialise every CPU against all the text committed so far. */
void kprobe_serialise_cpus(void)
{
	lockdep_assert_held(&kprobe_mutex);
	arch_kprobe_text_sync();
	text_unsynced = false;
	WRITE_ONCE(kprobe_text_syncs, kprobe_text_syncs + 1);
}
