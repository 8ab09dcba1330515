/* space.c - sweep spaces: dimensions from "SECTION.KEY=V1,V2" specs, value
 * checking against the configuration key tables, `auto` enumeration and the
 * Cartesian product (sweep.h). */
#include "sweep_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The sections whose keys a sweep may vary, with their key tables. */
typedef struct section_table {
	const char *name;
	const conf_key *keys;
	const size_t *nkeys;
} section_table;

static const section_table tables[] = {
        {"parallel", plan_spec_keys, &plan_spec_nkeys},
        {"cluster", net_cluster_keys, &net_cluster_nkeys},
        {"node", net_node_keys, &net_node_nkeys},
        {"gpu", hw_gpu_keys, &hw_gpu_nkeys},
        {"model", work_model_keys, &work_model_nkeys},
        {"train", plan_train_keys, &plan_train_nkeys},
};

const conf_key *sweep_find_key(const char *section, const char *key)
{
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		if (strcmp(tables[t].name, section))
			continue;
		for (size_t i = 0; i < *tables[t].nkeys; i++)
			if (!strcmp(tables[t].keys[i].name, key))
				return &tables[t].keys[i];
	}
	return NULL;
}

bool sweep_dim_fast(const sweep_dim *d)
{
	/* The topology too: screen.c loads one base scenario per topology. */
	return d->topology || !strcmp(d->section, "parallel") || !strcmp(d->key, "cluster.nodes");
}

void sweep_dim_file(const sweep_dim *d, size_t j, char *out, size_t len)
{
	if (d->value[j][0] == '/' || !d->dir[0])
		snprintf(out, len, "%s", d->value[j]);
	else
		snprintf(out, len, "%s/%s", d->dir, d->value[j]);
}

int sweep_space_topology(const sweep_space *sp)
{
	for (size_t i = 0; i < sp->ndims; i++)
		if (sp->dims[i].topology)
			return (int)i;
	return -1;
}

sweep_space *sweep_space_new(void)
{
	return calloc(1, sizeof(sweep_space));
}

void sweep_space_free(sweep_space *sp)
{
	free(sp);
}

static int parse_int(const conf_key *k, const char *t, double *out, char *err, size_t len)
{
	const char *p = t + (*t == '+' || *t == '-');
	if (*p < '0' || *p > '9' || strspn(p, "0123456789") != strlen(p)) {
		snprintf(err, len, "expected an integer, got '%s'", t);
		return SIM_ECONF;
	}
	errno = 0;
	double x = (double)strtoll(t, NULL, 10);
	if (errno == ERANGE || x < k->min || x > k->max) {
		snprintf(err, len, "%s is out of range [%.0f, %.0f]", t, k->min, k->max);
		return SIM_ECONF;
	}
	*out = x;
	return SIM_OK;
}

static int parse_enum(const conf_key *k, const char *t, double *out, char *err, size_t len)
{
	size_t n = 0;
	for (int i = 0; k->choices[i]; i++)
		if (!strcmp(t, k->choices[i])) {
			*out = i;
			return SIM_OK;
		}
	n += (size_t)snprintf(err, len, "expected one of");
	for (int i = 0; k->choices[i] && n < len; i++)
		n += (size_t)snprintf(err + n, len - n, "%s %s", i ? "," : "", k->choices[i]);
	if (n < len)
		snprintf(err + n, len - n, "; got '%s'", t);
	return SIM_ECONF;
}

int sweep_parse_value(const conf_key *k, const char *t, double *out, char *err, size_t len)
{
	char *end;
	switch (k->type) {
	case CONF_INT:
		return parse_int(k, t, out, err, len);
	case CONF_ENUM:
		return parse_enum(k, t, out, err, len);
	case CONF_BOOL:
		if (!strcasecmp(t, "true") || !strcasecmp(t, "false")) {
			*out = !strcasecmp(t, "true");
			return SIM_OK;
		}
		snprintf(err, len, "expected true or false, got '%s'", t);
		return SIM_ECONF;
	case CONF_REAL:
		*out = strtod(t, &end);
		if (end == t || *end || !isfinite(*out) || *out < k->min || *out > k->max) {
			snprintf(err, len, "expected a number in [%g, %g], got '%s'", k->min,
			         k->max, t);
			return SIM_ECONF;
		}
		return SIM_OK;
	case CONF_QTY:
		if (sim_unit_parse(t, k->unit, out, err, len) != SIM_OK)
			return SIM_ECONF;
		if (*out < k->min || *out > k->max) {
			snprintf(err, len, "%s is out of range", t);
			return SIM_ECONF;
		}
		return SIM_OK;
	case CONF_STR: /* parallel.order, the one text key a sweep varies */
		*out = 0;
		int order[PLAN_DIMS];
		if (!strcmp(k->name, "order") && plan_order_parse(t, order) != SIM_OK) {
			snprintf(err, len,
			         "expected an order of tp, cp, dp, pp like tp-cp-dp-pp, "
			         "got '%s'",
			         t);
			return SIM_ECONF;
		}
		return SIM_OK;
	}
	snprintf(err, len, "cannot vary this key");
	return SIM_ECONF;
}

/* Report an error about a spec at its location. */
static int spec_error(sim_diag *diag, const char *path, int line, const char *flag,
                      const char *spec, const char *msg)
{
	if (line > 0)
		sim_diag_error(diag, path, line, "%s", msg);
	else
		sim_diag_error(diag, path, 0, "%s %s: %s", flag, spec, msg);
	return SIM_ECONF;
}

/* Split "a,b,c" into d's values, checking each. */
static int add_values(sweep_dim *d, const char *list, char *err, size_t len)
{
	const char *p = list;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n == 0 || n >= SWEEP_VALUE_MAX) {
			snprintf(err, len, n ? "value too long" : "empty value in '%s'", list);
			return SIM_ECONF;
		}
		if (d->n == SWEEP_MAX_VALUES) {
			snprintf(err, len, "more than %d values", SWEEP_MAX_VALUES);
			return SIM_ECONF;
		}
		memcpy(d->value[d->n], p, n);
		d->value[d->n][n] = '\0';
		char why[160], file[PATH_MAX + 160];
		if (d->topology) {
			sweep_dim_file(d, d->n, file, sizeof file);
			d->num[d->n] = (double)d->n;
			/* a regular, readable file (a directory was counted as a
			 * pruned plan; a FIFO would block the screen) */
			FILE *probe;
			int e = sim_input_open(file, SIM_INPUT_MAX, &probe, NULL);
			if (e) {
				snprintf(err, len, "topology %s: cannot read the file: %s",
				         d->value[d->n], sim_input_strerror(e));
				return SIM_ECONF;
			}
			fclose(probe);
		} else if (sweep_parse_value(d->k, d->value[d->n], &d->num[d->n], why,
		                             sizeof why)) {
			snprintf(err, len, "%s: %s", d->key, why);
			return SIM_ECONF;
		}
		for (size_t j = 0; j < d->n; j++)
			if (!strcmp(d->value[j], d->value[d->n])) {
				snprintf(err, len, "%s: value '%s' given twice", d->key,
				         d->value[j]);
				return SIM_ECONF;
			}
		d->n++;
		if (!comma)
			return SIM_OK;
		p = comma + 1;
	}
}

static int add_in(sweep_space *sp, const char *spec, const char *dir, const char *flag,
                  const char *path, int line, sim_diag *diag);

int sweep_space_add(sweep_space *sp, const char *spec, const char *path, int line, sim_diag *diag)
{
	return add_in(sp, spec, "", "--vary", path, line, diag);
}

int sweep_space_add_as(sweep_space *sp, const char *spec, const char *flag, const char *path,
                       sim_diag *diag)
{
	return add_in(sp, spec, "", flag, path, 0, diag);
}

int sweep_space_add_in(sweep_space *sp, const char *spec, const char *dir, const char *path,
                       int line, sim_diag *diag)
{
	return add_in(sp, spec, dir, "--vary", path, line, diag);
}

/* "topology=A.ini,B.ini": files that replace the scenario's cluster include. */
static int add_topology(sweep_space *sp, const char *spec, const char *dir, const char *flag,
                        const char *path, int line, sim_diag *diag)
{
	char msg[256];
	if (sweep_space_topology(sp) >= 0)
		return spec_error(diag, path, line, flag, spec, "topology is varied twice");
	sweep_dim *d = &sp->dims[sp->ndims];
	memset(d, 0, sizeof *d);
	snprintf(d->key, sizeof d->key, "topology");
	d->topology = true;
	snprintf(d->dir, sizeof d->dir, "%s", dir);
	if (!strcmp(spec + 9, "auto"))
		return spec_error(diag, path, line, flag, spec,
		                  "topology=auto: list the topology files (topologies/*.ini)");
	if (add_values(d, spec + 9, msg, sizeof msg) != SIM_OK)
		return spec_error(diag, path, line, flag, spec, msg);
	sp->ndims++;
	return SIM_OK;
}

static int add_in(sweep_space *sp, const char *spec, const char *dir, const char *flag,
                  const char *path, int line, sim_diag *diag)
{
	char msg[256];
	const char *eq = strchr(spec, '='), *dot = strchr(spec, '.');
	if (sp->ndims < SWEEP_MAX_DIMS && !strncmp(spec, "topology=", 9))
		return add_topology(sp, spec, dir, flag, path, line, diag);
	if (!eq || !dot || dot > eq || dot == spec || eq == dot + 1)
		return spec_error(diag, path, line, flag, spec,
		                  "expected SECTION.KEY=V1,V2,... or SECTION.KEY=auto");
	if ((size_t)(eq - spec) >= SWEEP_KEY_MAX)
		return spec_error(diag, path, line, flag, spec, "key too long");
	if (sp->ndims == SWEEP_MAX_DIMS) {
		snprintf(msg, sizeof msg, "more than %d dimensions", SWEEP_MAX_DIMS);
		return spec_error(diag, path, line, flag, spec, msg);
	}
	sweep_dim *d = &sp->dims[sp->ndims];
	memset(d, 0, sizeof *d);
	snprintf(d->key, sizeof d->key, "%.*s", (int)(eq - spec), spec);
	snprintf(d->section, sizeof d->section, "%.*s", (int)(dot - spec), spec);
	d->k = sweep_find_key(d->section, d->key + (dot - spec) + 1);
	if (!d->k || (d->k->type == CONF_STR && strcmp(d->key, "parallel.order"))) {
		snprintf(msg, sizeof msg, "%s: %s", d->key,
		         d->k ? "text keys cannot be varied"
		              : "not a configuration key (see podsim keys)");
		return spec_error(diag, path, line, flag, spec, msg);
	}
	for (size_t i = 0; i < sp->ndims; i++)
		if (!strcmp(sp->dims[i].key, d->key)) {
			snprintf(msg, sizeof msg, "%s is varied twice", d->key);
			return spec_error(diag, path, line, flag, spec, msg);
		}
	if (!strcmp(eq + 1, "auto"))
		d->is_auto = true;
	else if (add_values(d, eq + 1, msg, sizeof msg) != SIM_OK)
		return spec_error(diag, path, line, flag, spec, msg);
	sp->ndims++;
	return SIM_OK;
}

/* ----------------------------------------------------------------- auto -- */

static void push(sweep_dim *d, double x)
{
	if (d->n == SWEEP_MAX_VALUES)
		return;
	if (d->k->type == CONF_ENUM)
		snprintf(d->value[d->n], SWEEP_VALUE_MAX, "%s", d->k->choices[(int)x]);
	else if (d->k->type == CONF_BOOL)
		snprintf(d->value[d->n], SWEEP_VALUE_MAX, "%s", x != 0 ? "true" : "false");
	else
		snprintf(d->value[d->n], SWEEP_VALUE_MAX, "%.0f", x);
	d->num[d->n++] = x;
}

/* Can pp = p split the layers with the base plan's layout options
 * (first_stage_layers, last_stage_layers, the framework's uneven rule), at
 * the base plan's vpp (what the plans keep unless vpp is varied too) or
 * without interleaving? Llama 3 405B's 126 layers on pp 16 split only with
 * vpp 4 and one layer on the first and last virtual stage (2 on each of the
 * other 62), so vpp 1 alone would drop the scenario's own pp. */
static bool layout_ok(const plan_scenario *s, int p)
{
	plan_spec spec = s->plan;
	spec.pp = p;
	int *tmp = malloc((size_t)p * (size_t)(spec.vpp > 1 ? spec.vpp : 1) * sizeof *tmp);
	bool ok = tmp && !plan_layout(&spec, s->model.layers, tmp);
	spec.vpp = 1;
	ok = ok || (tmp && !plan_layout(&spec, s->model.layers, tmp));
	free(tmp);
	return ok;
}

static void push_text(sweep_dim *d, const char *text)
{
	if (d->n == SWEEP_MAX_VALUES)
		return;
	snprintf(d->value[d->n], SWEEP_VALUE_MAX, "%s", text);
	d->num[d->n++] = 0;
}

/* Every placement order of tp, cp, dp, pp: the 24 permutations, in
 * lexicographic order of their indices (tp-cp-dp-pp first). */
static void push_orders(sweep_dim *d)
{
	static const char *const name[4] = {"tp", "cp", "dp", "pp"};
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			for (int c = 0; c < 4; c++) {
				int e = 6 - a - b - c; /* the fourth: 0+1+2+3 = 6 */
				if (a == b || a == c || b == c)
					continue;
				char t[16];
				snprintf(t, sizeof t, "%s-%s-%s-%s", name[a], name[b], name[c],
				         name[e]);
				push_text(d, t);
			}
}

/* cp, ep, shard_size and order on the base scenario s with G GPUs: false if
 * k is none of them. */
static bool resolve_more(sweep_dim *d, const plan_scenario *s, int G)
{
	const char *k = d->key;
	if (!strcmp(k, "parallel.cp")) {
		/* Ring attention with load balancing splits the sequence into 2 cp
		 * chunks, so cp | seq_len / 2; and cp | G. */
		int half = s->model.seq_len / 2;
		for (int c = 1; c <= G && c <= half; c++)
			if (G % c == 0 && half % c == 0)
				push(d, c);
	} else if (!strcmp(k, "parallel.ep")) {
		/* ep | experts and ep | tp*cp*dp; tp*cp*dp | G, so e | G here and
		 * plan_check prunes the plans where e does not divide their tp*cp*dp.
		 * A dense model has ep 1 only. */
		int E = s->model.moe_experts;
		for (int e = 1; e <= (E > 0 ? E : 1); e++)
			if ((E == 0 || E % e == 0) && G % e == 0)
				push(d, e);
	} else if (!strcmp(k, "parallel.shard_size")) {
		/* 0 (shard over all dp*cp), then every divisor of G: plan_check
		 * prunes those that do not divide the plan's dp*cp. */
		push(d, 0);
		for (int z = 1; z < G; z++)
			if (G % z == 0)
				push(d, z);
	} else if (!strcmp(k, "parallel.order")) {
		push_orders(d);
	} else {
		return false;
	}
	return true;
}

static int resolve_dim(sweep_dim *d, const plan_scenario *s, sim_diag *diag)
{
	if (resolve_more(d, s, s->cluster.gpus))
		return SIM_OK;
	const char *k = d->key;
	int G = s->cluster.gpus, a = s->model.heads, g = s->model.kv_heads;
	if (!strcmp(k, "parallel.tp")) {
		for (int t = 1; t <= G && t <= a; t++)
			if (G % t == 0 && a % t == 0 && (g % t == 0 || t % g == 0))
				push(d, t);
	} else if (!strcmp(k, "parallel.pp")) {
		for (int p = 1; p <= G && p <= s->model.layers; p++)
			if (G % p == 0 && layout_ok(s, p))
				push(d, p);
	} else if (!strcmp(k, "parallel.vpp")) {
		for (int v = 1; v <= s->model.layers; v++)
			if (s->model.layers % v == 0)
				push(d, v);
	} else if (!strcmp(k, "parallel.micro_batch")) {
		for (int m = 1; m <= s->plan.global_batch; m++)
			if (s->plan.global_batch % m == 0)
				push(d, m);
	} else if (!strcmp(k, "parallel.dp")) {
		return SIM_OK; /* derived per plan: no values */
	} else if (d->k->type == CONF_ENUM) {
		for (int i = 0; d->k->choices[i]; i++)
			push(d, i);
	} else if (d->k->type == CONF_BOOL) {
		push(d, 0);
		push(d, 1);
	} else if (d->k->type == CONF_INT && d->k->max - d->k->min <= 16) {
		for (double x = d->k->min; x <= d->k->max; x++)
			push(d, x);
	} else {
		sim_diag_error(diag, "podsim sweep", 0,
		               "--vary %s=auto: no automatic values for this key; list them", k);
		return SIM_ECONF;
	}
	return SIM_OK;
}

int sweep_space_resolve(sweep_space *sp, const plan_scenario *s, sim_diag *diag)
{
	int rc = SIM_OK;
	for (size_t i = 0; i < sp->ndims; i++) {
		sweep_dim *d = &sp->dims[i];
		if (!d->is_auto || d->n > 0)
			continue;
		if (resolve_dim(d, s, diag) != SIM_OK)
			rc = SIM_ECONF;
	}
	/* dp = auto is dp derived: drop the (empty) dimension. */
	size_t o = 0;
	for (size_t i = 0; i < sp->ndims; i++) {
		bool drop = sp->dims[i].is_auto && !strcmp(sp->dims[i].key, "parallel.dp");
		if (!drop && o != i)
			sp->dims[o] = sp->dims[i];
		o += !drop;
	}
	if (o < sp->ndims) { /* keep dp derived even if nothing else varies */
		sp->ndims = o;
		sp->dp_auto = true;
	}
	return rc;
}

/* ------------------------------------------------------------- product -- */

size_t sweep_space_ndims(const sweep_space *sp)
{
	return sp->ndims;
}

const char *sweep_space_key(const sweep_space *sp, size_t dim)
{
	return sp->dims[dim].key;
}

size_t sweep_space_nvalues(const sweep_space *sp, size_t dim)
{
	return sp->dims[dim].n;
}

const char *sweep_space_value(const sweep_space *sp, size_t dim, size_t j)
{
	return sp->dims[dim].value[j];
}

uint64_t sweep_space_size(const sweep_space *sp)
{
	uint64_t n = 1; /* saturating: 16 dimensions of 512 values pass 2^64 */
	for (size_t i = 0; i < sp->ndims; i++)
		if (!sp->dims[i].n)
			return 0;
		else if (__builtin_mul_overflow(n, (uint64_t)sp->dims[i].n, &n))
			n = UINT64_MAX;
	return n;
}

bool sweep_space_derives_dp(const sweep_space *sp)
{
	bool has_dp = false, varies_size = false;
	for (size_t i = 0; i < sp->ndims; i++) {
		const char *k = sp->dims[i].key;
		has_dp = has_dp || !strcmp(k, "parallel.dp");
		varies_size = varies_size || !strcmp(k, "parallel.tp") ||
		              !strcmp(k, "parallel.pp") || !strcmp(k, "parallel.cp") ||
		              !strcmp(k, "cluster.nodes") || sp->dims[i].topology;
	}
	return !has_dp && (varies_size || sp->dp_auto);
}

void sweep_space_plan(const sweep_space *sp, uint64_t i, size_t idx[SWEEP_MAX_DIMS])
{
	for (size_t d = sp->ndims; d-- > 0;) {
		uint64_t n = sp->dims[d].n ? sp->dims[d].n : 1;
		idx[d] = (size_t)(i % n);
		i /= n;
	}
}

char *sweep_space_text(const sweep_space *sp)
{
	sim_buf b;
	sim_buf_init(&b);
	for (size_t i = 0; i < sp->ndims; i++) {
		const sweep_dim *d = &sp->dims[i];
		sim_buf_printf(&b, "%s=", d->key);
		for (size_t j = 0; j < d->n; j++)
			sim_buf_printf(&b, "%s%s", j ? "," : "", d->value[j]);
		sim_buf_printf(&b, "\n");
	}
	if (sweep_space_derives_dp(sp))
		sim_buf_printf(&b, "parallel.dp=derived\n");
	if (b.oom || !b.data) {
		sim_buf_free(&b);
		char *e = malloc(1);
		if (e)
			*e = '\0';
		return e;
	}
	return b.data;
}
