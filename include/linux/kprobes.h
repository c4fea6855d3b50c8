/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kprobes: dynamic breakpoints anywhere in kernel text.
 *
 * A kprobe names an instruction by address, or by symbol name plus offset.
 * When the instruction is reached, the probe's pre_handler runs, then the
 * instruction itself (out of line, from a copy), then the post_handler.
 * See Documentation/trace/kprobes.rst for the whole interface.
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/objpool.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/rethook.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
/*
 * The arch's header last: some declare functions of struct pt_regs
 * without declaring the struct themselves (arc).
 */
#include <asm/kprobes.h>

#ifdef CONFIG_KPROBES
/* What the CPU's Kprobes machinery is doing, see kprobe_ctlblk. */
#define KPROBE_HIT_ACTIVE	0x00000001	/* running pre_handlers */
#define KPROBE_HIT_SS		0x00000002	/* executing the copy */
#define KPROBE_REENTER		0x00000004	/* a nested hit, no handlers */
#define KPROBE_HIT_SSDONE	0x00000008	/* running post_handlers */

/*
 * Bare probes (kernel/kprobes/bare.c): a probe alone at its address goes
 * without a site at an ftrace location, and anywhere on a classic
 * architecture with neither ftrace's probes nor jump optimization (arm64,
 * riscv...: KPROBE_CLASSIC_BARE), whose breakpoint handler then works
 * with the probe itself.
 */
#if defined(CONFIG_KPROBES_CLASSIC_ARCH) && \
	!defined(CONFIG_KPROBES_ON_FTRACE) && !defined(CONFIG_OPTPROBES)
#define KPROBE_CLASSIC_BARE
#endif
#if defined(CONFIG_KPROBES_ON_FTRACE) || defined(KPROBE_CLASSIC_BARE)
#define KPROBE_BARE_PROBES
#endif
#else
typedef int kprobe_opcode_t;
struct arch_specific_insn {
	int dummy;
};
#endif

struct kprobe;
struct pt_regs;
struct kretprobe;
struct kretprobe_instance;

typedef int (*kprobe_pre_handler_t)(struct kprobe *, struct pt_regs *);
typedef void (*kprobe_post_handler_t)(struct kprobe *, struct pt_regs *,
				      unsigned long flags);
typedef int (*kprobe_fault_handler_t)(struct kprobe *, struct pt_regs *,
				      int trapnr);
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *,
				   struct pt_regs *);

struct kprobe {
	/*
	 * ->list: membership in the probe site's list of probes (RCU).  A
	 * bare probe (below) has no site: its ->list is on the core's own
	 * queues, under kprobe_mutex.
	 * ->hlist: membership in the hash of bare probes
	 * (kernel/kprobes/bare.c): a probe alone at its address, kept
	 * without a site (RCU).
	 * The one the hot path walks comes first, so that a node found is
	 * the probe, with no pointer arithmetic: a site's list where sites
	 * are the usual hit, the bare hash where every hit starts there
	 * (get_kprobe(), on a classic architecture with bare probes).
	 */
#ifdef KPROBE_CLASSIC_BARE
	struct hlist_node hlist;
	struct list_head list;
#else
	struct list_head list;
	struct hlist_node hlist;
#endif

	/* Hits that found the CPU already inside Kprobes: handlers skipped. */
	unsigned long nmissed;

	/* Where the probe sits; filled in by registration when NULL. */
	kprobe_opcode_t *addr;

	/* Alternatively: a symbol name, and an offset into it. */
	const char *symbol_name;
	unsigned int offset;

	/* Called before the probed instruction runs; non-zero: regs->ip changed. */
	kprobe_pre_handler_t pre_handler;

	/* Called after the probed instruction ran. */
	kprobe_post_handler_t post_handler;

	/*
	 * Called when a handler or the probed instruction faults; returning
	 * non-zero claims the fault (the handler has then fixed regs).
	 */
	kprobe_fault_handler_t fault_handler;

	/* The original first byte of the probed instruction. */
	kprobe_opcode_t opcode;

	/*
	 * The copy belongs to the site, and is unused here on the site
	 * interface; a classic architecture's probe holds the site's copy
	 * (lent: kernel/kprobes/internal.h) or, bare, its own.
	 */
	struct arch_specific_insn ainsn;

	/* KPROBE_FLAG_*; only KPROBE_FLAG_DISABLED is the caller's to set. */
	u32 flags;
};

#define KPROBE_FLAG_GONE		1	/* the probed code is gone */
#define KPROBE_FLAG_DISABLED		2	/* registered, handlers not run */
#define KPROBE_FLAG_OPTIMIZED		4	/* reached through a jump */
#define KPROBE_FLAG_FTRACE		8	/* reached through ftrace */
#define KPROBE_FLAG_ON_FUNC_ENTRY	16	/* at a function's entry */
#define KPROBE_FLAG_JPROBE		32	/* a jprobe's kprobe (ours) */
/*
 * Ours too: a probe kept without a site (kernel/kprobes/bare.c), and its
 * two states: reached through ftrace's filter or its own breakpoint.
 */
#define KPROBE_FLAG_BARE		64	/* registered without a site */
#define KPROBE_FLAG_BARE_ARMED		128	/* wants to be reached */
#define KPROBE_FLAG_BARE_IN		256	/* is reached */
#define KPROBE_BARE_BITS	(KPROBE_FLAG_BARE | KPROBE_FLAG_BARE_ARMED | \
				 KPROBE_FLAG_BARE_IN)
/* Ours: being unregistered, the last probe of its site (register.c). */
#define KPROBE_FLAG_LEAVING		512

/*
 * These are read without kprobe_mutex, by the hits and by handlers, while
 * the core changes the flags under it (kernel/kprobes/internal.h,
 * kprobe_flags_change()): marked loads, paired with its marked store.
 */
static inline bool kprobe_gone(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_GONE;
}

static inline bool kprobe_disabled(struct kprobe *p)
{
	return READ_ONCE(p->flags) & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE);
}

static inline bool kprobe_optimized(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_OPTIMIZED;
}

static inline bool kprobe_ftrace(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_FTRACE;
}

/*
 * A return probe: a kprobe at a function's entry that, on each call, takes
 * an instance from a pool, records the real return address in it, and
 * points the return address at a trampoline.  When the function returns
 * there, ->handler runs and the CPU goes on to the real return address.
 */
/*
 * The classic architectures with rethook (powerpc, s390, riscv,
 * loongarch) have no kretprobe trampoline of their own in 6.12, only
 * rethook's: their return probes go through rethook, as upstream's do.
 */
#if defined(CONFIG_KPROBES_CLASSIC_ARCH) && defined(CONFIG_KRETPROBE_ON_RETHOOK)
#define KRETPROBE_VIA_RETHOOK
#endif

struct kretprobe_holder {
	struct kretprobe	*rp;	/* NULL once unregistered (RCU) */
#ifdef KRETPROBE_VIA_RETHOOK
	struct rethook		*rh;	/* its pool of instances */
	struct rcu_head		rcu;	/* freed after rethook's last handler */
#else
	struct objpool_head	pool;	/* the instances */
#endif
};

struct kretprobe {
	struct kprobe kp;		/* at the function's entry */
	kretprobe_handler_t handler;	/* at the function's return */
	kretprobe_handler_t entry_handler; /* at entry; non-zero: skip this call */
	int maxactive;			/* instances; 0 picks a default */
	int nmissed;			/* calls missed for want of an instance */
	size_t data_size;		/* bytes of ri->data per instance */
	struct kretprobe_holder *rph;
};

#define KRETPROBE_MAX_DATA_SIZE	4096

/* One call in flight of a function with a return probe. */
struct kretprobe_instance {
#ifdef KRETPROBE_VIA_RETHOOK
	/* First: rethook's pool hands out the node (task->rethooks). */
	struct rethook_node node;
#else
	struct llist_node llist;	/* in task->kretprobe_instances */
	struct rcu_head rcu;		/* dropping it once its probe is gone */
#endif
	struct kretprobe_holder *rph;
	struct kretprobe *rp;		/* valid while the handlers run */
	struct task_struct *task;	/* the task that made the call */
#ifndef KRETPROBE_VIA_RETHOOK
	kprobe_opcode_t *ret_addr;	/* the real return address */
	void *fp;			/* where it is kept on the stack */
#endif
	char data[];			/* rp->data_size bytes for the handlers */
};

struct kretprobe_blackpoint {
	const char *name;
	void *addr;
};

/*
 * A jump probe: at a function's entry, ->entry runs with the function's
 * own arguments (same prototype), ends with jprobe_return(), and then the
 * function runs as if nothing had happened.
 */
struct jprobe {
	struct kprobe kp;
	void *entry;
};

/* One entry of the blacklist: a range of text that is never probed. */
struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
};

#ifdef CONFIG_KPROBES


/*
 * Jump optimization on a classic architecture (arm, powerpc): its own
 * detour code, written for upstream's core, through classic_opt.c.  The
 * arch's code knows an optimized site by this, as upstream's did.
 */
#if defined(CONFIG_KPROBES_CLASSIC_ARCH) && defined(CONFIG_OPTPROBES)
#define KPROBE_CLASSIC_DETOURS

struct optimized_kprobe {
	struct kprobe kp;
	struct list_head list;	/* the arch's batch lists */
	struct arch_optimized_insn optinsn;
};

/* What the arch provides; registration context unless said. */
int arch_prepared_optinsn(struct arch_optimized_insn *optinsn);
int arch_check_optimized_kprobe(struct optimized_kprobe *op);
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig);
void arch_remove_optimized_kprobe(struct optimized_kprobe *op);
void arch_optimize_kprobes(struct list_head *oplist);
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list);
void arch_unoptimize_kprobe(struct optimized_kprobe *op);
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr);
/* The arch's pages for detours (optional: as for the copies' slots). */
void *alloc_optinsn_page(void);
void free_optinsn_page(void *page);

/* What the core provides to it. */
kprobe_opcode_t *get_optinsn_slot(void);
void free_optinsn_slot(kprobe_opcode_t *slot, int dirty);
/* The site's handlers, from the detour (hit context, current = @p). */
void opt_pre_handler(struct kprobe *p, struct pt_regs *regs);
bool is_kprobe_optinsn_slot(unsigned long addr);
#endif

/*
 * A probe site: everything about one probed address.  All the probes
 * registered there hang off ->probes; the arch part holds the copy of the
 * instruction.  Sites live in a hash table keyed by address and are found
 * from the breakpoint handler under RCU (the trap runs with interrupts off,
 * which is an RCU read-side critical section).
 */
/* Where a site stands with jump optimization (struct kprobe_site.opt). */
enum kprobe_opt_state {
	KPROBE_OPT_NONE,	/* reached through int3, or not armed */
	KPROBE_OPT_QUEUED,	/* waiting for the optimizer's next run */
	KPROBE_OPT_WAITING,	/* the optimizer waits out tasks in the region */
	KPROBE_OPT_DONE,	/* reached through a jmp to its detour */
};

struct kprobe_site {
	struct hlist_node	node;		/* in the address hash */
	kprobe_opcode_t		*addr;
	struct list_head	probes;		/* struct kprobe.list, RCU */
	/*
	 * The site's one probe with a pre_handler, when it has exactly one
	 * enabled and no jprobe and no probe with a fault_handler; with two,
	 * a probe of the core's own that runs both (struct kprobe_pair);
	 * else NULL.  The fast path of an optimized or ftrace hit, and of
	 * every hit on a classic architecture, whose breakpoint handler gets
	 * it from get_kprobe() (there one probe may have a post_handler, a
	 * pair none: classic.c).  Written under kprobe_mutex, read under RCU
	 * like ->probes.
	 */
	struct kprobe __rcu	*single;
#ifndef CONFIG_KPROBES_CLASSIC_ARCH
	/* The site interface's copy; a classic arch's is ->aggr.ainsn. */
	struct arch_specific_insn ainsn;
#endif
	kprobe_opcode_t		opcode;		/* original first byte */
	/*
	 * Written under kprobe_mutex and read by the hit paths without it
	 * (READ_ONCE), so each is a byte of its own.
	 */
	bool			in_flux;	/* opt != NONE || jumped, for int3.c */
	bool			stepped;	/* a probe needs the step path */
	bool			posted;		/* a probe has a post_handler */
	bool			region_clear;	/* no other site in the region */
	u8			ftrace_in;	/* KPROBE_FTRACE_IN_*: the ops it is in */
	bool			post_single;	/* ->single is the only probe and
						 * has a post_handler */
	/*
	 * Written under kprobe_mutex: bits of one byte, which no store to
	 * the bytes above can touch (they are separate memory locations to
	 * the compiler).  Read under it too, but for ->armed, which a classic
	 * architecture's jprobe_enter() reads without it: the byte's
	 * read-modify-writes of the other bits leave it as it was.
	 */
	u8			opt:2;		/* enum kprobe_opt_state (optimizer.c) */
	bool			armed:1;	/* int3 wanted in the text */
	bool			jumped:1;	/* a jmp stands in the text */
	bool			in_region:1;	/* inside another site's region */
	bool			gone:1;		/* the text itself is gone */
	/* An ftrace location: reached through ftrace, never patched (ftrace.c). */
	bool			ftrace:1;
	bool			ftrace_ipmodify:1; /* wants the IPMODIFY claim (a jprobe) */
	struct list_head	poke;		/* queued text change, arming.c */
	union {
		/* While registered: the optimizer's queues, kprobe_mutex. */
		struct list_head opt_list;
		/*
		 * Once removed (off every queue: site_free_after_tasks()):
		 * freeing after RCU Tasks, then in a work item.
		 */
		struct rcu_head	rcu;
		struct llist_node reap;
	};
	struct list_head	all;		/* kprobe_sites, kprobe_mutex */
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	/*
	 * What the arch's own code prepares, arms and finds (classic.c).
	 * With jump optimization, the same probe is the ->kp of the
	 * optimized_kprobe the arch's detour code is given (classic_opt.c).
	 */
	union {
		struct kprobe		aggr;
#ifdef KPROBE_CLASSIC_DETOURS
		struct optimized_kprobe	aggr_op;
#endif
	};
#endif
};

/*
 * The ftrace_ops a site's address is in (kernel/kprobes/ftrace.c); written
 * under kprobe_mutex, read by the ftrace handler: it acts for a site in the
 * plain ops, and lets a jprobe take over when the IPMODIFY ops holds the
 * site too (its claim).
 */
#define KPROBE_FTRACE_IN_PLAIN		1
#define KPROBE_FTRACE_IN_IPMODIFY	2

/*
 * ->in_flux follows ->opt and ->jumped, which kprobe_mutex guards, for the
 * one lockless read of the int3 path (text_in_flux()); the release pairs
 * with its acquire.  Call after changing either.
 */
static inline void kprobe_site_update_flux(struct kprobe_site *site)
{
	/* Pairs with the smp_load_acquire() of text_in_flux() (int3.c). */
	smp_store_release(&site->in_flux,
			  site->opt != KPROBE_OPT_NONE || site->jumped);
}

DECLARE_PER_CPU(struct kprobe *, current_kprobe);

static inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

void kprobe_busy_begin(void);
void kprobe_busy_end(void);

struct kprobe *get_kprobe(void *addr);
kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);
int disable_kprobe(struct kprobe *kp);
int enable_kprobe(struct kprobe *kp);
void dump_kprobe(struct kprobe *kp);

extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

bool within_kprobe_blacklist(unsigned long addr);
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);

void kprobe_free_init_mem(void);
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);
bool is_kprobe_insn_slot(unsigned long addr);

int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);

static inline int disable_kretprobe(struct kretprobe *rp)
{
	return disable_kprobe(&rp->kp);
}

static inline int enable_kretprobe(struct kretprobe *rp)
{
	return enable_kprobe(&rp->kp);
}

/* The kretprobe of an instance, or NULL once it is unregistered. */
static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return READ_ONCE(ri->rph->rp);
}

static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
#ifdef KRETPROBE_VIA_RETHOOK
	return ri->node.ret_addr;
#else
	return (unsigned long)ri->ret_addr;
#endif
}

#ifdef CONFIG_KRETPROBES
void kprobe_flush_task(struct task_struct *tk);
#else
static inline void kprobe_flush_task(struct task_struct *tk) { }
#endif
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
unsigned long kretprobe_trampoline_handler(struct pt_regs *regs,
					   void *frame_pointer);
#ifdef CONFIG_KRETPROBES
/* The arch's return trampoline, which every arch of ours names so. */
void __kretprobe_trampoline(void);

/*
 * Is @addr the return trampoline (a return address an unwinder found, or
 * one an instance recorded)?  Inline: every return of a kretprobe asks.
 */
static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
#ifdef KRETPROBE_VIA_RETHOOK
	return is_rethook_trampoline(addr);
#else
	return addr == (unsigned long)
		dereference_kernel_function_descriptor(__kretprobe_trampoline);
#endif
}
#else
static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}
#endif
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur);

int register_jprobe(struct jprobe *p);
void unregister_jprobe(struct jprobe *p);
int register_jprobes(struct jprobe **jps, int num);
void unregister_jprobes(struct jprobe **jps, int num);
void jprobe_return(void);
/* Every jprobe's pre_handler; the core knows a jprobe by it. */
int jprobe_setjmp(struct kprobe *p, struct pt_regs *regs);
int jprobe_enter(struct kprobe_site *site, struct kprobe *p, struct pt_regs *regs);

static inline int disable_jprobe(struct jprobe *jp)
{
	return disable_kprobe(&jp->kp);
}

static inline int enable_jprobe(struct jprobe *jp)
{
	return enable_kprobe(&jp->kp);
}

#ifndef KPROBE_CLASSIC_DETOURS
static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}
#endif

static inline void wait_for_kprobe_optimizer(void) { }

/* For in-kernel tests: the optimizer and the knobs of debugfs and sysctl. */
void kprobe_optimizer_flush(void);
void kprobes_set_optimization(bool on);
int kprobes_set_armed(bool on);

/* The seam between the core and an architecture. */
#include <linux/kprobes_arch.h>

#else /* !CONFIG_KPROBES */

static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}

static inline struct kprobe *get_kprobe(void *addr)
{
	return NULL;
}

static inline struct kprobe *kprobe_running(void)
{
	return NULL;
}

static inline int register_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

static inline int register_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kprobe(struct kprobe *p) { }

static inline void unregister_kprobes(struct kprobe **kps, int num) { }

static inline int disable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int enable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline bool within_kprobe_blacklist(unsigned long addr)
{
	return true;
}

static inline void kprobe_flush_task(struct task_struct *tk) { }

static inline void kprobe_free_init_mem(void) { }

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}

static inline bool is_kprobe_insn_slot(unsigned long addr)
{
	return false;
}

static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

static inline void wait_for_kprobe_optimizer(void) { }

static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}

static inline unsigned long kretprobe_find_ret_addr(struct task_struct *tsk,
						    void *fp,
						    struct llist_node **cur)
{
	return 0;
}
#endif /* CONFIG_KPROBES */

#if defined(CONFIG_KPROBES) && defined(CONFIG_KPROBES_ON_FTRACE)
void kprobe_ftrace_kill(void);
#else
static inline void kprobe_ftrace_kill(void) { }
#endif

/*
 * The page fault hook: true when a probe's fault_handler claimed the fault.
 * kprobe_running() is per-CPU state, meaningful only when not preemptible.
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trap)
{
	if (!IS_ENABLED(CONFIG_KPROBES) || user_mode(regs) || preemptible())
		return false;
	if (!kprobe_running())
		return false;
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	return kprobe_classic_fault(regs, trap);	/* classic.c */
#else
	return kprobe_fault_handler(regs, trap);
#endif
}

#endif /* _LINUX_KPROBES_H */
