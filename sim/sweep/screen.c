/* screen.c - the first stage of a sweep: every plan of the product is
 * applied to the base scenario, checked (plan_check), fitted in memory
 * (plan_memory_fit, the verdict `podsim run` reports) and timed in closed
 * form (estimate.c); pruned plans are
 * counted by reason. Deterministic: plans are visited in index order. */
#include "sweep_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct screen_ctx {
	const sweep_space *sp;
	const plan_scenario *base;
	const char *path;
	const char *const *sets;
	size_t nsets;
	bool fast, derive;
	bool fp32_dim; /* parallel.fp32_grads is a dimension: no rule derives it */
	bool sp_dim;   /* parallel.sequence_parallel is one: nor it */
	bool zero_dim; /* parallel.zero is one: nor the ZeRO stage */
	sim_diag *diag;
	int *vlayers;
	size_t vcap;
	sweep_screen_result *out;
	/* A topology dimension (index topo, else -1): one base scenario per
	 * topology file (NULL when it does not load: why says why). */
	int topo;
	plan_scenario **bases;
	char (*why)[SWEEP_REASON_MAX];
} screen_ctx;


/* Count a pruned plan under `text` with its numbers replaced by '#', so that
 * "tp = 3 does not divide the model's 32 heads" and "tp = 5 ..." are one; a
 * new reason keeps `example` (the plan's own message; NULL = text) as the
 * example printed for it. */
static int count_reason(sweep_screen_result *r, const char *text, const char *example)
{
	char norm[SWEEP_REASON_MAX];
	size_t n = 0;
	for (const char *p = text; *p && n + 1 < sizeof norm; p++) {
		size_t len = 0; /* a number: digits and decimals, not part of a word (1F1B) */
		while (isdigit((unsigned char)p[len]) ||
		       (len && p[len] == '.' && isdigit((unsigned char)p[len + 1])))
			len++;
		bool word = (p > text && isalpha((unsigned char)p[-1])) ||
		            isalpha((unsigned char)p[len]);
		if (len && !word) {
			p += len - 1;
			norm[n++] = '#';
		} else {
			norm[n++] = *p;
		}
	}
	norm[n] = '\0';
	int i = 0;
	while (i < r->nreasons && strcmp(r->reasons[i], norm))
		i++;
	if (i == r->nreasons) {
		if (i == SWEEP_MAX_REASONS)
			i--; /* the last slot collects the rest */
		else
			r->nreasons++;
		if (i == SWEEP_MAX_REASONS - 1 && r->reason_count[i]) {
			snprintf(r->reasons[i], SWEEP_REASON_MAX, "other reasons");
		} else {
			memcpy(r->reasons[i], norm, n + 1);
			snprintf(r->examples[i], SWEEP_REASON_MAX, "%s", example ? example : text);
		}
	}
	r->reason_count[i]++;
	return i;
}

/* The first error of the diagnostics, without its "path:line: error: ". */
static const char *first_error(const sim_diag *d)
{
	for (size_t i = 0; i < sim_diag_count(d); i++) {
		const char *t = sim_diag_text(d, i), *e = strstr(t, "error: ");
		if (e)
			return e + 7;
	}
	return "invalid plan";
}

static void put_field(void *base, const conf_key *k, double x)
{
	char *dst = (char *)base + k->offset;
	if (k->type == CONF_INT || k->type == CONF_ENUM) {
		int v = (int)x;
		memcpy(dst, &v, sizeof v);
	} else if (k->type == CONF_BOOL) {
		bool v = x != 0;
		memcpy(dst, &v, sizeof v);
	} else {
		memcpy(dst, &x, sizeof x);
	}
}

/* The GPUs of plan idx: cluster.nodes from the plan when varied. */
static int plan_gpus(const screen_ctx *c, const size_t *idx)
{
	for (size_t d = 0; d < c->sp->ndims; d++)
		if (!strcmp(c->sp->dims[d].key, "cluster.nodes"))
			return (int)c->sp->dims[d].num[idx[d]] * c->base->cluster.node.gpus;
	return c->base->cluster.gpus;
}

/* Derived dp from the plan's tp, pp, cp (or the base's), 0 if none fits,
 * with why (SWEEP_REASON_MAX) then saying so in the plan's numbers. */
static int derived_dp(const screen_ctx *c, const size_t *idx, int gpus, char *why)
{
	int64_t tp = c->base->plan.tp, pp = c->base->plan.pp, cp = c->base->plan.cp;
	for (size_t d = 0; d < c->sp->ndims; d++) {
		const sweep_dim *dim = &c->sp->dims[d];
		int64_t v = (int64_t)dim->num[idx[d]];
		if (!strcmp(dim->key, "parallel.tp"))
			tp = v;
		else if (!strcmp(dim->key, "parallel.pp"))
			pp = v;
		else if (!strcmp(dim->key, "parallel.cp"))
			cp = v;
	}
	int64_t denom = tp * pp * cp;
	if (denom > 0 && gpus % denom == 0)
		return (int)(gpus / denom);
	snprintf(why, SWEEP_REASON_MAX,
	         "tp*pp*cp = %lld*%lld*%lld = %lld does not divide the %d GPUs (dp derived)",
	         (long long)tp, (long long)pp, (long long)cp, (long long)denom, gpus);
	return 0;
}

/* The estimate of a checked scenario; pruned, with the reason counted, when
 * it does not fit (plan_memory_fit: the verdict `podsim run` reports). */
static void estimate(screen_ctx *c, const plan_scenario *s, sweep_plan *p)
{
	sweep_estimate_plan(s, &p->est);
	if (p->est.mem_oom != PLAN_OOM_NONE) {
		p->status = SWEEP_NO_FIT;
		p->reason = count_reason(c->out, plan_oom_text(p->est.mem_oom), NULL);
	}
}

static int grow_vlayers(screen_ctx *c, size_t need)
{
	if (need <= c->vcap)
		return SIM_OK;
	int *v = realloc(c->vlayers, need * sizeof *v);
	if (!v)
		return SIM_ENOMEM;
	c->vlayers = v;
	c->vcap = need;
	return SIM_OK;
}

/* Fast path: the plan's values written into a copy of the base scenario. */
static int screen_fast(screen_ctx *c, const size_t *idx, sweep_plan *p)
{
	plan_scenario s = *c->base;
	for (size_t d = 0; d < c->sp->ndims; d++) {
		const sweep_dim *dim = &c->sp->dims[d];
		if (dim->topology)
			continue;             /* c->base is the topology's */
		if (dim->k->type == CONF_STR) /* parallel.order */
			snprintf((char *)&s.plan + dim->k->offset, CONF_STR_MAX, "%s",
			         dim->value[idx[d]]);
		else if (!strcmp(dim->key, "cluster.nodes")) {
			s.cluster.nodes = (int)dim->num[idx[d]];
			s.cluster.gpus = p->gpus;
		} else {
			put_field(&s.plan, dim->k, dim->num[idx[d]]);
		}
	}
	if (c->derive)
		s.plan.dp = p->dp;
	p->dp = s.plan.dp;
	/* what the loader derives from the plan's keys: the vocabulary's
	 * padding for tp, fp32_grads for the ZeRO stage (DeepSpeed's rule) */
	plan_derive(&s, c->fp32_dim || conf_get(s.doc, "parallel", "fp32_grads", NULL),
	            c->sp_dim || conf_get(s.doc, "parallel", "sequence_parallel", NULL),
	            c->zero_dim || conf_get(s.doc, "parallel", "zero", NULL));
	sim_diag_clear(c->diag);
	if (plan_check(&s, c->diag) != SIM_OK) {
		p->status = SWEEP_INVALID;
		p->reason = count_reason(c->out, first_error(c->diag), NULL);
		return SIM_OK;
	}
	size_t V = (size_t)s.plan.pp * (size_t)s.plan.vpp;
	if (grow_vlayers(c, V) != SIM_OK)
		return SIM_ENOMEM;
	s.vlayers = c->vlayers;
	if (plan_layout(&s.plan, s.model.layers, s.vlayers)) { /* plan_check reports it */
		p->status = SWEEP_INVALID;
		p->reason = count_reason(c->out, "no even pipeline layout", NULL);
		return SIM_OK;
	}
	/* the checks that need the layout (recompute_layers within a chunk,
	 * frozen_layers inside the first): what loading the plan would refuse */
	sim_diag_clear(c->diag);
	if (plan_check_layout(&s, c->diag) != SIM_OK) {
		p->status = SWEEP_INVALID;
		p->reason = count_reason(c->out, first_error(c->diag), NULL);
		return SIM_OK;
	}
	estimate(c, &s, p);
	return SIM_OK;
}

int sweep_plan_load(const sweep_space *sp, const sweep_plan *p, const char *path,
                    const char *const *sets, size_t nsets, sim_diag *diag, plan_scenario **out)
{
	char own[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX];
	const char **all = malloc((nsets + SWEEP_MAX_DIMS + 1) * sizeof *all);
	if (!all)
		return SIM_ENOMEM;
	size_t n = 0, k = sweep_plan_sets(sp, p, own);
	for (size_t i = 0; i < nsets; i++)
		all[n++] = sets[i];
	for (size_t i = 0; i < k; i++)
		if (strncmp(own[i], "topology=", 9)) /* not a --set: swapped below */
			all[n++] = own[i];
	int t = sweep_space_topology(sp), rc;
	if (t >= 0) {
		size_t idx[SWEEP_MAX_DIMS];
		char file[PATH_MAX + SWEEP_VALUE_MAX];
		sweep_space_plan(sp, p->index, idx);
		sweep_dim_file(&sp->dims[t], idx[t], file, sizeof file);
		rc = sweep_topology_load(path, file, all, n, diag, out);
	} else {
		rc = plan_scenario_load(path, all, n, diag, out);
	}
	free(all);
	return rc;
}

/* Slow path: load the scenario again with the plan as --set overrides. */
static int screen_reload(screen_ctx *c, sweep_plan *p)
{
	plan_scenario *s;
	sim_diag_clear(c->diag);
	int rc = sweep_plan_load(c->sp, p, c->path, c->sets, c->nsets, c->diag, &s);
	if (rc == SIM_ENOMEM)
		return rc;
	if (rc != SIM_OK) {
		p->status = SWEEP_INVALID;
		p->reason = count_reason(c->out, first_error(c->diag), NULL);
		return SIM_OK;
	}
	p->dp = s->plan.dp;
	estimate(c, s, p);
	plan_scenario_free(s);
	return SIM_OK;
}

#define BASE_TRIES 256

/* The base scenario of topology j: the scenario's own plan with dp derived;
 * if that plan is not valid there (e.g. global_batch < dp), the first of
 * the space's plans on that topology that is (at most BASE_TRIES tried):
 * plans overwrite the varied keys anyway, and a varied key is the only one
 * whose base value changes. */
static int load_base(screen_ctx *c, size_t j)
{
	const sweep_dim *d = &c->sp->dims[c->topo];
	char file[PATH_MAX + SWEEP_VALUE_MAX], own[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX];
	sweep_dim_file(d, j, file, sizeof file);
	const char **all = malloc((c->nsets + SWEEP_MAX_DIMS + 1) * sizeof *all);
	if (!all)
		return SIM_ENOMEM;
	for (size_t i = 0; i < c->nsets; i++)
		all[i] = c->sets[i];
	sim_diag_clear(c->diag);
	int rc = sweep_topology_base(c->path, file, all, c->nsets, c->diag, &c->bases[j]);
	uint64_t n = sweep_space_size(c->sp), tries = 0;
	for (uint64_t i = 0; rc == SIM_ECONF && i < n && tries < BASE_TRIES; i++) {
		size_t idx[SWEEP_MAX_DIMS];
		sweep_space_plan(c->sp, i, idx);
		if (idx[c->topo] != j)
			continue;
		tries++;
		sweep_plan p = {.index = i};
		size_t k = sweep_plan_sets(c->sp, &p, own), m = c->nsets;
		for (size_t q = 0; q < k; q++) /* dp is derived by the base loader */
			if (strncmp(own[q], "topology=", 9) && strncmp(own[q], "parallel.dp=", 12))
				all[m++] = own[q];
		sim_diag_clear(c->diag);
		rc = sweep_topology_base(c->path, file, all, m, c->diag, &c->bases[j]);
	}
	free(all);
	return rc;
}

/* One base scenario per topology file; a file that does not load prunes
 * its plans with the loader's first error. */
static int load_bases(screen_ctx *c)
{
	const sweep_dim *d = &c->sp->dims[c->topo];
	c->bases = calloc(d->n, sizeof *c->bases);
	c->why = calloc(d->n, sizeof *c->why);
	if (!c->bases || !c->why)
		return SIM_ENOMEM;
	for (size_t j = 0; j < d->n; j++) {
		int rc = load_base(c, j);
		if (rc == SIM_ENOMEM)
			return rc;
		if (rc != SIM_OK)
			snprintf(c->why[j], SWEEP_REASON_MAX, "topology: %s", first_error(c->diag));
	}
	return SIM_OK;
}

static void free_bases(screen_ctx *c)
{
	for (size_t j = 0; c->bases && j < c->sp->dims[c->topo].n; j++)
		plan_scenario_free(c->bases[j]);
	free(c->bases);
	free(c->why);
	c->bases = NULL;
	c->why = NULL;
}

/* Sequence parallelism at tp 1 scatters nothing (memsize.c and grads.c take
 * it only where tp > 1): the plan is its twin without it, which the space
 * holds when its sequence_parallel values include false. */
static bool sp_twin(const screen_ctx *c, const size_t *idx)
{
	double tp = c->base->plan.tp;
	const sweep_dim *sp = NULL;
	for (size_t d = 0; d < c->sp->ndims; d++) {
		const sweep_dim *dim = &c->sp->dims[d];
		if (!strcmp(dim->key, "parallel.tp"))
			tp = dim->num[idx[d]];
		else if (!strcmp(dim->key, "parallel.sequence_parallel"))
			sp = dim;
	}
	if (!sp || tp != 1 || sp->num[idx[sp - c->sp->dims]] == 0)
		return false;
	for (size_t j = 0; j < sp->n; j++)
		if (sp->num[j] == 0)
			return true;
	return false;
}

static int screen_one(screen_ctx *c, uint64_t i, sweep_plan *p)
{
	size_t idx[SWEEP_MAX_DIMS];
	sweep_space_plan(c->sp, i, idx);
	memset(p, 0, sizeof *p);
	p->index = i;
	p->reason = -1;
	if (c->topo >= 0 && !(c->base = c->bases[idx[c->topo]])) {
		p->status = SWEEP_INVALID;
		p->reason = count_reason(c->out, c->why[idx[c->topo]], NULL);
		return SIM_OK;
	}
	p->gpus = plan_gpus(c, idx);
	p->dp = c->base->plan.dp;
	if (sp_twin(c, idx)) {
		p->status = SWEEP_INVALID;
		p->reason = count_reason(c->out,
		                         "sequence_parallel = true at tp = 1: the same plan as false "
		                         "(nothing to scatter)",
		                         NULL);
		return SIM_OK;
	}
	if (c->derive) {
		char why[SWEEP_REASON_MAX];
		p->dp = derived_dp(c, idx, p->gpus, why);
		if (p->dp == 0) {
			p->status = SWEEP_INVALID;
			p->reason = count_reason(c->out, why, NULL);
			return SIM_OK;
		}
	}
	return c->fast ? screen_fast(c, idx, p) : screen_reload(c, p);
}

int sweep_screen(const sweep_space *sp, const plan_scenario *base, const char *path,
                 const char *const *sets, size_t nsets, sweep_screen_result *out)
{
	return sweep_screen_part(sp, base, path, sets, nsets, 0, 1, out);
}

int sweep_screen_part(const sweep_space *sp, const plan_scenario *base, const char *path,
                      const char *const *sets, size_t nsets, uint64_t part, uint64_t nparts,
                      sweep_screen_result *out)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(out, 0, sizeof *out);
	screen_ctx c = {.sp = sp,
	                .base = base,
	                .path = path,
	                .sets = sets,
	                .nsets = nsets,
	                .fast = true,
	                .derive = sweep_space_derives_dp(sp),
	                .diag = sim_diag_new(),
	                .out = out,
	                .topo = -1};
	for (size_t d = 0; d < sp->ndims; d++) {
		c.fast = c.fast && sweep_dim_fast(&sp->dims[d]);
		c.fp32_dim = c.fp32_dim || !strcmp(sp->dims[d].key, "parallel.fp32_grads");
		c.sp_dim = c.sp_dim || !strcmp(sp->dims[d].key, "parallel.sequence_parallel");
		c.zero_dim = c.zero_dim || !strcmp(sp->dims[d].key, "parallel.zero");
	}
	c.topo = sweep_space_topology(sp);
	if (c.topo >= 0 && c.diag && load_bases(&c) != SIM_OK) {
		free_bases(&c);
		sim_diag_free(c.diag);
		return SIM_ENOMEM;
	}
	out->nplans = sweep_space_size(sp);
	out->plans = calloc(out->nplans ? out->nplans : 1, sizeof *out->plans);
	int rc = c.diag && out->plans ? SIM_OK : SIM_ENOMEM;
	for (uint64_t i = part; rc == SIM_OK && i < out->nplans; i += nparts) {
		rc = screen_one(&c, i, &out->plans[i]);
		out->valid += out->plans[i].status != SWEEP_INVALID;
		out->fitting += out->plans[i].status == SWEEP_OK;
	}
	free(c.vlayers);
	free_bases(&c);
	sim_diag_free(c.diag);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return rc;
}

void sweep_screen_recount(sweep_screen_result *r, const char (*reasons)[SWEEP_REASON_MAX],
                          const char (*examples)[SWEEP_REASON_MAX], uint64_t nparts)
{
	r->nreasons = 0;
	r->valid = r->fitting = 0;
	memset(r->reason_count, 0, sizeof r->reason_count);
	memset(r->examples, 0, sizeof r->examples);
	for (uint64_t i = 0; i < r->nplans; i++) {
		sweep_plan *p = &r->plans[i];
		r->valid += p->status != SWEEP_INVALID;
		r->fitting += p->status == SWEEP_OK;
		if (p->reason >= 0) { /* normalised text: count_reason leaves it as it is */
			uint64_t k = (i % nparts) * SWEEP_MAX_REASONS + (uint64_t)p->reason;
			p->reason = count_reason(r, reasons[k], examples[k]);
		}
	}
}

void sweep_screen_free(sweep_screen_result *r)
{
	free(r->plans);
	r->plans = NULL;
}

size_t sweep_plan_sets(const sweep_space *sp, const sweep_plan *p,
                       char out[SWEEP_MAX_DIMS + 1][SWEEP_SET_MAX])
{
	size_t idx[SWEEP_MAX_DIMS], n = 0;
	sweep_space_plan(sp, p->index, idx);
	for (size_t d = 0; d < sp->ndims; d++)
		snprintf(out[n++], SWEEP_SET_MAX, "%s=%s", sp->dims[d].key,
		         sp->dims[d].value[idx[d]]);
	if (sweep_space_derives_dp(sp))
		snprintf(out[n++], SWEEP_SET_MAX, "parallel.dp=%d", p->dp);
	return n;
}

/* The pre-screen's order of fitting plans: estimated step time, then index. */
int sweep_plan_order(const sweep_plan *x, const sweep_plan *y)
{
	if (x->est.step_s != y->est.step_s)
		return x->est.step_s < y->est.step_s ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int by_estimate(const void *a, const void *b, const sweep_screen_result *r)
{
	return sweep_plan_order(&r->plans[*(const uint64_t *)a], &r->plans[*(const uint64_t *)b]);
}

size_t sweep_best(const sweep_screen_result *r, size_t k, uint64_t *out)
{
	/* Insertion into a sorted top-k: O(n k), k is small. */
	size_t n = 0;
	for (uint64_t i = 0; i < r->nplans; i++) {
		if (r->plans[i].status != SWEEP_OK)
			continue;
		size_t pos = n < k ? n : k;
		while (pos > 0 && by_estimate(&i, &out[pos - 1], r) < 0)
			pos--;
		if (pos >= k)
			continue;
		size_t last = n < k ? n : k - 1;
		memmove(&out[pos + 1], &out[pos], (last - pos) * sizeof *out);
		out[pos] = i;
		n += n < k;
	}
	return n;
}
