/* recipes.c - what a published run's recipe fixed beyond its table's columns:
 * the shipped table topologies/frameworks/recipes.csv, read with stacks.csv
 * (stacks.c owns both) by the case reader (runs.c).
 *
 * A benchmark table gives a row's parallel plan but not every switch its
 * recipe set; where a recipe in the framework's repository sets one that
 * changes the step, and the row's columns and note leave it open, a line of
 * this table gives it, citing the recipe's file and commit.
 *
 * Columns: match, model, parallel, why. A line applies to a case when `match`
 * occurs in the case's `source` and `model` in its model column followed by
 * its shape, "{layers=L,hidden=H}" (runs.c: "8B {layers=32,hidden=4096}",
 * "8B {layers=,hidden=}" where the columns are open), so a benchmark's model
 * is known by its name or by its dimensions (case-insensitive; either
 * pattern may list alternatives joined by '|'; empty matches all); the
 * first line that applies wins.
 * `parallel` is one or more `key = value` of the [parallel] section joined by
 * ';', each key checked against plan's table (an unknown key is an error at
 * its line), or `model.key = value` of the [model] section (a fact of the
 * model as the recipe builds it that the table's columns do not carry, such
 * as its linear biases), checked against work's table, or `train.key = value`
 * of the [train] section (the recipe's fp8 scaling); runs.c writes them
 * into the row's [parallel], [model] or [train] section, except a key the
 * row's own columns already set, and names them as the row's assumption; a
 * model.* key also stands for the architecture column the row leaves open
 * (its hidden and ffn decide the layer kind, valid_swiglu). */
#include "valid_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Whether the k bytes at p name a key of table t. */
static bool key_in(const conf_key *t, size_t n, const char *p, size_t k)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(t[i].name) == k && !strncmp(t[i].name, p, k))
			return true;
	return false;
}

/* One ';'-separated item of a recipe's `parallel` text: the item without
 * its surrounding spaces, its key (before '=', spaces trimmed; empty without
 * '=') and its value (after it, trimmed). */
typedef struct item {
	const char *text, *key, *val;
	size_t tlen, klen, vlen;
} item;

/* The item that starts at p into *it; the next item's start, or NULL after
 * the last. */
static const char *next_item(const char *p, item *it)
{
	size_t n = strcspn(p, ";"), s = 0, e = n;
	while (s < n && isspace((unsigned char)p[s]))
		s++;
	while (e > s && isspace((unsigned char)p[e - 1]))
		e--;
	const char *eq = memchr(p + s, '=', e - s);
	size_t k = eq ? (size_t)(eq - (p + s)) : 0;
	while (k > 0 && isspace((unsigned char)p[s + k - 1]))
		k--;
	const char *v = eq ? eq + 1 : p + e;
	while (v < p + e && isspace((unsigned char)*v))
		v++;
	*it = (item){p + s, p + s, v, e - s, k, (size_t)(p + e - v)};
	return p[n] == ';' ? p + n + 1 : NULL;
}

/* Whether every ';'-separated item of text is `key = value` with a
 * [parallel] key, `model.key = value` with a [model] key or `train.key =
 * value` with a [train] key; the first bad item's text goes to bad. */
static bool parallel_ok(const char *text, char *bad, size_t len)
{
	for (const char *p = text; p;) {
		const char *at = p;
		item it;
		p = next_item(p, &it);
		const char *k = it.key;
		size_t kl = it.klen;
		bool model = kl > 6 && !strncmp(k, "model.", 6);
		bool train = kl > 6 && !strncmp(k, "train.", 6);
		bool known = kl > 0 &&
			     (model   ? key_in(work_model_keys, work_model_nkeys, k + 6, kl - 6)
			      : train ? key_in(plan_train_keys, plan_train_nkeys, k + 6, kl - 6)
				      : key_in(plan_spec_keys, plan_spec_nkeys, k, kl));
		if (!known) {
			snprintf(bad, len, "%.*s", (int)strcspn(at, ";"), at);
			return false;
		}
	}
	return true;
}

/* The '|'-separated alternative of a pattern that starts at *p into one
 * (len bytes); *p moves past it and its '|', to NULL after the last. */
static void next_alt(const char **p, char *one, size_t len)
{
	size_t n = strcspn(*p, "|");
	snprintf(one, len, "%.*s", (int)(n < len - 1 ? n : len - 1), *p);
	*p = (*p)[n] == '|' ? *p + n + 1 : NULL;
}

/* Whether one of the '|'-separated alternatives of pat occurs in hay
 * (case-insensitive; an empty pattern matches all). */
static bool contains_any_ci(const char *hay, const char *pat)
{
	char one[128];
	for (const char *p = pat; p;) {
		next_alt(&p, one, sizeof one);
		if (valid_contains_ci(hay, one))
			return true;
	}
	return false;
}

/* Whether every text pattern b matches, pattern a matches too: each of b's
 * alternatives holds one of a's. */
static bool covers(const char *a, const char *b)
{
	char one[128];
	for (const char *p = b; p;) {
		next_alt(&p, one, sizeof one);
		if (!contains_any_ci(one, a))
			return false;
	}
	return true;
}

/* A line an earlier line shadows (its match and model patterns match
 * wherever the later's do: the first line that applies wins) is an error at
 * its line, as in stacks.csv. */
static int check_shadowed(const valid_recipe *v, size_t n, const char *path, sim_diag *diag)
{
	int rc = SIM_OK;
	for (size_t j = 1; j < n; j++)
		for (size_t i = 0; i < j; i++)
			if (covers(v[i].match, v[j].match) && covers(v[i].model, v[j].model)) {
				sim_diag_error(diag, path, v[j].line,
				               "this line never applies: line %d (match '%s', model "
				               "'%s') applies first to every case it would",
				               v[i].line, v[i].match, v[i].model);
				rc = SIM_ECONF;
				break;
			}
	return rc;
}

int valid_recipes_load(const char *datadir, valid_recipe **out, size_t *nout, sim_diag *diag)
{
	*out = NULL;
	*nout = 0;
	char path[1200];
	static const char *const cols[] = {"match", "model", "parallel", "why", NULL};
	cases_csv *c;
	int rc = valid_table_read(datadir, "recipes.csv", cols, path, sizeof path, &c, diag);
	if (rc != SIM_OK)
		return rc;
	size_t n = cases_csv_rows(c);
	valid_recipe *v = calloc(n ? n : 1, sizeof *v);
	if (!v) {
		cases_csv_free(c);
		return SIM_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const char *par = cases_csv_get(c, i, cases_csv_col(c, "parallel"));
		char bad[160];
		if (strlen(par) >= sizeof v[i].parallel || !parallel_ok(par, bad, sizeof bad)) {
			sim_diag_error(diag, path, cases_csv_line(c, i),
				       "column 'parallel': expected 'key = value' of [parallel], "
				       "'model.key = value' of [model] or 'train.key = value' of "
				       "[train] joined by ';', got '%s'",
				       strlen(par) >= sizeof v[i].parallel ? par : bad);
			rc = SIM_ECONF;
		}
		snprintf(v[i].match, sizeof v[i].match, "%s",
			 cases_csv_get(c, i, cases_csv_col(c, "match")));
		snprintf(v[i].model, sizeof v[i].model, "%s",
			 cases_csv_get(c, i, cases_csv_col(c, "model")));
		snprintf(v[i].parallel, sizeof v[i].parallel, "%s", par);
		v[i].line = cases_csv_line(c, i);
	}
	cases_csv_free(c);
	if (rc == SIM_OK)
		rc = check_shadowed(v, n, path, diag);
	if (rc != SIM_OK) {
		free(v);
		return rc;
	}
	*out = v;
	*nout = n;
	return SIM_OK;
}

const valid_recipe *valid_recipe_pick(const valid_recipe *v, size_t n, const char *source,
				      const char *model)
{
	for (size_t i = 0; v && i < n; i++)
		if (contains_any_ci(source, v[i].match) && contains_any_ci(model, v[i].model))
			return &v[i];
	return NULL;
}

/* A column of the row as the readers take it (valid_loose). */
static const char *cell(const cases_csv *c, size_t row, const char *col)
{
	return valid_loose(col, cases_csv_get(c, row, cases_csv_col(c, col)));
}

const valid_recipe *valid_row_recipe(const valid_options *opt, const cases_csv *c, size_t row)
{
	if (!opt || !opt->stacks)
		return NULL;
	/* the shape: the row's columns, else its model file's (a row naming
	 * "GPT-3 175B" alone is 96 layers of 12,288) */
	char desc[200], l[32], h[32];
	const char *model = cell(c, row, "model"), *lc = cell(c, row, "layers"),
		   *hc = cell(c, row, "hidden");
	if (!*lc)
		lc = valid_model_file_key(opt->datadir, model, "layers", l, sizeof l);
	if (!*hc)
		hc = valid_model_file_key(opt->datadir, model, "hidden", h, sizeof h);
	snprintf(desc, sizeof desc, "%s {layers=%s,hidden=%s} {gpus=%s}", model, lc, hc,
	         cell(c, row, "gpus"));
	return valid_recipe_find_plan(opt->stacks, cell(c, row, "source"), desc, cell(c, row, "tp"),
	                              cell(c, row, "pp"));
}

const char *valid_recipe_value(const valid_recipe *r, const char *key, char *out, size_t len)
{
	*out = 0;
	for (const char *p = r ? r->parallel : NULL; p;) {
		item it;
		p = next_item(p, &it);
		if (it.klen == strlen(key) && !strncmp(it.key, key, it.klen)) {
			snprintf(out, len, "%.*s", (int)it.vlen, it.val);
			break;
		}
	}
	return out;
}

/* The keys of the row's recipe line (recipes.c) with the prefix `sect`
 * ("model." or "train."; "" for the [parallel] keys, which have none),
 * written without it into the section that starts at offset `from` of b,
 * each but a key the section already has; the line is named as the row's
 * assumption. */
void valid_put_recipe(sim_buf *b, size_t from, const valid_recipe *r, const char *sect,
		      char *assumed, size_t alen)
{
	if (!r || b->oom || from > b->len)
		return;
	for (const char *p = r->parallel; p;) {
		item it;
		p = next_item(p, &it);
		size_t pre = it.klen > 6 && (!strncmp(it.key, "model.", 6) ||
					     !strncmp(it.key, "train.", 6))
				     ? 6
				     : 0;
		char key[64];
		snprintf(key, sizeof key, "\n%.*s =", (int)(it.klen - pre < 60 ? it.klen - pre : 60),
			 it.key + pre);
		bool mine = pre ? !strncmp(it.key, sect, pre) && strlen(sect) == pre : !*sect;
		if (mine && !strstr(b->data + from, key)) {
			sim_buf_printf(b, "%.*s\n", (int)(it.tlen - pre), it.text + pre);
			valid_assume(assumed, alen, "%.*s (recipes.csv line %d)", (int)it.tlen, it.text,
			             r->line);
		}
	}
}

const char *valid_arch_value(const cases_csv *c, size_t row, const valid_recipe *r,
			     const char *col, char *out, size_t len)
{
	const char *v = cases_csv_get(c, row, cases_csv_col(c, col));
	if (*v)
		return v;
	char key[32];
	snprintf(key, sizeof key, "model.%s", col);
	return valid_recipe_value(r, key, out, len);
}
