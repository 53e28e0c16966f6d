// SPDX-License-Identifier: MIT
/*
 * The sampling engine of `sbx record`: perf_event_open per CPU, one ring
 * buffer per CPU (the other counters of that CPU redirected into it with
 * PERF_EVENT_IOC_SET_OUTPUT), and draining.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "measure/record.h"
#include "perf/records.h"

#define DEFAULT_MMAP_PAGES 128

struct record_event {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct ring {
	int cpu;
	int fd;			/* the counter whose buffer this is */
	void *base;		/* the control page; data follows */
	size_t data_size;	/* a power of 2 */
};

struct record {
	struct record_config cfg;
	struct record_event *events;
	size_t nr_events;
	struct perf_sample_layout layout;	/* what every event shares */
	int *fds;
	size_t nr_fds;
	struct ring *rings;
	size_t nr_rings;
	struct pollfd *pfds;
	struct record_stats stats;
	void *copy;		/* a wrapped record, made contiguous */
	size_t page_size;
	bool opened;
	bool kernel_excluded;	/* fell back to user space only */
	bool no_read_lost;	/* the kernel predates PERF_FORMAT_LOST */
};

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

struct record *record_new(const struct record_config *cfg)
{
	struct record *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->cfg = *cfg;
	if (!r->cfg.mmap_pages)
		r->cfg.mmap_pages = DEFAULT_MMAP_PAGES;
	r->page_size = (size_t)sysconf(_SC_PAGESIZE);
	return r;
}

void record_free(struct record *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_rings; i++)
		if (r->rings[i].base)
			munmap(r->rings[i].base, r->page_size + r->rings[i].data_size);
	for (i = 0; i < r->nr_fds; i++)
		close(r->fds[i]);
	for (i = 0; i < r->nr_events; i++) {
		free(r->events[i].name);
		free(r->events[i].ids);
	}
	free(r->events);
	free(r->fds);
	free(r->rings);
	free(r->pfds);
	free(r->copy);
	free(r);
}

int record_add_event(struct record *r, const struct perf_event_attr *attr, const char *name)
{
	struct record_event *ev;
	void *p;

	if (r->opened)
		return sbx_error(-EBUSY, "cannot add an event after the counters are open");
	p = realloc(r->events, (r->nr_events + 1) * sizeof(*r->events));
	if (!p)
		return sbx_error(-ENOMEM, "out of memory");
	r->events = p;
	ev = &r->events[r->nr_events];
	memset(ev, 0, sizeof(*ev));
	ev->attr = *attr;
	ev->name = strdup(name);
	if (!ev->name)
		return sbx_error(-ENOMEM, "out of memory");
	r->nr_events++;
	return 0;
}

size_t record_nr_events(const struct record *r)
{
	return r->nr_events;
}

const struct perf_event_attr *record_event_attr(const struct record *r, size_t idx)
{
	return idx < r->nr_events ? &r->events[idx].attr : NULL;
}

const char *record_event_name(const struct record *r, size_t idx)
{
	return idx < r->nr_events ? r->events[idx].name : NULL;
}

const uint64_t *record_event_ids(const struct record *r, size_t idx, size_t *nr)
{
	if (idx >= r->nr_events) {
		*nr = 0;
		return NULL;
	}
	*nr = r->events[idx].nr_ids;
	return r->events[idx].ids;
}

const struct record_stats *record_stats(const struct record *r)
{
	return &r->stats;
}

bool record_kernel_excluded(const struct record *r)
{
	return r->kernel_excluded;
}

/* The sample_type bits every event shares (the trailer is made of them). */
static uint64_t common_sample_type(const struct record *r)
{
	uint64_t t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		     PERF_SAMPLE_PERIOD;

	if (r->nr_events > 1)
		t |= PERF_SAMPLE_IDENTIFIER;
	return t;
}

uint64_t record_sample_type(const struct record *r)
{
	return common_sample_type(r);
}

void record_sample_layout(const struct record *r, struct perf_sample_layout *l)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_id_all = 1 };

	a.sample_type = common_sample_type(r);
	perf_sample_layout_init(l, &a);
}

void record_id_sample(const struct record *r, uint32_t pid, uint32_t tid, struct perf_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->tid = tid;
	s->id = r->nr_events && r->events[0].nr_ids ? r->events[0].ids[0] : 0;
}

/* Fill in the sampling part of every attr, now that the number of events is known. */
static void finish_attrs(struct record *r)
{
	size_t i;

	record_sample_layout(r, &r->layout);
	for (i = 0; i < r->nr_events; i++) {
		struct perf_event_attr *a = &r->events[i].attr;

		a->size = sizeof(*a);
		a->sample_type = common_sample_type(r);
		if (a->type == PERF_TYPE_TRACEPOINT)
			a->sample_type |= PERF_SAMPLE_RAW;
		if (r->cfg.callchain)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (r->cfg.stack_user) {
			/*
			 * perf's --call-graph dwarf: the kernel's chain, then the
			 * user registers perf unwinds from (x86-64: all but the
			 * segment registers) and the top of the user stack
			 */
			a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
					  PERF_SAMPLE_STACK_USER;
			a->exclude_callchain_user = 1;
			a->sample_regs_user = RECORD_USER_REGS;
			a->sample_stack_user = r->cfg.stack_user;
		}
		/* the data maps too: perf's libunwind reads the files' read-only segments */
		if (i == 0 && r->cfg.stack_user)
			a->mmap_data = 1;
		if (r->cfg.branch_stack) {
			a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
			a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
		}
		if (r->cfg.period) {
			a->freq = 0;
			a->sample_period = r->cfg.period;
		} else if (!a->freq && !a->sample_period) {
			a->freq = 1;
			a->sample_freq = r->cfg.freq ? r->cfg.freq : 4000;
		}
		/* what the kernel dropped, readable at the end (Linux 6.0+) */
		a->read_format = r->no_read_lost ? 0 : PERF_FORMAT_LOST;
		if (r->cfg.inherit_stat) {
			a->inherit_stat = 1;
			a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
					  PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		}
		a->disabled = 1;
		a->sample_id_all = 1;
		if (r->cfg.clockid >= 0) {
			a->use_clockid = 1;
			a->clockid = r->cfg.clockid;
		}
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(r->cfg.mmap_pages * r->page_size / 4);
		/* one event tracks the processes, so that nothing is recorded twice */
		if (i == 0) {
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
		}
	}
}

static int online_cpus(int **cpus)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int *v = NULL, n = 0;
	char *s, *end;

	if (!f || !fgets(buf, sizeof(buf), f)) {
		long nr = sysconf(_SC_NPROCESSORS_ONLN);

		if (f)
			fclose(f);
		snprintf(buf, sizeof(buf), "0-%ld", nr > 0 ? nr - 1 : 0);
	} else {
		fclose(f);
	}
	for (s = buf; *s && *s != '\n';) {
		long a = strtol(s, &end, 10), b = a, c;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (c = a; c <= b; c++) {
			int *p = realloc(v, (size_t)(n + 1) * sizeof(*v));

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v = p;
			v[n++] = (int)c;
		}
		s = *end == ',' ? end + 1 : end;
	}
	if (!n) {
		free(v);
		return -ENODEV;
	}
	*cpus = v;
	return n;
}

/* The thread ids of a process, from /proc/PID/task. */
static int process_threads(pid_t pid, pid_t **tids)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	pid_t *v = NULL;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return sbx_error_errno(-errno, "no process %d", (int)pid);
	while ((de = readdir(d))) {
		pid_t *p;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		p = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!p) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v = p;
		v[n++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	if (!n) {
		free(v);
		return sbx_error(-ESRCH, "process %d has no threads", (int)pid);
	}
	*tids = v;
	return n;
}

int record_perf_event_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -99;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -99;
		fclose(f);
	}
	return v;
}

static int open_error(int err, const struct record_event *ev, pid_t pid, int cpu)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return sbx_error(-err, "no permission to open event '%s' "
				 "(kernel.perf_event_paranoid is %d; lower it with "
				 "'sysctl kernel.perf_event_paranoid=1' or run as root)",
				 ev->name, record_perf_event_paranoid());
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (ev->attr.branch_sample_type)
			return sbx_error(-EOPNOTSUPP, "event '%s' cannot sample the branch stack "
					 "on this machine (no LBR or branch stack in its PMU)",
					 ev->name);
		if (ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE ||
		    ev->attr.type == PERF_TYPE_RAW)
			return sbx_error(-err, "event '%s' is not supported on this machine "
					 "(its PMU does not count it, or there is no hardware PMU: "
					 "software events such as cpu-clock work everywhere)",
					 ev->name);
		return sbx_error(-err, "event '%s' is not supported on this machine", ev->name);
	case ESRCH:
		return sbx_error(-err, "no process %d", (int)pid);
	case EINVAL:
		if (ev->attr.freq) {
			FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
			unsigned long long max = 0;

			if (f) {
				if (fscanf(f, "%llu", &max) != 1)
					max = 0;
				fclose(f);
			}
			if (max && ev->attr.sample_freq > max)
				return sbx_error(-err, "-F %llu is above the kernel's limit "
						 "(kernel.perf_event_max_sample_rate is %llu)",
						 (unsigned long long)ev->attr.sample_freq, max);
		}
		return sbx_error_errno(-err, "cannot open event '%s' on cpu %d", ev->name, cpu);
	case EMFILE:
		return sbx_error(-err, "too many open files for %s on cpu %d "
				 "(raise the limit with 'ulimit -n')", ev->name, cpu);
	default:
		return sbx_error_errno(-err, "cannot open event '%s' on cpu %d", ev->name, cpu);
	}
}

static void exclude_kernel(struct record *r)
{
	size_t i;

	for (i = 0; i < r->nr_events; i++) {
		r->events[i].attr.exclude_kernel = 1;
		r->events[i].attr.exclude_hv = 1;
	}
	r->kernel_excluded = true;
}

static int add_fd(struct record *r, int fd)
{
	int *p = realloc(r->fds, (r->nr_fds + 1) * sizeof(*r->fds));

	if (!p)
		return -ENOMEM;
	r->fds = p;
	r->fds[r->nr_fds++] = fd;
	return 0;
}

static int add_id(struct record_event *ev, int fd)
{
	uint64_t id, *p;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return sbx_error_errno(-errno, "cannot read the id of event '%s'", ev->name);
	p = realloc(ev->ids, (ev->nr_ids + 1) * sizeof(*ev->ids));
	if (!p)
		return -ENOMEM;
	ev->ids = p;
	ev->ids[ev->nr_ids++] = id;
	return 0;
}

static int map_ring(struct record *r, struct ring *ring)
{
	size_t len = r->page_size * (1 + r->cfg.mmap_pages);
	void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, ring->fd, 0);

	if (base == MAP_FAILED) {
		int err = -errno;

		if (err == -EPERM)
			return sbx_error(err, "cannot map a %zu KiB ring buffer "
					 "(over kernel.perf_event_mlock_kb; use a smaller -m)",
					 len / 1024);
		return sbx_error_errno(err, "cannot map the ring buffer of cpu %d", ring->cpu);
	}
	ring->base = base;
	ring->data_size = r->page_size * r->cfg.mmap_pages;
	return 0;
}

/* "1, 2 and 3": the pids of -p for a message, cut short with "…" when long. */
static const char *pid_list(const pid_t *pids, size_t nr, char *buf, size_t size)
{
	size_t len = 0, i;

	buf[0] = 0;
	for (i = 0; i < nr && len + 32 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d",
					!i ? "" : i + 1 < nr ? ", " : " and ", (int)pids[i]);
	if (i < nr)
		snprintf(buf + len, size - len, "…");
	return buf;
}

int record_open(struct record *r, const struct record_target *t)
{
	char pbuf[256];
	int *cpus = NULL, nr_cpus, nr_tids, err = 0, c, k;
	pid_t *tids = NULL;
	size_t e;

	if (r->opened)
		return sbx_error(-EBUSY, "the counters are already open");
	if (!r->nr_events)
		return sbx_error(-EINVAL, "no event to record");
	if (r->cfg.mmap_pages & (r->cfg.mmap_pages - 1))
		return sbx_error(-EINVAL, "the ring buffer size must be a power of 2 pages, not %u",
				 r->cfg.mmap_pages);
	finish_attrs(r);
	nr_cpus = online_cpus(&cpus);
	if (nr_cpus < 0)
		return sbx_error_errno(nr_cpus, "cannot list the online CPUs");
	if (t->cpu_bits) {
		/* -C: the online CPUs of the list, and every CPU of the list online */
		int kept = 0;

		for (size_t w = 0; w < t->cpu_bits_words; w++)
			for (int b = 0; b < 64; b++) {
				int cpu = (int)(w * 64) + b, on = 0;

				if (!(t->cpu_bits[w] >> b & 1))
					continue;
				for (c = 0; c < nr_cpus && !on; c++)
					on = cpus[c] == cpu;
				if (!on) {
					free(cpus);
					return sbx_error(-EINVAL, "-C: CPU %d is not online", cpu);
				}
			}
		for (c = 0; c < nr_cpus; c++)
			if ((size_t)cpus[c] / 64 < t->cpu_bits_words &&
			    (t->cpu_bits[cpus[c] / 64] >> (cpus[c] % 64) & 1))
				cpus[kept++] = cpus[c];
		nr_cpus = kept;
	}

	if (t->system_wide) {
		nr_tids = 1;
		tids = malloc(sizeof(*tids));
		if (!tids) {
			err = -ENOMEM;
			goto out;
		}
		tids[0] = -1;
	} else if (t->workload) {
		nr_tids = 1;
		tids = malloc(sizeof(*tids));
		if (!tids) {
			err = -ENOMEM;
			goto out;
		}
		tids[0] = t->pid;
	} else {
		/* the threads of each process (-p PID[,PID...]) */
		nr_tids = 0;
		for (size_t i = 0; i < (t->nr_pids ? t->nr_pids : 1); i++) {
			pid_t *more = NULL, *v;
			int n = process_threads(t->nr_pids ? t->pids[i] : t->pid, &more);

			if (n < 0) {
				err = n;
				goto out;
			}
			v = realloc(tids, (size_t)(nr_tids + n) * sizeof(*v));
			if (!v) {
				free(more);
				err = -ENOMEM;
				goto out;
			}
			tids = v;
			memcpy(tids + nr_tids, more, (size_t)n * sizeof(*more));
			nr_tids += n;
			free(more);
		}
	}

	r->rings = calloc((size_t)nr_cpus, sizeof(*r->rings));
	r->pfds = calloc((size_t)nr_cpus, sizeof(*r->pfds));
	if (!r->rings || !r->pfds) {
		err = -ENOMEM;
		goto out;
	}
retry:
	for (c = 0; c < nr_cpus; c++) {
		struct ring *ring = &r->rings[r->nr_rings];

		ring->fd = -1;
		ring->cpu = cpus[c];
		for (e = 0; e < r->nr_events; e++) {
			struct record_event *ev = &r->events[e];

			ev->attr.inherit = !t->system_wide && !t->no_inherit;
			ev->attr.enable_on_exec = t->workload;
			for (k = 0; k < nr_tids; k++) {
				int fd = (int)sys_perf_event_open(&ev->attr, tids[k], cpus[c], -1,
								  PERF_FLAG_FD_CLOEXEC);

				if (fd < 0) {
					/* a thread of -p that ended meanwhile */
					if (errno == ESRCH && !t->system_wide && !t->workload &&
					    nr_tids > 1)
						continue;
					/*
					 * Kernel samples need a lower perf_event_paranoid than
					 * user ones: like perf, fall back to user space only.
					 */
					if ((errno == EACCES || errno == EPERM) && !r->nr_fds &&
					    !t->system_wide && !ev->attr.exclude_kernel) {
						exclude_kernel(r);
						goto retry;
					}
					if (errno == EINVAL && !r->nr_fds && !r->no_read_lost) {
						r->no_read_lost = true;
						finish_attrs(r);
						goto retry;
					}
					err = open_error(errno, ev, tids[k], cpus[c]);
					goto out;
				}
				if (add_fd(r, fd) < 0) {
					close(fd);
					err = -ENOMEM;
					goto out;
				}
				err = add_id(ev, fd);
				if (err < 0)
					goto out;
				if (ring->fd < 0) {
					ring->fd = fd;
					err = map_ring(r, ring);
					if (err < 0)
						goto out;
					r->pfds[r->nr_rings].fd = fd;
					r->pfds[r->nr_rings].events = POLLIN;
					r->nr_rings++;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) < 0) {
					err = sbx_error_errno(-errno, "cannot share the ring buffer "
							      "of cpu %d", cpus[c]);
					goto out;
				}
			}
		}
	}
	if (!r->nr_rings && t->nr_pids > 1)
		err = sbx_error(-ESRCH, "processes %s have no thread left to record",
				pid_list(t->pids, t->nr_pids, pbuf, sizeof(pbuf)));
	else if (!r->nr_rings)
		err = sbx_error(-ESRCH, "process %d has no thread left to record", (int)t->pid);
	r->opened = true;
out:
	free(cpus);
	free(tids);
	return err;
}

static int ioctl_all(struct record *r, unsigned long req, const char *what)
{
	size_t i;

	for (i = 0; i < r->nr_fds; i++)
		if (ioctl(r->fds[i], req, 0) < 0)
			return sbx_error_errno(-errno, "cannot %s the counters", what);
	return 0;
}

int record_enable(struct record *r)
{
	return ioctl_all(r, PERF_EVENT_IOC_ENABLE, "enable");
}

int record_disable(struct record *r)
{
	return ioctl_all(r, PERF_EVENT_IOC_DISABLE, "disable");
}

int record_poll(struct record *r, int timeout_ms)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_rings; i++)
		n += r->pfds[i].fd >= 0;
	if (!n) {
		/* every counter's task ended: nothing will wake us but time */
		struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		return 0;
	}
	if (poll(r->pfds, r->nr_rings, timeout_ms) < 0) {
		if (errno == EINTR)
			return 0;
		return sbx_error_errno(-errno, "poll");
	}
	for (i = 0; i < r->nr_rings; i++)
		/* a hung-up counter would make poll() return at once forever */
		if (r->pfds[i].revents & (POLLHUP | POLLERR))
			r->pfds[i].fd = -1;
	return 0;
}

/* Count what the summary reports. ev is a whole record. */
static void account(struct record *r, const struct perf_event_header *ev)
{
	struct perf_rec_lost lost;
	struct perf_rec_lost_samples ls;
	uint64_t t;

	r->stats.bytes += ev->size;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		r->stats.samples++;
		t = perf_sample_time(&r->layout, ev);
		if (t != (uint64_t)-1) {
			if (!r->stats.first_time || t < r->stats.first_time)
				r->stats.first_time = t;
			if (t > r->stats.last_time)
				r->stats.last_time = t;
		}
		break;
	case PERF_RECORD_LOST:
		r->stats.lost_records++;
		if (!perf_rec_parse_lost(ev, &lost))
			r->stats.lost += lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (!perf_rec_parse_lost_samples(ev, &ls))
			r->stats.lost += ls.lost;
		break;
	}
}

static long drain_ring(struct record *r, struct ring *ring, record_sink_fn sink, void *ctx)
{
	struct perf_event_mmap_page *pg = ring->base;
	unsigned char *data = (unsigned char *)ring->base + r->page_size;
	uint64_t mask = ring->data_size - 1;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	long n = 0;
	int err = 0;

	while (tail < head) {
		size_t off = (size_t)(tail & mask);
		const struct perf_event_header *ev = (const void *)(data + off);
		size_t size = ev->size;

		/* records are 8-byte aligned, so a header never wraps; a body may */
		if (size < sizeof(*ev) || size > head - tail || size % 8) {
			err = sbx_error(-EIO, "corrupt record (size %zu) in the ring buffer of cpu %d",
					size, ring->cpu);
			tail = head;
			break;
		}
		if (off + size > ring->data_size) {
			size_t first = ring->data_size - off;

			if (!r->copy) {
				r->copy = malloc(65536);
				if (!r->copy) {
					err = -ENOMEM;
					break;
				}
			}
			memcpy(r->copy, data + off, first);
			memcpy((unsigned char *)r->copy + first, data, size - first);
			ev = r->copy;
		}
		account(r, ev);
		err = sink(ctx, ev);
		tail += size;
		n++;
		if (err < 0)
			break;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}

long record_drain(struct record *r, record_sink_fn sink, void *ctx)
{
	long total = 0, n;
	size_t i;

	for (i = 0; i < r->nr_rings; i++) {
		n = drain_ring(r, &r->rings[i], sink, ctx);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

/* The samples each counter's kernel side dropped, summed (PERF_FORMAT_LOST). */
static uint64_t read_lost(const struct record *r)
{
	/* value, then time enabled, time running and id with -s, then lost: the last */
	size_t n = r->cfg.inherit_stat ? 5 : 2;
	uint64_t v[5], sum = 0;
	size_t i;

	for (i = 0; i < r->nr_fds; i++)
		if (read(r->fds[i], v, n * sizeof(*v)) == (ssize_t)(n * sizeof(*v)))
			sum += v[n - 1];
	return sum;
}

int record_flush_lost(struct record *r, record_sink_fn sink, void *ctx)
{
	uint64_t rec[16];
	struct perf_sample_layout l;
	struct perf_sample id;
	struct perf_rec_lost_samples ls;
	uint64_t lost;
	int err;

	if (r->no_read_lost || !r->opened)
		return 0;
	lost = read_lost(r);
	if (lost <= r->stats.lost)
		return 0;
	ls.lost = lost - r->stats.lost;
	record_sample_layout(r, &l);
	record_id_sample(r, (uint32_t)-1, (uint32_t)-1, &id);
	err = perf_rec_encode_lost_samples(rec, sizeof(rec), &ls, &l, &id);
	if (err < 0)
		return err;
	account(r, (struct perf_event_header *)rec);
	err = sink(ctx, (struct perf_event_header *)rec);
	return err < 0 ? err : 1;
}

int record_probe_branch_stack(const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	a.sample_period = 100000;
	a.freq = 0;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EOPNOTSUPP || errno == ENOENT || errno == EINVAL || errno == ENODEV)
		return sbx_error(-EOPNOTSUPP, "-b: this machine's PMU has no branch stack "
				 "(LBR or equivalent); branch sampling is not possible here");
	if (errno == EACCES || errno == EPERM)
		return sbx_error(-errno, "no permission to sample the branch stack "
				 "(kernel.perf_event_paranoid is %d)", record_perf_event_paranoid());
	return sbx_error_errno(-errno, "cannot probe branch-stack sampling");
}

int record_parse_clockid(const char *name)
{
	static const struct { const char *name; int id; } clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC },
		{ "mono", CLOCK_MONOTONIC },
		{ "realtime", CLOCK_REALTIME },
		{ "real", CLOCK_REALTIME },
		{ "boottime", CLOCK_BOOTTIME },
		{ "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "raw", CLOCK_MONOTONIC_RAW },
		{ "tai", CLOCK_TAI },
	};
	const char *n = name;
	char *end;
	size_t i;
	long v;

	if (!strncasecmp(n, "CLOCK_", 6))
		n += 6;
	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(n, clocks[i].name))
			return clocks[i].id;
	v = strtol(name, &end, 0);
	if (*name && !*end && v >= 0 && v < 64)
		return (int)v;
	return sbx_error(-EINVAL, "unknown clock '%s' (use monotonic, monotonic_raw, realtime, "
			 "boottime, tai, or a clockid number)", name);
}
