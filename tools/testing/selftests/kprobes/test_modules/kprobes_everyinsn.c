// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_everyinsn: probes at many places of the kernel at once, for
 * test-everyinsn.sh, which hands it "function offset" lines (every
 * instruction boundary of a function, as the build's objdump saw it).
 *
 * /sys/kernel/debug/kprobes_everyinsn/
 *   places   write "name offset" lines; they add up until "clear"
 *   ctl      write "register": each function's places as one batch; a
 *            refused batch is retried in halves, down to single places,
 *            so that each refusal is counted by its errno
 *            write "register-all": all places as one batch, the same way
 *            write "unregister": every registered probe, as one batch
 *            write "clear": forget the places (after "unregister")
 *            write "zero": each place's own count (hits, nmissed) from 0
 *   stats    one line of counts, then "hit <function> <hits>" for each
 *            function whose probes were hit
 *   hits     "<function> <offset> <hits> <nmissed>" for each registered
 *            place: each place's own count
 *
 * A probe's pre_handler only counts the hit, for its place and its
 * function.
 */
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

struct ev_func {
	char name[KSYM_NAME_LEN];
	atomic_long_t hits;
	int first, n;			/* its places: places[first .. first+n) */
};

struct ev_place {
	struct kprobe kp;
	int func;
	bool registered;
	unsigned int off;		/* as written to "places" */
	atomic_long_t hits;
};

static DEFINE_MUTEX(ev_lock);		/* everything below */
static char *text;			/* the lines written to "places" */
static size_t text_len, text_size;
static struct ev_func *funcs;
static struct ev_place *places;
static struct kprobe **kpp;
static int nr_funcs, nr_places;
static long accepted, refused[MAX_ERRNO + 1], batches_ok, batches_refused;

static int ev_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ev_place *pl = container_of(p, struct ev_place, kp);

	atomic_long_inc(&pl->hits);
	atomic_long_inc(&funcs[pl->func].hits);
	return 0;
}

NOKPROBE_SYMBOL(ev_pre);

static ssize_t places_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret = count;

	mutex_lock(&ev_lock);
	if (places) {
		ret = -EBUSY;
		goto out;
	}
	if (text_len + count + 1 > text_size) {
		size_t size = max(2 * text_size, text_len + count + 1);
		char *bigger = kvmalloc(size, GFP_KERNEL);

		if (!bigger) {
			ret = -ENOMEM;
			goto out;
		}
		if (text)
			memcpy(bigger, text, text_len);
		kvfree(text);
		text = bigger;
		text_size = size;
	}
	if (copy_from_user(text + text_len, buf, count)) {
		ret = -EFAULT;
		goto out;
	}
	text_len += count;
	text[text_len] = 0;
out:
	mutex_unlock(&ev_lock);
	return ret;
}

/* Drop funcs[], places[] and kpp[] (nothing of them registered). */
static void free_places(void)
{
	kvfree(funcs);
	kvfree(places);
	kvfree(kpp);
	funcs = NULL;
	places = NULL;
	kpp = NULL;
}

/* Turn the text into funcs[] and places[]; consecutive lines of one name are one function. */
static int parse_places(void)
{
	int lines = 0, n = 0;
	char *s, *line;

	for (s = text; s && *s; s++)
		lines += *s == '\n';
	funcs = kvcalloc(lines, sizeof(*funcs), GFP_KERNEL);
	places = kvcalloc(lines, sizeof(*places), GFP_KERNEL);
	kpp = kvcalloc(lines, sizeof(*kpp), GFP_KERNEL);
	if (!funcs || !places || !kpp) {
		free_places();
		return -ENOMEM;
	}
	s = text;
	while ((line = strsep(&s, "\n")) != NULL) {
		char name[KSYM_NAME_LEN];
		unsigned int off;

		if (sscanf(line, "%511s %u", name, &off) != 2 || n == lines)
			continue;
		if (!nr_funcs || strcmp(funcs[nr_funcs - 1].name, name)) {
			strscpy(funcs[nr_funcs].name, name);
			funcs[nr_funcs].first = n;
			nr_funcs++;
		}
		funcs[nr_funcs - 1].n++;
		places[n].func = nr_funcs - 1;
		places[n].kp.symbol_name = funcs[nr_funcs - 1].name;
		places[n].kp.offset = off;
		places[n].kp.pre_handler = ev_pre;
		places[n].off = off;
		n++;
	}
	nr_places = n;
	return 0;
}

/*
 * Register places[first .. first+n) as one batch.  A refused batch is
 * split in halves until each refusal stands alone and is counted by its
 * errno: the good places still go in by batches.
 */
static void register_range(int first, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		struct ev_place *pl = &places[first + i];
		unsigned int off = pl->kp.offset;

		/* A refused registration may have filled in fields. */
		memset(&pl->kp, 0, sizeof(pl->kp));
		pl->kp.symbol_name = funcs[pl->func].name;
		pl->kp.offset = off;
		pl->kp.pre_handler = ev_pre;
		kpp[i] = &pl->kp;
	}
	ret = register_kprobes(kpp, n);
	if (!ret) {
		batches_ok++;
		accepted += n;
		for (i = 0; i < n; i++)
			places[first + i].registered = true;
		return;
	}
	batches_refused++;
	if (n == 1) {
		if (ret < 0 && ret >= -MAX_ERRNO)
			refused[-ret]++;
		return;
	}
	register_range(first, n / 2);
	register_range(first + n / 2, n - n / 2);
}

static int unregister_all(void)
{
	int i, n = 0;

	for (i = 0; i < nr_places; i++)
		if (places[i].registered) {
			kpp[n++] = &places[i].kp;
			places[i].registered = false;
		}
	if (n)
		unregister_kprobes(kpp, n);
	return n;
}

static void clear_all(void)
{
	unregister_all();
	free_places();
	kvfree(text);
	text = NULL;
	text_len = 0;
	text_size = 0;
	nr_funcs = 0;
	nr_places = 0;
	accepted = 0;
	batches_ok = 0;
	batches_refused = 0;
	memset(refused, 0, sizeof(refused));
}

static ssize_t ctl_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	char cmd[16];
	int i, ret = 0;

	if (count >= sizeof(cmd) || copy_from_user(cmd, buf, count))
		return -EINVAL;
	cmd[count] = 0;
	strim(cmd);
	mutex_lock(&ev_lock);
	if (!strcmp(cmd, "register") || !strcmp(cmd, "register-all")) {
		if (places || !text) {
			ret = -EBUSY;
		} else {
			ret = parse_places();
			if (!ret && !strcmp(cmd, "register-all"))
				register_range(0, nr_places);
			for (i = 0; !ret && cmd[8] != '-' && i < nr_funcs; i++) {
				register_range(funcs[i].first, funcs[i].n);
				cond_resched();
			}
		}
	} else if (!strcmp(cmd, "unregister")) {
		if (places)
			unregister_all();
	} else if (!strcmp(cmd, "clear")) {
		clear_all();
	} else if (!strcmp(cmd, "zero")) {
		/*
		 * Counting from a moment when every place is armed: an
		 * ftrace site at a function's entry is armed at another
		 * moment than the int3s behind it.
		 */
		for (i = 0; i < nr_places; i++) {
			atomic_long_set(&places[i].hits, 0);
			WRITE_ONCE(places[i].kp.nmissed, 0);
		}
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&ev_lock);
	return ret ? ret : count;
}

static int stats_show(struct seq_file *m, void *v)
{
	long hits = 0, hit_funcs = 0;
	int i;

	mutex_lock(&ev_lock);
	for (i = 0; i < nr_funcs; i++) {
		long h = atomic_long_read(&funcs[i].hits);

		hits += h;
		hit_funcs += h > 0;
	}
	seq_printf(m, "functions=%d places=%d accepted=%ld batches_ok=%ld batches_refused=%ld hit_functions=%ld hits=%ld refused(errno:count)=",
		   nr_funcs, nr_places, accepted, batches_ok, batches_refused,
		   hit_funcs, hits);
	for (i = 1; i <= MAX_ERRNO; i++)
		if (refused[i])
			seq_printf(m, " %d:%ld", -i, refused[i]);
	seq_puts(m, "\n");
	for (i = 0; i < nr_funcs; i++)
		if (atomic_long_read(&funcs[i].hits))
			seq_printf(m, "hit %s %ld\n", funcs[i].name,
				   atomic_long_read(&funcs[i].hits));
	mutex_unlock(&ev_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int hits_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&ev_lock);
	for (i = 0; i < nr_places; i++)
		if (places[i].registered)
			seq_printf(m, "%s %u %ld %lu\n", funcs[places[i].func].name,
				   places[i].off, atomic_long_read(&places[i].hits),
				   places[i].kp.nmissed);
	mutex_unlock(&ev_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hits);

static const struct file_operations places_fops = {
	.write = places_write,
};

static const struct file_operations ctl_fops = {
	.write = ctl_write,
};

static struct dentry *dir;

static int __init everyinsn_init(void)
{
	dir = debugfs_create_dir("kprobes_everyinsn", NULL);
	debugfs_create_file("places", 0200, dir, NULL, &places_fops);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	debugfs_create_file("hits", 0400, dir, NULL, &hits_fops);
	return 0;
}

static void __exit everyinsn_exit(void)
{
	debugfs_remove_recursive(dir);
	mutex_lock(&ev_lock);
	clear_all();
	mutex_unlock(&ev_lock);
}

module_init(everyinsn_init);
module_exit(everyinsn_exit);
MODULE_DESCRIPTION("Kprobes at every instruction of many functions");
MODULE_LICENSE("GPL");
