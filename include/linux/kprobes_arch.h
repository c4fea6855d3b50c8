/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seam between the generic Kprobes core (kernel/kprobes/) and an
 * architecture: what each side provides, and under which conditions it is
 * called.  Documentation/trace/kprobes.rst, "Architectures and porting",
 * says the same in prose.  Included by <linux/kprobes.h> only.
 *
 * An architecture takes one of two ways in:
 *
 * - the site interface (CONFIG_HAVE_KPROBE_SITES; x86, both widths): the
 *   arch works on whole probe sites (struct kprobe_site), batches its
 *   text changes, and may optimize;
 * - the classic interface (CONFIG_KPROBES_CLASSIC_ARCH; every other
 *   architecture): the arch keeps the code it has for upstream's core,
 *   one struct kprobe per address, and kernel/kprobes/classic.c maps it
 *   onto sites.
 *
 * "Registration context" below: process context, kprobe_mutex held, so
 * the callee may sleep, allocate with GFP_KERNEL and take text_mutex (and
 * cpus_read_lock(), before text_mutex).  "Hit context": the breakpoint
 * handler or a detour, interrupts off or at least preemption off, possibly
 * NMI: no locks, no allocation, no sleeping.
 */
#ifndef _LINUX_KPROBES_ARCH_H
#define _LINUX_KPROBES_ARCH_H

#ifndef _LINUX_KPROBES_H
#error "include <linux/kprobes.h> instead"
#endif

/* ---- What the core provides to the arch's hit path (hit context) ---- */

/*
 * The rare paths of a hit, which only another CPU's change at the same
 * moment leads to.  The test kernels (CONFIG_KPROBES_KUNIT_TEST) count
 * each time one is taken, so that a cross-CPU test can show that it
 * reached the window it exists for rather than pass without entering it;
 * elsewhere the count compiles to nothing.
 */
enum kprobe_window {
	KPROBE_WINDOW_INT3_GONE,	/* a trap on an int3 already taken out */
	KPROBE_WINDOW_LATE_SITE,	/* a site published after the trap's lookup */
	KPROBE_WINDOW_IN_FLUX,		/* a trap while a jump comes or goes */
	KPROBE_WINDOW_MISSED,		/* a hit inside a handler or a step */
	KPROBE_WINDOW_BARE_TO_SITE,	/* ftrace: a bare probe just got its site */
	KPROBE_WINDOW_STALE_TEXT,	/* the same gone int3 again: stale text run */
	KPROBE_WINDOWS
};

#ifdef CONFIG_KPROBES_KUNIT_TEST
DECLARE_PER_CPU(unsigned long, kprobe_window_count[KPROBE_WINDOWS]);

static __always_inline void kprobe_window_entered(enum kprobe_window w)
{
	this_cpu_inc(kprobe_window_count[w]);
}

/* How often @w was entered since boot, on every CPU together. */
unsigned long kprobe_window_total(enum kprobe_window w);

/*
 * Microseconds a hit stalls just before the lookup whose miss opens
 * window @w, while a test sets it: under QEMU the other CPU's change
 * seldom lands inside a window a few instructions wide, so a cross-CPU
 * test widens the one it exists for, and then asserts it was entered.
 */
extern unsigned int kprobe_window_stall_us[KPROBE_WINDOWS];
void kprobe_window_stall_wait(enum kprobe_window w);

static __always_inline void kprobe_window_stall(enum kprobe_window w)
{
	if (unlikely(READ_ONCE(kprobe_window_stall_us[w])))
		kprobe_window_stall_wait(w);
}
#else
static __always_inline void kprobe_window_entered(enum kprobe_window w)
{
}

static __always_inline void kprobe_window_stall(enum kprobe_window w)
{
}
#endif

/* The site at @addr, or NULL; RCU, which the hit context implies. */
struct kprobe_site *kprobe_site_lookup(kprobe_opcode_t *addr);
/*
 * The same, inline, for the handlers of a hit: the walk is a few
 * instructions, and a call to it would add a call, the callee's endbr and
 * a return (a jump to the return thunk under the retbleed mitigations) to
 * every hit.  The hash itself is sites.c's; only it writes the hash, under
 * kprobe_mutex.  Not exported: modules use kprobe_site_lookup().
 */
#define KPROBE_SITE_HASH_BITS	10
extern struct hlist_head kprobe_site_hash[1 << KPROBE_SITE_HASH_BITS];

static __always_inline struct kprobe_site *
kprobe_site_find(kprobe_opcode_t *addr)
{
	/* hash_add_rcu()'s bucket (sites.c): hash_min() of an unsigned long. */
	struct hlist_head *bucket =
		&kprobe_site_hash[hash_long((unsigned long)addr,
					    KPROBE_SITE_HASH_BITS)];
	struct kprobe_site *site;

	hlist_for_each_entry_rcu_notrace(site, bucket, node) {
		if (site->addr == addr)
			return site;
	}
	return NULL;
}

#ifdef KPROBE_BARE_PROBES
/*
 * The bare probe at @addr, or NULL: a probe alone there, kept in a hash
 * of its own (kernel/kprobes/bare.c) instead of a site.  RCU, as the
 * sites' hash.
 */
extern struct hlist_head kprobe_bare_hash[1 << KPROBE_SITE_HASH_BITS];

static __always_inline struct hlist_node *
kprobe_bare_node_find(kprobe_opcode_t *addr)
{
	struct hlist_head *bucket =
		&kprobe_bare_hash[hash_long((unsigned long)addr,
					    KPROBE_SITE_HASH_BITS)];
	struct hlist_node *node;

	/*
	 * The walk of hlist_for_each_entry_rcu_notrace(), on the nodes:
	 * where a probe's ->hlist is not its first member (struct kprobe),
	 * a test of the probe for NULL, the macro's or the caller's, would
	 * cost every hit instructions that a test of the node does not.
	 */
	for (node = rcu_dereference_raw(hlist_first_rcu(bucket)); node;
	     node = rcu_dereference_raw(hlist_next_rcu(node))) {
		if (hlist_entry(node, struct kprobe, hlist)->addr == addr)
			break;
	}
	return node;
}

static __always_inline struct kprobe *kprobe_bare_find(kprobe_opcode_t *addr)
{
	struct hlist_node *node = kprobe_bare_node_find(addr);

	return node ? hlist_entry(node, struct kprobe, hlist) : NULL;
}

/*
 * Neither a site nor a bare probe at @addr: a site may just have taken
 * over the bare probe there, after the lookup of the site and before
 * that of the bare probe.  The site went into its hash before the bare
 * probe left its own, with an smp_wmb() between (site_from_bare(),
 * register.c); the smp_rmb() here pairs with it, so the site is found
 * now.  Return: it, or NULL.
 */
static __always_inline struct kprobe_site *
kprobe_bare_gone_to_site(kprobe_opcode_t *addr)
{
	struct kprobe_site *site;

	smp_rmb();	/* pairs with site_from_bare()'s smp_wmb() */
	site = kprobe_site_find(addr);
	if (site)
		kprobe_window_entered(KPROBE_WINDOW_BARE_TO_SITE);
	return site;
}
#else
static __always_inline struct kprobe *kprobe_bare_find(kprobe_opcode_t *addr)
{
	return NULL;
}

static __always_inline struct kprobe_site *
kprobe_bare_gone_to_site(kprobe_opcode_t *addr)
{
	return NULL;
}
#endif

/*
 * Run the site's pre_handlers with current_kprobe naming each; true when
 * one changed the instruction pointer (the probed instruction is then not
 * carried out).  @jprobe_ok: a jprobe may take over from here.
 */
bool kprobe_site_pre_handlers(struct kprobe_site *site, struct pt_regs *regs,
			      bool jprobe_ok);
/*
 * The pre_handlers of a hit that does not take the step path (through a
 * jump, or while one comes or goes): those of probes that need it miss.
 * True when, with @may_redirect, one changed the instruction pointer.
 */
bool kprobe_site_pre_handlers_passing(struct kprobe_site *site,
				      struct pt_regs *regs, bool may_redirect);
/* Run the post_handlers; current_kprobe is NULL afterwards. */
void kprobe_site_post_handlers(struct kprobe_site *site, struct pt_regs *regs);
/* Offer a fault in the copy to the fault_handlers; non-zero: claimed. */
int kprobe_site_fault_handlers(struct kprobe_site *site, struct pt_regs *regs,
			       int trapnr);
/* A hit that runs no handler (a reentry): every enabled probe misses it. */
void kprobe_site_missed(struct kprobe_site *site);
void kprobes_inc_nmissed_count(struct kprobe *p);

/* Executable slots for the copies (slots.c); registration context. */
kprobe_opcode_t *kprobe_slot_alloc(void);
/* Keep only the first @size bytes of a new slot (grains, KPROBE_SLOT_GRAIN). */
void kprobe_slot_trim(kprobe_opcode_t *slot, unsigned int size);
void kprobe_slot_free(kprobe_opcode_t *slot);

/*
 * Do jump labels or inline static calls own any of these @len bytes
 * (reserved.c)?  Registration context, kprobe_mutex held.
 */
bool kprobe_text_reserved(kprobe_opcode_t *addr, unsigned int len);
/* Where the jump labels in [@start, @end) jump when on (reserved.c); ditto. */
unsigned int kprobe_jump_label_targets(unsigned long start, unsigned long end,
				       unsigned long *out, unsigned int max);

/* ---- The site interface: what the arch provides ---- */

/*
 * Mandatory.  Where a probe at function @addr + @offset goes, and whether
 * that is the function's entry (x86 steps over ENDBR64).  Any context.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);
/*
 * Mandatory, registration context.  Decode the instruction at site->addr
 * and prepare its copy in a slot, or refuse: -EILSEQ (not an instruction
 * boundary; arm64 answers -EINVAL for an address that is not a word's, as
 * its classic code does), -EINVAL (an instruction or text that cannot be
 * probed), -ENOMEM.  Sets site->opcode.  The site is not yet in the hash and has
 * no probe; ->posted says whether its first probe has a post_handler, so
 * that room for a post path is only taken where one is asked for.
 */
int arch_prepare_kprobe_site(struct kprobe_site *site);
/*
 * Mandatory, registration context, after an RCU Tasks grace period since
 * the site left the hash: no CPU or preempted task is in its copies.
 */
void arch_remove_kprobe_site(struct kprobe_site *site);
/*
 * Mandatory, kprobe_mutex held.  Text changed hands: a module comes or
 * left, or its or the kernel's init text is about to be freed.  Forget
 * whatever was learnt from text for preparing sites, since other code may
 * now be at the same addresses; sites in text that went are gone first.
 */
void arch_kprobe_text_gone(void);
/*
 * Mandatory, registration context.  Write the breakpoint (site->armed) or
 * the original byte of every site on @queue (linked by ->poke), emptying
 * it; then, in arch_kprobe_text_sync(), make every write so far visible to
 * the instruction fetch of every CPU, which also drains the hit path of
 * CPUs that met a breakpoint now gone.
 */
void arch_kprobe_poke_sites(struct list_head *queue);
void arch_kprobe_text_sync(void);
/*
 * Jump optimization (CONFIG_OPTPROBES), registration context.  The bytes
 * a site's jump would cover, 0 when it has no detour (never optimized);
 * put in the jumps of @sites, whose tasks have been waited out of the
 * regions (RCU Tasks); take them out again; forget a jump whose text is
 * gone.  All three empty their list (->opt_list).
 */
unsigned int arch_kprobe_region_len(struct kprobe_site *site);
void arch_optimize_sites(struct list_head *sites);
void arch_unoptimize_sites(struct list_head *sites);
void arch_kprobe_drop_jump(struct kprobe_site *site);
/*
 * Probes at ftrace locations (CONFIG_KPROBES_ON_FTRACE): prepare a site
 * that ftrace reaches, without a copy (registration context); the ftrace
 * handler runs the site's handlers (hit context, from ftrace).
 */
int arch_prepare_kprobe_ftrace_site(struct kprobe_site *site);
#ifdef CONFIG_KPROBES_ON_FTRACE
extern bool kprobe_ftrace_disabled;
/* The handler of ftrace.c's plain ops; its IPMODIFY ops is a mere claim. */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);
/*
 * With CONFIG_KPROBES_FTRACE_DIRECT, what the plain ops' functions call
 * while it is alone on them (ftrace_direct_yielding_add()): a trampoline
 * that runs the same handlers as kprobe_ftrace_handler().
 */
void kprobe_ftrace_direct_tramp(void);
/* A classic arch's preparation of the aggregate of such a site (classic.c). */
int arch_prepare_kprobe_ftrace(struct kprobe *p);
#endif
/*
 * Jprobes: jprobe_setjmp() is every jprobe's pre_handler (the core knows
 * a jprobe by it), jprobe_enter() sends the CPU to the handler with the
 * function's arguments (hit context, with the site the core is running),
 * jprobe_return() comes back.  An arch without them returns 0 from both
 * and the core refuses registration (classic.c).
 */
/* (declared with the jprobe API in <linux/kprobes.h>) */
/*
 * Return probes (CONFIG_KRETPROBES), hit context.  An arch whose return
 * address is in memory at a function's entry (x86) defines, in
 * <asm/kprobes.h>, an inline arch_kretprobe_slot(regs) that says where;
 * the core keeps and replaces it at the entry, and kretprobe_trampoline_
 * handler() writes it back (its @frame_pointer is that slot), so the
 * arch's trampoline only returns there.  Any other arch provides
 * arch_prepare_kretprobe(), which records the return address and its
 * frame in the instance and hooks the return (the instance is on the
 * task's list already, its ->fp NULL until the arch writes it); its
 * trampoline calls kretprobe_trampoline_handler() and returns where it
 * says.  The trampoline's symbol is __kretprobe_trampoline, which
 * is_kretprobe_trampoline() compares with.  (declared with the
 * kretprobe API in <linux/kprobes.h>; x86 defines no
 * arch_prepare_kretprobe())
 */

#ifdef CONFIG_KPROBES_CLASSIC_ARCH
/* ---- The classic interface: what the arch provides, as for upstream ---- */

/* A slot holds one copied instruction; there is no region to optimize. */
#define KPROBE_SLOT_SIZE	(MAX_INSN_SIZE * sizeof(kprobe_opcode_t))
#define KPROBE_MAX_REGION	1

/*
 * Registration context: decode and copy the instruction at p->addr
 * (get_insn_slot()), set p->opcode; write and remove the breakpoint (the
 * core holds cpus_read_lock() and text_mutex, the arch makes the write
 * visible to every CPU before it returns); free the copy, after an RCU
 * Tasks grace period.  @p is the site's aggregate probe.
 * arch_remove_kprobe() is declared by the arch (sparc makes it a macro).
 */
int arch_prepare_kprobe(struct kprobe *p);
void arch_arm_kprobe(struct kprobe *p);
void arch_disarm_kprobe(struct kprobe *p);
/* At boot, once: the arch's own set-up and the ranges it never probes. */
int arch_init_kprobes(void);
int arch_populate_kprobe_blacklist(void);
bool arch_within_kprobe_blacklist(unsigned long addr);
int arch_trampoline_kprobe(struct kprobe *p);
/* On the die chain, for the architectures that trap through it. */
int kprobe_exceptions_notify(struct notifier_block *self, unsigned long val,
			     void *data);
/* The arch's executable page for slots (optional: execmem by default). */
void *alloc_insn_page(void);

/*
 * The page fault hook's first stop (kprobe_page_fault()): a fault in a
 * probe's handler goes to its fault_handler, then to the arch's own
 * kprobe_fault_handler().  Hit context, with a probe running.
 */
bool kprobe_classic_fault(struct pt_regs *regs, unsigned int trap);

/* What the core provides to classic code. */
kprobe_opcode_t *get_insn_slot(void);
void free_insn_slot(kprobe_opcode_t *slot, int dirty);
int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);
bool kprobe_is_site_aggr(struct kprobe *p);
/* What mips, sh, parisc and arc call from their trampoline's probe. */
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer);
void arch_kretprobe_fixup_return(struct pt_regs *regs,
				 kprobe_opcode_t *correct_ret_addr);
#else
static inline bool kprobe_is_site_aggr(struct kprobe *p)
{
	return false;
}
#endif

#endif /* _LINUX_KPROBES_ARCH_H */
