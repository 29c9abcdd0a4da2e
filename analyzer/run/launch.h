/*
 * Starting the profiled program: one run is fork, a timestamp, execve, and
 * a reap. The program's stdio, fds, signal state and exit status are its own
 * (it gets the caller's signal dispositions and mask, not ldprof's); only
 * LD_AUDIT, LD_PRELOAD and LDPROF_SHM are added to its environment (with
 * -f, LDPROF_SHM names the buffer by a path, and its fd stays close-on-exec). Each run
 * is a process group of its own, so that Ctrl-C ends all of it: SIGINT is
 * passed on, and the group is killed after INTERRUPT_GRACE_NS. With -f
 * (follow.h) the launched process waits until the perf events are attached,
 * ldprof is the subreaper, and a run lasts until every process of its tree
 * is reaped; Ctrl-C and the timeout reach every live process of the tree.
 */
#ifndef LDPROF_LAUNCH_H
#define LDPROF_LAUNCH_H

#include <stdbool.h>

#include "run/follow.h"
#include "run/sample.h"
#include "run/shm.h"
#include "run/spawn.h"
#include "run/terminal.h"
#include "trace/trace.h"
#include "base/util.h"

struct launcher {
	char *path;  /* the file to execve */
	char **argv; /* its argv, argv[0] as the user wrote it */
	char **env_profiled, **env_plain;
	struct shm_buf shm;
	bool show_output;
	bool preload;	  /* the LD_PRELOAD part hooks main and exit */
	bool follow;	  /* launch_opts.follow: shm is a follow-mode buffer */
	double timeout_s; /* per run; 0 = none */
	int devnull;
	int stderr_fd; /* >= 0: the program's stderr goes here (a diagnostic run) */
	struct terminal tty;
	bool tty_now; /* this run starts with the terminal */
	struct follow fl;
	int gate[2];  /* -f, --sample: the child waits on gate[0] until the events are attached */
	struct sampler *sampler; /* --sample; NULL without it */
	bool sampling;		 /* this run is sampled */
	bool sample_refused;	 /* the kernel refused the event (err says why) */
	struct spawner spawner;	 /* starts each run's child (spawn.h) */
	bool reap_tree;		 /* launch_opts.reap_tree, and ldprof the subreaper for it */
};

/*
 * How long the run's other processes may outlive it and count in its tree:
 * a double fork's grandchild ends with the program or just after.
 */
#define REAP_GRACE_NS 2000000ull

/* How long a run may take to exit after Ctrl-C passed SIGINT on to it. */
#define INTERRUPT_GRACE_NS 1000000000ull

struct launch_opts {
	const char *path;
	char **argv;
	bool show_output;
	double timeout_s;
	bool profiled; /* false: never add the shim (static programs) */
	bool preload;  /* hook main/exit with the LD_PRELOAD part, not GOT slots */
	bool symbind;  /* the audit module with la_symbind64 (--symbind) */
	/*
	 * Follow mode (-f): every process the program starts that loads the
	 * shim records into the run's buffer (shm_create_follow), which
	 * shm_collect_procs reads after the run. 0 = the default sizes. The
	 * launcher follows and reaps the whole tree (follow.h).
	 */
	bool follow;
	size_t follow_bytes;
	uint32_t follow_chunk;
	/*
	 * Without -f: ldprof is the subreaper, and after each run reaps what the
	 * program's processes left running that ends within REAP_GRACE_NS, for
	 * the CPU time of the run's whole tree (trace_run.usage.tree_cpu_us).
	 * A process that runs on is left running, and reaped when it ends.
	 */
	bool reap_tree;
	/* --sample: some profiled runs are sampled (launcher_run_sampled), every period_ns. */
	bool sample;
	uint64_t sample_period_ns;
};

int launcher_init(struct launcher *l, const struct launch_opts *o, struct errbuf *err);
void launcher_fini(struct launcher *l);

/*
 * Run the program once, with or without the shim, and decode what the shim
 * recorded into r. -errno with err set when the program could not be run;
 * -EINTR when Ctrl-C cut the run short (or came before it), -EAGAIN when it
 * stopped until it got the terminal (terminal.h) or Ctrl-Z suspended it:
 * none of these is a sample.
 */
int launcher_run(struct launcher *l, bool profiled, struct trace *t, struct trace_run *r,
		 struct errbuf *err);

/*
 * A profiled run sampled by perf (sample.h): as launcher_run, and its
 * samples go to t->sampling as run `run`. When the kernel refuses the
 * event, -EACCES (or another -errno) with err set, "perf_event_open: ...",
 * and no run was made.
 */
int launcher_run_sampled(struct launcher *l, struct trace *t, struct trace_run *r, uint32_t run,
			 struct errbuf *err);

/*
 * One more run, outside the measurement, with the program's stderr captured:
 * its first max bytes (allocated), or NULL when it could not run.
 */
char *launcher_stderr(struct launcher *l, bool profiled, size_t max);

/* Where the shim lives: $LDPROF_SHIM_DIR, next to the binary, or installed. */
int find_shim(char **audit, char **preload, struct errbuf *err);

#endif
