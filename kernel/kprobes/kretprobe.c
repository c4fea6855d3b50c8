// SPDX-License-Identifier: GPL-2.0
/*
 * Return probes.
 *
 * A kretprobe is a kprobe at a function's entry whose pre_handler takes an
 * instance from the probe's pool, keeps the real return address in it, and
 * puts the address of the arch's return trampoline in its place on the
 * stack.  Instances of calls in flight hang off the calling task
 * (task->kretprobe_instances, newest first).  The trampoline hands the
 * return to kretprobe_trampoline_handler(), which finds the task's
 * instances for that stack slot, runs their handlers, recycles them, and
 * tells the trampoline where to go (on an arch with arch_kretprobe_slot(),
 * x86, by writing the real return address back into the slot).
 *
 * Only the task itself adds and removes its instances: the entry and the
 * return run on that task, and a nested hit from an interrupt or an NMI
 * completes before the interrupted code resumes, so the list is a stack.
 * The one exception is a dead task, whose leftovers kprobe_flush_task()
 * takes back.
 *
 * Unregistering clears rph->rp and waits for a grace period; instances
 * still in flight then return without calling a handler, and the pool,
 * with the holder, is freed when its last instance comes back.
 */
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/objpool.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "internal.h"

/* Functions that do not return on the stack they were called on. */
static const char * const kretprobe_unsafe[] = {
	"__switch_to",
	"__switch_to_asm",
	"do_exit",
	"make_task_dead",
};

static bool kretprobe_refused(kprobe_opcode_t *addr)
{
	unsigned long size, offset;
	char name[KSYM_NAME_LEN];
	unsigned int i;

	if (!kallsyms_lookup((unsigned long)addr, &size, &offset, NULL, name))
		return true;
	for (i = 0; i < ARRAY_SIZE(kretprobe_unsafe); i++)
		if (!strcmp(name, kretprobe_unsafe[i]))
			return true;
	return false;
}

#ifndef KRETPROBE_VIA_RETHOOK
static void drop_instance(struct rcu_head *head)
{
	struct kretprobe_instance *ri = container_of(head, typeof(*ri), rcu);

	objpool_drop(ri, &ri->rph->pool);
}

/* Out of line: the push below is what every return does. */
static noinline void __cold __kprobes
drop_instance_later(struct kretprobe_instance *ri)
{
	call_rcu(&ri->rcu, drop_instance);
}

/*
 * Back to the pool; or, once the probe is gone, out of it.  The last drop
 * frees the pool, which may not happen here (preemption is off): it goes
 * to an RCU callback.  Inline: it runs on every return.
 */
static __always_inline void recycle_instance(struct kretprobe_instance *ri)
{
	struct kretprobe_holder *rph = ri->rph;

	if (likely(READ_ONCE(rph->rp)))
		objpool_push(ri, &rph->pool);
	else
		drop_instance_later(ri);
}

/* Out of line: this CPU's slot was empty. */
static noinline struct kretprobe_instance *__kprobes
take_instance_elsewhere(struct objpool_head *pool)
{
	return objpool_pop(pool);
}

/*
 * Keep the real return address of the call @regs enters in @ri, link @ri
 * to the task, and make the call return to the trampoline, in an order
 * that an NMI's unwinder on this CPU can read at any instruction: from
 * the moment a slot holds the trampoline, the task's list has the
 * instance that stands for it.  Compiler barriers: only this CPU looks.
 */
static __always_inline void hook_return(struct kretprobe_instance *ri,
					struct pt_regs *regs)
{
#ifdef arch_kretprobe_slot
	unsigned long *slot = arch_kretprobe_slot(regs);

	ri->ret_addr = (kprobe_opcode_t *)*slot;
	ri->fp = slot;
	barrier();
	__llist_add(&ri->llist, &current->kretprobe_instances);
	barrier();
	WRITE_ONCE(*slot, (unsigned long)
		   dereference_kernel_function_descriptor(__kretprobe_trampoline));
#else
	/*
	 * The arch records and hooks in one call, so the instance goes on
	 * the list first.  Where an arch keeps the frame in ->fp, NULL
	 * matches no frame until it has written ->fp; where it keeps NULL
	 * there itself (parisc, sh, mips, sparc, arc, csky), an unwinder
	 * reading the list in between may take this instance's stale return
	 * address for the newest frame: those unwinders are as with
	 * upstream's core, which hooks first and links after.
	 */
	WRITE_ONCE(ri->fp, NULL);
	barrier();
	__llist_add(&ri->llist, &current->kretprobe_instances);
	barrier();
	arch_prepare_kretprobe(ri, regs);
#endif
}

/*
 * An instance from this CPU's slot of @pool, or else from any CPU's
 * (objpool_pop(), out of line).  objpool_pop() turns interrupts off to
 * stay on one CPU while it reads the slots; a pre_handler runs with
 * preemption off already.  A take is lock-free against the others of any
 * CPU, and a put into this slot from an interrupt or an NMI (a return
 * there, an entry_handler's refusal, kprobe_flush_task() in an RCU
 * callback) only adds behind it, as another CPU's take would see it.
 */
static __always_inline struct kretprobe_instance *
take_instance(struct objpool_head *pool)
{
	struct kretprobe_instance *ri;

	ri = __objpool_try_get_slot(pool, raw_smp_processor_id());
	if (likely(ri))
		return ri;
	return take_instance_elsewhere(pool);
}

/*
 * The kprobe pre_handler at the function's entry.  Flattened: the compiler
 * would otherwise keep the slot's take, which objpool_pop() uses too, as a
 * function of its own: a call and 7 instructions more a hit (55, not 48).
 */
int __kprobes __flatten kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri;

	ri = take_instance(&rp->rph->pool);
	if (!ri) {
		/*
		 * A statistic, plain as upstream's: two CPUs that find the
		 * pool empty at once may count one miss (KCSAN is told).
		 */
		data_race(rp->nmissed++);
		return 0;
	}
	/* ri->rp was set when the pool was made (init_instance()). */
	ri->task = current;
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		objpool_push(ri, &rp->rph->pool);
		return 0;
	}
	hook_return(ri, regs);
	return 0;
}

/*
 * The first instance, from @node on, kept for the stack slot @fp that holds
 * a real return address (several return probes on one function stack up
 * in one slot: all but the oldest recorded the trampoline).
 */
static struct kretprobe_instance *__kprobes
find_real_return(struct llist_node *node, void *fp)
{
	struct kretprobe_instance *ri;

	for (; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (ri->fp == fp && !is_kretprobe_trampoline((unsigned long)ri->ret_addr))
			return ri;
	}
	return NULL;
}

/*
 * Around the return handlers, what kprobe_busy_begin() does, inline: this
 * runs on every return.  The caller has turned preemption off, which is
 * what keeps a kretprobe read from rph->rp alive (unregistering waits for
 * a grace period after clearing it), and passes the probe whose handler
 * runs first, or kprobe_busy: one write of current_kprobe.  Nothing before
 * it can hit a probe (all inline here); an NMI's probe there runs as it
 * would just before the trampoline.
 */
static __always_inline void return_handlers_begin(struct kprobe *running)
{
	__this_cpu_write(current_kprobe, running);
	/*
	 * The classic architectures' reentry paths read the status of the
	 * level they interrupt (arm64 warns on a stale one, riscv BUG()s on
	 * KPROBE_HIT_SS); x86 does not look at it.
	 */
	if (IS_ENABLED(CONFIG_KPROBES_CLASSIC_ARCH))
		get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
}

/*
 * Clears current_kprobe: never inside a handler, since a return through
 * the trampoline there needs an entry hit there, which finds
 * current_kprobe set and makes no instance.  kprobe_pair_pre()'s per-CPU
 * state counts on that.
 */
static __always_inline void return_handlers_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}

/*
 * The kretprobe whose return handler @ri gets, or NULL if its probe is
 * gone or disabled or has none.  ri->rp needs no update: every instance
 * of the pool has it from the start (init_instance()), and rph->rp is
 * that probe until it turns NULL.  Preemption off.
 */
static __always_inline struct kretprobe *
handler_to_run(struct kretprobe_instance *ri)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp && rp->handler && !kprobe_disabled(&rp->kp))
		return rp;
	return NULL;
}

static __always_inline void return_handler(struct kretprobe_instance *ri,
					   struct pt_regs *regs)
{
	struct kretprobe *rp = handler_to_run(ri);

	if (rp) {
		__this_cpu_write(current_kprobe, &rp->kp);
		rp->handler(ri, regs);
	}
}

/*
 * Where the core writes the return slot itself (arch_kretprobe_slot()),
 * the real return address goes back into it before the handlers run.  Up
 * to here the slot holds the trampoline again (kretprobe_trampoline.S
 * pushed it) and the instance on the task's list explains it; from here
 * on an unwinder reads the real address in the slot, and the instance may
 * leave the list whenever the return is done with it.  Elsewhere the
 * arch's trampoline puts it back.
 */
static __always_inline void restore_return_slot(void *frame_pointer,
						unsigned long ret)
{
#ifdef arch_kretprobe_slot
	WRITE_ONCE(*(unsigned long *)frame_pointer, ret);
	barrier();
#endif
}

/*
 * The general return: @last is the oldest instance kept for
 * @frame_pointer, and @first, the task's newest, may differ from it.
 */
static noinline unsigned long __kprobes
return_through(struct kretprobe_instance *last, struct llist_node *first,
	       struct pt_regs *regs, void *frame_pointer)
{
	unsigned long ret = (unsigned long)last->ret_addr;
	struct kretprobe_instance *ri;
	struct llist_node *node;

	restore_return_slot(frame_pointer, ret);
	instruction_pointer_set(regs, ret);
	preempt_disable();
	return_handlers_begin(&kprobe_busy);
	for (node = first; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (ri->fp == frame_pointer)
			return_handler(ri, regs);
		if (ri == last)
			break;
	}
	/*
	 * Only now leave the list: the unwinder reads it from the handlers
	 * (for the slot itself where the arch's trampoline restores it).
	 */
	current->kretprobe_instances.first = last->llist.next;
	for (node = first; node; ) {
		ri = container_of(node, struct kretprobe_instance, llist);
		node = node->next;
		recycle_instance(ri);
		if (ri == last)
			break;
	}
	return_handlers_end();
	return ret;
}

/* Not the usual return: find the instance, or stop the kernel. */
static noinline unsigned long __kprobes
return_searched(struct llist_node *first, struct pt_regs *regs,
		void *frame_pointer)
{
	struct kretprobe_instance *ri = find_real_return(first, frame_pointer);

	if (!ri) {
		pr_emerg("kretprobe BUG!: no instance for the return slot %p of %s/%d\n",
			 frame_pointer, current->comm, current->pid);
		BUG();
	}
	return return_through(ri, first, regs, frame_pointer);
}

/**
 * kretprobe_trampoline_handler() - a probed function has returned
 * @regs: registers at the return; the arch has set sp past the return slot
 * @frame_pointer: the stack slot that held the return address
 *
 * Runs the return handlers of every instance kept for @frame_pointer,
 * recycles them (and any older leftovers above them: calls that never came
 * back this way), and returns the real return address.  With
 * arch_kretprobe_slot() (x86) it also writes that address into
 * @frame_pointer, before the handlers (restore_return_slot()): the arch's
 * trampoline returns through the slot and ignores the return value.
 *
 * The usual return has one instance, the task's newest: one return probe
 * on the function, and no leftovers.  It is return_through() with @first
 * and @last the same, without its loops and with fewer registers to save
 * around the handler's call (make bench's kretprobe cases); anything else
 * goes the searched way.  Flattened, so that the push back into the pool
 * is inline too, as objpool_push() is meant to be.
 */
unsigned long __kprobes __flatten
kretprobe_trampoline_handler(struct pt_regs *regs, void *frame_pointer)
{
	struct llist_node *first = current->kretprobe_instances.first;
	struct kretprobe_instance *ri;
	struct kretprobe *rp;
	unsigned long ret;

	ri = llist_entry(first, struct kretprobe_instance, llist);
	if (unlikely(!first || ri->fp != frame_pointer ||
		     is_kretprobe_trampoline((unsigned long)ri->ret_addr)))
		return return_searched(first, regs, frame_pointer);

	ret = (unsigned long)ri->ret_addr;
	restore_return_slot(frame_pointer, ret);
	instruction_pointer_set(regs, ret);
	preempt_disable();
	rp = handler_to_run(ri);
	return_handlers_begin(rp ? &rp->kp : &kprobe_busy);
	if (likely(rp))
		rp->handler(ri, regs);
	/* ri->task is current: one register less to keep across the call. */
	ri->task->kretprobe_instances.first = ri->llist.next;
	recycle_instance(ri);
	return_handlers_end();
	return ret;
}

/**
 * kretprobe_find_ret_addr() - the real return address behind a trampoline
 * @tsk: the task whose stack is being read
 * @fp: the stack slot that holds the trampoline's address
 * @cur: the unwinder's position in @tsk's instances (NULL to start)
 *
 * For the unwinder.  Return: the real return address, or 0.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct llist_node *node = *cur ? *cur : tsk->kretprobe_instances.first;
	struct kretprobe_instance *ri = find_real_return(node, fp);

	if (!ri)
		return 0;
	*cur = &ri->llist;
	return (unsigned long)ri->ret_addr;
}
EXPORT_SYMBOL_GPL(kretprobe_find_ret_addr);

/**
 * kprobe_flush_task() - take back the instances of a dead task
 * @tk: a task that will never run again
 *
 * Called when the task_struct is freed: calls that never returned leave
 * their instances here.
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct llist_node *node = __llist_del_all(&tk->kretprobe_instances);
	struct kretprobe_instance *ri;
	bool outer;

	/*
	 * This runs from an RCU callback, in softirq, so it may interrupt a
	 * handler that runs with interrupts on (a detour's, an ftrace site's,
	 * a kretprobe's).  That handler's current_kprobe already makes probes
	 * hit here count as missed, and must still be there afterwards.
	 */
	preempt_disable();
	outer = kprobe_running();
	if (!outer)
		kprobe_busy_begin();
	while (node) {
		ri = container_of(node, struct kretprobe_instance, llist);
		node = node->next;
		recycle_instance(ri);
	}
	if (!outer)
		kprobe_busy_end();
	preempt_enable();
}

NOKPROBE_SYMBOL(kprobe_flush_task);

/* A pool serves one registration of one kretprobe: @context is its holder. */
static int init_instance(void *obj, void *context)
{
	struct kretprobe_instance *ri = obj;
	struct kretprobe_holder *rph = context;

	ri->rph = rph;
	ri->rp = rph->rp;
	return 0;
}

static int release_holder(struct objpool_head *head, void *context)
{
	kfree(context);
	return 0;
}

/* The pool of @rp, for its holder @rph (rph->rp is @rp). */
int kretprobe_pool_init(struct kretprobe *rp, struct kretprobe_holder *rph)
{
	return objpool_init(&rph->pool, rp->maxactive,
			    sizeof(struct kretprobe_instance) + rp->data_size,
			    GFP_KERNEL | __GFP_NOWARN, rph, init_instance,
			    release_holder);
}

/* Drop the pool; instances in flight free it when the last comes back. */
void kretprobe_pool_release(struct kretprobe *rp)
{
	objpool_fini(&rp->rph->pool);
}
#endif /* !KRETPROBE_VIA_RETHOOK */

bool kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry;
}

/*
 * The default number of instances, upstream's: modules and kprobe events
 * that leave maxactive at 0 (or below) see the same nmissed on both.
 */
static int default_maxactive(void)
{
	return max_t(int, 10, 2 * num_possible_cpus());
}

static int prepare_kretprobe(struct kretprobe *rp)
{
	struct kretprobe_holder *rph;
	kprobe_opcode_t *addr;
	bool on_entry;
	int ret;

	/* Registered already: its pool must not be replaced. */
	if (kprobe_is_registered(&rp->kp))
		return -EINVAL;
	ret = kprobe_resolve_addr(&rp->kp, &addr, &on_entry);
	if (ret)
		return ret;
	if (!on_entry || kretprobe_refused(addr))
		return -EINVAL;
	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;

	rph = kzalloc(sizeof(*rph), GFP_KERNEL);
	if (!rph)
		return -ENOMEM;
	if (rp->maxactive <= 0)
		rp->maxactive = default_maxactive();
	rph->rp = rp;		/* for the pool's instances */
	ret = kretprobe_pool_init(rp, rph);
	if (ret) {
		/* As upstream's: any pool it cannot have, up to 2^24 too. */
		kfree(rph);
		return -ENOMEM;
	}
	rp->rph = rph;
	rp->nmissed = 0;
	rp->kp.pre_handler = kretprobe_entry;
	rp->kp.post_handler = NULL;
	return 0;
}

static void release_kretprobe(struct kretprobe *rp)
{
	kretprobe_pool_release(rp);
	rp->rph = NULL;
}

/*
 * The same probe twice in one batch: prepare_kretprobe() would give it a
 * second pool over the first.  Batches are short; quadratic is fine.
 */
static bool has_duplicate(struct kretprobe **rps, int num)
{
	int i, j;

	for (i = 1; i < num; i++)
		for (j = 0; j < i; j++)
			if (rps[i] == rps[j])
				return true;
	return false;
}

/**
 * register_kretprobes() - register an array of return probes
 * @rps: the probes; each ->kp names a function's entry
 * @num: how many
 *
 * All or none, as register_kprobes().
 *
 * Return: 0; -EINVAL for a place that is not a function's entry or that
 * cannot be probed, a probe that is in @rps twice (also as for
 * register_kprobes()); -E2BIG for a data_size over
 * KRETPROBE_MAX_DATA_SIZE; -ENOENT; -ENOMEM, also for a maxactive the
 * pool cannot hold (over 2^24; 0 or below gets the default).
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	struct kprobe **kps;
	bool published = false;
	int i, ret = 0;

	if (kprobe_batch_invalid((void **)rps, num) || has_duplicate(rps, num))
		return -EINVAL;
	for (i = 0; i < num && !ret; i++)
		ret = prepare_kretprobe(rps[i]);
	if (ret) {
		i--;	/* the one that failed prepared nothing */
		goto undo;
	}
	kps = kprobe_array_of((void **)rps, num, offsetof(struct kretprobe, kp),
			      GFP_KERNEL);
	ret = kps ? kprobe_register_batch(kps, num, &published) : -ENOMEM;
	kfree(kps);
	if (!ret)
		return 0;
	/*
	 * A batch that failed after publishing some of its probes (one that
	 * joined a live or parked site before a later entry was refused, or
	 * any, when an ftrace site refused at the last step) may have had
	 * them hit: calls may have taken instances and will come back
	 * through the trampoline after we return.  As in
	 * unregister_kretprobes(), they must find no probe, and a return
	 * handler already running (preemption off) must be waited for
	 * before the caller may free @rps.  A batch refused at its first
	 * probe (the blacklist, a jump-label site...) published nothing, has
	 * no instance out, and waits for nothing.
	 */
	i = num;
	if (!published)
		goto undo;
	for (i = 0; i < num; i++)
		WRITE_ONCE(rps[i]->rph->rp, NULL);
	synchronize_rcu();
undo:
	while (--i >= 0)
		release_kretprobe(rps[i]);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/**
 * register_kretprobe() - put a return probe on a function
 * @rp: the probe
 *
 * Return: 0 or a negative errno, as register_kretprobes().
 */
int register_kretprobe(struct kretprobe *rp)
{
	return register_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/**
 * unregister_kretprobes() - remove an array of return probes
 * @rps: the probes
 * @num: how many
 *
 * Calls in flight return normally afterwards, without a handler.  An entry
 * that is not registered gets its ->kp.addr cleared; NULL entries as for
 * unregister_kprobes().
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	struct kprobe **kps;
	int i;

	if (!rps || num <= 0)
		return;
	/* Stop the handlers first; the grace period below covers entries. */
	for (i = 0; i < num; i++)
		if (rps[i] && rps[i]->rph)
			WRITE_ONCE(rps[i]->rph->rp, NULL);
	kps = kprobe_array_of((void **)rps, num, offsetof(struct kretprobe, kp),
			      GFP_KERNEL | __GFP_NOFAIL);
	unregister_kprobes(kps, num);
	kfree(kps);
	for (i = 0; i < num; i++)
		if (rps[i] && rps[i]->rph)
			release_kretprobe(rps[i]);
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe() - remove a return probe
 * @rp: the probe
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);
