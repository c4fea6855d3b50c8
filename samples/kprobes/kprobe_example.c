// SPDX-License-Identifier: GPL-2.0
/*
 * A kprobe on a kernel function, by default kernel_clone(): every fork or
 * clone prints a line from the pre_handler and one from the post_handler.
 *
 *   insmod kprobe_example.ko [symbol=<function>] [offset=<bytes>]
 *
 * The output goes to the kernel log (dmesg).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, sizeof(symbol), 0644);
MODULE_PARM_DESC(symbol, "the function to probe (default kernel_clone)");

static unsigned int offset;
module_param(offset, uint, 0444);
MODULE_PARM_DESC(offset, "bytes into the function (default 0, its entry)");

/* The flags register, on the architectures that have one of that kind. */
static unsigned long flags_of(struct pt_regs *regs)
{
#if defined(CONFIG_X86)
	return regs->flags;
#elif defined(CONFIG_ARM64)
	return regs->pstate;
#else
	return 0;
#endif
}

/* Before the probed instruction: the registers as the function sees them. */
static int example_pre(struct kprobe *p, struct pt_regs *regs)
{
	pr_info("%s pre_handler: addr %pS, ip %lx, flags %#lx, comm %s\n",
		p->symbol_name, p->addr, instruction_pointer(regs),
		flags_of(regs), current->comm);
	return 0;
}

/* After it: the CPU stands on the next instruction. */
static void example_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
	pr_info("%s post_handler: addr %pS, ip %lx, flags %#lx\n",
		p->symbol_name, p->addr, instruction_pointer(regs),
		flags_of(regs));
}

/* A fault in a handler or in the probed instruction: not ours to fix. */
static int example_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	pr_info("%s fault_handler: trap %d at %pS\n", p->symbol_name, trapnr,
		(void *)instruction_pointer(regs));
	return 0;
}

static struct kprobe kp = {
	.symbol_name	= symbol,
	.pre_handler	= example_pre,
	.post_handler	= example_post,
	.fault_handler	= example_fault,
};

static int __init kprobe_example_init(void)
{
	int ret;

	kp.offset = offset;
	ret = register_kprobe(&kp);

	if (ret < 0) {
		pr_err("register_kprobe on %s failed: %d\n", symbol, ret);
		return ret;
	}
	pr_info("planted kprobe at %pS\n", kp.addr);
	return 0;
}

static void __exit kprobe_example_exit(void)
{
	unregister_kprobe(&kp);
	pr_info("kprobe at %pS unregistered, missed %lu\n", kp.addr, kp.nmissed);
}

module_init(kprobe_example_init);
module_exit(kprobe_example_exit);
MODULE_DESCRIPTION("Kprobes example: a probe on kernel_clone()");
MODULE_LICENSE("GPL");
