// SPDX-License-Identifier: GPL-2.0
/*
 * Probes at ftrace locations.
 *
 * With CONFIG_DYNAMIC_FTRACE the call to __fentry__ at a function's entry
 * belongs to ftrace: it turns the five bytes into a nop or a call to one
 * of its trampolines, and verifies them before every change.  An int3 of
 * ours there would make that verification fail and ftrace shut itself
 * down; a jmp of ours over it would be overwritten.  So a probe at such
 * an address never touches the text.  Its site asks ftrace for the call
 * instead: an ftrace_ops of ours, with the addresses of every armed
 * ftrace site in its filter, reaches the arch's kprobe_ftrace_handler(),
 * which runs the site's handlers with a full struct pt_regs.  A second
 * ops only holds a claim for sites with a jprobe (below).
 *
 * With CONFIG_KPROBES_FTRACE_DIRECT the plain ops (below) is a direct ops
 * that yields: while it is alone on a function, the function calls the
 * arch's kprobe_ftrace_direct_tramp() directly, without ftrace's
 * trampoline; while anyone else is there (a tracer, a livepatch, our
 * claim, a BPF trampoline, which then owns the direct call), ftrace's list
 * calls its handler as before.  Both run the same handlers, and each call
 * takes one of the two, as the call site reads.
 *
 * Arming and disarming go through the same queue as int3 sites
 * (arming.c); kprobe_ftrace_commit() takes the ftrace sites out of it and
 * changes the filters once per batch.  An ops is registered while its
 * filter holds at least one address, and unregistered before the last
 * one leaves it: an ftrace_ops with an empty filter would trace every
 * function of the kernel.
 */
#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/slab.h>

#include "internal.h"

/**
 * kprobe_ftrace_place() - is an address ftrace's to patch
 * @addr: where a new site would go
 *
 * Return: 1 when @addr is an ftrace location (the site goes through
 * ftrace), 0 when it is not, inside ftrace's call -EILSEQ on the site
 * interface (no instruction starts there) and -EINVAL on the classic one,
 * -EINVAL at its start with KPROBES_ON_FTRACE off.
 */
int kprobe_ftrace_place(kprobe_opcode_t *addr)
{
	unsigned long a = (unsigned long)addr;
	unsigned long loc = ftrace_location(a);

	if (!loc)
		return 0;
#ifdef CONFIG_DYNAMIC_FTRACE
	/*
	 * ftrace_location() maps a function's first byte to the function's
	 * ftrace location wherever that is (after x86's endbr, after
	 * arm64's first nop, after powerpc's mflr): the first byte is then
	 * an instruction of its own, as upstream takes it.  Only the bytes
	 * of ftrace's own instruction are ftrace's.
	 */
	if (a < loc || a - loc >= MCOUNT_INSN_SIZE)
		return 0;
#endif
	/*
	 * Inside ftrace's instruction: no instruction starts there on x86
	 * (-EILSEQ, as upstream's decoder answers).  Elsewhere the call may
	 * be several instructions (riscv's auipc
	 * and jalr, csky's): a breakpoint on the second would be written
	 * over by ftrace's next change, or fail its check and shut ftrace
	 * down, so -EINVAL, which is also what powerpc answers upstream
	 * for such an address (not word aligned).  Upstream accepts the
	 * second word on riscv: refusing it is a fix.
	 */
	if (loc != a)
		return IS_ENABLED(CONFIG_X86) ? -EILSEQ : -EINVAL;
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return -EINVAL;
	return 1;
}

#ifdef CONFIG_KPROBES_ON_FTRACE
/* Set when ftrace shuts down after an error: the handler then does nothing. */
bool kprobe_ftrace_disabled;

/**
 * kprobe_ftrace_kill() - ftrace is shutting down, stop reaching probes
 *
 * Called by ftrace_kill() in any context.
 */
void kprobe_ftrace_kill(void)
{
	WRITE_ONCE(kprobe_ftrace_disabled, true);
}

/*
 * Two ops, SAVE_REGS both (struct kprobe_site.ftrace_in says which hold a
 * site's address, KPROBE_FTRACE_IN_*):
 *
 *   plain     every armed site.  Its handler runs the site's handlers with
 *             a whole pt_regs; a pre_handler that changes regs->ip sends
 *             the CPU there.  Not IPMODIFY, so that a livepatch (which is)
 *             can share the function with probes.
 *   ipmodify  also the sites with a jprobe, as a claim: its handler does
 *             nothing.  A jprobe's handler runs in place of the function
 *             and comes back much later, so no other ops may send the CPU
 *             elsewhere meanwhile; ftrace lets one IPMODIFY ops per
 *             function, so a livepatch and a jprobe on the same function
 *             refuse each other with -EBUSY.  The plain handler lets a
 *             jprobe take over only while the claim is held.
 *
 * The claim is why a site never moves from one ops to the other: the
 * plain ops runs the handlers before, while and after a jprobe comes or
 * goes, so every call of the function runs them once.  A site that moved
 * would be in both for a while, where a call reaches one handler or both
 * depending on how far ftrace got with its text, and no rule read from
 * the site alone can make exactly one of them act for each call.
 */
/*
 * Addresses ftrace would not take out of a filter (it could not allocate
 * its new hash): still in the filter though no site wants them, so that
 * the ops is called there for nothing, and an IPMODIFY ops keeps a
 * livepatch out of the function.  Taken out again before the filter's
 * next change (filter_retry_stale()).  A handful is plenty: each one needs
 * an allocation to fail.
 */
#define FTRACE_STALE_MAX	16

/* The IPMODIFY ops' handler: the claim needs no work (above). */
static void notrace __kprobes kprobe_ftrace_claim(unsigned long ip,
						  unsigned long parent_ip,
						  struct ftrace_ops *ops,
						  struct ftrace_regs *fregs)
{
}

#ifdef CONFIG_KPROBES_FTRACE_DIRECT
#define PLAIN_OPS_FLAGS	(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_DIRECT | \
			 FTRACE_OPS_FL_DIRECT_YIELDS)
#else
#define PLAIN_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS
#endif

static struct ftrace_user {
	struct ftrace_ops	ops;
	unsigned int		armed;	/* sites' addresses in its filter; kprobe_mutex */
	unsigned int		nr_stale;
	unsigned long		stale[FTRACE_STALE_MAX];
	u8			in;	/* its KPROBE_FTRACE_IN_* bit */
} ftrace_users[2] = {
	{
		.ops.func	= kprobe_ftrace_handler,
		.ops.flags	= PLAIN_OPS_FLAGS,
		.in		= KPROBE_FTRACE_IN_PLAIN,
	}, {
		.ops.func	= kprobe_ftrace_claim,
		.ops.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
		.in		= KPROBE_FTRACE_IN_IPMODIFY,
	},
};

/*
 * Does @kf's filter change its registration too?  The direct one's does:
 * ftrace_direct_yielding_add() registers the ops with its first address,
 * ftrace_direct_yielding_remove() unregisters it before the last leaves.
 */
static bool filter_registers(struct ftrace_user *kf)
{
	return IS_ENABLED(CONFIG_KPROBES_FTRACE_DIRECT) &&
	       kf->ops.flags & FTRACE_OPS_FL_DIRECT;
}

/* Add @n addresses to @kf's filter, or take them out (@remove). */
static int filter_set(struct ftrace_user *kf, unsigned long *ips,
		      unsigned int n, bool remove)
{
#ifdef CONFIG_KPROBES_FTRACE_DIRECT
	if (filter_registers(kf)) {
		if (remove)
			return ftrace_direct_yielding_remove(&kf->ops, ips, n);
		return ftrace_direct_yielding_add(&kf->ops, ips, n,
				(unsigned long)kprobe_ftrace_direct_tramp);
	}
#endif
	return ftrace_set_filter_ips(&kf->ops, ips, n, remove, 0);
}

/* Is @ip among @kf's stale addresses? */
static bool filter_is_stale(struct ftrace_user *kf, unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < kf->nr_stale; i++)
		if (kf->stale[i] == ip)
			return true;
	return false;
}

/*
 * Take @ip out of @kf's filter alone.  -ENOENT: it is not in it.
 * -EINVAL: it is no ftrace location any more (its module went after an
 * earlier removal failed): ftrace takes it out of no filter then, and
 * nothing can, so it is counted out; it matters only should another
 * module's function come to that very address while the ops is
 * registered.  Anything else leaves it in: it is remembered as stale,
 * once.  Return: whether it is out.
 */
static bool filter_remove_one(struct ftrace_user *kf, unsigned long ip)
{
	int ret = filter_set(kf, &ip, 1, true);

	/* ftrace_kill(): nothing is traced any more, nothing to keep. */
	if (!ret || ret == -ENOENT || ret == -EINVAL ||
	    READ_ONCE(kprobe_ftrace_disabled))
		return true;
	if (filter_is_stale(kf, ip))
		return false;
	if (kf->nr_stale < FTRACE_STALE_MAX)
		kf->stale[kf->nr_stale++] = ip;
	else
		pr_warn_once("kprobes: ftrace kept %pS in a filter of ours (%d)\n",
			     (void *)ip, ret);
	return false;
}

/* Try the stale addresses again; each that stays is stale again. */
static void filter_retry_stale(struct ftrace_user *kf)
{
	unsigned long stale[FTRACE_STALE_MAX];
	unsigned int i, n = kf->nr_stale;

	memcpy(stale, kf->stale, n * sizeof(*stale));
	kf->nr_stale = 0;
	for (i = 0; i < n; i++)
		filter_remove_one(kf, stale[i]);
}

/* A site wants @ip in the filter again: it is no longer stale. */
static void filter_forget_stale(struct ftrace_user *kf, unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < kf->nr_stale; i++) {
		if (kf->stale[i] == ip) {
			kf->stale[i] = kf->stale[--kf->nr_stale];
			return;
		}
	}
}

/*
 * Take @n addresses out of @kf's filter.  ftrace takes a vector all or
 * nothing; when it refuses one, each is taken out alone, so that one it
 * keeps does not keep the others in.  ->armed counts the sites' addresses
 * only: those that stay are stale (filter_remove_one()).
 */
static void filter_remove_now(struct ftrace_user *kf, unsigned long *ips,
			      unsigned int n)
{
	unsigned int i;

	if (!filter_set(kf, ips, n, true))
		return;
	for (i = 0; i < n; i++)
		filter_remove_one(kf, ips[i]);
}

/* Add @n addresses to @kf's filter; the ops is registered around it. */
static int filter_add(struct ftrace_user *kf, unsigned long *ips,
		      unsigned int n)
{
	unsigned int i;
	int ret;

	/* Before the ops may be registered again with them in its filter. */
	if (kf->nr_stale)
		filter_retry_stale(kf);
	ret = filter_set(kf, ips, n, false);
	if (ret)
		return ret;
	if (!kf->armed && !filter_registers(kf)) {
		ret = register_ftrace_function(&kf->ops);
		if (ret) {
			filter_remove_now(kf, ips, n);
			return ret;
		}
	}
	for (i = 0; kf->nr_stale && i < n; i++)
		filter_forget_stale(kf, ips[i]);
	kf->armed += n;
	return 0;
}

/* Take @n sites' addresses out of @kf's filter. */
static void filter_remove(struct ftrace_user *kf, unsigned long *ips,
			  unsigned int n)
{
	int ret;

	/*
	 * Never leave the ops registered with an empty filter.  With stale
	 * addresses left in it, it stays unregistered until a site comes.
	 */
	if (kf->armed == n && !filter_registers(kf)) {
		ret = unregister_ftrace_function(&kf->ops);
		/* ftrace_kill() makes every ftrace call fail: nothing to warn. */
		WARN_ON_ONCE(ret && !READ_ONCE(kprobe_ftrace_disabled));
	}
	kf->armed -= n;
	if (kf->nr_stale)
		filter_retry_stale(kf);
	filter_remove_now(kf, ips, n);
}

static bool site_in(struct kprobe_site *site, struct ftrace_user *kf)
{
	return site->ftrace_in & kf->in;
}

/*
 * Should @site be in @kf now?  The claim goes only with the plain ops:
 * a site ftrace would not take there has no handler to run its jprobe.
 */
static bool site_wants(struct kprobe_site *site, struct ftrace_user *kf)
{
	if (kf->in == KPROBE_FTRACE_IN_PLAIN)
		return site->armed;
	return site->armed && site->ftrace_ipmodify &&
	       site_in(site, &ftrace_users[0]);
}

/*
 * Note the outcome of adding @site to @kf.  A site the plain ops could not
 * take drops its wish, so that arming it again retries; one that has no
 * claim keeps running its other probes, and its jprobe counts its hits as
 * missed until the caller, told the error, takes it away, or the claim is
 * asked for again (kprobe_ftrace_site_update()).
 */
static void added(struct kprobe_site *site, struct ftrace_user *kf, int ret)
{
	if (!ret)
		WRITE_ONCE(site->ftrace_in, site->ftrace_in | kf->in);
	else if (kf->in == KPROBE_FTRACE_IN_PLAIN)
		site->armed = false;
}

/*
 * Add the sites of @sites that should be in @kf and are not, @cap
 * addresses per ftrace call; when a call with several fails, each of them
 * is tried alone, so that one refused address (a livepatched function for
 * a jprobe) does not keep the others out.  The site's bit goes on after
 * ftrace took the address: until then the ops does not act for it.
 */
static int apply_adds(struct list_head *sites, struct ftrace_user *kf,
		      unsigned long *ips, unsigned int cap)
{
	struct kprobe_site *site, *from;
	unsigned int k;
	int ret, err = 0;

	from = list_first_entry(sites, struct kprobe_site, poke);
	while (&from->poke != sites) {
		/* A chunk: up to @cap addresses, from @from up to @site. */
		k = 0;
		for (site = from; &site->poke != sites && k < cap;
		     site = list_next_entry(site, poke))
			if (site_wants(site, kf) && !site_in(site, kf))
				ips[k++] = (unsigned long)site->addr;
		ret = k ? filter_add(kf, ips, k) : 0;
		for (; from != site; from = list_next_entry(from, poke)) {
			unsigned long ip = (unsigned long)from->addr;
			int one = ret;

			if (!site_wants(from, kf) || site_in(from, kf))
				continue;
			if (ret && k > 1)
				one = filter_add(kf, &ip, 1);
			added(from, kf, one);
			if (one && !err)
				err = one;
		}
	}
	return err;
}

/*
 * Take @n addresses out of @kf's filter, their bits already off.  A claim
 * goes only once no hit that read its bit still on is under way: such a
 * hit may send the CPU to a jprobe's handler, and another IPMODIFY ops
 * that ftrace would then let on the function, one registered before ours
 * and so called after it, would send the CPU elsewhere over it.  Every
 * hit reads the bit with preemption off: the grace period covers it.
 */
static void filter_leave(struct ftrace_user *kf, unsigned long *ips,
			 unsigned int n)
{
	if (kf->in == KPROBE_FTRACE_IN_IPMODIFY)
		synchronize_rcu();
	filter_remove(kf, ips, n);
}

/*
 * Take out of @kf the sites that should not be in it.  The bit goes off
 * before ftrace lets the address go: the plain handler stops acting for
 * the site, or lets no jprobe take over any more, before the ops leaves.
 */
static void apply_removes(struct list_head *sites, struct ftrace_user *kf,
			  unsigned long *ips, unsigned int cap)
{
	struct kprobe_site *site;
	unsigned int k = 0;

	list_for_each_entry(site, sites, poke) {
		if (!site_in(site, kf) || site_wants(site, kf))
			continue;
		WRITE_ONCE(site->ftrace_in, site->ftrace_in & ~kf->in);
		ips[k++] = (unsigned long)site->addr;
		if (k == cap) {
			filter_leave(kf, ips, k);
			k = 0;
		}
	}
	if (k)
		filter_leave(kf, ips, k);
}

/*
 * Bare probes at ftrace locations (bare.c keeps their books): a probe
 * with a pre_handler and nothing else needs no copy of an instruction
 * and no claim on the IPMODIFY ops, so the plain ops' filter holding its
 * address is all it costs, as upstream's probes at ftrace locations.
 * The plain ops' handler finds it when no site is at the address
 * (ftrace_handler.c).
 */

/**
 * kprobe_bare_fits() - may a probe go bare at an address
 * @p: a probe being registered
 * @addr: its resolved address, where there is neither site nor bare probe
 *
 * Return: true when @addr is an ftrace location and @p has a pre_handler
 * and nothing else (no post_handler, no fault_handler, not a jprobe).
 */
bool kprobe_bare_fits(struct kprobe *p, kprobe_opcode_t *addr)
{
	return kprobe_ftrace_place(addr) == 1 && p->pre_handler &&
	       p->pre_handler != jprobe_setjmp && !p->post_handler &&
	       !p->fault_handler;
}

/* kprobe_bare_add(): nothing to prepare but the flags of the place. */
int kprobe_bare_prepare(struct kprobe *p)
{
	p->flags |= KPROBE_FLAG_FTRACE;
	p->opcode = *p->addr;
	return 0;
}

/* Its text goes: its address leaves the filter now (as a site's would). */
void kprobe_bare_text_left(struct kprobe *p)
{
	unsigned long ip = (unsigned long)p->addr;

	if (p->flags & KPROBE_FLAG_BARE_IN)
		filter_remove(&ftrace_users[0], &ip, 1);
}

/* A site takes over @p: in the plain filter if @p's address is. */
void kprobe_bare_site_starts(struct kprobe *p, struct kprobe_site *site)
{
	site->ftrace_in = p->flags & KPROBE_FLAG_BARE_IN ?
			  KPROBE_FTRACE_IN_PLAIN : 0;
}

/*
 * A removal: out of the hash now (the handler finding no probe does
 * nothing), out of the filter at the commit.
 */
void kprobe_bare_withdraw(struct kprobe *p)
{
	hash_del_rcu(&p->hlist);
	if (kprobe_bare_leaves(p)) {
		if (list_empty(&p->list))
			list_add_tail(&p->list, &kprobe_bare_queue);
	} else {
		kprobe_bare_retire(p);
	}
}

/* @p leaves the books without a change to the filter. */
void kprobe_bare_retire(struct kprobe *p)
{
	list_del_init(&p->list);
}

/* Nothing of a removed probe's is freed later. */
bool kprobe_bare_releasing(struct kprobe *p)
{
	return false;
}

/*
 * Add the queued bare probes that want in to the plain filter: all in one
 * call when @cap allows, else (or when that call fails) one by one, so
 * that a refused address keeps out only itself.  A probe ftrace refuses
 * drops its wish, so that arming it again queues it again.
 */
static int bare_adds(unsigned long *ips, unsigned int cap)
{
	struct ftrace_user *kf = &ftrace_users[0];
	unsigned int k = 0;
	unsigned long ip;
	struct kprobe *p;
	int ret, err = 0;

	list_for_each_entry(p, &kprobe_bare_queue, list)
		if (kprobe_bare_joins(p) && k++ < cap)
			ips[k - 1] = (unsigned long)p->addr;
	if (!k)
		return 0;
	if (k <= cap) {
		ret = filter_add(kf, ips, k);
		if (!ret || k == 1) {
			list_for_each_entry(p, &kprobe_bare_queue, list) {
				if (!kprobe_bare_joins(p))
					continue;
				if (ret)
					kprobe_flags_change(p, 0, KPROBE_FLAG_BARE_ARMED);
				else
					kprobe_flags_change(p, KPROBE_FLAG_BARE_IN, 0);
			}
			return ret;
		}
	}
	list_for_each_entry(p, &kprobe_bare_queue, list) {
		if (!kprobe_bare_joins(p))
			continue;
		ip = (unsigned long)p->addr;
		ret = filter_add(kf, &ip, 1);
		if (ret) {
			kprobe_flags_change(p, 0, KPROBE_FLAG_BARE_ARMED);
			err = err ?: ret;
		} else {
			kprobe_flags_change(p, KPROBE_FLAG_BARE_IN, 0);
		}
	}
	return err;
}

/* Remove from the plain filter the queued bare probes that leave it. */
static void bare_removes(unsigned long *ips, unsigned int cap)
{
	unsigned int k = 0;
	struct kprobe *p;

	list_for_each_entry(p, &kprobe_bare_queue, list) {
		if (!kprobe_bare_leaves(p))
			continue;
		kprobe_flags_change(p, 0, KPROBE_FLAG_BARE_IN);
		ips[k++] = (unsigned long)p->addr;
		if (k == cap) {
			filter_remove(&ftrace_users[0], ips, k);
			k = 0;
		}
	}
	if (k)
		filter_remove(&ftrace_users[0], ips, k);
}

/*
 * Bring the two filters up to date with the wishes of @sites (->armed,
 * ->ftrace_ipmodify): additions first, so that an ops is not unregistered
 * and registered again within one commit; the plain ops before the claim
 * on the way in, after it on the way out, so that a claim is never held
 * for a site the plain handler does not act for.  Without memory for a
 * vector, one address per call.
 */
static int ftrace_apply(struct list_head *sites, unsigned int n)
{
	unsigned long one, *ips;
	unsigned int cap = n;
	int i, ret, err = 0;

	ips = kmalloc_array(n, sizeof(*ips), GFP_KERNEL);
	if (!ips) {
		ips = &one;
		cap = 1;
	}
	for (i = 0; i < ARRAY_SIZE(ftrace_users); i++) {
		ret = apply_adds(sites, &ftrace_users[i], ips, cap);
		if (ret && !err)
			err = ret;
	}
	ret = bare_adds(ips, cap);
	if (ret && !err)
		err = ret;
	for (i = ARRAY_SIZE(ftrace_users) - 1; i >= 0; i--)
		apply_removes(sites, &ftrace_users[i], ips, cap);
	bare_removes(ips, cap);
	if (ips != &one)
		kfree(ips);
	return err;
}

/**
 * kprobe_ftrace_commit() - bring the filters up to date with queued sites
 * @pending: the queue of arming.c; its ftrace sites are taken off it
 *
 * The queued bare probes (below) go with them.
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of ftrace when sites could not be armed: a site
 * that is in no filter then drops its wish (->armed), so that arming it
 * again queues it again (a bare probe likewise drops KPROBE_FLAG_BARE_ARMED);
 * the caller undoes what asked for it.
 */
int kprobe_ftrace_commit(struct list_head *pending)
{
	struct kprobe_site *site, *tmp;
	struct kprobe *p, *next;
	LIST_HEAD(sites);
	unsigned int n;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	n = list_count_nodes(&kprobe_bare_queue);
	list_for_each_entry_safe(site, tmp, pending, poke) {
		if (site->ftrace) {
			list_move_tail(&site->poke, &sites);
			n++;
		}
	}
	if (!n)
		return 0;
	ret = ftrace_apply(&sites, n);
	list_for_each_entry_safe(site, tmp, &sites, poke)
		list_del_init(&site->poke);
	list_for_each_entry_safe(p, next, &kprobe_bare_queue, list)
		list_del_init(&p->list);
	return ret;
}

/* Does @site, armed, still lack the claim it wants? */
static bool claim_refused(struct kprobe_site *site)
{
	return site->armed && site->ftrace_ipmodify &&
	       !site_in(site, &ftrace_users[1]);
}

/**
 * kprobe_ftrace_site_update() - a site's probes changed
 * @site: an ftrace site
 * @jprobe: whether a jprobe is among them now
 *
 * Queues the site when its claim on the IPMODIFY ops must come or go, or
 * when an armed site lacks the claim it wants (ftrace refused it at an
 * earlier commit: arming again, enabling again, retries); the caller
 * commits.
 * Context: kprobe_mutex held.
 */
void kprobe_ftrace_site_update(struct kprobe_site *site, bool jprobe)
{
	lockdep_assert_held(&kprobe_mutex);
	if (site->ftrace_ipmodify == jprobe && !claim_refused(site))
		return;
	site->ftrace_ipmodify = jprobe;
	kprobe_site_queue(site);
}

/**
 * kprobe_ftrace_site_gone() - the text of an ftrace site goes away
 * @site: the site, already unarmed in its wish
 *
 * Its address leaves the filter now: ftrace forgets the location with
 * the text, and a new function there must not inherit our ops.
 * Context: kprobe_mutex held.
 */
void kprobe_ftrace_site_gone(struct kprobe_site *site)
{
	unsigned long ip = (unsigned long)site->addr;
	int i;

	lockdep_assert_held(&kprobe_mutex);
	/* The claim first, as in ftrace_apply(). */
	for (i = ARRAY_SIZE(ftrace_users) - 1; i >= 0; i--) {
		if (!site_in(site, &ftrace_users[i]))
			continue;
		WRITE_ONCE(site->ftrace_in, site->ftrace_in & ~ftrace_users[i].in);
		filter_leave(&ftrace_users[i], &ip, 1);
	}
}
#endif /* CONFIG_KPROBES_ON_FTRACE */
