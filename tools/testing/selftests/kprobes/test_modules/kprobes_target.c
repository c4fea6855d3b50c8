// SPDX-License-Identifier: GPL-2.0
/*
 * A module with a function to probe, for the selftests of probes in
 * modules: reading /sys/kernel/debug/kprobes_target/call calls it once.
 */
#include <linux/debugfs.h>
#include <linux/module.h>

noinline int kprobes_target_func(int x);
noinline int kprobes_target_func(int x)
{
	return x * 3 + 1;
}

static int calls;

static int call_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%d\n", kprobes_target_func(calls++));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(call);

static struct dentry *dir;

static int __init kprobes_target_init(void)
{
	dir = debugfs_create_dir("kprobes_target", NULL);
	debugfs_create_file("call", 0400, dir, NULL, &call_fops);
	return 0;
}

static void __exit kprobes_target_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(kprobes_target_init);
module_exit(kprobes_target_exit);
MODULE_DESCRIPTION("Kprobes selftests: a function to probe in a module");
MODULE_LICENSE("GPL");
