/* result.c - names of the result categories (the JSON keys of a breakdown). */
#include "exec.h"

const char *exec_cat_name(exec_cat c)
{
	static const char *const names[EXEC_CAT_COUNT] = {
		"compute", "optimizer", "tp", "cp", "ep", "dp", "pp", "bubble", "offload", "other"};
	return (unsigned)c < EXEC_CAT_COUNT ? names[c] : "?";
}

double exec_class_allocated(const exec_class *c)
{
	double a = 0;
	for (int m = 0; m < PLAN_MEM_FRAGMENTATION; m++)
		a += c->mem_bytes[m];
	return a;
}

double exec_class_reserved(const exec_class *c)
{
	return exec_class_allocated(c) + c->mem_bytes[PLAN_MEM_FRAGMENTATION];
}

double exec_class_needed(const exec_class *c)
{
	return exec_class_allocated(c) + c->mem_bytes[PLAN_MEM_RUNTIME];
}

plan_verdict exec_class_verdict(const exec_class *c, double capacity)
{
	return plan_mem_verdict(exec_class_allocated(c), c->mem_bytes[PLAN_MEM_RUNTIME],
				c->mem_total_bytes, capacity);
}

int exec_mem_worst(const exec_result *r)
{
	int worst = -1;
	for (int i = 0; i < r->nclasses; i++)
		if (worst < 0 || r->classes[i].mem_total_bytes > r->classes[worst].mem_total_bytes)
			worst = i;
	return worst;
}

plan_verdict exec_mem_verdict(const exec_result *r)
{
	int worst = exec_mem_worst(r);
	return worst >= 0 ? exec_class_verdict(&r->classes[worst], r->mem_capacity_bytes)
	                  : PLAN_VERDICT_FITS;
}
