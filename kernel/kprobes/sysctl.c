// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/sys/debug/kprobes-optimization: whether probes may be reached
 * through jumps instead of breakpoints.  Validated 0 or 1.  Writing 0
 * puts every jump back to an int3 before the write returns; writing 1
 * queues every site that can take one for the optimizer (optimizer.c).
 * Built only with CONFIG_OPTPROBES: upstream's kernel has no such file on
 * an architecture without jump optimization, and neither does ours.
 */
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/sysctl.h>

#include "internal.h"

static int optimization_handler(const struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);

	if (!ret && write)
		kprobe_optimization_changed();
	return ret;
}

static struct ctl_table kprobes_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.data		= &sysctl_kprobes_optimization,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= optimization_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init kprobes_sysctl_init(void)
{
	register_sysctl("debug", kprobes_sysctls);
	return 0;
}
late_initcall(kprobes_sysctl_init);
