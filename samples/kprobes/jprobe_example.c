// SPDX-License-Identifier: GPL-2.0
/*
 * A jprobe on kernel_clone(): its handler has kernel_clone()'s prototype,
 * so it sees the same argument, prints it, and ends with jprobe_return().
 * kernel_clone() then runs as if nothing had happened.
 *
 *   insmod jprobe_example.ko
 *
 * The output goes to the kernel log (dmesg).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched/task.h>

/* Same prototype as kernel_clone(struct kernel_clone_args *). */
static pid_t j_kernel_clone(struct kernel_clone_args *args)
{
	pr_info("jprobe: kernel_clone(flags %#llx, exit_signal %d, stack %#lx) from %s\n",
		args->flags, args->exit_signal, args->stack, current->comm);

	/* Always end a jprobe handler with this. */
	jprobe_return();
	return 0;
}

static struct jprobe my_jprobe = {
	.entry		= j_kernel_clone,
	.kp.symbol_name	= "kernel_clone",
};

static int __init jprobe_example_init(void)
{
	int ret = register_jprobe(&my_jprobe);

	if (ret < 0) {
		pr_err("register_jprobe failed: %d\n", ret);
		return ret;
	}
	pr_info("planted jprobe at %pS, handler at %p\n", my_jprobe.kp.addr,
		my_jprobe.entry);
	return 0;
}

static void __exit jprobe_example_exit(void)
{
	unregister_jprobe(&my_jprobe);
	pr_info("jprobe at %pS unregistered\n", my_jprobe.kp.addr);
}

module_init(jprobe_example_init);
module_exit(jprobe_example_exit);
MODULE_DESCRIPTION("Kprobes example: a jprobe printing kernel_clone()'s arguments");
MODULE_LICENSE("GPL");
