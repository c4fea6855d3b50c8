/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between the files of the generic Kprobes core; nothing here is
 * for the rest of the kernel.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/cacheflush.h>	/* flush_insn_slot() of sparc, parisc, mips */
#include <linux/kprobes.h>
#include <linux/mutex.h>

/*
 * kprobe_mutex serialises every change to the set of probes and sites:
 * registration, removal, enabling and disabling.  The breakpoint path
 * never takes it; it reads the site hash and the probe lists under RCU.
 */
extern struct mutex kprobe_mutex;

/*
 * A published probe's ->flags: written under kprobe_mutex, read without it
 * by the hits (kprobe_disabled(), kprobe_gone() and the jprobe bit) and by
 * handlers (kprobe_optimized()).  One marked store of the whole word,
 * paired with those readers' READ_ONCE(): a hit sees the word before or
 * after the change, never a torn or refetched one.
 */
static inline void kprobe_flags_change(struct kprobe *p, u32 set, u32 clear)
{
	WRITE_ONCE(p->flags, (p->flags & ~clear) | set);
}

/* The site hash (sites.c); writers hold kprobe_mutex. */
void kprobe_site_insert(struct kprobe_site *site);
void kprobe_site_unhash(struct kprobe_site *site);
struct kprobe_site *kprobe_site_of(struct kprobe *p);
bool kprobe_site_has_enabled(struct kprobe_site *site);
void kprobe_site_update_single(struct kprobe_site *site);
void kprobe_site_drop_single(struct kprobe_site *site);
void kprobe_reap_parked_sites(void);	/* register.c */

#ifdef CONFIG_KPROBES_CLASSIC_ARCH
/*
 * A probe joining @site gets the site's copy, as upstream's probes at an
 * aggregate got theirs: a classic arch's hit may then work with the probe
 * itself (get_kprobe()).  The slot stays the site's, freed with it, after
 * the probe's removal.  Where the copy is held in ->ainsn itself (sparc),
 * the arch's flush_insn_slot() makes it fit to run.  Before the probe is
 * published (->addr set).
 */
static inline void kprobe_site_lend_copy(struct kprobe_site *site,
					 struct kprobe *p)
{
	p->ainsn = site->aggr.ainsn;
	flush_insn_slot(p);
}
#else
static inline void kprobe_site_lend_copy(struct kprobe_site *site,
					 struct kprobe *p)
{
}
#endif

/*
 * Two probes with pre_handlers at one site, as the one probe ->single
 * names (struct kprobe_site): a struct kprobe of our own whose
 * pre_handler, kprobe_pair_pre() or kprobe_pair_pre_all(), calls theirs
 * in list order.  Never in
 * a site's list; immutable once published, freed after a grace period.
 */
struct kprobe_pair {
	struct kprobe	kp;
	struct kprobe	*probes[2];
	struct rcu_head	rcu;
};

int kprobe_pair_pre(struct kprobe *kp, struct pt_regs *regs);
int kprobe_pair_pre_all(struct kprobe *kp, struct pt_regs *regs);

/* Queued text changes (arming.c); kprobe_mutex. */
void kprobe_site_set_armed(struct kprobe_site *site, bool armed);
void kprobe_site_queue(struct kprobe_site *site);
void kprobe_site_drop_pending(struct kprobe_site *site);
int kprobe_commit_text(void);
int kprobe_sync_text(void);
void kprobe_serialise_cpus(void);
extern unsigned long kprobe_text_syncs;

/* The jump optimizer (optimizer.c); kprobe_mutex. */
extern int sysctl_kprobes_optimization;
void kprobe_site_update_opt(struct kprobe_site *site);
bool kprobe_unoptimize_pending(void);
void kprobe_commit_unoptimize(void);
void kprobe_site_opt_gone(struct kprobe_site *site);
void kprobe_opt_neighbours_changed(kprobe_opcode_t *addr);
void kprobe_optimization_changed(void);

/* What current_kprobe names inside kprobe_busy_begin/end (sites.c). */
extern struct kprobe kprobe_busy;

/* Every site, in registration order (struct kprobe_site.all); kprobe_mutex. */
extern struct list_head kprobe_sites;

/* Registration (register.c). */
int kprobe_resolve_addr(struct kprobe *p, kprobe_opcode_t **addrp,
			bool *on_func_entry);
bool kprobe_is_registered(struct kprobe *p);
int kprobe_register_batch(struct kprobe **kps, int num, bool *published);
bool kprobe_batch_invalid(void **objs, int num);
struct kprobe **kprobe_array_of(void **objs, int num, size_t offset, gfp_t gfp);

/* Probes whose text goes away (register.c, modules.c). */
void kprobe_site_gone(struct kprobe_site *site);
struct module;
struct seq_file;
bool kprobe_refuses_core_text(unsigned long addr);	/* blacklist.c */
bool kprobe_refused_by_name(unsigned long addr);
#ifdef CONFIG_MODULES
int kprobe_check_module_place(unsigned long addr, struct module **modp);
bool kprobe_module_text_forbidden(unsigned long addr);
void kprobe_module_blacklist_show(struct seq_file *m, bool show_addr);
#else
static inline void kprobe_module_blacklist_show(struct seq_file *m,
						bool show_addr)
{
}

static inline int kprobe_check_module_place(unsigned long addr,
					    struct module **modp)
{
	return -EINVAL;
}

static inline bool kprobe_module_text_forbidden(unsigned long addr)
{
	return false;
}
#endif

/* Sites at ftrace locations (ftrace.c); kprobe_mutex. */
int kprobe_ftrace_place(kprobe_opcode_t *addr);
#ifdef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_commit(struct list_head *pending);
void kprobe_ftrace_site_update(struct kprobe_site *site, bool jprobe);
void kprobe_ftrace_site_gone(struct kprobe_site *site);
#else
static inline int kprobe_ftrace_commit(struct list_head *pending)
{
	return 0;
}

static inline void kprobe_ftrace_site_update(struct kprobe_site *site,
					     bool jprobe)
{
}

static inline void kprobe_ftrace_site_gone(struct kprobe_site *site)
{
}
#endif

#ifdef KPROBE_BARE_PROBES
/* Bare probes, a lone probe without a site (bare.c); kprobe_mutex. */
extern struct list_head kprobe_bare_queue;
bool kprobe_bare_pending(void);
struct kprobe *kprobe_bare_at(kprobe_opcode_t *addr);
bool kprobe_bare_registered(struct kprobe *p);
bool kprobe_bare_leaving(struct kprobe *p);
int kprobe_bare_add(struct kprobe *p);
void kprobe_bare_update_arming(struct kprobe *p);
void kprobe_bare_remove(struct kprobe *p);
void kprobe_bare_hand_over(struct kprobe *p, struct kprobe_site *site);
void kprobe_bare_unhash(struct kprobe *p);
bool kprobe_bare_text_going(bool (*gone)(unsigned long addr, void *arg),
			    void *arg);
void kprobe_bare_text_gone(bool (*gone)(unsigned long addr, void *arg),
			   void *arg);
void kprobe_bare_for_each(void (*fn)(struct kprobe *p, void *arg), void *arg);

/*
 * What the mechanism that reaches them does for the books (ftrace.c at
 * ftrace locations, classic_bare.c at a classic arch's breakpoints).
 */
bool kprobe_bare_fits(struct kprobe *p, kprobe_opcode_t *addr);
int kprobe_bare_prepare(struct kprobe *p);
void kprobe_bare_text_left(struct kprobe *p);
void kprobe_bare_site_starts(struct kprobe *p, struct kprobe_site *site);
void kprobe_bare_withdraw(struct kprobe *p);
void kprobe_bare_retire(struct kprobe *p);
bool kprobe_bare_releasing(struct kprobe *p);

#define KPROBE_BARE_STATE	(KPROBE_FLAG_BARE_ARMED | KPROBE_FLAG_BARE_IN)

/* Does @p want to be reached and is it not, or the other way round? */
static inline bool kprobe_bare_joins(struct kprobe *p)
{
	return (p->flags & KPROBE_BARE_STATE) == KPROBE_FLAG_BARE_ARMED;
}

static inline bool kprobe_bare_leaves(struct kprobe *p)
{
	return (p->flags & KPROBE_BARE_STATE) == KPROBE_FLAG_BARE_IN;
}
#else
static inline bool kprobe_bare_fits(struct kprobe *p, kprobe_opcode_t *addr)
{
	return false;
}

static inline bool kprobe_bare_pending(void)
{
	return false;
}

static inline struct kprobe *kprobe_bare_at(kprobe_opcode_t *addr)
{
	return NULL;
}

static inline bool kprobe_bare_registered(struct kprobe *p)
{
	return false;
}

static inline bool kprobe_bare_leaving(struct kprobe *p)
{
	return false;
}

/* Never called: no probe fits. */
static inline int kprobe_bare_add(struct kprobe *p)
{
	return -EINVAL;
}

static inline void kprobe_bare_update_arming(struct kprobe *p)
{
}

static inline void kprobe_bare_remove(struct kprobe *p)
{
}

static inline void kprobe_bare_hand_over(struct kprobe *p,
					 struct kprobe_site *site)
{
}

static inline void kprobe_bare_unhash(struct kprobe *p)
{
}

static inline bool kprobe_bare_text_going(bool (*gone)(unsigned long addr,
							void *arg),
					  void *arg)
{
	return false;
}

static inline void kprobe_bare_text_gone(bool (*gone)(unsigned long addr,
						      void *arg),
					 void *arg)
{
}

static inline void kprobe_bare_for_each(void (*fn)(struct kprobe *p,
						   void *arg),
					void *arg)
{
}
#endif

#ifdef KPROBE_CLASSIC_BARE
/*
 * Bare probes at a classic architecture's breakpoints (classic_bare.c):
 * the queued ones armed or disarmed at each commit, the copies of removed
 * ones freed after the removal's grace period, and a site built around
 * one taking its copy over.  kprobe_mutex.
 */
void kprobe_bare_poke(void);
void kprobe_bare_release(void);
int kprobe_classic_prepare(struct kprobe *p);	/* classic.c */
int kprobe_site_adopt_bare(struct kprobe_site *site, struct kprobe *bare);
#else
static inline void kprobe_bare_poke(void)
{
}

static inline void kprobe_bare_release(void)
{
}

/* Never called: a site is built around a bare probe only at ftrace's. */
static inline int kprobe_site_adopt_bare(struct kprobe_site *site,
					 struct kprobe *bare)
{
	return -EINVAL;
}
#endif

/* The global switch of debugfs' enabled (register.c). */
bool kprobes_armed(void);

/* The blacklist (blacklist.c). */
int kprobe_blacklist_init(void);
void kprobe_blacklist_show(struct seq_file *m, bool show_addr);
void kprobe_blacklist_show_area(struct seq_file *m, bool show_addr,
				unsigned long start, unsigned long end);

/* Probe types, for the list (kretprobe.c). */
#ifdef CONFIG_KRETPROBES
bool kprobe_is_kretprobe(struct kprobe *p);
/*
 * A kretprobe's instances: the core's own pool and trampoline
 * (kretprobe.c), or rethook's (kretprobe_rethook.c,
 * KRETPROBE_VIA_RETHOOK).  kprobe_mutex held.
 */
int kretprobe_entry(struct kprobe *p, struct pt_regs *regs);
int kretprobe_pool_init(struct kretprobe *rp, struct kretprobe_holder *rph);
void kretprobe_pool_release(struct kretprobe *rp);
#else
static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}
#endif

/*
 * A classic architecture's detours (classic_opt.c): built with a site's
 * copy, freed with it; their slots (slots.c).  kprobe_mutex held.
 */
#ifdef KPROBE_CLASSIC_DETOURS
void classic_prepare_detour(struct kprobe_site *site);
void classic_remove_detour(struct kprobe_site *site);
kprobe_opcode_t *kprobe_detour_slot_alloc(void);
void kprobe_detour_slot_free(kprobe_opcode_t *slot);
#else
static inline void classic_prepare_detour(struct kprobe_site *site)
{
}

static inline void classic_remove_detour(struct kprobe_site *site)
{
}
#endif

/*
 * Jprobes (classic_jprobe.c on a classic architecture, the arch's code on
 * a site architecture): kprobe_jprobes_ready() before the first.  On the
 * classic architectures whose return from an exception is known to load
 * every register from pt_regs, the stack pointer included (arm64 aside,
 * which classic_jprobe.c deals with), they work; elsewhere they are
 * refused.
 */
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
#if defined(CONFIG_ARM64) || defined(CONFIG_ARM) || defined(CONFIG_PPC) || \
	defined(CONFIG_RISCV) || defined(CONFIG_S390)
#define KPROBE_CLASSIC_JPROBES
#endif
int kprobe_jprobes_ready(void);
void kprobe_jprobes_quiesce(void);
bool kprobe_jprobe_resuming(struct kprobe_site *site, struct pt_regs *regs);
struct kprobe *kprobe_jprobe_trap_at(void *addr);
#ifdef KPROBE_CLASSIC_JPROBES
extern atomic_t kprobe_jprobes_in_flight;
#endif

/*
 * Might a hit on this CPU be the resume after a jprobe's handler?  Not
 * while nothing is in flight anywhere: a CPU's own resume keeps the count
 * it raised at the handler's entry until the resume, and a CPU sees its
 * own writes in order, so one read of the count rules it out.
 */
static inline bool kprobe_jprobe_may_resume(void)
{
#ifdef KPROBE_CLASSIC_JPROBES
	return atomic_read(&kprobe_jprobes_in_flight);
#else
	return false;
#endif
}
#else
static inline int kprobe_jprobes_ready(void)
{
	return 0;
}
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
