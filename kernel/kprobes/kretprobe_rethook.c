// SPDX-License-Identifier: GPL-2.0
/*
 * Return probes through rethook, on the classic architectures that have
 * it (powerpc, s390, riscv, loongarch): in 6.12 their return trampoline
 * is rethook's, arch_rethook_trampoline, which hands every return to
 * rethook_trampoline_handler().  That handler walks the task's rethook
 * nodes (task->rethooks), so an instance here is a rethook node (first in
 * struct kretprobe_instance), taken from a struct rethook of the probe's
 * own whose pool holds maxactive of them.
 *
 * kretprobe.c keeps everything else (checks, batches, unregistration); it
 * clears rph->rp and waits for a grace period before
 * kretprobe_pool_release(), which stops and frees the rethook: instances
 * still in flight then return without a handler, and rethook frees each
 * as it comes back.
 */
#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * The kprobe pre_handler at the function's entry: the arch's
 * arch_rethook_prepare() records the return address and frame in the
 * node and points the return at arch_rethook_trampoline.
 */
int __kprobes kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct rethook_node *node = rethook_try_get(rp->rph->rh);
	struct kretprobe_instance *ri;

	if (!node) {
		/* A statistic, plain as upstream's (KCSAN is told). */
		data_race(rp->nmissed++);
		return 0;
	}
	ri = container_of(node, struct kretprobe_instance, node);
	ri->rph = rp->rph;
	ri->rp = rp;
	ri->task = current;
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		rethook_recycle(node);
		return 0;
	}
	rethook_hook(node, regs, kprobe_ftrace(p));
	return 0;
}

/*
 * From rethook_trampoline_handler(), preemption off, regs->ip already the
 * real return address; @data is the kretprobe.  The handler runs as the
 * current probe, as on the breakpoint path, so that a probe it hits
 * counts as missed.
 */
static void __kprobes kretprobe_rethook_return(struct rethook_node *node,
					       void *data,
					       unsigned long ret_addr,
					       struct pt_regs *regs)
{
	struct kretprobe_instance *ri = container_of(node, typeof(*ri), node);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kretprobe *rp = get_kretprobe(ri);
	struct kprobe *outer = kprobe_running();
	typeof(kcb->kprobe_status) outer_status = kcb->kprobe_status;

	if (!rp || !rp->handler || kprobe_disabled(&rp->kp))
		return;
	/* powerpc's trampoline is a probe: its level is given back after. */
	__this_cpu_write(current_kprobe, &rp->kp);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	rp->handler(ri, regs);
	kcb->kprobe_status = outer_status;
	__this_cpu_write(current_kprobe, outer);
}

int kretprobe_pool_init(struct kretprobe *rp, struct kretprobe_holder *rph)
{
	struct rethook *rh;

	rh = rethook_alloc(rp, kretprobe_rethook_return,
			   sizeof(struct kretprobe_instance) + rp->data_size,
			   rp->maxactive);
	if (IS_ERR(rh))
		return PTR_ERR(rh);
	rph->rh = rh;
	return 0;
}

/*
 * Stop the hook and free it: rethook frees its pool once the instances
 * in flight are back.  A return that read the handler before the stop
 * may still be in kretprobe_rethook_return() (preemption off), reading
 * ri->rph: the holder goes after a grace period.
 */
void kretprobe_pool_release(struct kretprobe *rp)
{
	rethook_free(rp->rph->rh);
	kfree_rcu(rp->rph, rcu);
}

/* The unwinder's: the real return address behind the trampoline at @fp. */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	return rethook_find_ret_addr(tsk, (unsigned long)fp, cur);
}
EXPORT_SYMBOL_GPL(kretprobe_find_ret_addr);

/* A dead task's instances are rethook's to take back (rethook_flush_task()). */
void kprobe_flush_task(struct task_struct *tk)
{
}
NOKPROBE_SYMBOL(kprobe_flush_task);
