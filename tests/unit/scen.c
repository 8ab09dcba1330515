/* scen.c - see scen.h. */
#include "scen.h"

#include "check.h"

#include <stdio.h>
#include <string.h>

plan_scenario *scen_load(const char *text)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	int rc = plan_scenario_load_string(text, "<test>", ".", d, &s);
	if (rc != SIM_OK)
		for (size_t i = 0; i < sim_diag_count(d); i++)
			fprintf(stderr, "%s\n", sim_diag_text(d, i));
	CHECK_INT(rc, SIM_OK);
	sim_diag_free(d);
	return s;
}

plan_scenario *scen_file(const char *path, const char *const *sets, size_t n)
{
	sim_diag *d = sim_diag_new();
	plan_scenario *s = NULL;
	CHECK_INT(plan_scenario_load(path, sets, n, d, &s), SIM_OK);
	sim_diag_print(d, stderr);
	sim_diag_free(d);
	return s;
}

double scen_term(const plan_mem_peak *p, const char *name)
{
	double b = 0;
	for (int i = 0; i < p->nterms; i++)
		if (!strcmp(p->term[i].name, name))
			b += p->term[i].bytes;
	return b;
}
