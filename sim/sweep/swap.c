/* swap.c - the topology as a sweep dimension (`--vary topology=A.ini,B.ini`,
 * `[sweep] topology = A.ini, B.ini`): the base scenario with its cluster
 * include swapped for another topology file, its model and plan kept.
 *
 * The scenario's text is rewritten in memory: the one top-level
 * `include = FILE` whose FILE has a [cluster] section becomes `include =
 * TOPOLOGY` (absolute), and every override SECTION.KEY=VALUE (the user's
 * --set and the plan's) is written into the text as `podsim run --set`
 * would apply it: the key's line in the scenario's own [SECTION] replaced,
 * or added under that section's header, or a new section appended. The text
 * is then loaded with plan_scenario_load_string from the scenario's folder,
 * so what is simulated and stored is exactly what `podsim run` gives for a
 * scenario file with that include. */
#include "sweep_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct lines {
	char **v;
	size_t n, cap;
} lines;

static void lines_free(lines *L)
{
	for (size_t i = 0; i < L->n; i++)
		free(L->v[i]);
	free(L->v);
}

/* Insert a copy of text[0..len) before line `at`. */
static int insert(lines *L, size_t at, const char *text, size_t len)
{
	if (L->n == L->cap) {
		size_t cap = L->cap ? 2 * L->cap : 64;
		char **v = realloc(L->v, cap * sizeof *v);
		if (!v)
			return SIM_ENOMEM;
		L->v = v;
		L->cap = cap;
	}
	char *s = malloc(len + 1);
	if (!s)
		return SIM_ENOMEM;
	memcpy(s, text, len);
	s[len] = '\0';
	memmove(&L->v[at + 1], &L->v[at], (L->n - at) * sizeof *L->v);
	L->v[at] = s;
	L->n++;
	return SIM_OK;
}

static int read_lines(const char *path, lines *L)
{
	FILE *f;
	if (sim_input_open(path, SIM_INPUT_MAX, &f, NULL) != 0)
		return SIM_ECONF;
	char buf[4096];
	int rc = SIM_OK;
	while (rc == SIM_OK && fgets(buf, sizeof buf, f)) {
		size_t n = strcspn(buf, "\r\n");
		rc = insert(L, L->n, buf, n);
	}
	fclose(f);
	return rc;
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "[name]" -> name into out; false if the line is no section header. */
static bool header(const char *line, char *out, size_t len)
{
	const char *p = skip_space(line), *end = strchr(p, ']');
	if (*p != '[' || !end)
		return false;
	p = skip_space(p + 1);
	size_t n = (size_t)(end - p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	snprintf(out, len, "%.*s", (int)n, p);
	return true;
}

/* Does the line set `key` ("key = ..." or "key: ...")? */
static bool sets_key(const char *line, const char *key)
{
	const char *p = skip_space(line);
	size_t n = strlen(key);
	if (strncmp(p, key, n))
		return false;
	p = skip_space(p + n);
	return *p == '=' || *p == ':';
}

/* Write SECTION.KEY=VALUE into the text (see the file comment). */
static int set_key(lines *L, const char *assignment)
{
	const char *dot = strchr(assignment, '.'), *eq = strchr(assignment, '=');
	if (!dot || !eq || dot > eq)
		return SIM_ECONF;
	char section[64], key[64], line[CONF_MAX_LINE + 2], name[64];
	snprintf(section, sizeof section, "%.*s", (int)(dot - assignment), assignment);
	snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
	int len = snprintf(line, sizeof line, "%s = %s", key, eq + 1);
	if (len < 0 || (size_t)len >= sizeof line)
		return SIM_ECONF;
	size_t at = SIZE_MAX;
	for (size_t i = 0; i < L->n; i++) {
		if (header(L->v[i], name, sizeof name)) {
			if (at != SIZE_MAX) /* the section ended without the key */
				break;
			if (!strcmp(name, section))
				at = i + 1;
		} else if (at != SIZE_MAX && sets_key(L->v[i], key)) {
			free(L->v[i]);
			L->v[i] = NULL;
			memmove(&L->v[i], &L->v[i + 1], (L->n - i - 1) * sizeof *L->v);
			L->n--;
			return insert(L, i, line, (size_t)len);
		}
	}
	if (at != SIZE_MAX)
		return insert(L, at, line, (size_t)len);
	char head[80];
	int hl = snprintf(head, sizeof head, "[%s]", section);
	int rc = insert(L, L->n, head, (size_t)hl);
	return rc == SIM_OK ? insert(L, L->n, line, (size_t)len) : rc;
}

/* The folder of path, "." if none. */
static void dir_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(out, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	else
		snprintf(out, len, ".");
}

/* Does the include target have a [cluster] section (1), or is it a whole
 * scenario with one ([scenario] or [parallel] too: 2)? 0 otherwise. */
static int cluster_include(const char *dir, const char *target)
{
	char full[PATH_MAX + 64];
	if (target[0] == '/')
		snprintf(full, sizeof full, "%s", target);
	else
		snprintf(full, sizeof full, "%s/%s", dir, target);
	sim_diag *quiet = sim_diag_new();
	conf_doc *doc = NULL;
	int kind = 0;
	if (quiet && conf_load(full, quiet, &doc) == SIM_OK && conf_has_section(doc, "cluster"))
		kind = conf_has_section(doc, "scenario") || conf_has_section(doc, "parallel") ? 2 : 1;
	conf_free(doc);
	sim_diag_free(quiet);
	return kind;
}

static int swap_include(lines *L, const char *path, const char *topo, sim_diag *diag)
{
	char dir[PATH_MAX], name[64], whole[PATH_MAX] = "";
	dir_of(path, dir, sizeof dir);
	size_t found = SIZE_MAX;
	for (size_t i = 0; i < L->n && !header(L->v[i], name, sizeof name); i++) {
		const char *p = skip_space(L->v[i]);
		if (!sets_key(p, "include"))
			continue;
		p = skip_space(strpbrk(p, "=:") + 1);
		char target[PATH_MAX];
		snprintf(target, sizeof target, "%s", p);
		size_t n = strlen(target);
		while (n && (target[n - 1] == ' ' || target[n - 1] == '\t'))
			target[--n] = '\0';
		int kind = cluster_include(dir, target);
		if (kind == 1)
			found = i;
		else if (kind == 2)
			snprintf(whole, sizeof whole, "%s", target);
	}
	if (found == SIZE_MAX && whole[0]) {
		/* replacing a whole scenario would drop its model and plan */
		sim_diag_error(diag, path, 0,
		               "the cluster comes with '%s', a whole scenario "
		               "([scenario] or [parallel] beside [cluster]): sweep that scenario, or "
		               "one that includes its model and a topology file",
		               whole);
		return SIM_ECONF;
	}
	if (found == SIZE_MAX) {
		sim_diag_error(diag, path, 0,
		               "topology dimension: the scenario has no include of a file with a "
		               "[cluster] section to replace");
		return SIM_ECONF;
	}
	char line[PATH_MAX + 16];
	int len = snprintf(line, sizeof line, "include = %s", topo);
	free(L->v[found]);
	memmove(&L->v[found], &L->v[found + 1], (L->n - found - 1) * sizeof *L->v);
	L->n--;
	return insert(L, found, line, (size_t)len);
}

int sweep_topology_text(const char *path, const char *topo, const char *const *sets, size_t nsets,
                        sim_diag *diag, char **out)
{
	*out = NULL;
	lines L = {0};
	char abs[PATH_MAX];
	if (!realpath(topo, abs)) {
		sim_diag_error(diag, "podsim sweep", 0, "topology %s: cannot open the file", topo);
		return SIM_ECONF;
	}
	int rc = read_lines(path, &L);
	if (rc == SIM_ECONF)
		sim_diag_error(diag, path, 0, "cannot read the scenario");
	if (rc == SIM_OK)
		rc = swap_include(&L, path, abs, diag);
	for (size_t i = 0; rc == SIM_OK && i < nsets; i++)
		if ((rc = set_key(&L, sets[i])) == SIM_ECONF)
			sim_diag_error(diag, "<command line>", 0, "bad override '%s'", sets[i]);
	sim_buf b;
	sim_buf_init(&b);
	for (size_t i = 0; rc == SIM_OK && i < L.n; i++)
		sim_buf_printf(&b, "%s\n", L.v[i]);
	lines_free(&L);
	if (rc == SIM_OK && (b.oom || !b.data))
		rc = SIM_ENOMEM;
	if (rc != SIM_OK) {
		sim_buf_free(&b);
		return rc;
	}
	*out = b.data;
	return SIM_OK;
}

int sweep_topology_load(const char *path, const char *topo, const char *const *sets, size_t nsets,
                        sim_diag *diag, plan_scenario **out)
{
	char *text, dir[PATH_MAX];
	*out = NULL;
	int rc = sweep_topology_text(path, topo, sets, nsets, diag, &text);
	if (rc != SIM_OK)
		return rc;
	dir_of(path, dir, sizeof dir);
	rc = plan_scenario_load_string(text, path, dir, diag, out);
	free(text);
	return rc;
}

/* The GPUs of the scenario with the topology swapped in (0 on errors). */
static int topology_gpus(const char *path, const char *topo, const char *const *sets, size_t nsets,
                         sim_diag *diag)
{
	char *text, dir[PATH_MAX];
	if (sweep_topology_text(path, topo, sets, nsets, diag, &text) != SIM_OK)
		return 0;
	dir_of(path, dir, sizeof dir);
	conf_doc *doc = NULL;
	net_cluster c;
	int gpus = 0;
	if (conf_load_string(text, strlen(text), path, dir, diag, &doc) == SIM_OK &&
	    net_cluster_from_conf(doc, &c, diag) == SIM_OK)
		gpus = c.gpus;
	conf_free(doc);
	free(text);
	return gpus;
}

static int conf_int(const conf_doc *doc, const char *key)
{
	const char *v = conf_get(doc, "parallel", key, NULL);
	return v ? atoi(v) : 1;
}

int sweep_topology_base(const char *path, const char *topo, const char *const *sets, size_t nsets,
                        sim_diag *diag, plan_scenario **out)
{
	*out = NULL;
	int gpus = topology_gpus(path, topo, sets, nsets, diag);
	if (gpus <= 0)
		return SIM_ECONF;
	/* tp, pp, cp of the base plan (the scenario's, or --set's): read from
	 * the text with the user's sets applied, then dp = GPUs / (tp pp cp). */
	char *text, dir[PATH_MAX];
	if (sweep_topology_text(path, topo, sets, nsets, diag, &text) != SIM_OK)
		return SIM_ECONF;
	dir_of(path, dir, sizeof dir);
	conf_doc *doc = NULL;
	int rc = conf_load_string(text, strlen(text), path, dir, diag, &doc);
	free(text);
	if (rc != SIM_OK)
		return rc;
	int denom = conf_int(doc, "tp") * conf_int(doc, "pp") * conf_int(doc, "cp");
	conf_free(doc);
	if (denom <= 0 || gpus % denom) {
		sim_diag_error(diag, topo, 0,
		               "tp*pp*cp of the scenario does not divide its %d GPUs", gpus);
		return SIM_ECONF;
	}
	const char **all = malloc((nsets + 1) * sizeof *all);
	char dp[48];
	if (!all)
		return SIM_ENOMEM;
	for (size_t i = 0; i < nsets; i++)
		all[i] = sets[i];
	snprintf(dp, sizeof dp, "parallel.dp=%d", gpus / denom);
	all[nsets] = dp;
	rc = sweep_topology_load(path, topo, all, nsets + 1, diag, out);
	free(all);
	return rc;
}
