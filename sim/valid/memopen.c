/* memopen.c - a memory row whose framework column is open, where its source
 * ran several stacks (valid_int.h: valid_open_framework).
 *
 * stacks.csv keys such a source's rows by the framework the case names
 * (ATorch's Llama 2 table: "atorch fsdp" and "deepspeed 3d"; PEFT's guides:
 * "deepspeed" and "fsdp"; ColossalAI's Lightning benchmark: "ddp",
 * "deepspeed", "colossalai"). A row that leaves the column open used to
 * fall through to whatever unkeyed row its source text matched (ATorch's
 * "fsdp_llama2_entry.sh" made every one PyTorch FSDP, which refused the
 * DeepSpeed pipeline rows and read their tensor parallelism as FSDP's),
 * or to the default. The run happened under one of the source's stacks,
 * and the plan tells them apart where their frameworks' rules do (FSDP
 * runs no pipeline beside a ZeRO stage, Lightning's DDP no ZeRO): the
 * keyed rows whose profiles load the row's plan without a rule refusing
 * it are the candidates, and of them the one the row's note names first
 * (PEFT's FSDP QLoRA row: "FSDP FULL_SHARD with fsdp_offload_params"),
 * else the first in the table's order; where none loads it, the first
 * (its rules then set aside as for any measured run, valid_rule_waivers).
 * The cell holds its framework text, and the row says so. Where the table's own unkeyed
 * row for the same source text applies, that row is the source's default
 * and the column stays open. */
#include "valid_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* The run's ZeRO stage and tp for the stack rows' conditions, as
 * memrows.c's row_profile reads them (an open zero cell: 0). */
static valid_ran row_ran(const cases_csv *c, size_t row)
{
	int z = cases_csv_col(c, "zero"), t = cases_csv_col(c, "tp");
	valid_ran ran = {z >= 0 ? atoi(cases_csv_get(c, row, z)) : 0,
	                 t >= 0 ? atoi(cases_csv_get(c, row, t)) : 0};
	return ran;
}

/* Whether the source's keyed rows stand for it: some apply, and no unkeyed
 * row with the first one's match applies before them. */
static const valid_stack *first_keyed(const valid_options *opt, const char *src, valid_ran ran)
{
	const valid_stack *k = valid_stack_named_nth(opt->stacks, src, ran, 0);
	const valid_stack *u = valid_stack_find(opt->stacks, src, ran);
	return k && !(u && !strcmp(u->match, k->match)) ? k : NULL;
}

/* The k-th (from 0) of the source's keyed rows `first` stands for (those
 * with its match), or NULL past them. */
static const valid_stack *keyed(const valid_options *opt, const char *src, valid_ran ran,
                                const valid_stack *first, size_t k)
{
	const valid_stack *s = first ? valid_stack_named_nth(opt->stacks, src, ran, k) : NULL;
	return s && !strcmp(s->match, first->match) ? s : NULL;
}

/* Whether the row's plan loads under the framework its cell now names. */
static bool plan_loads(const cases_csv *c, size_t row, const valid_options *opt)
{
	sim_buf b;
	sim_buf_init(&b);
	char assumed[1024] = "";
	int stage = 0;
	bool ok = !valid_memory_text(c, row, "", opt, &b, assumed, sizeof assumed, &stage) &&
	          !b.oom;
	if (ok) {
		sim_diag *d = sim_diag_new();
		plan_scenario *s = NULL;
		ok = d && plan_scenario_load_string(b.data, "<case>", opt->datadir, d, &s) == SIM_OK;
		plan_scenario_free(s);
		sim_diag_free(d);
	}
	sim_buf_free(&b);
	return ok;
}

/* Where the row's note first names the stack's framework (the note's length
 * where it does not). */
static size_t named_at(const cases_csv *c, size_t row, const valid_stack *s)
{
	int col = cases_csv_col(c, "note");
	const char *note = col >= 0 ? cases_csv_get(c, row, col) : "";
	size_t n = strlen(note), k = strlen(s->framework);
	for (size_t i = 0; k && i + k <= n; i++)
		if (!strncasecmp(note + i, s->framework, k))
			return i;
	return n;
}

int valid_open_framework(cases_csv *c, size_t row, const valid_options *opt)
{
	int col = cases_csv_col(c, "framework"), src_col = cases_csv_col(c, "source");
	if (col < 0 || src_col < 0 || !opt->stacks || *cases_csv_get(c, row, col))
		return SIM_OK;
	const char *src = cases_csv_get(c, row, src_col);
	valid_ran ran = row_ran(c, row);
	const valid_stack *first = first_keyed(opt, src, ran), *pick = NULL;
	size_t at = SIZE_MAX;
	const valid_stack *s;
	for (size_t k = 0; (s = keyed(opt, src, ran, first, k)); k++) {
		int rc = cases_csv_set(c, row, col, s->framework);
		if (rc != SIM_OK)
			return rc;
		size_t a = named_at(c, row, s);
		if ((!pick || a < at) && plan_loads(c, row, opt)) {
			pick = s;
			at = a;
		}
	}
	return first ? cases_csv_set(c, row, col, (pick ? pick : first)->framework) : SIM_OK;
}

void valid_open_framework_said(const cases_csv *c, size_t row, const valid_options *opt,
                               char *assumed, size_t alen)
{
	int col = cases_csv_col(c, "framework"), src_col = cases_csv_col(c, "source");
	if (col < 0 || src_col < 0 || !opt->stacks || *cases_csv_written(c, row, col) ||
	    !*cases_csv_get(c, row, col))
		return;
	const char *src = cases_csv_get(c, row, src_col);
	valid_ran ran = row_ran(c, row);
	const valid_stack *first = first_keyed(opt, src, ran);
	char lines[64] = "";
	int line = 0;
	const valid_stack *s;
	for (size_t k = 0; (s = keyed(opt, src, ran, first, k)); k++) {
		if (!strcmp(s->framework, cases_csv_get(c, row, col)))
			line = s->line;
		size_t n = strlen(lines);
		snprintf(lines + n, sizeof lines - n, "%s%d", n ? ", " : "", s->line);
	}
	valid_assume(assumed, alen,
	             "framework open: '%s' (stacks.csv line %d, of its source's lines %s: the one "
	             "whose profile runs the plan, the note's first named where several do)",
	             cases_csv_get(c, row, col), line, lines);
}
