/* memory.c - per-rank HBM budget of a plan, by category. */
#include "plan.h"

const char *plan_mem_name(plan_mem m)
{
	static const char *const names[PLAN_MEM_COUNT] = {
		"weights", "gradients", "optimizer_states", "activations", "buffers", "fragmentation"};
	return (unsigned)m < PLAN_MEM_COUNT ? names[m] : "?";
}
