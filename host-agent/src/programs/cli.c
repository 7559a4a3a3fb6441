// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli.c - `vcpack`, the command line: status, plan, apply, tag, restore.
 *
 * Every command runs the same pipeline: observe (observe.c) -> plan
 * (planner.c, pure) -> diff (diff.c, pure) -> apply (apply.c, only for
 * `apply`). `plan` is advice that changes nothing, like `numad -w`.
 * Exit codes: 0 done, 1 failed or partly applied (each failure listed),
 * 2 usage or input refused (nothing changed).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "apply.h"
#include "cli.h"
#include "cli-watch.h"
#include "control.h"
#include "cpuset.h"
#include "ctl.h"
#include "cycle.h"
#include "diff.h"
#include "esc.h"
#include "explain.h"
#include "fold.h"
#include "irqview.h"
#include "kernel.h"
#include "metrics.h"
#include "mode.h"
#include "modeljson.h"
#include "observe.h"
#include "placers.h"
#include "planner.h"
#include "policy.h"
#include "powerview.h"
#include "render.h"
#include "report.h"
#include "tags.h"
#include "trial.h"
#include "virt.h"
#include "width.h"

#ifndef VCP_VERSION
#define VCP_VERSION "0.1"
#endif

struct ctx {
	const char *uri;
	const char *policy_path;
	const char *root;	/* kernel root, "/" unless --root */
	int force_mode;		/* -1 detect, else enum vcp_mode */
	bool json;
	unsigned int sample_ms;
	struct vcp_virt *v;
	struct vcp_kernel *k;
	struct vcp_policy policy;
	enum vcp_mode mode;
	char mode_reason[512];
	bool sample_set;	/* --sample given: measure, do not ask vcpackd */
	const char *daemon_socket;
	int daemon_pid;		/* > 0: demand and delay came from vcpackd */
	/* then, where it said: the level it plans with, and why */
	bool has_daemon_level;
	int daemon_level;
	char daemon_level_reason[256];
	const char *power_root;	/* --power-root / VCPACK_POWER_ROOT */
	bool watching;		/* status --watch: issues in the frame only */
	bool wide;		/* --wide: names whole, tables not cut */
};

void vcp_cli_wide(void)
{
	vcp_width_set(0);
}

size_t vcp_cli_cols(void)
{
	return vcp_width_cols();
}

size_t vcp_cli_cols_for(int fd)
{
	size_t cols = vcp_width_cols(), w;

	if (!cols || !isatty(fd))
		return 0;
	/* no wider than stdout's text (a --watch frame's width) */
	w = vcp_width_of(fd, false);
	return w < cols ? w : cols;
}

int vcp_cli_err(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vcp_fold_err(code, "vcpack", vcp_cli_cols_for(STDERR_FILENO),
			    fmt, ap);
	va_end(ap);
	return code;
}

int vcp_cli_badopt(const char *cmd, int o, char *const *argv)
{
	const char *a = optind > 0 ? argv[optind - 1] : "?";
	const char *cur = argv[optind];
	char s[3] = { '-', (char)optopt, 0 };

	/* a short option: optind is still on its word (-xj) or just past
	 * it (-jx); a long one: just past it */
	if (optopt &&
	    ((cur && cur[0] == '-' && cur[1] != '-' && strchr(cur, optopt)) ||
	     strncmp(a, "--", 2)))
		a = s;
	return vcp_cli_err(EXIT_USAGE, "%s '%s' (see 'vcpack %s%s--help')",
			   o == ':' ? "missing the argument of option" :
				      "unknown option",
			   a, cmd ? cmd : "", cmd ? " " : "");
}

static const char *const usage_text =
	"Usage: vcpack [OPTIONS] COMMAND [ARGS]\n"
	"\n"
	"Consolidate KVM guests onto as few CPU packages as the load allows.\n"
	"\n"
	"Commands:\n"
	"  status [--watch [S]]   packages awake/idle, VMs by class, mode, level\n"
	"  plan                   what apply would do; changes nothing\n"
	"  metrics                the figures in Prometheus text format\n"
	"  apply                  carry out the plan (only what differs)\n"
	"  verify                 exit 0 when the host is as planned, 1 with the\n"
	"                         differences (vcpackd's plan if it runs)\n"
	"  list [--all|--inactive] [--name]\n"
	"                         the domains, as virsh list: state, class, tag,\n"
	"                         pins (--name: the names, one a line)\n"
	"  tag DOMAIN --priority high|normal|low |\n"
	"      --class spread|balanced|pack|unmanaged\n"
	"                         write the VM's vcpack tag (live and persistent;\n"
	"                         unmanaged: vcpack never changes this VM)\n"
	"  restore [DOMAIN...]    put VMs back to their recorded original pins\n"
	"  restore --forget DOMAIN...\n"
	"                         drop their records of their original pins\n"
	"                         (unreadable ones too), leave the pins as they are\n"
	"  explain DOMAIN         its class and why, demand, planned CPUs and why,\n"
	"                         what would move it\n"
	"  level 0|1|2|auto|policy  set vcpackd's level (kept across restarts);\n"
	"                         policy: back to the policy's level and windows\n"
	"  pause | resume         stop / restart vcpackd's changes (kept as is)\n"
	"  enable | disable       let vcpackd change VMs, or observe only (the\n"
	"                         default after install; kept across upgrades)\n"
	"  reload                 vcpackd re-reads its policy; exit 2 (and the\n"
	"                         old policy kept) when it refuses the file\n"
	"  policy check [FILE]    validate a policy file as vcpackd would\n"
	"  trial [--rounds N] [--window S] ...\n"
	"                         measure whether packing saves power here (A/B)\n"
	"  fleet --hosts FLEET.json status|tag|plan|apply|run|clear\n"
	"                         many hosts over libvirt URIs (vcpack fleet --help)\n"
	"\n"
	"Options:\n"
	"  -c, --connect URI      libvirt URI (default: libvirt's default)\n"
	"  -p, --policy FILE      policy file (default: " VCP_POLICY_PATH "\n"
	"                         if present)\n"
	"  -j, --json             machine-readable output (see vcpack(1))\n"
	"      --wide             tables with VM names and CPU lists whole, lines\n"
	"                         not folded (default: fit COLUMNS, else the\n"
	"                         terminal, else 100 columns; names name...end)\n"
	"      --mode auto|pin|kernel|scx  force the mode (default: detect)\n"
	"      --sample MS        measure vCPU demand over MS ms (default 1000;\n"
	"                         0: do not measure); without it, status shows\n"
	"                         what a running vcpackd measured\n"
	"      --daemon-socket PATH  vcpackd's socket (default " VCP_CTL_SOCKET
	")\n"
	"      --power-root DIR[,DIR2]  read power counters from a fixture tree\n"
	"                         (DIR2: the second read), not /sys and perf\n"
	"  -h, --help             this text; 'vcpack help COMMAND' or\n"
	"                         'COMMAND --help' for one command\n"
	"  -V, --version\n"
	"\n"
	"Exit status: 0 done, 1 failed or partly applied, 2 usage or input\n"
	"refused (nothing changed).\n";

/* one help text a command, as it prints */
/* clang-format off */
static const char *const cmd_help[][2] = {
	{ "status", "Usage: vcpack [OPTIONS] status [--watch [SECONDS]]\n"
		    "Show every package (awake or idle, which VMs may run there),\n"
		    "every running VM (class, tag, vCPUs, measured demand, pins), the\n"
		    "mode (kernel or pin, and why) and the level; and per package the\n"
		    "measured watts, C-state residency, uncore clock and whether it is\n"
		    "awake by those figures, from two reads of the counters at least\n"
		    "0.25 s apart (around the demand sample).\n"
		    "--watch: redraw it in place every SECONDS (default 2) until q\n"
		    "or Ctrl-C; not on a terminal, successive snapshots, each after\n"
		    "a line '---- vcpack status at TIME'.\n" },
	{ "metrics", "Usage: vcpack [OPTIONS] metrics\n"
		     "Print VM classes, vCPU run and wait time, the level and the\n"
		     "power figures (as status measures them) in the Prometheus text\n"
		     "exposition format; vcpackd --metrics-dir writes the same.\n" },
	{ "plan", "Usage: vcpack [OPTIONS] plan [--exit-code]\n"
		  "Compute the plan and list the actions apply would take, with the\n"
		  "package map before and after. Changes nothing. --exit-code: exit 1\n"
		  "when apply would change something, 0 when nothing is to do.\n" },
	{ "verify", "Usage: vcpack [OPTIONS] verify\n"
		    "Compare the host with the plan vcpackd carries out (when it runs\n"
		    "for this URI), else with a fresh plan (measured over --sample MS,\n"
		    "default 0 here). Exit 0: as planned; 1: the differences are listed.\n" },
	{ "apply", "Usage: vcpack [OPTIONS] apply\n"
		   "Carry out the plan: record each VM's original pins in its own\n"
		   "metadata, then pin (pin mode) or set classes and the level\n"
		   "(kernel mode). Only what differs is changed. A VM whose step\n"
		   "fails is rolled back to where it was; every failure is listed.\n" },
	{ "tag", "Usage: vcpack [OPTIONS] tag DOMAIN --priority high|normal|low\n"
		 "       vcpack [OPTIONS] tag DOMAIN --class spread|balanced|pack|unmanaged\n"
		 "Write <consolidation> in namespace " VCP_TAG_NS " of DOMAIN,\n"
		 "live (if running) and persistent (if defined). Both options may\n"
		 "be given; the class then wins over the priority's mapping.\n"
		 "--class unmanaged opts the VM out: vcpack never changes it.\n" },
	{ "explain", "Usage: vcpack [OPTIONS] explain DOMAIN\n"
		     "For one running VM (an ID, UUID or name): its tag and class and\n"
		     "why (the tag's class, its priority through the policy's map, or\n"
		     "the default), its demand and delay (vcpackd's when it runs here),\n"
		     "the CPUs the plan gives it and why (placement, package, level and\n"
		     "the planner's reason) and what would move it. Changes nothing.\n" },
	{ "level", "Usage: vcpack [OPTIONS] level 0|1|2|auto|policy\n"
		   "Tell vcpackd which level to plan with, overriding the policy's\n"
		   "level and its schedule windows until 'vcpack level policy'. Kept\n"
		   "in vcpackd's state file across its restarts. Needs vcpackd.\n" },
	{ "pause", "Usage: vcpack [OPTIONS] pause\n"
		   "vcpackd stops changing anything (pins, classes, level, IRQs) and\n"
		   "leaves the host as it is until 'vcpack resume'; kept across its\n"
		   "restarts. While paused, 'vcpack apply' and 'restore' act directly.\n" },
	{ "list", "Usage: vcpack [OPTIONS] list [--all|--inactive] [--name]\n"
		  "The running domains, sorted, as 'virsh list': each one's state,\n"
		  "class, tag, vCPUs and the CPUs it is pinned to. --all: also the\n"
		  "defined domains that are shut off (after the running ones), with\n"
		  "the tag and class of their definition and no placement ('-');\n"
		  "--inactive: only those. --name: the names only, one a line, like\n"
		  "'virsh list --name' (the bash completion's DOMAIN words). With\n"
		  "--json an array of objects (with --name, of names).\n" },
	{ "resume", "Usage: vcpack [OPTIONS] resume\n"
		    "vcpackd re-plans and carries out its plan again.\n" },
	{ "reload", "Usage: vcpack [OPTIONS] reload\n"
		    "vcpackd re-reads its policy file (what SIGHUP does) and answers\n"
		    "whether it took it: exit 0, or exit 2 naming what is wrong while\n"
		    "the previous policy stays in force. The unit's ExecReload=, so\n"
		    "that 'systemctl reload vcpackd' fails on a bad policy.\n" },
	{ "policy", "Usage: vcpack [OPTIONS] policy check [FILE]\n"
		    "Validate FILE (default: --policy, else " VCP_POLICY_PATH ")\n"
		    "with vcpackd's own parser, changing nothing: exit 0 and the\n"
		    "policy in force as JSON, or exit 2 naming the key that is wrong.\n"
		    "A missing default file is fine: the built-in defaults apply.\n" },
	{ "enable", "Usage: vcpack [OPTIONS] enable\n"
		    "Let vcpackd carry out its plan (pins, classes, level, IRQs).\n"
		    "Until then (the default after install) it observes, plans and\n"
		    "reports, and changes nothing. Kept in vcpackd's state file across\n"
		    "restarts and upgrades; wins over the policy's \"enabled\". Needs\n"
		    "vcpackd.\n" },
	{ "disable", "Usage: vcpack [OPTIONS] disable\n"
		     "vcpackd goes back to observing only: it plans and reports and\n"
		     "changes nothing; VMs stay where they are ('vcpack restore' puts\n"
		     "them back). Kept across restarts and upgrades. Needs vcpackd.\n" },
	{ "restore", "Usage: vcpack [OPTIONS] restore [DOMAIN...]\n"
		     "       vcpack [OPTIONS] restore --forget DOMAIN...\n"
		     "Put the named VMs (default: every running VM) back to the pins\n"
		     "recorded before vcpack first changed them, and drop the record.\n"
		     "--forget drops the record only (an unreadable one too), leaving\n"
		     "the pins as they are; the next apply records them afresh.\n" },
	{ "trial", "Usage: vcpack [OPTIONS] trial [--rounds N] [--window S] [--settle S]\n"
		   "       [--sample S] [--order found-first|planned-first]\n"
		   "       [--min-effect W|P%] [--state FILE]\n"
		   "Alternate the host between as found (what restore leaves) and as\n"
		   "planned (what apply does) in 2N+1 windows (default 5 rounds of\n"
		   "180 s, 20 s settle, a read every 1 s), read the energy counters,\n"
		   "and report each arm's mean power, the difference with its 95%\n"
		   "interval, the vCPU wait per VM and a verdict (saves, no-difference,\n"
		   "costs), recorded in FILE (default " VCP_TRIAL_STATE ").\n"
		   "The host is put back as found at the end and on SIGINT/SIGTERM.\n"
		   "Refused (exit 2) where no energy counter is readable.\n" },
};
/* clang-format on */

static bool print_cmd_help(const char *cmd)
{
	for (size_t i = 0; i < sizeof(cmd_help) / sizeof(cmd_help[0]); i++) {
		if (strcmp(cmd_help[i][0], cmd) == 0) {
			fputs(cmd_help[i][1], stdout);
			return true;
		}
	}
	return false;
}

void vcp_cli_json(struct json_object *o)
{
	vcp_esc_json_fputs(json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE),
			   stdout);
	putchar('\n');
	json_object_put(o);
}

/* ---- set-up ---- */

static int load_policy(struct ctx *c)
{
	const char *path;
	char *err = NULL;
	int r = vcp_policy_load_host(c->policy_path, &c->policy, &path, &err);

	if (r < 0) {
		vcp_cli_err(0, "Refusing policy '%s': %s", path,
			err ? err : strerror(-r));
		free(err);
		return -EINVAL;
	}
	return 0;
}

/*
 * Opening a connection has no bound of its own (keepalive starts once it
 * is open, virt.h): a libvirtd that accepts and never answers is given
 * VCPACK_CONNECT_TIMEOUT seconds (default 30), then vcpack ends saying
 * so. Nothing was changed yet.
 */
struct open_deadline {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done;
	unsigned int s;
	const char *uri;
};

static void *watch_open(void *data)
{
	struct open_deadline *o = data;
	struct timespec ts;
	bool done;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += o->s;
	pthread_mutex_lock(&o->mu);
	while (!o->done &&
	       pthread_cond_timedwait(&o->cv, &o->mu, &ts) != ETIMEDOUT)
		;
	done = o->done;
	pthread_mutex_unlock(&o->mu);
	if (!done) {
		fprintf(stderr,
			"vcpack: libvirt at '%s' did not answer in %u s (VCPACK_CONNECT_TIMEOUT); nothing changed\n",
			o->uri ? vcp_esc(o->uri) : "the default URI", o->s);
		_exit(EXIT_PARTIAL);
	}
	return NULL;
}

/* VCPACK_CONNECT_TIMEOUT in @ret (30 when unset); -EINVAL said. */
static int connect_timeout(unsigned int *ret)
{
	const char *env = getenv("VCPACK_CONNECT_TIMEOUT");
	unsigned long v;
	char *end;

	*ret = 30;
	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtoul(env, &end, 10);
	if (errno || *end || env[0] < '0' || env[0] > '9' || v == 0 ||
	    v > 86400)
		return vcp_cli_err(
			-EINVAL,
			"VCPACK_CONNECT_TIMEOUT: must be seconds from 1 to 86400, got '%s'",
			env);
	*ret = (unsigned int)v;
	return 0;
}

static int open_bounded(struct ctx *c, bool readonly, unsigned int s,
			char **err)
{
	struct open_deadline o = { .mu = PTHREAD_MUTEX_INITIALIZER,
				   .cv = PTHREAD_COND_INITIALIZER,
				   .s = s,
				   .uri = c->uri };
	pthread_t t;
	bool watched;
	int r;

	watched = pthread_create(&t, NULL, watch_open, &o) == 0;
	r = vcp_virt_open(c->uri, readonly, &c->v, err);
	pthread_mutex_lock(&o.mu);
	o.done = true;
	pthread_cond_signal(&o.cv);
	pthread_mutex_unlock(&o.mu);
	if (watched)
		pthread_join(t, NULL);
	return r;
}

static int setup(struct ctx *c, bool readonly)
{
	char *err = NULL;
	unsigned int s;
	bool refused;
	int r;

	if (load_policy(c) < 0 || connect_timeout(&s) < 0)
		return EXIT_USAGE;
	r = open_bounded(c, readonly, s, &err);
	if (r < 0) {
		vcp_cli_err(0, "%s", err ? err : strerror(-r));
		free(err);
		return EXIT_PARTIAL;
	}
	c->mode = vcp_mode_detect(c->v, c->root, c->force_mode, &c->k,
				  c->mode_reason, sizeof(c->mode_reason),
				  &refused);
	if (refused)
		return vcp_cli_err(EXIT_USAGE, "%s; nothing changed",
				   c->mode_reason);
	return 0;
}

static void teardown(struct ctx *c)
{
	vcp_virt_close(c->v);
	vcp_kernel_free(c->k);
	vcp_policy_clear(&c->policy);
}

/* Read the world; @warn: say on stderr which VMs are left alone (not
 * where the text report says it in its "issue:" lines: once a run). */
static int observe(struct ctx *c, struct vcp_world *w, unsigned int sample_ms,
		   bool warn)
{
	char *err = NULL;
	int r = vcp_observe(c->v, c->k, c->mode, sample_ms, w, &err);

	if (r < 0) {
		vcp_cli_err(0, "%s", err ? err : strerror(-r));
		free(err);
		return EXIT_PARTIAL;
	}
	for (size_t i = 0; warn && !c->watching && i < w->n_issues; i++)
		vcp_cli_err(0, "'%s': %s", w->issues[i].vm, w->issues[i].msg);
	return 0;
}

/* As observe(), also of a host wider than vcpack plans for. */
static int observe_to_restore(struct ctx *c, struct vcp_world *w)
{
	char *err = NULL;
	int r = vcp_observe_to_restore(c->v, c->k, c->mode, w, &err);

	if (r < 0) {
		vcp_cli_err(0, "%s", err ? err : strerror(-r));
		free(err);
		return EXIT_PARTIAL;
	}
	for (size_t i = 0; !c->watching && i < w->n_issues; i++)
		vcp_cli_err(0, "'%s': %s", w->issues[i].vm, w->issues[i].msg);
	return 0;
}

/* The policy with the schedule window of this moment applied. */
static struct vcp_policy policy_now(const struct ctx *c)
{
	return vcp_policy_at(&c->policy, time(NULL));
}

static const char *level_name(int level, char *buf, size_t len)
{
	if (level == VCP_LEVEL_AUTO)
		return "auto";
	snprintf(buf, len, "%d", level);
	return buf;
}

/* ---- status ---- */

static struct json_object *header_json(const struct ctx *c,
				       const struct vcp_world *w)
{
	struct json_object *o = json_object_new_object();
	struct json_object *issues = json_object_new_array();
	struct vcp_policy p = policy_now(c);
	char lb[8];

	for (size_t i = 0; i < w->n_issues; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "vm",
				       json_object_new_string(w->issues[i].vm));
		json_object_object_add(e, "message",
				       json_object_new_string(w->issues[i].msg));
		json_object_array_add(issues, e);
	}
	json_object_object_add(o, "host",
			       json_object_new_string(vcp_virt_hostname(c->v)));
	json_object_object_add(o, "uri", json_object_new_string(vcp_virt_uri(c->v)));
	json_object_object_add(o, "driver",
			       json_object_new_string(vcp_virt_driver(c->v)));
	json_object_object_add(o, "mode", json_object_new_string(
		vcp_mode_name(c->mode)));
	json_object_object_add(o, "mode_reason",
			       json_object_new_string(c->mode_reason));
	json_object_object_add(o, "level", w->cur_level >= 0 ?
			       json_object_new_int(w->cur_level) : NULL);
	json_object_object_add(o, "policy_level",
			       json_object_new_string(level_name(p.level, lb, sizeof(lb))));
	json_object_object_add(o, "demand_measured",
			       json_object_new_boolean(w->demand_measured));
	json_object_object_add(o, "demand_source", json_object_new_string(
			       c->daemon_pid > 0 ? "vcpackd" :
			       w->demand_measured ? "sampled" : "none"));
	json_object_object_add(o, "demand_window_s",
			       c->daemon_pid <= 0 && w->demand_measured ?
				       json_object_new_double(w->sample_s) :
				       NULL);
	json_object_object_add(o, "issues", issues);
	return o;
}

static void put_wrappedf(const struct ctx *c, const char *prefix,
			 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* test:///...: libvirt's test driver inside this process, which gets a
 * copy of the host of its own (test+unix:// shares one in a libvirtd). */
static bool own_test_host(const struct ctx *c)
{
	return strncmp(vcp_virt_uri(c->v), "test:", 5) == 0;
}

static void header_text(const struct ctx *c, const struct vcp_world *w)
{
	struct vcp_policy p = policy_now(c);
	char lb[8];

	printf("host:   %s (%s, driver %s%s)\n",
	       vcp_esc(vcp_virt_hostname(c->v)), vcp_esc(vcp_virt_uri(c->v)),
	       vcp_esc(vcp_virt_driver(c->v)),
	       vcp_virt_is_test_driver(c->v) ?
		       ": libvirt's test driver, a simulated host" :
		       "");
	if (own_test_host(c))
		put_wrappedf(c, "        ", "(this process's own copy of it: what another vcpack command applied there is not shown)");
	printf("mode:   %s (%s)\n", vcp_mode_name(c->mode),
	       vcp_esc_msg(c->mode_reason));
	if (w->cur_level >= 0)
		printf("level:  sched_mc_power_savings=%d; ", w->cur_level);
	else
		printf("level:  ");
	if (c->daemon_pid > 0 && c->has_daemon_level)
		printf("level %s, vcpackd's (pid %d): %s\n",
		       level_name(c->daemon_level, lb, sizeof(lb)),
		       c->daemon_pid, vcp_esc_msg(c->daemon_level_reason));
	else
		printf("policy level %s, this command's reading of the policy (vcpackd's is not shown: %s)%s\n",
		       level_name(p.level, lb, sizeof(lb)),
		       c->sample_set ? "--sample measures here" :
				       "it does not run for this URI",
		       w->cur_level >= 0 ? "" : "; no kernel knob");
	if (c->daemon_pid > 0)
		printf("demand: as vcpackd (pid %d) measured it: windowed peak of vcpu.N.time, and vcpu.N.delay\n",
		       c->daemon_pid);
	else if (w->demand_measured)
		printf("demand: measured from vcpu.N.time over %.1f s (vcpackd holds the peak over shrink_after)\n",
		       w->sample_s);
	else
		printf("demand: not measured (--sample 0, or not by this driver); policy default_vcpu_demand assumed\n");
	for (size_t i = 0; i < w->n_issues; i++)
		printf("issue:  '%s': %s\n", vcp_esc(w->issues[i].vm),
		       vcp_esc_msg(w->issues[i].msg));
}

/* Lay vcpackd's figures for one VM over the observed VM. */
static void overlay_vm(struct vcp_vm *vm, const struct vcp_status_vm *sv)
{
	for (unsigned int c = 0; c < vm->n_vcpus && c < sv->n_vcpus; c++)
		if (sv->demand[c] >= 0)
			vm->demand[c] = sv->demand[c];
	if (sv->delay >= 0)
		vm->delay = sv->delay;
}

static const char *socket_path(const struct ctx *c)
{
	return c->daemon_socket ? c->daemon_socket :
	       getenv("VCPACK_SOCKET") ? getenv("VCPACK_SOCKET") :
	       VCP_CTL_SOCKET;
}

/* A version 1 request to vcpackd: its "status" member (a new
 * reference), or NULL with *ret_err (malloc'd) and -errno in *ret_r. */
static struct json_object *daemon_call(const struct ctx *c,
				       const struct vcp_req *req, int *ret_r,
				       char **ret_err)
{
	struct json_object *o = NULL, *st = NULL;
	int r = vcp_ctl_call(socket_path(c), req, 5000, VCP_CTL_MAX_REPLY, &o,
			     ret_err);

	if (r == 0 && !json_object_object_get_ex(o, "status", &st)) {
		r = -EBADMSG;
		*ret_err = strdup("status: missing");
	} else if (r == 0) {
		r = vcp_status_check(st, ret_err);
	}
	/* every member checked before any is used (docs/protocol.md) */
	if (r == -EBADMSG) {
		char *e = NULL;

		if (asprintf(&e, "vcpackd's reply on %s refused: %s",
			     socket_path(c),
			     *ret_err ? *ret_err : "not a reply") >= 0) {
			free(*ret_err);
			*ret_err = e;
		}
	}
	if (r == 0)
		json_object_get(st);
	else
		st = NULL;
	json_object_put(o);
	*ret_r = r;
	return st;
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : "";
}

/* str_of() as printed (esc.h): a name, or words (a reason). */
static const char *shown_of(struct json_object *o, const char *key)
{
	return vcp_esc(str_of(o, key));
}

static const char *words_of(struct json_object *o, const char *key)
{
	return vcp_esc_msg(str_of(o, key));
}

static long long int_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_int64(v) : 0;
}

/* The pid of a vcpackd that manages the host of this connection and is
 * not paused, else 0; @st (may be NULL) is its status. */
static int daemon_managing(const struct ctx *c, struct json_object *st)
{
	struct json_object *ctl = json_object_object_get(st, "control");

	if (!st || !json_object_get_boolean(json_object_object_get(st, "connected")) ||
	    strcmp(str_of(st, "uri"), vcp_virt_uri(c->v)) != 0 ||
	    json_object_get_boolean(json_object_object_get(ctl, "paused")) ||
	    !json_object_get_boolean(json_object_object_get(st, "enabled")))
		return 0;
	return (int)int_of(st, "pid");
}

/* vcpackd's status, or NULL: none answers, or (*ret_bad, malloc'd, when
 * @ret_bad is not NULL) its reply is refused, naming the member. */
static struct json_object *daemon_status(const struct ctx *c, char **ret_bad)
{
	struct vcp_req req = { .op = VCP_REQ_STATUS,
			       .version = VCP_PROTO_VERSION };
	char *err = NULL;
	int r;
	struct json_object *st = daemon_call(c, &req, &r, &err);

	if (ret_bad)
		*ret_bad = r == -EBADMSG ? err : NULL;
	if (!ret_bad || r != -EBADMSG)
		free(err);
	return st;
}

static void when_text(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	localtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* What vcpackd does: running or not, paused, the level in force and why,
 * the plan it carries out (not this command's own measurement). */
static void daemon_text(const struct ctx *c, struct json_object *st)
{
	struct json_object *ctl = json_object_object_get(st, "control");
	struct json_object *last = json_object_object_get(st, "last");
	struct json_object *busy = json_object_object_get(st, "busy");
	char when[64];

	if (!st) {
		printf("vcpackd: not running (no answer on %s)\n",
		       vcp_esc(socket_path(c)));
		return;
	}
	printf("vcpackd: running (pid %lld) on %s%s\n", int_of(st, "pid"),
	       shown_of(st, "uri"),
	       json_object_get_boolean(
		       json_object_object_get(st, "connected")) ?
		       "" :
		       ", waiting for libvirt");
	if (busy) {
		when_text(int_of(busy, "since"), when, sizeof(when));
		printf("         BUSY since %s (%lld s) in %s, %s; what follows is from before\n",
		       when, int_of(busy, "for_ms") / 1000,
		       words_of(busy, "in"),
		       json_object_get_boolean(
			       json_object_object_get(busy, "waiting")) ?
			       "waiting for libvirt, which has not answered" :
			       "working");
	}
	if (!json_object_get_boolean(json_object_object_get(st, "enabled")))
		printf("         NOT ENABLED: %s (the plan below is what it would do)\n",
		       words_of(st, "enabled_reason"));
	else
		printf("         %s\n", words_of(st, "enabled_reason"));
	if (json_object_get_boolean(json_object_object_get(ctl, "paused"))) {
		when_text(int_of(ctl, "paused_since"), when, sizeof(when));
		printf("         PAUSED since %s: nothing is re-pinned until 'vcpack resume'\n",
		       when);
	}
	/* the level line above is vcpackd's when it runs for this URI */
	if (c->daemon_pid != (int)int_of(st, "pid"))
		printf("         level %s: %s\n", shown_of(st, "level"),
		       words_of(st, "level_reason"));
	printf("         mode %s: %s\n", shown_of(st, "mode"),
	       words_of(st, "mode_reason"));
	if (!last) {
		printf("         no plan carried out yet\n");
		return;
	}
	when_text(int_of(last, "at"), when, sizeof(when));
	printf("         %s (planned %s): level %lld, %lld of %lld packages active (%s)\n",
	       json_object_get_boolean(
		       json_object_object_get(last, "carried_out")) ?
		       "carrying out" :
		       "would carry out",
	       when, int_of(last, "level"), int_of(last, "active"),
	       int_of(last, "packages"), words_of(last, "level_reason"));
}

static struct json_object *daemon_json(struct json_object *st)
{
	struct json_object *o = st ? json_object_get(st) :
				     json_object_new_object();

	json_object_object_add(o, "running", json_object_new_boolean(st != NULL));
	return o;
}

/*
 * When vcpackd runs for this same URI, show what it measured (its
 * windowed peak and delay) instead of sampling again, so that both say
 * the same. 0 when the daemon's view was used; anything else: the caller
 * measures itself (no daemon, another URI, not root, a reply that is not
 * a status).
 */
static int daemon_view(struct ctx *c, struct vcp_world *w, bool warn)
{
	const char *path = c->daemon_socket ? c->daemon_socket :
			   getenv("VCPACK_SOCKET") ? getenv("VCPACK_SOCKET") :
			   VCP_CTL_SOCKET;
	struct vcp_status st = { 0 };
	char *err = NULL;
	int r = vcp_ctl_status(path, 1000, &st, &err);

	free(err);
	if (r < 0)
		return r;
	if (!st.connected || !st.has_last || strcmp(st.uri, vcp_virt_uri(c->v))) {
		vcp_status_clear(&st);
		return -ENOENT;
	}
	r = observe(c, w, 0, warn);
	for (size_t i = 0; r == 0 && i < w->n_vms; i++)
		for (size_t k = 0; k < st.n_vms; k++)
			if (!strcmp(st.vms[k].name, w->vms[i].name))
				overlay_vm(&w->vms[i], &st.vms[k]);
	if (r == 0) {
		w->demand_measured = true;
		c->daemon_pid = st.pid;
		c->has_daemon_level = st.has_level;
		c->daemon_level = st.cfg_level;
		snprintf(c->daemon_level_reason,
			 sizeof(c->daemon_level_reason), "%s",
			 st.level_reason);
	}
	vcp_status_clear(&st);
	return r;
}

/*
 * The policy a plan of this command is made with: the file's, or, when
 * vcpackd runs for this URI, with the level vcpackd plans with (its
 * `vcpack level`, the schedule window of this moment or the policy's),
 * so that plan, apply, explain and verify say what vcpackd does.
 */
static struct vcp_policy plan_policy(const struct ctx *c)
{
	struct vcp_control ctl = {
		.has_level = c->daemon_pid > 0 && c->has_daemon_level,
		.level = c->daemon_level,
	};

	return vcp_control_policy(&ctl, &c->policy);
}

/*
 * The power counters are this machine's: read them only for a local
 * libvirt that is not the test driver, or from --power-root. NULL and
 * a reason in @why when not read.
 */
static int power_start(const struct ctx *c, struct vcp_power_probe *p,
		       const char **why)
{
	const char *not_here = vcp_uri_not_here(vcp_virt_uri(c->v));
	int r;

	*why = NULL;
	if (!c->power_root && vcp_virt_is_test_driver(c->v))
		*why = "libvirt's test driver is a simulated host (--power-root DIR reads a fixture tree)";
	else if (!c->power_root && not_here)
		*why = "a remote host: run vcpack status there";
	if (*why)
		return 1;
	r = vcp_power_probe_start(c->power_root, p);
	if (r == -EINVAL && vcp_power_probe_why(p))
		*why = vcp_power_probe_why(p);
	else if (r == -EINVAL)
		*why = "--power-root is not DIR or DIR,DIR2";
	else if (r == -ENOENT || r == -ENOTDIR)
		*why = r == -ENOENT ?
			       "no such directory (a wrong --power-root, not a host without counters)" :
			       "not a directory (a wrong --power-root, not a host without counters)";
	else if (r < 0)
		*why = "out of memory";
	/* a usage error: exit 2 naming --power-root */
	return r == -ENOENT || r == -ENOTDIR ? -EINVAL : r < 0 ? r : 0;
}

/* Second read and the "power" part of status. */
static void power_show(const struct ctx *c, struct vcp_power_probe *p,
		       const char *why, struct json_object *o)
{
	struct vcp_pwr_figs f = { 0 };
	int r = why ? -1 : vcp_power_probe_finish(p, 250, &f);

	if (r < 0 && !why)
		why = vcp_power_probe_why(p) ? vcp_power_probe_why(p) :
					       strerror(-r);
	if (r < 0 && o) {
		struct json_object *pw = json_object_new_object();

		json_object_object_add(pw, "measured", json_object_new_boolean(0));
		json_object_object_add(pw, "reason", json_object_new_string(why));
		json_object_object_add(o, "power", pw);
	} else if (r < 0) {
		printf("power:  not measured: %s\n", vcp_esc_msg(why));
	} else if (o) {
		struct json_object *pw = vcp_power_json(&f);

		json_object_object_add(pw, "measured", json_object_new_boolean(1));
		json_object_object_add(o, "power", pw);
	} else {
		vcp_power_text(stdout, &f);
	}
	vcp_pwr_figs_clear(&f);
	vcp_power_probe_clear(p);
}

/* The root whose /proc is the host's: --root, or "/" for a local QEMU
 * host; NULL otherwise (IRQs, numad, tuned not looked at). */
static const char *host_root(const struct ctx *c)
{
	return c->root ? c->root : c->k ? c->k->root : NULL;
}

/* One status: what vcpackd does, the map, the VMs, the power figures. */
static int status_once(struct ctx *c)
{
	struct vcp_world w = { 0 };
	struct vcp_pkg_map map = { 0 };
	struct vcp_irqview iv;
	struct vcp_placers pl;
	struct vcp_power_probe probe = { 0 };
	struct json_object *st = NULL;
	const char *why = NULL;
	char *bad = NULL;
	int r = 0;

	vcp_irqview_begin(&iv, host_root(c));
	vcp_placers_detect(iv.root, &pl);
	if (power_start(c, &probe, &why) == -EINVAL)
		r = vcp_cli_err(EXIT_USAGE, "--power-root '%s': %s",
				c->power_root, why);
	/* the text report says each issue; JSON holds it, stderr says it */
	if (!r && !c->sample_set && daemon_view(c, &w, c->json) == 0)
		r = 0;
	else if (!r)
		r = observe(c, &w, c->sample_ms, c->json);
	if (!r && vcp_pkg_map_build(w.host, w.vms, w.n_vms, NULL, &map) < 0)
		r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
	if (!r)
		vcp_irqview_end(&iv, w.host);
	if (!r)
		st = daemon_status(c, &bad);
	if (bad)
		vcp_cli_err(0, "%s", bad);
	if (!r && c->json) {
		struct json_object *o = header_json(c, &w);
		struct json_object *dj = daemon_json(st);

		if (bad)
			json_object_object_add(dj, "reply_error",
					       json_object_new_string(bad));
		json_object_object_add(o, "vcpackd", dj);
		json_object_object_add(o, "interrupts",
				       vcp_irqview_json(&iv, w.host));
		json_object_object_add(o, "placers",
				       vcp_placers_json(&pl, w.vms, w.n_vms));

		json_object_object_add(o, "packages",
				       vcp_render_map_json(w.host, w.vms, &map));
		json_object_object_add(o, "vms", vcp_render_vms_json(
			w.host, w.vms, w.n_vms, &c->policy));
		power_show(c, &probe, why, o);
		vcp_cli_json(o);
	} else if (!r) {
		struct vcp_fold_capture fc;

		/* header lines folded to the width (tables already fit) */
		vcp_fold_begin(&fc, c->wide ? 0 : vcp_width_cols());
		header_text(c, &w);
		if (bad)
			printf("vcpackd: its reply refused, not shown (see the error)\n");
		else
			daemon_text(c, st);
		vcp_irqview_text(stdout, &iv, w.host);
		vcp_placers_text(stdout, &pl, w.vms, w.n_vms);
		printf("packages:\n");
		vcp_render_map_fit(stdout, w.host, w.vms, &map, c->wide);
		printf("VMs:\n");
		vcp_render_vms_fit(stdout, w.host, w.vms, w.n_vms, &c->policy,
				   c->wide);
		power_show(c, &probe, why, NULL);
		vcp_fold_end(&fc);
	}
	if (!r && bad)
		r = EXIT_PARTIAL;
	free(bad);
	json_object_put(st);
	vcp_irqview_clear(&iv);
	vcp_power_probe_clear(&probe);
	vcp_pkg_map_clear(&map);
	vcp_world_clear(&w);
	return r;
}

static int status_frame(void *arg)
{
	return status_once(arg);
}

/* vcpack status [--watch [SECONDS]] */
/*
 * vcpackd waits for this libvirt (it stopped answering): vcpack would
 * too, so status shows vcpackd's view and says so (1), without
 * connecting. -1: ask libvirt as usual.
 */
static int daemon_waits(struct ctx *c)
{
	struct json_object *st = daemon_status(c, NULL);
	struct json_object *busy = json_object_object_get(st, "busy");
	int64_t ms = int_of(busy, "for_ms");

	if (!busy || ms < 1000 ||
	    !json_object_get_boolean(json_object_object_get(busy, "waiting")) ||
	    !c->uri || strcmp(str_of(st, "uri"), c->uri) != 0) {
		json_object_put(st);
		return -1;
	}
	if (c->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "vcpackd", daemon_json(st));
		vcp_cli_json(o);
	} else {
		daemon_text(c, st);
	}
	vcp_cli_err(0,
		    "libvirt at '%s' has not answered vcpackd for %" PRId64
		    " s: not connecting to it (shown: vcpackd's last view)",
		    c->uri, ms / 1000);
	json_object_put(st);
	return EXIT_PARTIAL;
}

static int cmd_status(struct ctx *c, int argc, char **argv)
{
	double every = 0;
	int r;

	if (argc > 1 && (!strcmp(argv[1], "--watch") || !strcmp(argv[1], "-w"))) {
		every = VCP_WATCH_DEFAULT;
		if (argc > 2 && vcp_watch_parse(argv[2], &every) < 0)
			return vcp_cli_err(EXIT_USAGE, "--watch '%s' is not a number of seconds from %g to %g",
					   argv[2], VCP_WATCH_MIN, VCP_WATCH_MAX);
		argv += argc > 2;
		argc -= 1 + (argc > 2);
	}
	if (argc > 1)
		return vcp_cli_err(EXIT_USAGE, "status takes only --watch [SECONDS], got '%s'",
			       argv[1]);
	if (every <= 0 && (r = daemon_waits(c)) >= 0)
		return r;
	r = setup(c, true);
	if (r)
		return r;
	if (every <= 0)
		return status_once(c);
	c->watching = true;
	return vcp_watch_run(every, "vcpack status", status_frame, c);
}

/* ---- metrics ---- */

static int cmd_metrics(struct ctx *c, int argc, char **argv)
{
	struct vcp_world w = { 0 };
	struct vcp_power_probe probe = { 0 };
	struct vcp_pwr_figs figs = { 0 };
	struct vcp_sample *s = NULL;
	const char *why = NULL;
	char *text = NULL, *err = NULL;
	bool power;
	int r;

	if (argc > 1)
		return vcp_cli_err(EXIT_USAGE, "metrics takes no arguments, got '%s'",
			       argv[1]);
	r = setup(c, true);
	if (!r && power_start(c, &probe, &why) == -EINVAL)
		r = vcp_cli_err(EXIT_USAGE, "--power-root '%s': %s",
				c->power_root, why);
	if (!r)
		r = observe(c, &w, c->sample_ms, false);
	if (!r && vcp_virt_sample(c->v, &s, &err) < 0) {
		vcp_cli_err(0, "%s", err ? err : "sampling vCPU times failed");
		free(err);
		s = NULL;
	}
	power = !r && !why && vcp_power_probe_finish(&probe, 250, &figs) == 0;
	if (!r && !why && !power)
		vcp_cli_err(0, "power figures not measured: %s",
			    vcp_power_probe_why(&probe) ?
				    vcp_power_probe_why(&probe) :
				    "the second read of the counters failed");
	else if (!r && why && c->power_root)
		vcp_cli_err(0, "power figures not measured: %s", why);
	if (!r) {
		struct vcp_metrics_in in = {
			.vms = w.vms, .n_vms = w.n_vms, .policy = &c->policy,
			.sample = s, .level = w.cur_level,
			.snap = power ? &probe.last : NULL,
			.figs = power ? &figs : NULL,
		};

		if (vcp_metrics_render(&in, &text) < 0)
			r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
		else
			fputs(text, stdout);
	}
	free(text);
	vcp_sample_free(s);
	vcp_pwr_figs_clear(&figs);
	vcp_power_probe_clear(&probe);
	vcp_world_clear(&w);
	return r;
}

/* While vcpackd manages this host (running for this URI, not paused),
 * `apply` asks it to re-plan and `restore` is refused: vcpackd would
 * restate its plan. The pid of that vcpackd, or 0. */
static int managed_by(struct ctx *c, const char *what)
{
	char *bad = NULL;
	struct json_object *st = daemon_status(c, &bad);
	int pid = daemon_managing(c, st);

	/* whether vcpackd manages the host is not known: change nothing */
	if (bad) {
		vcp_cli_err(0, "refusing to %s: %s", what, bad);
		pid = -1;
	}
	free(bad);
	json_object_put(st);
	return pid;
}

static int apply_through_daemon(struct ctx *c, int pid)
{
	struct vcp_req req = { .op = VCP_REQ_REPLAN,
			       .version = VCP_PROTO_VERSION };
	struct json_object *o = NULL, *st;
	char *err = NULL;
	int r = vcp_ctl_call(socket_path(c), &req, 30000, VCP_CTL_MAX_REPLY,
			     &o, &err);

	if (r < 0) {
		vcp_cli_err(0, "vcpackd (pid %d) manages this host and did not re-plan: %s",
			    pid, err ? err : strerror(-r));
		free(err);
		return EXIT_PARTIAL;
	}
	json_object_put(o);
	st = daemon_status(c, NULL);
	if (c->json) {
		vcp_cli_json(daemon_json(st));
	} else {
		printf("vcpackd (pid %d) manages this host: it re-planned and applied its plan\n",
		       pid);
		daemon_text(c, st);
	}
	json_object_put(st);
	return 0;
}

/* ---- plan and apply ---- */

struct planned {
	struct vcp_cycle cy;
	struct vcp_pkg_map before, after;
	struct vcp_irq_report irq;	/* apply: device IRQs */
	struct vcp_placers placers; /* numad, tuned (placers.h) */
};

static void planned_clear(struct planned *p)
{
	vcp_pkg_map_clear(&p->before);
	vcp_pkg_map_clear(&p->after);
	vcp_cycle_clear(&p->cy);
}

/* The demand vcpackd plans on when it runs for this URI (so that plan
 * shows what vcpackd does), else (or with --sample) a measurement of
 * sample_ms with the same code (demand.h). @warn: issues on stderr too
 * (false where the text report shows them). */
static int make_plan(struct ctx *c, struct planned *p, bool warn)
{
	struct vcp_world *w = &p->cy.w;
	char *err = NULL;
	int r = 0, bad = 0;

	if (c->sample_set || daemon_view(c, w, false) != 0)
		r = vcp_cycle_observe(c->v, c->k, c->mode, c->sample_ms, NULL,
				      &p->cy, &err);

	/* reserved_cpus this host lacks: the policy is refused (exit 2) */
	if (r == 0 && vcp_plan_check_reserved(w->host, &c->policy, &err) < 0)
		r = bad = -EINVAL;
	if (r == 0) {
		struct vcp_policy pol = plan_policy(c);

		r = vcp_cycle_finish(&pol, time(NULL), &p->cy, &err);
	}
	if (r < 0) {
		vcp_cli_err(0, "%s", err ? err : strerror(-r));
		free(err);
		return bad ? EXIT_USAGE : EXIT_PARTIAL;
	}
	for (size_t i = 0; warn && i < w->n_issues; i++)
		vcp_cli_err(0, "'%s': %s", w->issues[i].vm, w->issues[i].msg);
	vcp_placers_detect(host_root(c), &p->placers);
	r = vcp_pkg_map_build(w->host, w->vms, w->n_vms, NULL, &p->before);
	if (r == 0)
		r = vcp_pkg_map_build(w->host, w->vms, w->n_vms, p->cy.plan,
				      &p->after);
	if (r < 0)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	return 0;
}

/* What the headline's figures are made of: the demand (measured or
 * assumed) and the usable CPUs (cores, SMT threads, headroom). */
static void plan_figures_text(const struct ctx *c, const struct planned *p)
{
	const struct vcp_policy *pol = &c->policy;

	if (!p->cy.w.demand_measured)
		printf("        demand assumed: %.2f CPU per vCPU (policy default_vcpu_demand), as nothing was measured\n",
		       pol->default_vcpu_demand);
	printf("        usable: a core counts 1 CPU and its extra SMT thread %.2f (smt_yield), less %.0f%% headroom\n",
	       pol->smt_yield, 100 * pol->headroom);
}

static void plan_summary_text(const struct planned *p)
{
	const struct vcp_plan *pl = p->cy.plan;

	printf("plan:   level %d, %zu of %zu packages active, demand %.2f of %.2f CPUs usable",
	       pl->level, pl->n_active, pl->n_packages, pl->demand, pl->capacity);
	if (pl->overcommit > 0)
		printf(", OVERCOMMITTED by %.2f CPUs", pl->overcommit);
	putchar('\n');
	if (pl->level_reason)
		printf("        level %d: %s\n", pl->level, pl->level_reason);
	if (!vcp_cpuset_empty(&pl->reserved)) {
		char buf[256];

		if (vcp_cpuset_format(&pl->reserved, buf, sizeof(buf)) < 0)
			snprintf(buf, sizeof(buf), "%u CPUs",
				 vcp_cpuset_count(&pl->reserved));
		printf("        reserved for the host: CPUs %s", buf);
		if (pl->n_reserved_pkgs)
			printf(" (%zu whole package(s), not counted above)",
			       pl->n_reserved_pkgs);
		putchar('\n');
	}
	for (size_t i = 0; i < pl->n_vms; i++)
		if (pl->vms[i].degraded)
			printf("warning: '%s': %s\n", vcp_esc(pl->vms[i].name),
			       vcp_esc_msg(pl->vms[i].degraded));
}

/* numad, tuned, VMs asking for NUMA placement: vcpackd logs the same. */
static void placers_text(const struct planned *p)
{
	char *said = vcp_placers_say(&p->placers, p->cy.w.vms, p->cy.w.n_vms);

	if (said && *said)
		printf("warning: %s\n", vcp_esc_msg(said));
	free(said);
}

static int report_plan(struct ctx *c, struct planned *p,
		       const struct vcp_apply_result *res,
		       const struct vcp_world *after_w,
		       const struct vcp_pkg_map *after_map)
{
	struct vcp_fold_capture fc;

	if (c->json) {
		struct json_object *o = header_json(c, &p->cy.w);

		json_object_object_add(o, "plan", vcp_plan_to_json(
			p->cy.plan, p->cy.w.host, p->cy.w.vms));
		json_object_object_add(o, "before", vcp_render_map_json(
			p->cy.w.host, p->cy.w.vms, &p->before));
		json_object_object_add(o, res ? "after" : "planned",
			res ? vcp_render_map_json(after_w->host, after_w->vms,
						  after_map) :
			      vcp_render_map_json(p->cy.w.host, p->cy.w.vms, &p->after));
		json_object_object_add(o, "actions", vcp_render_actions_json(
			p->cy.w.vms, &p->cy.acts, res));
		json_object_object_add(o, "memory",
				       vcp_render_memory_json(p->cy.w.vms,
							      p->cy.plan));
		if (res)
			json_object_object_add(o, "vms", vcp_render_vms_json(
				after_w->host, after_w->vms, after_w->n_vms,
				&c->policy));
		if (p->irq.acted)
			json_object_object_add(o, "irqs",
					       vcp_irq_report_json(&p->irq));
		json_object_object_add(o, "placers",
				       vcp_placers_json(&p->placers,
							p->cy.w.vms,
							p->cy.w.n_vms));
		vcp_cli_json(o);
		return 0;
	}
	/* header lines folded, as in status */
	vcp_fold_begin(&fc, c->wide ? 0 : vcp_width_cols());
	header_text(c, &p->cy.w);
	plan_summary_text(p);
	plan_figures_text(c, p);
	placers_text(p);
	printf("before:\n");
	vcp_render_map_fit(stdout, p->cy.w.host, p->cy.w.vms, &p->before,
			   c->wide);
	printf(res ? "actions:\n" : "actions (dry run, nothing changed):\n");
	vcp_render_actions_fit(stdout, p->cy.w.vms, &p->cy.acts, res, c->wide);
	vcp_render_memory_text(stdout, p->cy.w.vms, p->cy.plan, c->wide);
	if (res) {
		printf("after (as libvirt now reports it):\n");
		vcp_render_map_fit(stdout, after_w->host, after_w->vms, after_map,
				   c->wide);
		printf("VMs:\n");
		vcp_render_vms_fit(stdout, after_w->host, after_w->vms,
				   after_w->n_vms, &c->policy, c->wide);
		vcp_irq_report_text(stdout, &p->irq);
	} else {
		printf("planned:\n");
		vcp_render_map_fit(stdout, p->cy.w.host, p->cy.w.vms, &p->after,
				   c->wide);
		vcp_irq_report_text(stdout, &p->irq);
	}
	vcp_fold_end(&fc);
	return 0;
}

/* Device IRQs after the pins (policy irq_affinity), or what would be
 * done (@dry); only where this machine's /proc is the host's. */
static int follow_irqs(struct ctx *c, struct planned *p, bool dry)
{
	const char *root = host_root(c);
	int r;

	if (!root)
		return 0;
	r = (dry ? vcp_irq_preview : vcp_irq_follow)(root, p->cy.w.host,
		p->cy.plan, c->policy.irq_affinity, &p->irq);
	if (r < 0)
		vcp_cli_err(0, "Failed to steer device IRQs: %s", strerror(-r));
	return 0;
}

static int cmd_plan(struct ctx *c, int argc, char **argv)
{
	struct planned p = { 0 };
	bool exit_code = argc == 2 && strcmp(argv[1], "--exit-code") == 0;
	int r;

	if (argc > 1 && !exit_code)
		return vcp_cli_err(EXIT_USAGE, "plan takes only --exit-code, got '%s'",
			       argv[1]);
	r = setup(c, true);
	if (!r)
		r = make_plan(c, &p, c->json);
	if (!r)
		r = follow_irqs(c, &p, true);
	if (!r)
		r = report_plan(c, &p, NULL, NULL, NULL);
	/* --exit-code: 1 when apply would change something (git diff) */
	if (!r && exit_code && (p.cy.acts.n || p.irq.res.moved))
		r = 1;
	planned_clear(&p);
	return r;
}

/* ---- verify ---- */

static void verify_diff(struct json_object *diffs, const char *vm,
			const char *what, const char *is, const char *want)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "vm", vm ? json_object_new_string(vm) : NULL);
	json_object_object_add(o, "what", json_object_new_string(what));
	json_object_object_add(o, "is", json_object_new_string(is));
	json_object_object_add(o, "planned", json_object_new_string(want));
	json_object_array_add(diffs, o);
}

/* One VM against its entry in vcpackd's plan JSON. */
static void verify_vm(const struct vcp_vm *vm, struct json_object *pv,
		      struct json_object *diffs)
{
	struct json_object *want = json_object_object_get(pv, "vcpus");
	char what[32];

	if (strcmp(str_of(pv, "placement"), "unmanaged") == 0)
		return;
	for (unsigned int i = 0; i < vm->n_vcpus; i++) {
		struct json_object *w = json_object_array_get_idx(want, i);
		struct json_object *is = vcp_render_cpuset_json(&vm->vcpu_pins[i]);

		if (w && strcmp(json_object_get_string(is),
				json_object_get_string(w)) != 0) {
			snprintf(what, sizeof(what), "vCPU %u pins", i);
			verify_diff(diffs, vm->name, what,
				    json_object_get_string(is),
				    json_object_get_string(w));
		}
		json_object_put(is);
	}
}

/* The host against vcpackd's plan (@st: its status). */
static void verify_daemon(const struct vcp_world *w, struct json_object *st,
			  struct json_object *diffs)
{
	struct json_object *pvms = json_object_object_get(
		json_object_object_get(json_object_object_get(st, "last"),
				       "plan"), "vms");
	char lv[8];

	for (size_t i = 0; i < w->n_vms; i++) {
		struct json_object *pv = NULL;

		for (size_t k = 0; k < json_object_array_length(pvms); k++)
			if (strcmp(str_of(json_object_array_get_idx(pvms, k), "name"),
				   w->vms[i].name) == 0)
				pv = json_object_array_get_idx(pvms, k);
		if (pv)
			verify_vm(&w->vms[i], pv, diffs);
		else if (w->vms[i].managed)
			verify_diff(diffs, w->vms[i].name, "placement",
				    "running", "not in vcpackd's last plan yet");
	}
	snprintf(lv, sizeof(lv), "%lld", int_of(json_object_object_get(st, "last"),
						"level"));
	if (w->cur_level >= 0 && w->cur_level != atoi(lv)) {
		char is[8];

		snprintf(is, sizeof(is), "%d", w->cur_level);
		verify_diff(diffs, NULL, "sched_mc_power_savings", is, lv);
	}
}

/* The host against a fresh plan: what apply would do. */
static int verify_fresh(struct ctx *c, struct json_object *diffs)
{
	struct planned p = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r = make_plan(c, &p, true);

	if (r) {
		planned_clear(&p);
		return r;
	}
	/* --json: each action whole; text: as plan shows them */
	f = open_memstream(&buf, &len);
	if (f && c->json)
		vcp_render_actions_text(f, p.cy.w.vms, &p.cy.acts, NULL);
	else if (f)
		vcp_render_actions_fit(f, p.cy.w.vms, &p.cy.acts, NULL,
				       c->wide);
	if (f)
		fclose(f);
	for (char *l = buf && p.cy.acts.n ? strtok(buf, "\n") : NULL; l;
	     l = strtok(NULL, "\n"))
		verify_diff(diffs, NULL, "action", "differs", l + strspn(l, " "));
	free(buf);
	planned_clear(&p);
	return 0;
}

/* The vCPU of a difference "vCPU N pins", or -1. */
static int diff_vcpu(struct json_object *d)
{
	unsigned int v;
	int n = -1;

	if (sscanf(str_of(d, "what"), "vCPU %u pins%n", &v, &n) == 1 &&
	    n == (int)strlen(str_of(d, "what")))
		return (int)v;
	return -1;
}

/* Whether difference @j is @i's (a vCPU's pins) for another vCPU of the
 * same VM, pinned alike now (struct vcp_vcpu_rows' same). */
static bool same_but_vcpu(const void *ctx, size_t i, size_t j)
{
	struct json_object *d = json_object_array_get_idx(ctx, i);
	struct json_object *e = json_object_array_get_idx(ctx, j);

	return diff_vcpu(e) >= 0 && !strcmp(str_of(d, "vm"), str_of(e, "vm")) &&
	       !strcmp(str_of(d, "is"), str_of(e, "is"));
}

static unsigned int diff_vcpu_of(const void *ctx, size_t j)
{
	return (unsigned int)diff_vcpu(json_object_array_get_idx(ctx, j));
}

static const char *diff_planned(const void *ctx, size_t j, char *buf,
				size_t len)
{
	(void)buf;
	(void)len;
	return str_of(json_object_array_get_idx(ctx, j), "planned");
}

/* Difference @i, a vCPU's pins, with the vCPUs of the differences after
 * it that say the same as one "vCPUs 0-7 pins" line (as plan folds
 * them); returns the index of the last difference it stands for. */
static size_t put_vcpu_diffs(struct json_object *diffs, size_t i)
{
	const struct vcp_vcpu_rows rows = { diffs,
					    json_object_array_length(diffs),
					    same_but_vcpu, diff_vcpu_of,
					    diff_planned };
	struct json_object *d = json_object_array_get_idx(diffs, i);
	char v[256];
	size_t j = vcp_render_vcpu_run(&rows, i, v, sizeof(v));

	if (j > i)
		printf("vCPUs %s pins", v);
	else
		printf("%s", words_of(d, "what"));
	printf(": %s, planned ", words_of(d, "is"));
	vcp_render_vcpu_to(stdout, &rows, i, j);
	putchar('\n');
	return j;
}

/* Difference @i: a VM's (its name cut to the tables' width unless
 * --wide), the host's, or an action apply would take (as plan shows
 * it); returns the index of the last difference the line stands for. */
static size_t verify_line(struct vcp_names *nm, struct json_object *diffs,
			  size_t i)
{
	struct json_object *d = json_object_array_get_idx(diffs, i);
	struct json_object *vm = json_object_object_get(d, "vm");

	if (!strcmp(str_of(d, "what"), "action")) {
		printf("  planned: %s\n", words_of(d, "planned"));
		return i;
	}
	if (vm)
		printf("  '%s' ",
		       vcp_render_cut(nm, json_object_get_string(vm)));
	else
		printf("  ");
	if (diff_vcpu(d) >= 0)
		return put_vcpu_diffs(diffs, i);
	printf("%s: %s, planned %s\n", words_of(d, "what"), words_of(d, "is"),
	       words_of(d, "planned"));
	return i;
}

/* The differences, folded to the width unless --wide. */
static void verify_text(const struct ctx *c, struct json_object *diffs)
{
	struct vcp_fold_capture fc;
	struct vcp_names nm;
	size_t n = json_object_array_length(diffs);

	vcp_names_init(&nm, VCP_RENDER_NAME_W, c->wide);
	for (size_t i = 0; i < n; i++) {
		struct json_object *vm = json_object_object_get(
			json_object_array_get_idx(diffs, i), "vm");

		if (vm)
			vcp_names_add(&nm, json_object_get_string(vm));
	}
	vcp_fold_begin(&fc, c->wide ? 0 : vcp_width_cols());
	for (size_t i = 0; i < n; i++)
		i = verify_line(&nm, diffs, i);
	vcp_fold_end(&fc);
	vcp_names_clear(&nm);
}

static int cmd_verify(struct ctx *c, int argc, char **argv)
{
	struct json_object *st = NULL, *diffs = json_object_new_array();
	struct vcp_world w = { 0 };
	char *bad = NULL;
	bool by_daemon;
	size_t n;
	int r;

	if (argc > 1)
		return vcp_cli_err(EXIT_USAGE, "verify takes no arguments, got '%s'",
				   argv[1]);
	r = setup(c, true);
	if (!r)
		st = daemon_status(c, &bad);
	if (bad) {
		/* neither vcpackd's plan nor a fresh one would be the truth */
		vcp_cli_err(0, "refusing to verify: %s", bad);
		free(bad);
		json_object_put(diffs);
		return EXIT_PARTIAL;
	}
	by_daemon = st && json_object_object_get(st, "last") &&
		    json_object_get_boolean(json_object_object_get(st, "connected")) &&
		    strcmp(str_of(st, "uri"), vcp_virt_uri(c->v)) == 0;
	if (!r && by_daemon) {
		r = observe(c, &w, 0, false);
		if (!r)
			verify_daemon(&w, st, diffs);
	} else if (!r) {
		c->sample_ms = c->sample_set ? c->sample_ms : 0;
		r = verify_fresh(c, diffs);
	}
	n = json_object_array_length(diffs);
	if (!r && c->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "against", json_object_new_string(
				       by_daemon ? "vcpackd" : "fresh-plan"));
		json_object_object_add(o, "as_planned", json_object_new_boolean(!n));
		json_object_object_add(o, "differences", json_object_get(diffs));
		vcp_cli_json(o);
	} else if (!r) {
		vcp_fold_printf(stdout, c->wide ? 0 : vcp_width_cols(),
				"verify: %s (%s)\n",
				n ? "the host differs from the plan" :
				    "the host is as planned",
				by_daemon ?
					"against the plan vcpackd carries out" :
					"against a fresh plan");
		verify_text(c, diffs);
	}
	if (!r && n)
		r = 1;
	json_object_put(diffs);
	json_object_put(st);
	vcp_world_clear(&w);
	return r;
}

static int cmd_apply(struct ctx *c, int argc, char **argv)
{
	struct planned p = { 0 };
	struct vcp_apply_result res = { 0 };
	struct vcp_world after = { 0 };
	struct vcp_pkg_map amap = { 0 };
	int r, pid;

	if (argc > 1)
		return vcp_cli_err(EXIT_USAGE, "apply takes no arguments, got '%s'",
			       argv[1]);
	r = setup(c, false);
	pid = r ? 0 : managed_by(c, "apply");
	if (pid < 0)
		return EXIT_PARTIAL;
	if (pid)
		return apply_through_daemon(c, pid);
	if (!r)
		r = make_plan(c, &p, c->json);
	if (!r && vcp_apply_actions(c->v, c->k, p.cy.w.host, p.cy.w.vms, &p.cy.acts,
				    &res) < 0)
		r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
	if (!r)
		r = follow_irqs(c, &p, false);
	if (!r)
		r = observe(c, &after, 0, false);
	if (!r && vcp_pkg_map_build(after.host, after.vms, after.n_vms, NULL,
				    &amap) < 0)
		r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
	if (!r) {
		report_plan(c, &p, &res, &after, &amap);
		if (!c->json && res.n_done && own_test_host(c))
			put_wrappedf(c, "note:   ", "libvirt's test driver gave this process its own copy of %s: what apply changed is gone when vcpack exits (a libvirtd running the test driver, test+unix://, keeps it for the next command)",
				     vcp_virt_uri(c->v));
		for (size_t i = 0; i < res.n; i++)
			if (res.e[i].outcome == VCP_FAILED ||
			    res.e[i].outcome == VCP_RETRY)
				vcp_cli_err(0, "%s", res.e[i].msg ? res.e[i].msg :
					"an action failed");
		if (res.n_failed || p.irq.res.failed)
			r = EXIT_PARTIAL;
	}
	vcp_pkg_map_clear(&amap);
	vcp_world_clear(&after);
	vcp_apply_result_clear(&res);
	planned_clear(&p);
	return r;
}

/* ---- tag ---- */

static int parse_tag_args(int argc, char **argv, const char **ret_dom,
			  struct vcp_tag *ret)
{
	static const struct option opts[] = {
		{ "priority", required_argument, NULL, 'P' },
		{ "class", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct vcp_tag t = { 0 };
	int o;

	optind = 0;
	while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (o == 'h') {
			print_cmd_help("tag");
			exit(0);
		} else if (o == 'P') {
			if (vcp_priority_from_name(optarg, &t.priority) < 0)
				return vcp_cli_err(EXIT_USAGE, "priority '%s' is not one of high, normal, low", optarg);
			t.has_priority = true;
		} else if (o == 'C') {
			if (vcp_tag_set_class(&t, optarg) < 0)
				return vcp_cli_err(EXIT_USAGE, "class '%s' is not one of " VCP_TAG_CLASSES, optarg);
		} else {
			return vcp_cli_badopt("tag", o, argv);
		}
	}
	if (optind != argc - 1)
		return vcp_cli_err(EXIT_USAGE, "tag needs exactly one DOMAIN (see 'vcpack tag --help')");
	if (!t.has_priority && !t.has_class && !t.unmanaged)
		return vcp_cli_err(EXIT_USAGE, "tag needs --priority or --class");
	*ret_dom = argv[optind];
	*ret = t;
	return 0;
}

static void tag_report(const struct ctx *c, const char *dom,
		       const struct vcp_tag *t)
{
	if (c->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "vm", json_object_new_string(dom));
		json_object_object_add(o, "priority", t->has_priority ?
			json_object_new_string(vcp_priority_name(t->priority)) : NULL);
		json_object_object_add(o, "class", t->has_class ?
			json_object_new_string(vcp_class_name(t->class)) : NULL);
		vcp_cli_json(o);
	} else {
		char *xml = vcp_tag_format(t);
		const char *x = xml ? xml : "";

		/* a long name: the tag on a line of its own, as explain */
		dom = vcp_esc(dom);
		if (c->wide || strlen(dom) + strlen(x) + 11 <= vcp_width_cols())
			printf("tagged '%s': %s\n", dom, x);
		else
			printf("tagged '%s':\n  %s\n", dom, x);
		free(xml);
	}
}

static int cmd_tag(struct ctx *c, int argc, char **argv)
{
	const char *dom = NULL;
	struct vcp_tag t;
	char *err = NULL, *name = NULL;
	int r = parse_tag_args(argc, argv, &dom, &t);

	if (r)
		return r;
	r = setup(c, false);
	if (r)
		return r;
	/* DOMAIN as virsh takes it: ID, UUID or name */
	r = vcp_virt_domain_name(c->v, dom, &name, &err);
	if (r == 0)
		r = vcp_virt_set_tag(c->v, name, &t, &err);
	if (r < 0) {
		vcp_cli_err(0, "%s", err ? err : strerror(-r));
		free(err);
		free(name);
		return r == -ENOENT ? EXIT_USAGE : EXIT_PARTIAL;
	}
	tag_report(c, name, &t);
	free(name);
	return 0;
}

/* ---- restore ---- */

static int select_vms(const struct vcp_world *w, int argc, char **argv,
		      bool **ret_only)
{
	bool *only;

	if (argc <= 1) {
		*ret_only = NULL;
		return 0;
	}
	only = calloc(w->n_vms ? w->n_vms : 1, sizeof(*only));
	if (!only)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	for (int a = 1; a < argc; a++) {
		bool found = false;

		for (size_t i = 0; i < w->n_vms; i++) {
			if (strcmp(w->vms[i].name, argv[a]) == 0) {
				only[i] = true;
				found = true;
			}
		}
		if (!found) {
			free(only);
			return vcp_cli_err(EXIT_USAGE, "no running domain '%s'; nothing restored", argv[a]);
		}
	}
	*ret_only = only;
	return 0;
}

static void restore_report(const struct ctx *c,
			   const struct vcp_restore_result *res,
			   const struct vcp_irq_report *irq)
{
	struct json_object *arr = json_object_new_array();
	struct vcp_names nm;

	vcp_names_init(&nm, VCP_RENDER_NAME_W, c->wide);
	for (size_t i = 0; i < res->n; i++)
		vcp_names_add(&nm, res->e[i].vm);
	for (size_t i = 0; i < res->n; i++) {
		const struct vcp_restore_entry *e = &res->e[i];
		struct json_object *o = json_object_new_object();

		if (!c->json)
			printf("  %-20s %s%s%s\n", vcp_render_cut(&nm, e->vm),
			       e->outcome != VCP_DONE ?
				       vcp_outcome_name(e->outcome) :
			       e->had_record ?
				       "restored to its original pins" :
				       "nothing recorded, left as it is",
			       e->msg ? ": " : "",
			       e->msg ? vcp_esc_msg(e->msg) : "");
		json_object_object_add(o, "vm", json_object_new_string(e->vm));
		json_object_object_add(o, "outcome",
			json_object_new_string(vcp_outcome_name(e->outcome)));
		json_object_object_add(o, "had_record",
				       json_object_new_boolean(e->had_record));
		json_object_object_add(o, "message", e->msg ?
				       json_object_new_string(e->msg) : NULL);
		json_object_array_add(arr, o);
	}
	vcp_names_clear(&nm);
	if (c->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "restored", arr);
		if (irq->acted)
			json_object_object_add(o, "irqs",
					       vcp_irq_report_json(irq));
		vcp_cli_json(o);
	} else {
		json_object_put(arr);
		vcp_irq_report_text(stdout, irq);
	}
}

/* One VM's record dropped, its pins left: what it said. */
static int forget_one(struct ctx *c, const char *name, struct json_object *arr)
{
	struct vcp_saved_pins s = { 0 };
	struct json_object *o = json_object_new_object();
	char *err = NULL, *rerr = NULL;
	const char *said;
	int r = vcp_virt_get_saved(c->v, name, &s, &rerr);
	bool had = r == 0 || r == -EINVAL;

	vcp_saved_pins_clear(&s);
	if (had)
		r = vcp_virt_clear_saved(c->v, name, &err);
	else if (r == -ENOENT)
		r = 0;
	else
		err = rerr ? strdup(rerr) : NULL;
	said = r < 0 ? "failed" :
	       !had  ? "nothing recorded, left as it is" :
	       rerr  ? "unreadable record of its original pins dropped; its pins are left as they are (the next apply records them as its original pins)" :
		       "record of its original pins dropped, not restored; its pins are left as they are (the next apply records them as its original pins)";
	if (!c->json)
		printf("  %-20s %s%s%s\n", name, said, err ? ": " : "",
		       err ? err : "");
	json_object_object_add(o, "vm", json_object_new_string(name));
	json_object_object_add(o, "outcome",
			       json_object_new_string(r < 0 ? "failed" :
							      "done"));
	json_object_object_add(o, "had_record", json_object_new_boolean(had));
	json_object_object_add(o, "record_readable",
			       json_object_new_boolean(had && !rerr));
	json_object_object_add(o, "message",
			       json_object_new_string(err ? err : said));
	json_object_array_add(arr, o);
	free(err);
	free(rerr);
	return r;
}

/* The DOMAINs of argv[1..] as virsh takes them (an ID or UUID becomes
 * its name, in argv), then which of @w's VMs they select (select_vms). */
static int select_domains(struct ctx *c, const struct vcp_world *w, int argc,
			  char **argv, bool **only)
{
	for (int a = 1; a < argc; a++) {
		char *name = NULL, *err = NULL;

		if (vcp_virt_domain_name(c->v, argv[a], &name, &err) == 0)
			argv[a] = name; /* lives until exit */
		free(err);
	}
	return select_vms(w, argc, argv, only);
}

/* restore --forget DOMAIN...: drop each record (unreadable or not),
 * leave the pins as they are. argv[0] is "--forget". */
static int cmd_forget(struct ctx *c, int argc, char **argv)
{
	struct json_object *arr;
	struct vcp_world w = { 0 };
	bool *only = NULL;
	int r, failed = 0;

	if (argc < 2)
		return vcp_cli_err(
			EXIT_USAGE,
			"restore --forget takes the DOMAINs whose record to drop");
	r = setup(c, false);
	if (!r)
		r = observe(c, &w, 0, false);
	if (!r)
		r = select_domains(c, &w, argc, argv, &only);
	free(only);
	vcp_world_clear(&w);
	if (r)
		return r;
	arr = json_object_new_array();
	if (!c->json)
		printf("restore --forget:\n");
	for (int a = 1; a < argc; a++)
		failed += forget_one(c, argv[a], arr) < 0;
	if (c->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "forgotten", arr);
		vcp_cli_json(o);
	} else {
		json_object_put(arr);
	}
	return failed ? EXIT_PARTIAL : 0;
}

static int cmd_restore(struct ctx *c, int argc, char **argv)
{
	struct vcp_world w = { 0 };
	struct vcp_restore_result res = { 0 };
	struct vcp_irq_report irq = { 0 };
	const char *root;
	bool *only = NULL;
	int r, pid;

	if (argc > 1 && strcmp(argv[1], "--forget") == 0)
		return cmd_forget(c, argc - 1, argv + 1);
	r = setup(c, false);
	pid = r ? 0 : managed_by(c, "restore");
	if (pid < 0)
		return EXIT_PARTIAL;
	if (pid)
		return vcp_cli_err(EXIT_USAGE, "refusing to restore: vcpackd (pid %d) manages this host and would restate its plan; 'vcpack pause' first (or stop vcpackd), then restore",
				   pid);
	if (!r)
		r = observe_to_restore(c, &w);
	if (!r)
		r = select_domains(c, &w, argc, argv, &only);
	if (!r && vcp_apply_restore(c->v, c->k, w.host, w.vms, w.n_vms, only,
				    &res) < 0)
		r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
	/* Every VM: also the device IRQs vcpack moved. */
	root = host_root(c);
	if (!r && argc <= 1 && root &&
	    vcp_irq_follow(root, w.host, NULL, false, &irq) < 0)
		vcp_cli_err(0, "Failed to restore device IRQs");
	if (!r) {
		struct vcp_fold_capture fc;

		/* a long failure message folded */
		vcp_fold_begin(&fc, c->json || c->wide ? 0 : vcp_width_cols());
		if (!c->json)
			printf("restore:\n");
		restore_report(c, &res, &irq);
		vcp_fold_end(&fc);
		if (res.n_failed || irq.res.failed)
			r = EXIT_PARTIAL;
	}
	free(only);
	vcp_restore_result_clear(&res);
	vcp_world_clear(&w);
	return r;
}

/* ---- runtime control through vcpackd: level, pause, resume ---- */

static int control_call(struct ctx *c, struct vcp_req *req, const char *what)
{
	struct json_object *st, *ctl;
	char *err = NULL;
	int r;

	req->version = VCP_PROTO_VERSION;
	st = daemon_call(c, req, &r, &err);
	if (!st) {
		if (r == -ENOENT || r == -ECONNREFUSED)
			vcp_cli_err(0, "vcpackd is not running (no answer on %s); nothing %s",
				    socket_path(c), what);
		else if (r == -EBADMSG)
			vcp_cli_err(
				0,
				"%s; whether anything %s is not known ('vcpack status')",
				err, what);
		else
			vcp_cli_err(0, "vcpackd refused: %s", err ? err : strerror(-r));
		free(err);
		return r == -EPROTO ? EXIT_USAGE : EXIT_PARTIAL;
	}
	if (c->json) {
		vcp_cli_json(daemon_json(st));
	} else {
		ctl = json_object_object_get(st, "control");
		printf("vcpackd (pid %lld): %s; level %s (%s)%s\n",
		       int_of(st, "pid"), words_of(st, "enabled_reason"),
		       shown_of(st, "level"), words_of(st, "level_reason"),
		       json_object_get_boolean(
			       json_object_object_get(ctl, "paused")) ?
			       "; PAUSED: nothing is re-pinned until 'vcpack resume'" :
			       "");
	}
	json_object_put(st);
	return 0;
}

static int cmd_level(struct ctx *c, int argc, char **argv)
{
	struct vcp_req req = { .op = VCP_REQ_LEVEL };
	int level;
	bool pol;

	if (argc != 2 || vcp_control_level_parse(argv[1], &level, &pol) < 0)
		return vcp_cli_err(EXIT_USAGE, "level needs one of 0, 1, 2, auto, policy%s%s%s",
				   argc > 1 ? ", got '" : "",
				   argc > 1 ? argv[1] : "", argc > 1 ? "'" : "");
	snprintf(req.level, sizeof(req.level), "%s", argv[1]);
	return control_call(c, &req, "set");
}

/* pause, resume, enable, disable, reload: the request of that name */
static int cmd_control(struct ctx *c, int argc, char **argv)
{
	struct vcp_req req = { 0 };

	if (vcp_req_op_of(argv[0], &req.op) < 0)
		return vcp_cli_err(EXIT_USAGE, "unknown command '%s'", argv[0]);
	if (argc > 1)
		return vcp_cli_err(EXIT_USAGE, "%s takes no arguments, got '%s'",
				   argv[0], argv[1]);
	return control_call(c, &req, "changed");
}

/* ---- policy check ---- */

/* Validate a policy file with the parser vcpackd uses; nothing else. */
static int cmd_policy(struct ctx *c, int argc, char **argv)
{
	struct vcp_policy p;
	const char *path;
	char *err = NULL;
	int r;

	if (argc < 2 || strcmp(argv[1], "check") != 0 || argc > 3)
		return vcp_cli_err(EXIT_USAGE, "policy needs 'check [FILE]' (see 'vcpack policy --help')");
	r = vcp_policy_load_host(argc == 3 ? argv[2] : c->policy_path, &p,
				 &path, &err);
	if (r < 0) {
		vcp_cli_err(0, "%s", err ? err : strerror(-r));
		free(err);
		vcp_policy_clear(&p);
		return EXIT_USAGE;
	}
	if (c->json) {
		vcp_cli_json(vcp_policy_to_json(&p));
	} else if (access(path, F_OK) == 0) {
		printf("%s: a valid policy\n", vcp_esc(path));
	} else {
		printf("%s: no such file; the built-in defaults apply\n",
		       vcp_esc(path));
	}
	vcp_policy_clear(&p);
	return 0;
}

/* ---- explain ---- */

/* @prefix then the text, its words folded at vcp_width_cols() (unless
 * --wide) with the lines after the first under the text's start. */
__attribute__((format(printf, 3, 4)))
static void put_wrappedf(const struct ctx *c, const char *prefix,
			 const char *fmt, ...)
{
	size_t n = strlen(prefix);
	char text[4096], *line;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* one line: names and libvirt's words in it escaped */
	if (asprintf(&line, "%s%s", prefix,
		     vcp_esc_msg(text + strspn(text, " "))) < 0)
		return;
	vcp_fold_line(stdout, line, n, n, c->wide ? 0 : vcp_width_cols());
	free(line);
}

static void explain_text(const struct ctx *c, struct json_object *o)
{
	struct json_object *mv = json_object_object_get(o, "would_move");
	struct json_object *delay = json_object_object_get(o, "delay");
	struct json_object *pkg = json_object_object_get(o, "package");
	const char *vm = shown_of(o, "vm"), *uuid = shown_of(o, "uuid");

	if (c->wide || strlen(vm) + strlen(uuid) + 5 <= vcp_width_cols())
		printf("'%s' (%s)\n", vm, uuid);
	else
		printf("'%s'\n  (%s)\n", vm, uuid);
	put_wrappedf(c, "  class:    ", "%s: %s", str_of(o, "class"),
		     str_of(o, "class_reason"));
	put_wrappedf(c, "  demand:   ", "%.2f CPUs over %lld vCPUs%s",
		     json_object_get_double(json_object_object_get(o, "demand")),
		     int_of(o, "vcpus"),
		     json_object_get_boolean(json_object_object_get(o, "demand_assumed")) ?
		     " (not measured: the policy's default_vcpu_demand assumed)" : "");
	if (delay)
		printf("  delay:    waits %.1f%% of the time for a host CPU\n",
		       100 * json_object_get_double(delay));
	else
		printf("  delay:    not measured\n");
	put_wrappedf(c, "  now:      ", "CPUs %s", str_of(o, "pins_now"));
	put_wrappedf(c, "  planned:  ", "%s%s%s, CPUs %s", str_of(o, "placement"),
		     pkg ? " on package " : "", pkg ? json_object_get_string(pkg) : "",
		     str_of(o, "cpus"));
	put_wrappedf(c, "  why:      ", "%s", str_of(o, "why_cpus"));
	put_wrappedf(c, "  level:    ", "%lld (%s)", int_of(o, "level"),
		     str_of(o, "level_reason"));
	if (json_object_object_get(o, "degraded"))
		put_wrappedf(c, "  degraded: ", "%s", str_of(o, "degraded"));
	put_wrappedf(c, "  memory:   ", "%s: %s", str_of(o, "memory"),
		     str_of(o, "memory_reason"));
	printf("  would move it:\n");
	for (size_t i = 0; i < json_object_array_length(mv); i++)
		put_wrappedf(c, "    - ", "%s",
			     json_object_get_string(
				     json_object_array_get_idx(mv, i)));
}

static int cmd_explain(struct ctx *c, int argc, char **argv)
{
	struct vcp_cycle cy = { 0 };
	struct vcp_policy pol;
	char *name = NULL, *err = NULL;
	size_t i = 0;
	int r;

	if (argc != 2)
		return vcp_cli_err(EXIT_USAGE, "explain needs exactly one DOMAIN");
	r = setup(c, true);
	if (!r && vcp_virt_domain_name(c->v, argv[1], &name, &err) < 0)
		r = vcp_cli_err(EXIT_USAGE, "%s", err ? err : "no such domain");
	/* the demand vcpackd measured when it runs here, else a sample */
	if (!r && (c->sample_set || daemon_view(c, &cy.w, false) != 0))
		r = observe(c, &cy.w, c->sample_ms, false);
	while (!r && i < cy.w.n_vms && strcmp(cy.w.vms[i].name, name))
		i++;
	if (!r && i == cy.w.n_vms)
		r = vcp_cli_err(EXIT_USAGE, "'%s' is not running: nothing planned for it",
				name);
	pol = plan_policy(c);
	if (!r && vcp_cycle_finish(&pol, time(NULL), &cy, &err) < 0)
		r = vcp_cli_err(EXIT_PARTIAL, "%s", err ? err : "planning failed");
	if (!r) {
		struct json_object *o = vcp_explain_json(&cy.w, cy.plan,
							 &c->policy, i);

		if (c->json)
			vcp_cli_json(o);
		else {
			explain_text(c, o);
			json_object_put(o);
		}
	}
	free(err);
	free(name);
	vcp_cycle_clear(&cy);
	return r;
}

/* ---- list (cli-list.c): as `virsh list`; the bash completion asks
 * `list --name` for DOMAIN words ---- */

static int cmd_list(struct ctx *c, int argc, char **argv)
{
	struct vcp_cli_list l;
	int r = setup(c, true);

	if (r)
		return r;
	l = (struct vcp_cli_list){ .json = c->json, .wide = c->wide,
				   .policy = &c->policy, .v = c->v };
	return vcp_cli_list(argc, argv, &l);
}

/* ---- trial (cli-trial.c) ---- */

static int cmd_trial(struct ctx *c, int argc, char **argv)
{
	struct vcp_cli_host h;
	int r = setup(c, false);

	if (r)
		return r;
	h = (struct vcp_cli_host){
		.json = c->json,
		.wide = c->wide,
		.sample_ms = c->sample_ms,
		.policy = &c->policy,
		.v = c->v,
		.k = c->k,
		.mode = c->mode,
		.power_root = c->power_root,
		.daemon_socket = c->daemon_socket ? c->daemon_socket :
				 getenv("VCPACK_SOCKET") ?
						    getenv("VCPACK_SOCKET") :
						    VCP_CTL_SOCKET,
	};
	return vcp_cli_trial(argc, argv, &h);
}

/* ---- fleet (cli-fleet.c) ---- */

static int cmd_fleet(struct ctx *c, int argc, char **argv)
{
	struct vcp_cli_common common = {
		.json = c->json, .wide = c->wide, .sample_ms = c->sample_ms,
		.policy = &c->policy,
	};
	int r;

	if (load_policy(c) < 0)
		return EXIT_USAGE;
	r = vcp_cli_fleet(argc, argv, &common);
	vcp_policy_clear(&c->policy);
	return r;
}

/* ---- main ---- */

static const struct {
	const char *name;
	int (*fn)(struct ctx *c, int argc, char **argv);
} commands[] = {
	{ "status", cmd_status },   { "plan", cmd_plan },
	{ "metrics", cmd_metrics }, { "apply", cmd_apply },
	{ "tag", cmd_tag },	    { "restore", cmd_restore },
	{ "trial", cmd_trial },	    { "level", cmd_level },
	{ "pause", cmd_control },   { "verify", cmd_verify },
	{ "explain", cmd_explain }, { "resume", cmd_control },
	{ "list", cmd_list },	    { "enable", cmd_control },
	{ "disable", cmd_control }, { "reload", cmd_control },
	{ "policy", cmd_policy },
};

static int parse_global(struct ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "policy", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "mode", required_argument, NULL, 'm' },
		{ "sample", required_argument, NULL, 's' },
		{ "root", required_argument, NULL, 'r' },
		{ "daemon-socket", required_argument, NULL, 'D' },
		{ "power-root", required_argument, NULL, 'P' },
		{ "wide", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	char *end;
	long v;
	int o;

	opterr = 0; /* vcp_cli_badopt() says it, "vcpack:" first */
	while ((o = getopt_long(argc, argv, "+:c:p:jhV", opts, NULL)) != -1) {
		switch (o) {
		case 'c': c->uri = optarg; break;
		case 'p': c->policy_path = optarg; break;
		case 'j': c->json = true; break;
		case 'r': c->root = optarg; break;
		case 'D': c->daemon_socket = optarg; break;
		case 'P': c->power_root = optarg; break;
		case 'W':
			c->wide = true;
			vcp_cli_wide();
			break;
		case 'm':
			c->force_mode = vcp_mode_parse(optarg);
			if (c->force_mode == -2)
				return vcp_cli_err(
					EXIT_USAGE,
					"--mode '%s' is not one of auto, pin, kernel, scx",
					optarg);
			break;
		case 's':
			v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 600000)
				return vcp_cli_err(EXIT_USAGE, "--sample '%s' is not a number of milliseconds from 0 to 600000", optarg);
			c->sample_ms = (unsigned int)v;
			c->sample_set = true;
			break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': puts("vcpack " VCP_VERSION); exit(0);
		default:
			return vcp_cli_badopt(NULL, o, argv);
		}
	}
	return 0;
}

/* Is @a a global option (then *ret_arg: it takes the next word)? */
static bool is_global(const char *a, bool *ret_arg)
{
	static const char *const with[] = { "--connect", "--policy", "--mode",
		"--sample", "--root", "--daemon-socket", "--power-root" };
	size_t n;

	*ret_arg = false;
	if (!strcmp(a, "-j") || !strcmp(a, "--json") || !strcmp(a, "--wide"))
		return true;
	if (!strcmp(a, "-c") || !strcmp(a, "-p"))
		return (*ret_arg = true);
	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++) {
		n = strlen(with[i]);
		if (!strncmp(a, with[i], n) && (!a[n] || a[n] == '='))
			return (*ret_arg = !a[n]) || true;
	}
	return false;
}

/*
 * Global options after the command (vcpack status --json): taken out of
 * @argv (the command's words) and parsed as if given before it. Not for
 * fleet, whose own --sample and --json mean something else; for trial
 * all but --sample (its read interval), so that `vcpack trial -c URI`
 * connects to URI alone, never to the default URI first.
 */
static int late_globals(struct ctx *c, int *argc, char **argv, bool own_sample)
{
	char **g = calloc((size_t)*argc + 2, sizeof(*g));
	int n = 1, k = 1, r = 0;
	bool arg;

	if (!g)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	g[0] = "vcpack";
	for (int i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[k++] = argv[i++];
			break;
		}
		if (!is_global(argv[i], &arg) ||
		    (own_sample && !strncmp(argv[i], "--sample", 8))) {
			argv[k++] = argv[i];
			continue;
		}
		g[n++] = argv[i];
		if (arg && i + 1 < *argc)
			g[n++] = argv[++i];
	}
	*argc = k;
	argv[k] = NULL;
	if (n > 1) {
		optind = 0;
		r = parse_global(c, n, g);
		if (r == 0 && optind < n)
			r = vcp_cli_err(EXIT_USAGE, "unexpected argument '%s'", g[optind]);
	}
	free(g);
	return r;
}

int main(int argc, char **argv)
{
	struct ctx c = { .force_mode = -1, .sample_ms = 1000,
			 .power_root = getenv("VCPACK_POWER_ROOT") };
	int r;

	/* a transport that dies (libvirt's ssh when ssh exits) must give an
	 * error per host, not end vcpack without a word */
	signal(SIGPIPE, SIG_IGN);
	/* keepalive on every connection: a stalled libvirtd is given up */
	vcp_virt_event_thread();
	vcp_width_set(vcp_width_of(STDOUT_FILENO, false)); /* --wide: 0 */
	r = parse_global(&c, argc, argv);

	if (r)
		return r;
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	/* vcpack help [COMMAND] */
	if (strcmp(argv[0], "help") == 0) {
		if (argc < 2) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (strcmp(argv[1], "fleet") == 0)
			return cmd_fleet(&c, 2, (char *[]){ "fleet", "--help", NULL });
		if (print_cmd_help(argv[1]))
			return 0;
		return vcp_cli_err(EXIT_USAGE, "no command '%s' (see 'vcpack help')",
				   argv[1]);
	}
	if (strcmp(argv[0], "fleet") == 0)
		return cmd_fleet(&c, argc, argv);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[0], commands[i].name) != 0)
			continue;
		r = late_globals(&c, &argc, argv, commands[i].fn == cmd_trial);
		if (r)
			return r;
		if (argc > 1 && (strcmp(argv[1], "--help") == 0 ||
				 strcmp(argv[1], "-h") == 0)) {
			print_cmd_help(argv[0]);
			return 0;
		}
		r = commands[i].fn(&c, argc, argv);
		teardown(&c);
		return r;
	}
	return vcp_cli_err(EXIT_USAGE, "unknown command '%s' (see 'vcpack --help')",
		       argv[0]);
}
