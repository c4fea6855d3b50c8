// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/kprobes/: list, enabled, blacklist.
 *
 *   list       one line per registered probe: address, type (k kprobe,
 *              r kretprobe, j jprobe), symbol+offset, the module, then
 *              [GONE] or [DISABLED], [OPTIMIZED], [FTRACE] as true at
 *              that moment ([FTRACE]: reached through ftrace, ftrace.c),
 *              in upstream's layout (show_probe()).
 *              [OPTIMIZED], as upstream has always shown it (and its
 *              ftrace selftests expect it right after arming): the
 *              optimizer has taken the site, its jmp is in or goes in
 *              after an RCU Tasks grace period (optimizer.c).  The
 *              probe's KPROBE_FLAG_OPTIMIZED says only the latter.
 *              The address is zeros unless kallsyms may show it.
 *   enabled    1 or 0; writing 0 disarms every probe, 1 re-arms all but
 *              those disabled one by one.
 *   blacklist  the functions no probe may go into, a line each, with
 *              their ranges, as upstream lists them.
 *
 * All three are root's only.  They read the probes under kprobe_mutex.
 */
#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kstrtox.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "internal.h"

static char probe_type(struct kprobe *p)
{
	if (p->pre_handler == jprobe_setjmp)
		return 'j';
	if (kprobe_is_kretprobe(p))
		return 'r';
	return 'k';
}

/*
 * One line per probe, laid out as upstream's file has always laid it out,
 * for the scripts that parse it: the address, two blanks, the type, two
 * blanks, symbol+offset, two blanks, the module's name or a blank, a
 * blank, then the states with nothing between them.  An address without
 * a symbol is printed by %pS, followed by a blank.
 */
static void show_probe(struct seq_file *m, struct kprobe_site *site,
		       struct kprobe *p, bool show_addr)
{
	char sym[KSYM_NAME_LEN], *modname;
	unsigned long size, offset;
	bool gone = kprobe_gone(p);
	const char *name;

	name = kallsyms_lookup((unsigned long)p->addr, &size, &offset,
			       &modname, sym);
	seq_printf(m, "%px  %c  ", show_addr ? p->addr : NULL, probe_type(p));
	if (name)
		seq_printf(m, "%s+0x%x  %s ", name, (unsigned int)offset,
			   modname ? modname : " ");
	else
		seq_printf(m, "%pS ", p->addr);
	seq_printf(m, "%s%s%s%s\n",
		   gone ? "[GONE]" : "",
		   !gone && (p->flags & KPROBE_FLAG_DISABLED) ? "[DISABLED]" : "",
		   site && site->opt != KPROBE_OPT_NONE ? "[OPTIMIZED]" : "",
		   kprobe_ftrace(p) ? "[FTRACE]" : "");
}

/* A bare probe (bare.c) has no site, and is never optimized. */
struct bare_show {
	struct seq_file	*m;
	bool		show_addr;
};

static void show_bare(struct kprobe *p, void *arg)
{
	struct bare_show *b = arg;

	show_probe(b->m, NULL, p, b->show_addr);
}

static int list_show(struct seq_file *m, void *unused)
{
	bool show_addr = kallsyms_show_value(m->file->f_cred);
	struct kprobe_site *site;
	struct kprobe *p;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(site, &kprobe_sites, all)
		list_for_each_entry(p, &site->probes, list)
			show_probe(m, site, p, show_addr);
	kprobe_bare_for_each(show_bare, &(struct bare_show){ m, show_addr });
	mutex_unlock(&kprobe_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(list);

static int blacklist_show(struct seq_file *m, void *unused)
{
	bool show_addr = kallsyms_show_value(m->file->f_cred);

	kprobe_blacklist_show(m, show_addr);
	kprobe_module_blacklist_show(m, show_addr);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(blacklist);

static ssize_t enabled_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	char s[3];

	snprintf(s, sizeof(s), "%d\n", kprobes_armed() ? 1 : 0);
	return simple_read_from_buffer(buf, count, ppos, s, 2);
}

/*
 * Whatever kstrtobool() reads as a boolean (1/0, y/n, on/off, by the first
 * characters), at any offset: scripts written for upstream's file write
 * all of these.
 */
static ssize_t enabled_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(buf, count, &on);
	if (ret)
		return ret;
	ret = kprobes_set_armed(on);
	return ret ? ret : count;
}

static const struct file_operations enabled_fops = {
	.read	= enabled_read,
	.write	= enabled_write,
	.llseek	= default_llseek,
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &list_fops);
	debugfs_create_file("enabled", 0600, dir, NULL, &enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL, &blacklist_fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);
