// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/sys/debug/kprobes-optimization: whether probes may be reached
 * through jumps instead of breakpoints.  Validated 0 or 1.  Jump
 * optimization itself is not built yet, so the value has no effect.
 */
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/sysctl.h>

#include "internal.h"

int sysctl_kprobes_optimization = 1;

static struct ctl_table kprobes_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.data		= &sysctl_kprobes_optimization,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
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
