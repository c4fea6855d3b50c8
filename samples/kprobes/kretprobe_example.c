// SPDX-License-Identifier: GPL-2.0
/*
 * A return probe that reports what a function returned and how long the
 * call took, by default for kernel_clone():
 *
 *   insmod kretprobe_example.ko [func=<function>]
 *
 * The entry_handler stores the start time in the instance's private data
 * (data_size bytes); the return handler reads it back.  The output goes to
 * the kernel log (dmesg).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>

static char func[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func, sizeof(func), 0644);
MODULE_PARM_DESC(func, "the function to probe (default kernel_clone)");

/* What one call keeps between its entry and its return. */
struct call_data {
	u64 start;
};

static int entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_data *data = (struct call_data *)ri->data;

	/* Kernel threads' calls are not of interest: skip them. */
	if (!current->mm)
		return 1;
	/* Handlers may run where ktime_get() may not: take the NMI-safe clock. */
	data->start = ktime_get_mono_fast_ns();
	return 0;
}

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_data *data = (struct call_data *)ri->data;
	s64 ns = ktime_get_mono_fast_ns() - data->start;

	pr_info("%s returned %ld and took %lld ns\n", func,
		(long)regs_return_value(regs), ns);
	return 0;
}

static struct kretprobe my_kretprobe = {
	.handler	= ret_handler,
	.entry_handler	= entry_handler,
	.data_size	= sizeof(struct call_data),
	/* Up to 20 calls in flight at once; more are counted in nmissed. */
	.maxactive	= 20,
};

static int __init kretprobe_example_init(void)
{
	int ret;

	my_kretprobe.kp.symbol_name = func;
	ret = register_kretprobe(&my_kretprobe);
	if (ret < 0) {
		pr_err("register_kretprobe on %s failed: %d\n", func, ret);
		return ret;
	}
	pr_info("planted return probe at %s: %pS\n", func, my_kretprobe.kp.addr);
	return 0;
}

static void __exit kretprobe_example_exit(void)
{
	unregister_kretprobe(&my_kretprobe);
	pr_info("return probe at %s unregistered, missed %d calls\n", func,
		my_kretprobe.nmissed);
}

module_init(kretprobe_example_init);
module_exit(kretprobe_example_exit);
MODULE_DESCRIPTION("Kprobes example: a return probe timing a function");
MODULE_LICENSE("GPL");
