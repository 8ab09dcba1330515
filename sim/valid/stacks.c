/* stacks.c - which software stack a measured run ran: the shipped table
 * topologies/frameworks/stacks.csv, read by the case reader (runs.c) instead
 * of guessing from one source's name.
 *
 * Columns: match, framework, year_from, year_to, profile, attention, label,
 * why, and optionally zero_from and tp_from. A row applies to a case when `match` occurs in the case's `source`
 * and `framework` (when set) in the case's framework column (memory.csv's
 * rows: one source may have run several stacks)
 * (case-insensitive; empty matches every source) and the source's year
 * (valid_source_year; the rows with a year range need one) lies in
 * [year_from, year_to] (empty = open) and, when zero_from is set, the
 * case's ZeRO stage is at least zero_from (a source whose own framework
 * had no ZeRO-3 ran another's for such rows), and when tp_from is set its
 * tp at least tp_from (DeepSpeed has tensor parallelism only through
 * Megatron's mpu: its rows with tp > 1 ran Megatron-DeepSpeed). The first row that applies wins, so
 * specific rows come before general ones and the table ends with catch-alls
 * by date. `profile` names topologies/frameworks/PROFILE.ini; `attention`
 * (flash | unfused, empty = the profile's) records what the ecosystem ran at
 * that date (FlashAttention appeared in mid-2022 and reached Megatron-LM in
 * 2023, so earlier runs computed attention as two batched GEMMs around a
 * fused softmax over the s x s scores); `label` names the source's group in
 * validate's summary (empty: the source text itself); `why` cites the fact.
 * A case file's own `framework` column, when present and set, overrides the
 * table's profile. The recipe table (recipes.c) loads with it. */
#include "valid_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct valid_stacks {
	valid_stack *v;
	size_t n;
	valid_recipe *r; /* recipes.csv (recipes.c) */
	size_t nr;
};

bool valid_contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0)
		return true;
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] &&
		       tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

bool valid_llama_family(const char *model)
{
	static const char *const names[] = {"llama", "mistral", "mixtral", "qwen"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (valid_contains_ci(model, names[i]))
			return true;
	return false;
}

/* The year of an MLPerf Training round named "v<major>.<minor>" in an
 * MLPerf source that prints no year, 0 otherwise. MLCommons publishes the
 * rounds twice a year: v0.5 2018-12, v0.6 2019-07, v0.7 2020-07, v1.0
 * 2021-06, v1.1 2021-12, v2.0 2022-06, v2.1 2022-11, v3.0 2023-06, v3.1
 * 2023-11, v4.0 2024-06, v4.1 2024-11, v5.0 2025-06, v5.1 2025-11: from
 * v1.0 on both rounds of major M fall in 2020 + M. */
static int mlperf_round_year(const char *source)
{
	if (!valid_contains_ci(source, "mlperf"))
		return 0;
	for (const char *p = source; *p; p++) {
		if ((*p != 'v' && *p != 'V') || (p > source && isalnum((unsigned char)p[-1])) ||
		    !isdigit((unsigned char)p[1]) || p[2] != '.' || !isdigit((unsigned char)p[3]))
			continue;
		int major = p[1] - '0', minor = p[3] - '0';
		if (major == 0)
			return minor <= 5 ? 2018 : minor == 6 ? 2019 : 2020;
		return 2020 + major;
	}
	return 0;
}

int valid_source_year(const char *source)
{
	int year = 0;
	for (const char *p = source; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > source && isalnum((unsigned char)p[-1])))
			continue;
		int n = 0;
		while (isdigit((unsigned char)p[n]))
			n++;
		if (n == 4) {
			int y = atoi(p);
			if (y >= 2015 && y <= 2035 && y > year)
				year = y;
		}
		p += n - 1;
	}
	return year ? year : mlperf_round_year(source);
}

void valid_source_key(const char *source, char *out, size_t len)
{
	size_t n = strcspn(source, "(");
	while (n > 0 && source[n - 1] == ' ')
		n--;
	/* "... ground_truth_multi.csv row 17": the row number is not the source */
	for (size_t i = 0; i + 5 <= n; i++) {
		if (strncmp(source + i, " row ", 5))
			continue;
		size_t j = i + 5;
		while (j < n && isdigit((unsigned char)source[j]))
			j++;
		if (j > i + 5 && j == n) {
			n = i;
			break;
		}
	}
	snprintf(out, len, "%.*s", (int)n, source);
}

int valid_table_read(const char *datadir, const char *file, const char *const *cols, char *path,
		     size_t plen, cases_csv **out, sim_diag *diag)
{
	*out = NULL;
	snprintf(path, plen, "%s/topologies/frameworks/%s", datadir, file);
	cases_csv *c;
	int rc = cases_csv_read(path, &c, diag);
	if (rc != SIM_OK)
		return rc;
	if (cases_csv_require(c, cols, diag) > 0) {
		cases_csv_free(c);
		return SIM_ECONF;
	}
	*out = c;
	return SIM_OK;
}

/* Whether row a, ahead of row b in the table, applies to every case b
 * applies to (applies(), valid_stack_find_fw): its match and framework
 * inside b's (empty inside every text), its dates around b's (an undated
 * row applies to sources without a year, a dated one does not) and its
 * zero_from and tp_from no higher. b then never applies: the first row that
 * applies wins. */
static bool shadows(const valid_stack *a, const valid_stack *b)
{
	bool a_dated = a->year_from > 0 || a->year_to < 9999;
	bool b_dated = b->year_from > 0 || b->year_to < 9999;
	return valid_contains_ci(b->match, a->match) &&
	       (!*a->framework || (*b->framework && valid_contains_ci(b->framework, a->framework))) &&
	       (!a_dated || (b_dated && a->year_from <= b->year_from && a->year_to >= b->year_to)) &&
	       a->zero_from <= b->zero_from && a->tp_from <= b->tp_from;
}

/* A row an earlier one shadows is an error at its line: an ordering slip
 * that silently gives its sources another stack (2026-12-02: the catch-all
 * of any source up to 2022 stood before those of 2021, and 2021 sources
 * naming no framework ran Megatron-LM of 2022). */
static int check_shadowed(const valid_stacks *t, const char *path, sim_diag *diag)
{
	int rc = SIM_OK;
	for (size_t j = 1; j < t->n; j++)
		for (size_t i = 0; i < j; i++)
			if (shadows(&t->v[i], &t->v[j])) {
				sim_diag_error(diag, path, t->v[j].line,
				               "this row never applies: line %d (match '%s', "
				               "profile %s) applies first to every case it would",
				               t->v[i].line, t->v[i].match, t->v[i].profile);
				rc = SIM_ECONF;
				break;
			}
	return rc;
}

int valid_stacks_load(const char *datadir, valid_stacks **out, sim_diag *diag)
{
	*out = NULL;
	char path[1200];
	static const char *const cols[] = {"match",     "framework", "year_from", "year_to", "profile",
	                                   "attention", "label",     "why",     NULL};
	cases_csv *c;
	int rc = valid_table_read(datadir, "stacks.csv", cols, path, sizeof path, &c, diag);
	if (rc != SIM_OK)
		return rc;
	valid_stacks *t = calloc(1, sizeof *t);
	size_t n = cases_csv_rows(c);
	if (!t || !(t->v = calloc(n ? n : 1, sizeof *t->v))) {
		free(t);
		cases_csv_free(c);
		return SIM_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		valid_stack *s = &t->v[t->n];
		long from = 0, to = 9999;
		if (cases_get_int(c, i, "year_from", 0, &from, diag) != SIM_OK ||
		    cases_get_int(c, i, "year_to", 9999, &to, diag) != SIM_OK)
			rc = SIM_ECONF;
		const char *prof = cases_csv_get(c, i, cases_csv_col(c, "profile"));
		const char *att = cases_csv_get(c, i, cases_csv_col(c, "attention"));
		if (!*prof || strchr(prof, '/')) {
			sim_diag_error(diag, path, cases_csv_line(c, i),
			               "column 'profile': expected a profile name, got '%s'", prof);
			rc = SIM_ECONF;
		}
		if (*att && strcmp(att, "flash") && strcmp(att, "unfused")) {
			sim_diag_error(
			        diag, path, cases_csv_line(c, i),
			        "column 'attention': expected flash, unfused or empty, got '%s'",
			        att);
			rc = SIM_ECONF;
		}
		snprintf(s->match, sizeof s->match, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "match")));
		int fc = cases_csv_col(c, "framework");
		snprintf(s->framework, sizeof s->framework, "%s",
		         fc >= 0 ? cases_csv_get(c, i, fc) : "");
		snprintf(s->profile, sizeof s->profile, "%s", prof);
		snprintf(s->attention, sizeof s->attention, "%s", att);
		snprintf(s->label, sizeof s->label, "%s",
		         cases_csv_get(c, i, cases_csv_col(c, "label")));
		long zf = 0, tf = 0;
		if (cases_csv_col(c, "zero_from") >= 0 &&
		    cases_get_int(c, i, "zero_from", 0, &zf, diag) != SIM_OK)
			rc = SIM_ECONF;
		if (cases_csv_col(c, "tp_from") >= 0 &&
		    cases_get_int(c, i, "tp_from", 0, &tf, diag) != SIM_OK)
			rc = SIM_ECONF;
		s->year_from = (int)from;
		s->year_to = (int)to;
		s->zero_from = (int)zf;
		s->tp_from = (int)tf;
		s->line = cases_csv_line(c, i);
		t->n++;
	}
	cases_csv_free(c);
	if (rc == SIM_OK)
		rc = check_shadowed(t, path, diag);
	if (rc == SIM_OK)
		rc = valid_recipes_load(datadir, &t->r, &t->nr, diag);
	if (rc != SIM_OK) {
		valid_stacks_free(t);
		return rc;
	}
	*out = t;
	return SIM_OK;
}

const valid_recipe *valid_recipe_find(const valid_stacks *t, const char *source,
				      const char *model)
{
	return t ? valid_recipe_pick(t->r, t->nr, source, model) : NULL;
}

const valid_recipe *valid_recipe_find_plan(const valid_stacks *t, const char *source,
					   const char *model, const char *tp, const char *pp)
{
	for (size_t i = 0; t && i < t->nr;) {
		const valid_recipe *r = valid_recipe_pick(t->r + i, t->nr - i, source, model);
		if (!r)
			return NULL;
		char v[2][32];
		valid_recipe_value(r, "tp", v[0], sizeof v[0]);
		valid_recipe_value(r, "pp", v[1], sizeof v[1]);
		if ((!*tp || !*v[0] || atol(tp) == atol(v[0])) &&
		    (!*pp || !*v[1] || atol(pp) == atol(v[1])))
			return r;
		i = (size_t)(r - t->r) + 1; /* another run's line: the next */
	}
	return NULL;
}

void valid_stacks_free(valid_stacks *t)
{
	if (!t)
		return;
	free(t->r);
	free(t->v);
	free(t);
}

/* Whether row s applies to a case of a source of `year` that ran `ran`:
 * its dates (rows with a year range need a year) and its zero_from and
 * tp_from. */
static bool applies(const valid_stack *s, int year, valid_ran ran)
{
	bool dated = s->year_from > 0 || s->year_to < 9999;
	if (dated && (year == 0 || year < s->year_from || year > s->year_to))
		return false;
	return !(s->zero_from > 0 && ran.zero < s->zero_from) &&
	       !(s->tp_from > 0 && ran.tp < s->tp_from);
}

const valid_stack *valid_stack_find(const valid_stacks *t, const char *source, valid_ran ran)
{
	return valid_stack_find_fw(t, source, NULL, ran);
}

const valid_stack *valid_stack_find_fw(const valid_stacks *t, const char *source,
				       const char *framework, valid_ran ran)
{
	int year = valid_source_year(source);
	for (size_t i = 0; t && i < t->n; i++) {
		const valid_stack *s = &t->v[i];
		if (!valid_contains_ci(source, s->match))
			continue;
		if (*s->framework && (!framework || !valid_contains_ci(framework, s->framework)))
			continue;
		if (!applies(s, year, ran))
			continue;
		return s;
	}
	return NULL;
}

const valid_stack *valid_stack_named_nth(const valid_stacks *t, const char *source,
					 valid_ran ran, size_t k)
{
	int year = valid_source_year(source);
	for (size_t i = 0; t && i < t->n; i++) {
		const valid_stack *s = &t->v[i];
		if (*s->framework && valid_contains_ci(source, s->match) && applies(s, year, ran) &&
		    k-- == 0)
			return s;
	}
	return NULL;
}

/* Whether topologies/frameworks/<name>.ini exists under the data folder. */
static bool profile_exists(const char *datadir, const char *name)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/topologies/frameworks/%s.ini", datadir ? datadir : ".",
	         name);
	FILE *f = *name && !strchr(name, '/') ? fopen(path, "r") : NULL;
	if (f)
		fclose(f);
	return f != NULL;
}

/* Whether `name`, or `name` without its '-'s, is a profile's (out: which). */
static bool profile_named(const valid_options *opt, const char *name, char *out, size_t len)
{
	char bare[64];
	size_t b = 0;
	for (size_t i = 0; name[i] && b + 1 < sizeof bare; i++)
		if (name[i] != '-')
			bare[b++] = name[i];
	bare[b] = 0;
	const char *hit = profile_exists(opt->datadir, name)   ? name
	                  : profile_exists(opt->datadir, bare) ? bare
	                                                       : NULL;
	if (hit)
		snprintf(out, len, "%s", hit);
	return hit != NULL;
}

const char *valid_framework_profile(const valid_options *opt, const char *fw, const char *source,
                                    valid_ran ran, char *out, size_t len, const valid_stack **st)
{
	*st = NULL;
	if (profile_exists(opt->datadir, fw)) {
		snprintf(out, len, "%s", fw);
		return "its profile";
	}
	/* a stack row whose match the name holds, dated by the row's source */
	int year = valid_source_year(source);
	for (size_t i = 0; opt->stacks && i < opt->stacks->n; i++) {
		const valid_stack *s = &opt->stacks->v[i];
		if (!*s->match || *s->framework || !valid_contains_ci(fw, s->match) ||
		    !applies(s, year, ran))
			continue;
		*st = s;
		snprintf(out, len, "%s", s->profile);
		return "stacks.csv";
	}
	/* the name as a profile's: lower case, '-' for blanks, before any
	 * '(' or '+', then without trailing '-' parts (a version or commit),
	 * from each word on ("MosaicML llm-foundry": llm-foundry), and each
	 * of those without its '-'s ("Colossal-AI": colossalai) */
	char full[64];
	size_t n = 0;
	for (const char *p = fw; *p && *p != '(' && *p != '+' && n + 1 < sizeof full; p++)
		full[n++] = *p == ' ' || *p == '_' ? '-' : (char)tolower((unsigned char)*p);
	while (n > 0 && full[n - 1] == '-')
		n--;
	full[n] = 0;
	for (const char *from = full; *from;) {
		char name[64];
		snprintf(name, sizeof name, "%s", from);
		while (*name) { /* without its trailing '-' parts, one at a time */
			if (profile_named(opt, name, out, len))
				return "its name";
			char *dash = strrchr(name, '-');
			*(dash ? dash : name) = 0;
		}
		const char *next = strchr(from, '-');
		from = next ? next + 1 : from + strlen(from);
	}
	return NULL;
}
