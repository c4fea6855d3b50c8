// SPDX-License-Identifier: GPL-2.0
/*
 * x86 part of probes at ftrace locations: the ftrace_ops handler.
 *
 * ftrace calls us from its trampoline at the function's fentry call, with
 * a pt_regs (FTRACE_OPS_FL_SAVE_REGS) whose ->sp is the function's stack
 * pointer at entry (its return address on top, as a kretprobe wants) and
 * whose ->ip the trampoline returns to.  The handlers see what they would
 * see at an int3 there: ->ip just past the first byte for pre_handlers,
 * just past the five bytes for post_handlers.  Then ->ip goes back to what
 * the trampoline had, unless a pre_handler changed it to go elsewhere;
 * our own direct call's trampoline is told instead (ftrace_resume()).
 *
 * Context: whatever the probed function runs in; ftrace's recursion
 * guard keeps preemption off.  Interrupts stay as they were for the
 * usual case through the plain ops, ->single (one or two probes, no
 * fault_handler, no jprobe), and are off across the handlers of the list
 * walk, as on the int3 path.
 * Only a jprobe keeps them off beyond (below).
 *
 * Only the plain ftrace_ops of kernel/kprobes/ftrace.c comes here; the
 * IPMODIFY one is a claim, held for a site with a jprobe, without which
 * the jprobe does not take over (its hits count as missed).
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <asm/ibt.h>
#include <asm/text-patching.h>

/* A hit that finds this CPU inside Kprobes already runs no handler. */
static __always_inline bool kprobes_busy_here(void)
{
	return kprobe_running() || __this_cpu_read(kprobe_ctlblk.depth);
}

/* One per-CPU store, where get_kprobe_ctlblk() would add a load. */
static __always_inline void set_kprobe_status(unsigned long status)
{
	__this_cpu_write(kprobe_ctlblk.kprobe_status, status);
}

/*
 * The hit's ip, the address of the fentry call: the site's address (the
 * hit found the site by it).  Read from the site after a handler's call
 * rather than kept in a saved register across it.
 */
static __always_inline unsigned long ftrace_site_ip(struct kprobe_site *site)
{
	return (unsigned long)site->addr;
}

/*
 * The handlers left ip alone: the trampoline is to go on as it would
 * have.  ftrace's goes to regs->ip, which gets back what it had (@orig_ip,
 * read before the handlers: another ftrace_ops, a livepatch's, may have
 * set it).  The direct call's goes back past the fentry call unless told
 * that ip moved (kprobe_ftrace_direct_hit()): regs->ip is left as the
 * handlers had it, and @orig_ip is dead across their calls (@direct).
 */
static __always_inline void ftrace_resume(struct pt_regs *regs,
					  unsigned long orig_ip, bool direct)
{
	if (!direct)
		instruction_pointer_set(regs, orig_ip);
}

/*
 * The post_handlers of a hit whose pre_handlers ran from ->single, with
 * interrupts on: the walk may meet a probe with a fault_handler that
 * joined since ->single was read, and such a probe's handlers run with
 * interrupts off, so that no interrupt's fault reaches its fault_handler.
 * Out of line: a site whose post_handlers need the walk after ->single
 * is rare, and inline the flags would take one more saved register on
 * every hit of the callers.
 */
static noinline void notrace __kprobes
ftrace_post_walk_irqs_off(struct kprobe_site *site, struct pt_regs *regs)
{
	unsigned long flags;

	local_irq_save(flags);
	kprobe_site_post_handlers(site, regs);
	local_irq_restore(flags);
}

/*
 * The pre_handlers ran and left regs->ip alone: the post_handlers see ip
 * past the call, as after the instruction on the int3 path; then ip goes
 * back to where the trampoline goes on (ftrace_resume()).  @single: the
 * pre_handler of ->single ran alone, and its probe (for a pair, the
 * pair's second) is current_kprobe, read back from there rather than kept
 * live across the handler's call; it is never NULL: no handler clears it.
 *
 * When ->post_single says so, and that probe is still ->single (so not a
 * pair's), it is the site's only probe, and its post_handler is called
 * here, with the status and current_kprobe the walk would give it, saving
 * the walk's call and loop (about 25 instructions a hit).
 *
 * Registrations change both meanwhile (kprobe_mutex): ->post_single is
 * cleared before each change of ->single and set after it
 * (site_update_arming()), and is read here between two reads of ->single,
 * the pre_handler's and the one below (the smp_rmb()s pair with that
 * function's barriers).  A set one was computed for a ->single published
 * no earlier than the one the first read found and before the second
 * read.  The probe whose pre_handler ran, found in ->single again, is
 * that one (a probe cannot leave a site and come back within one hit:
 * its removal waits for this RCU reader), so it was the site's only
 * probe, with a post_handler.  Otherwise the walk decides.  Unlike the
 * walk it does not look at the probe's disabled flag again: a probe
 * disabled between its two handlers gets the post_handler whose
 * pre_handler it has had.
 */
static __always_inline void ftrace_end_hit(struct kprobe_site *site,
					   struct pt_regs *regs,
					   unsigned long orig_ip,
					   bool single, bool direct)
{
	struct kprobe *p;

	if (!READ_ONCE(site->posted)) {
		reset_current_kprobe();
		goto out;
	}
	instruction_pointer_set(regs, ftrace_site_ip(site) + CALL_INSN_SIZE);
	/* ->single read by the caller, then ->post_single: site_update_arming() */
	smp_rmb();
	if (single && READ_ONCE(site->post_single)) {
		/* ->post_single, then ->single again: site_update_arming() */
		smp_rmb();
		p = kprobe_running();
		if (likely(p == rcu_dereference_sched(site->single))) {
			set_kprobe_status(KPROBE_HIT_SSDONE);
			p->post_handler(p, regs, 0);
			reset_current_kprobe();
			goto out;
		}
	}
	if (single)
		ftrace_post_walk_irqs_off(site, regs);
	else
		kprobe_site_post_handlers(site, regs);	/* interrupts off */
out:
	ftrace_resume(regs, orig_ip, direct);
}

/*
 * The usual case, a site with one probe with a pre_handler and no jprobe
 * and no fault_handler, or two (->single, as the detour's, optimize.c; for
 * two a pair, whose handler runs both as the walk would): run it without
 * the list walk, then the post_handlers (of that probe or of others) if
 * the site has any.  A pre_handler that returns non-zero has moved
 * regs->ip, which then stands, and no post_handler runs.
 *
 * It runs with interrupts on, as upstream's handler and our detour do: with no fault_handler among the
 * probes of ->single, an interrupt during a handler only finds
 * current_kprobe set, and its probes count as missed, as they would in a
 * handler's own calls.  One that comes between the test and the write of
 * current_kprobe below returns with both as they were.  @direct: through
 * the direct call (ftrace_resume()).
 *
 * Return: -1 when the site needs the general path; else 1 when a
 * pre_handler moved ip, 0 when not.
 */
static __always_inline int ftrace_single_probe(struct kprobe_site *site,
					       struct pt_regs *regs,
					       unsigned long ip, bool direct)
{
	struct kprobe *p = rcu_dereference_sched(site->single);
	unsigned long orig_ip;

	if (!p)
		return -1;
	if (unlikely(kprobes_busy_here())) {
		kprobe_site_missed(site);
		return 0;
	}
	orig_ip = instruction_pointer(regs);
	instruction_pointer_set(regs, ip + INT3_INSN_SIZE);
	__this_cpu_write(current_kprobe, p);
	set_kprobe_status(KPROBE_HIT_ACTIVE);
	if (p->pre_handler(p, regs)) {
		reset_current_kprobe();
		return 1;
	}
	ftrace_end_hit(site, regs, orig_ip, true, direct);
	return 0;
}

/*
 * The general path: the list walk, with interrupts off.  As on the int3
 * path, an interrupt must then not find this CPU's current_kprobe set: a
 * fault of its own would go to our probe's fault_handler, and its probes
 * would all count as missed.  A jprobe's handler needs them off too
 * (below).  Return: true when a pre_handler moved ip.
 */
static __always_inline bool ftrace_walk_hit(struct kprobe_site *site,
					    struct pt_regs *regs,
					    unsigned long ip, bool claimed,
					    bool direct)
{
	unsigned long orig_ip, flags;
	bool moved = false;

	local_irq_save(flags);
	if (unlikely(kprobes_busy_here())) {
		kprobe_site_missed(site);
		goto out_irq;
	}
	orig_ip = instruction_pointer(regs);
	instruction_pointer_set(regs, ip + INT3_INSN_SIZE);
	/* Only the claim keeps others from moving ip under a jprobe. */
	if (kprobe_site_pre_handlers(site, regs, claimed)) {
		/*
		 * A handler sent the CPU elsewhere.  A jprobe's handler is
		 * about to run as this CPU's current probe, on per-CPU state
		 * that must still be this CPU's when it traps back: it runs
		 * with interrupts off (jprobe_enter() cleared IF in regs,
		 * which ftrace's trampoline restores), and they stay off on
		 * the way out of ftrace, where preemption comes back on.
		 * When they were on, lockdep is told they still are, as the
		 * int3 path leaves it for a jprobe: jprobe_return()'s trap
		 * restores them.
		 */
		if (kprobe_running()) {
			if (!irqs_disabled_flags(flags))
				trace_hardirqs_on();
			return true;
		}
		moved = true;
		goto out_irq;
	}
	ftrace_end_hit(site, regs, orig_ip, false, direct);
out_irq:
	local_irq_restore(flags);
	return moved;
}

/*
 * The walk of a direct call's hit, out of line: the registers it keeps
 * across its calls (the flags, ip, ->ip before) are then saved only on
 * this path, not on every direct hit of a site.  No claim: a jprobe
 * takes over only from ftrace's list.
 */
static noinline bool notrace __kprobes
ftrace_direct_walk_hit(struct kprobe_site *site, struct pt_regs *regs,
		       unsigned long ip)
{
	return ftrace_walk_hit(site, regs, ip, false, true);
}

/*
 * A bare probe (kernel/kprobes/ftrace.c): the address's only probe, with
 * a pre_handler and nothing else, and no site.  As ftrace_single_probe(),
 * less what only a site has: no pair, no post_handler, no walk.  Its
 * disabled flag is read here, because its address leaves the filter only
 * at the commit after the flag is set.  Return: true when the pre_handler
 * moved ip.
 */
static __always_inline bool ftrace_bare_hit(struct kprobe *p,
					    struct pt_regs *regs,
					    unsigned long ip, bool direct)
{
	unsigned long orig_ip;
	bool moved;

	if (unlikely(kprobe_disabled(p)))
		return false;
	if (unlikely(kprobes_busy_here())) {
		kprobe_window_entered(KPROBE_WINDOW_MISSED);
		data_race(p->nmissed++);	/* as kprobes_inc_nmissed_count() */
		return false;
	}
	orig_ip = instruction_pointer(regs);
	instruction_pointer_set(regs, ip + INT3_INSN_SIZE);
	__this_cpu_write(current_kprobe, p);
	set_kprobe_status(KPROBE_HIT_ACTIVE);
	/* Non-zero: the handler moved ip, which then stands. */
	moved = p->pre_handler(p, regs);
	if (!moved)
		ftrace_resume(regs, orig_ip, direct);
	reset_current_kprobe();
	return moved;
}

/*
 * What a hit at ftrace location @ip runs: the site there, or else the
 * bare probe there (*@bare), or neither.  Preemption is off: an RCU
 * reader, as removal expects (register.c).
 */
static __always_inline struct kprobe_site *ftrace_hit_lookup(unsigned long ip,
							     struct kprobe **bare)
{
	struct kprobe_site *site = kprobe_site_find((kprobe_opcode_t *)ip);

	*bare = NULL;
	if (site)
		return site;
	kprobe_window_stall(KPROBE_WINDOW_BARE_TO_SITE);
	*bare = kprobe_bare_find((kprobe_opcode_t *)ip);
	if (*bare)
		return NULL;
	return kprobe_bare_gone_to_site((kprobe_opcode_t *)ip);
}

/*
 * A hit at the site at @ip, with preemption off.  @direct: through the
 * direct call, where no other ftrace_ops runs for this call, and so no
 * claim: a jprobe takes over only from the list (below).  Return: true
 * when a pre_handler moved ip.
 */
static __always_inline bool ftrace_site_hit(struct kprobe_site *site,
					    struct pt_regs *regs,
					    unsigned long ip, bool direct)
{
	/*
	 * Not yet or no longer in the plain filter as far as the site knows:
	 * ftrace calls the ops a little before an address is added and after
	 * it is removed (ftrace.c changes the bit after and before).
	 */
	u8 in = READ_ONCE(site->ftrace_in);
	int single;

	if (!(in & KPROBE_FTRACE_IN_PLAIN))
		return false;
	/* A site with a jprobe has no ->single: the walk, interrupts off. */
	single = ftrace_single_probe(site, regs, ip, direct);
	if (single >= 0)
		return single;
	if (direct)
		return ftrace_direct_walk_hit(site, regs, ip);
	return ftrace_walk_hit(site, regs, ip, in & KPROBE_FTRACE_IN_IPMODIFY,
			       false);
}

/*
 * The handler of the plain ops (kernel/kprobes/ftrace.c), called from
 * ftrace's list, or from its trampoline for the ops.
 */
void __kprobes kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *ops,
				     struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct kprobe_site *site;
	struct kprobe *p;
	int bit;

	if (unlikely(READ_ONCE(kprobe_ftrace_disabled)))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	site = ftrace_hit_lookup(ip, &p);
	if (p)
		ftrace_bare_hit(p, regs, ip, false);
	else if (site)
		ftrace_site_hit(site, regs, ip, false);
	ftrace_test_recursion_unlock(bit);
}

#ifdef CONFIG_KPROBES_FTRACE_DIRECT
/*
 * The two ends of a direct call's hit, a bare probe's and a site's, each
 * out of line with the registers it keeps across its handler calls, and
 * each ending the preemption-off section its caller began.  Inline, every
 * direct hit would save and restore the registers a site's paths keep;
 * this way the lookup saves none.  Reached by a direct jump or call only (no
 * endbr; their addresses must never be taken).
 */
static noinline __noendbr bool notrace __kprobes
ftrace_direct_bare_hit(struct kprobe *p, struct pt_regs *regs, unsigned long ip)
{
	bool moved = ftrace_bare_hit(p, regs, ip, true);

	preempt_enable_notrace();
	return moved;
}

static noinline __noendbr bool notrace __kprobes
ftrace_direct_site_hit(struct kprobe_site *site, struct pt_regs *regs,
		       unsigned long ip)
{
	bool moved = ftrace_site_hit(site, regs, ip, true);

	preempt_enable_notrace();
	return moved;
}

/*
 * Called by kprobe_ftrace_direct_tramp (ftrace_direct.S), the direct call
 * of a function that only the plain ops is on, with a pt_regs as ftrace's
 * (->ip the fentry call's return).  ftrace's recursion lock is not
 * needed: nothing here is traced, and a probed function that a handler
 * calls finds this CPU in Kprobes and counts a miss.  The jprobe of such
 * a site counts its hits as missed: the claim is an ops of its own, which
 * takes the function to ftrace's list, where the plain handler acts.
 *
 * Return: true when a pre_handler moved ip: the trampoline then goes to
 * regs->ip.  Otherwise it goes back past the fentry call, and regs->ip
 * is whatever the handlers were shown last (ftrace_resume()).
 */
__visible bool kprobe_ftrace_direct_hit(struct pt_regs *regs);
__visible bool notrace __kprobes kprobe_ftrace_direct_hit(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs) - CALL_INSN_SIZE;
	struct kprobe_site *site;
	struct kprobe *p;

	preempt_disable_notrace();
	if (likely(!READ_ONCE(kprobe_ftrace_disabled))) {
		site = ftrace_hit_lookup(ip, &p);
		/* Each ends the hit (a tail call, without frame pointers). */
		if (likely(p))
			return ftrace_direct_bare_hit(p, regs, ip);
		if (site)
			return ftrace_direct_site_hit(site, regs, ip);
	}
	preempt_enable_notrace();
	return false;
}
#endif
