// SPDX-License-Identifier: GPL-2.0
/*
 * Jump probes: a handler with the probed function's own prototype, run at
 * the function's entry.  The arch saves and restores the state around the
 * handler (jprobe_setjmp(), jprobe_return()); here is registration.
 */
#include <linux/kprobes.h>
#include <linux/slab.h>

#include "internal.h"

/* A jprobe must sit on a function's entry, where the arguments are. */
static int prepare_jprobe(struct jprobe *jp)
{
	kprobe_opcode_t *addr;
	bool on_entry;
	int ret;

	if (!jp->entry)
		return -EINVAL;
	ret = kprobe_resolve_addr(&jp->kp, &addr, &on_entry);
	if (ret)
		return ret;
	if (!on_entry)
		return -EINVAL;
	jp->kp.pre_handler = jprobe_setjmp;
	jp->kp.post_handler = NULL;
	return 0;
}

/**
 * register_jprobes() - register an array of jprobes
 * @jps: the probes; ->kp names a function's entry, ->entry the handler
 * @num: how many
 *
 * All or none, as register_kprobes().
 *
 * Return: 0; -EINVAL for a place that is not a function's entry or cannot
 * be probed, or a NULL ->entry; -EBUSY when the function already has a
 * jprobe; -EOPNOTSUPP on a classic architecture whose jprobes are not
 * done (classic_jprobe.c); otherwise as register_kprobe().
 */
int register_jprobes(struct jprobe **jps, int num)
{
	struct kprobe **kps;
	int i, ret = 0;

	if (kprobe_batch_invalid((void **)jps, num))
		return -EINVAL;
	ret = kprobe_jprobes_ready();
	if (ret)
		return ret;
	for (i = 0; i < num && !ret; i++)
		ret = prepare_jprobe(jps[i]);
	if (ret)
		return ret;
	kps = kprobe_array_of((void **)jps, num, offsetof(struct jprobe, kp),
			      GFP_KERNEL);
	if (!kps)
		return -ENOMEM;
	ret = register_kprobes(kps, num);
	kfree(kps);
	return ret;
}
EXPORT_SYMBOL_GPL(register_jprobes);

/**
 * register_jprobe() - put a jprobe on a function
 * @jp: the probe
 *
 * Return: 0 or a negative errno, as register_jprobes().
 */
int register_jprobe(struct jprobe *jp)
{
	return register_jprobes(&jp, 1);
}
EXPORT_SYMBOL_GPL(register_jprobe);

/**
 * unregister_jprobes() - remove an array of jprobes
 * @jps: the probes
 * @num: how many
 *
 * As unregister_kprobes(): on return no handler of them runs anywhere.
 */
void unregister_jprobes(struct jprobe **jps, int num)
{
	struct kprobe **kps;

	if (!jps || num <= 0)
		return;
	kps = kprobe_array_of((void **)jps, num, offsetof(struct jprobe, kp),
			      GFP_KERNEL | __GFP_NOFAIL);
	unregister_kprobes(kps, num);
	kfree(kps);
}
EXPORT_SYMBOL_GPL(unregister_jprobes);

/**
 * unregister_jprobe() - remove a jprobe
 * @jp: the probe
 */
void unregister_jprobe(struct jprobe *jp)
{
	unregister_jprobes(&jp, 1);
}
EXPORT_SYMBOL_GPL(unregister_jprobe);
